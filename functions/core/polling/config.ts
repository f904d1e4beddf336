import * as z from 'zod';
import { type DiffConfig, diffConfigSchema } from '../detection/config';

/** Settings the diff engine shares: their bounds and defaults have one home, its schema. */
const shared = diffConfigSchema.shape;

/**
 * Settings of the poll pipeline. Every field has a default;
 * `parsePollingConfig` validates user input (environment) and names the field on error.
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * `carhook`: learned change rates, reads by index within the guarantees (README "How a cycle is
 * planned"); `round-robin`: the fair baseline, every vehicle's events in a fixed order, active
 * alerts with them, no learning; `naive`: 4 requests per vehicle per cycle.
 */
export const pollStrategies = ['carhook', 'round-robin', 'naive'] as const;
export type PollStrategy = (typeof pollStrategies)[number];

/** What a v2 vehicle poll may read, in the order it reads them (events first: they tell what else changed). */
export const vehicleResources = [
  'events',
  'alerts',
  'collisions',
  'trips',
  'maintenance',
  'services',
  'map',
] as const;
export type VehicleResource = (typeof vehicleResources)[number];

/** The resources the naive strategy reads for every vehicle every cycle. */
export const NAIVE_RESOURCES: readonly VehicleResource[] = ['events', 'alerts', 'collisions', 'maintenance'];

export const pollingConfigSchema = z.object({
  strategy: z.enum(pollStrategies).default('carhook'),
  /** How often the planner runs. */
  cycleMs: z.number().int().positive().default(MINUTE),
  /**
   * Every vehicle's events (and the alerts of a vehicle with alerts active) are read at least every
   * `G = max(maxStalenessMs, 2 × N / R)` (N vehicles, or vehicles with active alerts; R requests a
   * cycle): this bound when the quota allows it, twice the fair round's length when it does not.
   */
  maxStalenessMs: z
    .number()
    .int()
    .positive()
    .default(15 * MINUTE),
  /**
   * Two reads of a vehicle's active alerts are at least this far apart (one cycle: every cycle
   * when the budget allows). A fix is not an event: only an alert read sees it.
   */
  activeAlertsEveryMs: z.number().int().positive().default(MINUTE),
  /**
   * Half-life of the learned change rates: a vehicle that starts or stops driving is followed within
   * a few (the estimate moves halfway to a new rate in one half-life), while a longer memory counts
   * more changes per estimate (README "How a cycle is planned": 6 h measured against 4, 8, 12 h).
   */
  rateHalfLifeMs: z
    .number()
    .int()
    .positive()
    .default(6 * HOUR),
  /**
   * Least weight of the prior (the fleet's pooled rates) in each vehicle's events-rate estimate, as
   * hours of observation (the weight itself is learned from the fleet's spread), and the weight of
   * the fix-rate prior.
   */
  ratePriorMs: z.number().int().positive().default(HOUR),
  /** Prior rate of changes the events feed reveals, per vehicle-hour, before the fleet has any history. */
  priorEventsPerHour: z.number().positive().max(3600).default(0.5),
  /** Prior fix rate per active alert and hour (1 / the mean hours an alert stays active), likewise. */
  priorFixesPerHour: z.number().positive().max(3600).default(1),
  /**
   * Share of each cycle's budget the planner leaves unbooked for the follow-ups polls discover
   * (eco-driving after a trip, maintenance after a trip, announced collisions or trips): a cycle
   * that books its whole budget has those follow-ups refused, and every poll after them stopped.
   */
  followUpReserveRatio: z.number().min(0).max(0.5).default(0.02),
  /**
   * Follow-up reads one change of the events feed costs on average (a trip: its eco-driving and the
   * maintenance read after it; an alert raised, a refuel: none). With the learned rates it sizes the
   * reserve of `carhook`: the follow-ups the fleet is expected to reveal in a cycle, when that is
   * more than `followUpReserveRatio` (never more than half the budget).
   */
  followUpsPerChange: z.number().min(0).max(10).default(1),
  /** A complete alert list at least this often (catches what events did not reveal). */
  alertsReconcileMs: shared.alertsReconcileMs,
  /** Maintenance refresh period (besides the read after a trip). */
  dailyMs: shared.dailyMs,
  /** Services refresh period (`--services-interval`, `CARHOOK_SERVICES_INTERVAL_SECONDS`). */
  servicesIntervalMs: shared.servicesMs,
  /** Map update refresh period, in bulk (`--map-interval`, `CARHOOK_MAP_INTERVAL_SECONDS`). */
  mapIntervalMs: shared.mapMs,
  /**
   * The first events read of a vehicle (no cursor yet) looks back this far. What it finds is
   * history (no event is reported for it), but the feed returns every record of the window, so the
   * planner counts it as the vehicle's past and starts from a learned rate, not the prior alone.
   */
  initialEventsLookbackMs: z.number().int().positive().default(DAY),
  /** Collision and trip lists are read over this window. */
  listWindowMs: z.number().int().positive().default(DAY),
  /** Page size of v2 lists (the simulator allows up to 100; the API states no maximum). */
  pageLimit: z.number().int().min(1).max(1000).default(100),
  /** Records not advancing this long: `vehicle.reporting.stopped` (`--silence-after`; passed to the diff engine). */
  silenceAfterMs: shared.silenceAfterMs,
  /** Maintenance is due when days left ≤ `days` OR km left ≤ `mileageKm` (passed to the diff engine). */
  maintenanceDue: shared.maintenanceDue,
  /**
   * Absences confirmed before they are fixes (passed to the diff engine). `false` only in the
   * fault-injection benchmark, to measure what confirming costs against not confirming.
   */
  confirmAbsences: shared.confirmAbsences,
  /**
   * VINs per v1 bulk POST; a batch the server refuses with 400 is split in halves. 100 is the
   * simulator's maximum (the API states none): one 4-request job covers 100 vehicles, so one
   * cycle refreshes about 2,500 fleet vehicles under the default quota (BENCHMARKS.md, fleet). A
   * larger value than the server accepts still works, at the cost of the refused request and two
   * halves per list, every cycle.
   */
  fleetBatchSize: z.number().int().min(1).max(10_000).default(100),
  /** VINs per map bulk request (POST /mapway/bulk); a refused batch is split in halves. */
  mapBatchSize: z.number().int().min(1).max(10_000).default(50),
  /** v1 `locale` parameter. */
  fleetLocale: z.string().default('en_GB'),
  /** Re-diffs after a VersionConflict before the job gives up (and is retried by the queue). */
  conflictRetries: z.number().int().min(0).max(20).default(3),
  /** Eco-driving reads per poll at most (trips waiting for their evaluation). */
  maxEcodrivingReads: z.number().int().min(0).max(20).default(3),
  /** The user's vehicle list is re-read this often (vehicle discovery). */
  discoveryIntervalMs: z
    .number()
    .int()
    .positive()
    .default(6 * HOUR),
  /** Vehicles the planner looks at per run at most. */
  maxVehiclesPerRun: z.number().int().positive().default(10_000),
});

export type PollingConfig = z.output<typeof pollingConfigSchema>;
export type PollingConfigInput = z.input<typeof pollingConfigSchema>;

export const DEFAULT_POLLING_CONFIG: PollingConfig = pollingConfigSchema.parse({});

export function pollingConfig(overrides: Partial<PollingConfig> = {}): PollingConfig {
  return { ...DEFAULT_POLLING_CONFIG, ...overrides };
}

export type PollingConfigError = {
  readonly kind: 'InvalidConfig';
  readonly field: string;
  readonly reason: string;
};

export function parsePollingConfig(
  input: unknown,
): { ok: true; config: PollingConfig } | { ok: false; errors: readonly PollingConfigError[] } {
  const parsed = pollingConfigSchema.safeParse(input ?? {});
  if (parsed.success) return { ok: true, config: parsed.data };
  return {
    ok: false,
    errors: parsed.error.issues.map((i) => ({
      kind: 'InvalidConfig',
      field: `polling.${i.path.join('.')}`,
      reason: i.message,
    })),
  };
}

/** The diff engine settings that must agree with the poll cadence. */
export function diffConfigFor(config: PollingConfig): Partial<DiffConfig> {
  return {
    alertsReconcileMs: config.alertsReconcileMs,
    dailyMs: config.dailyMs,
    servicesMs: config.servicesIntervalMs,
    mapMs: config.mapIntervalMs,
    maintenanceDue: config.maintenanceDue,
    confirmAbsences: config.confirmAbsences,
    silenceAfterMs: config.silenceAfterMs,
  };
}
