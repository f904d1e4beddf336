import * as z from 'zod';
import type { DiffConfig } from '../detection/config';

/**
 * Settings of the poll pipeline (DESIGN.md "Polling within the quota"). Every field has a default;
 * `parsePollingConfig` validates user input (environment) and names the field on error.
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** `carhook`: per-resource cadence; `naive`: the benchmark baseline, 4 requests per vehicle per cycle. */
export const pollStrategies = ['carhook', 'naive'] as const;
export type PollStrategy = (typeof pollStrategies)[number];

/** What a v2 vehicle poll may read. */
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

/** The resources the naive strategy reads for every vehicle every cycle (DESIGN.md). */
export const NAIVE_RESOURCES: readonly VehicleResource[] = ['events', 'alerts', 'collisions', 'maintenance'];

export const pollingConfigSchema = z.object({
  strategy: z.enum(pollStrategies).default('carhook'),
  /** How often the planner runs. */
  cycleMs: z.number().int().positive().default(MINUTE),
  /** Every vehicle is polled at least this often, whatever the priorities. */
  maxStalenessMs: z
    .number()
    .int()
    .positive()
    .default(10 * MINUTE),
  /** A vehicle with activity (trip, event, alert) this recent goes before quiet ones. */
  recentActivityMs: z.number().int().positive().default(HOUR),
  /**
   * Vehicles with alerts known active have their alert list read this often, to see the alerts
   * fixed (a fix is not an event). Staggered per vehicle, so it costs no write; one cycle = every cycle.
   */
  activeAlertsEveryMs: z
    .number()
    .int()
    .positive()
    .default(5 * MINUTE),
  /**
   * Share of each cycle's budget the planner leaves unbooked for the follow-ups polls discover
   * (eco-driving after a trip, maintenance after a trip, announced collisions or trips): a cycle
   * that books its whole budget has those follow-ups refused, and every poll after them stopped.
   */
  followUpReserveRatio: z.number().min(0).max(0.5).default(0.02),
  /** A complete alert list at least this often (catches what events did not reveal). */
  alertsReconcileMs: z
    .number()
    .int()
    .positive()
    .default(6 * HOUR),
  /** Maintenance, services and map refresh period. */
  dailyMs: z.number().int().positive().default(DAY),
  /** The first events read of a vehicle (no cursor yet) looks back this far. */
  initialEventsLookbackMs: z.number().int().positive().default(HOUR),
  /** Collision and trip lists are read over this window. */
  listWindowMs: z.number().int().positive().default(DAY),
  /** Page size of v2 lists (the simulator allows up to 100; spec 8 does not show a maximum). */
  pageLimit: z.number().int().min(1).max(1000).default(100),
  /** Maintenance is due when days left ≤ `days` OR km left ≤ `mileageKm` (passed to the diff engine). */
  maintenanceDue: z
    .object({ days: z.number().int().nonnegative(), mileageKm: z.number().int().nonnegative() })
    .default({ days: 30, mileageKm: 1000 }),
  /**
   * VINs per v1 bulk POST; a batch the server refuses with 400 is split in halves. 100 is the
   * simulator's maximum (spec 8 does not show one): one 4-request job covers 100 vehicles, so one
   * cycle refreshes about 2,500 fleet vehicles under the default quota (BENCHMARKS.md, fleet). A
   * larger value than the server accepts still works, at the cost of the refused request and two
   * halves per list, every cycle.
   */
  fleetBatchSize: z.number().int().min(1).max(10_000).default(100),
  /** VINs per map bulk request (POST /mapway/bulk, spec 4.3); a refused batch is split in halves. */
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
    maintenanceDue: config.maintenanceDue,
  };
}
