/**
 * Capacity the operator can read: from the learned rates and the quota the budget follows, the
 * planner's model (./lag.ts) answers per kind of change: the staleness it guarantees, the mean and
 * p95 lag it expects for the fleet as it is, how many vehicles like the current ones fit before a
 * target is missed, and the quota that would meet a target for the current fleet.
 *
 * A fleet grown by a factor f (more vehicles like the current ones) has f times the items and the
 * changes; its guarantee and allocation are those of the current fleet with reads / f, so growing
 * the fleet and shrinking the quota are the same question.
 *
 * Pure: no IO, no clock (the rates are given as of the time of the answer).
 */
import type { PollingConfig, PollStrategy } from '../polling/config';
import { followUpReserve, learnedReserve } from '../polling/reads';
import { guaranteeMs } from '../polling/selection';
import { capacityOf } from '../ratelimit/bucket';
import type { FreshnessKind } from './kinds';
import { allocate, mixtureLag } from './lag';

export { type FreshnessKind, freshnessKinds } from './kinds';

/** The event types of each kind. */
export const KIND_EVENT_TYPES: Readonly<Record<FreshnessKind, readonly string[]>> = {
  alerts: ['vehicle.alert.raised', 'vehicle.alert.fixed'],
  trips: ['vehicle.trip.completed'],
  collisions: ['vehicle.collision.detected'],
  fuel: ['vehicle.refuel.detected', 'vehicle.fuel_theft.detected'],
  maintenance: ['vehicle.maintenance.due', 'vehicle.maintenance.overdue', 'vehicle.maintenance.reset'],
  services: ['vehicle.services.changed'],
  map: ['vehicle.map_update.available'],
};

/** One vehicle as the planner sees it: the rates it learned. */
export interface CapacityVehicle {
  /** Changes per hour its events feed reveals. */
  readonly eventsPerHour: number;
  /** Fixes per hour of its active alerts (fix rate per alert × alerts active; 0 without any). */
  readonly alertFixesPerHour: number;
}

export interface CapacityQuota {
  /** Requests per window the budget follows. */
  readonly limit: number;
  readonly windowMs: number;
  /** Share of the quota kept unused (the budget's safety margin). */
  readonly safetyMargin: number;
}

export type CapacitySettings = Pick<
  PollingConfig,
  | 'strategy'
  | 'cycleMs'
  | 'maxStalenessMs'
  | 'followUpReserveRatio'
  | 'followUpsPerChange'
  | 'servicesIntervalMs'
  | 'mapIntervalMs'
>;

export interface KindPrediction {
  /** The longest a change of this kind waits, guaranteed by the planner (ms). */
  readonly guaranteeMs: number;
  readonly meanMs: number;
  readonly p95Ms: number;
}

export interface FleetPrediction {
  /** Requests a cycle, the reserve for follow-ups, and what is left for the planned reads. */
  readonly budgetPerCycle: number;
  readonly reservePerCycle: number;
  readonly readsPerCycle: number;
  /** G of the events feed and of active alerts (ms). */
  readonly eventsGuaranteeMs: number;
  readonly alertsGuaranteeMs: number;
  /** Every change, alert fixes included: what the freshness benchmark measures over a run. */
  readonly all: { readonly meanMs: number; readonly p95Ms: number };
  readonly kinds: Readonly<Record<FreshnessKind, KindPrediction>>;
}

/** Requests a cycle may spend under `quota` (the planner's `cycleBudget`). */
export const budgetPerCycle = (quota: CapacityQuota, cycleMs: number): number =>
  Math.floor((capacityOf(quota) * cycleMs) / quota.windowMs);

/** What the model expects for `vehicles` grown by `scale` (1: the fleet as it is) under `quota`. */
export function predictFleet(
  vehicles: readonly CapacityVehicle[],
  quota: CapacityQuota,
  settings: CapacitySettings,
  scale = 1,
): FleetPrediction {
  const { cycleMs, strategy } = settings;
  const config = settings as PollingConfig;
  const budget = budgetPerCycle(quota, cycleMs);
  let changesPerHour = 0;
  for (const v of vehicles) changesPerHour += Math.max(0, v.eventsPerHour);
  const reserve =
    strategy === 'carhook'
      ? learnedReserve(budget, [{ eventsPerHour: changesPerHour * scale, fixesPerHour: 0 }], config)
      : followUpReserve(budget, config);
  const reads = Math.max(0, budget - reserve);
  const alerting = vehicles.filter((v) => v.alertFixesPerHour > 0);
  const g = guaranteeMs(
    settings.maxStalenessMs,
    Math.ceil(vehicles.length * scale),
    Math.max(1, reads),
    cycleMs,
  );
  const ga = guaranteeMs(
    settings.maxStalenessMs,
    Math.ceil(alerting.length * scale),
    Math.max(1, reads),
    cycleMs,
  );
  // Events feeds first, then the active alerts, as items of one allocation.
  const perHour = [...vehicles.map((v) => v.eventsPerHour), ...alerting.map((v) => v.alertFixesPerHour)];
  const floors = [...vehicles.map(() => cycleMs / g), ...alerting.map(() => cycleMs / ga)];
  const allocation = allocate(strategy as PollStrategy, perHour, reads / scale, floors, vehicles.length);
  const split = vehicles.length;
  const events = mixtureLag(
    perHour.slice(0, split),
    { perCycle: allocation.perCycle.slice(0, split) },
    cycleMs,
  );
  const fixes = mixtureLag(perHour.slice(split), { perCycle: allocation.perCycle.slice(split) }, cycleMs);
  const all = mixtureLag(perHour, allocation, cycleMs);
  const feed: KindPrediction = { guaranteeMs: g + cycleMs, ...events };
  const periodic = (intervalMs: number, confirmMs: number): KindPrediction => ({
    guaranteeMs: intervalMs * 1.5 + confirmMs,
    meanMs: intervalMs / 2 + confirmMs,
    p95Ms: intervalMs * 0.95 + confirmMs,
  });
  return {
    budgetPerCycle: budget,
    reservePerCycle: reserve,
    readsPerCycle: reads,
    eventsGuaranteeMs: g,
    alertsGuaranteeMs: ga,
    all,
    kinds: {
      // A raise is in the events feed, a fix only in an alert read: the slower of the two.
      alerts: {
        guaranteeMs: Math.max(g, alerting.length > 0 ? ga : 0) + cycleMs,
        meanMs: Math.max(events.meanMs, fixes.meanMs),
        p95Ms: Math.max(events.p95Ms, fixes.p95Ms),
      },
      trips: feed,
      collisions: feed,
      fuel: feed,
      // Read after the trip that reveals it, in the same poll or the next cycle.
      maintenance: { ...feed, guaranteeMs: feed.guaranteeMs + cycleMs },
      // A services answer carries no time: a change is told once a second read confirms it.
      services: periodic(settings.servicesIntervalMs, cycleMs),
      map: periodic(settings.mapIntervalMs, 0),
    },
  };
}

/** Whether the kind's lag depends on the quota (services and map follow their own interval). */
export const quotaBound = (kind: FreshnessKind): boolean => kind !== 'services' && kind !== 'map';

/** The most vehicles searched for, and the highest quota. */
const MAX_VEHICLES = 1_000_000;
const MAX_LIMIT = 10_000_000;

/** A freshness target asked of the fleet: `kind`'s p95 within `targetMs`. */
export interface TargetQuestion {
  readonly vehicles: readonly CapacityVehicle[];
  readonly quota: CapacityQuota;
  readonly settings: CapacitySettings;
  readonly kind: FreshnessKind;
  readonly targetMs: number;
}

/**
 * The most vehicles like the current ones whose predicted p95 of `kind` stays within `targetMs`
 * (fewer than the fleet when it misses the target already; 0 when not even one vehicle would meet
 * it; `undefined` when the fleet is empty, so there is nothing to be like, or the kind does not
 * depend on the quota).
 */
export function vehiclesThatFit(q: TargetQuestion): number | undefined {
  const { vehicles, quota, settings, kind, targetMs } = q;
  const n = vehicles.length;
  if (n === 0 || !quotaBound(kind)) return undefined;
  const meets = (count: number): boolean =>
    predictFleet(vehicles, quota, settings, count / n).kinds[kind].p95Ms <= targetMs;
  if (!meets(1)) return 0;
  let lo = 1;
  let hi = 2;
  while (hi < MAX_VEHICLES && meets(hi)) {
    lo = hi;
    hi *= 2;
  }
  if (hi >= MAX_VEHICLES && meets(MAX_VEHICLES)) return MAX_VEHICLES;
  return boundary(lo, hi, meets)[0];
}

/**
 * The least quota (requests per window, the same window) whose predicted p95 of `kind` meets
 * `targetMs` for the current fleet; `undefined` when no quota can (the target is shorter than a
 * cycle allows), the fleet is empty, or the kind does not depend on the quota.
 */
export function quotaForTarget(q: TargetQuestion): number | undefined {
  const { vehicles, quota, settings, kind, targetMs } = q;
  if (vehicles.length === 0 || !quotaBound(kind)) return undefined;
  const meets = (limit: number): boolean =>
    predictFleet(vehicles, { ...quota, limit }, settings).kinds[kind].p95Ms <= targetMs;
  if (!meets(MAX_LIMIT)) return undefined;
  return boundary(0, MAX_LIMIT, (limit) => !meets(limit))[1];
}

/**
 * Bisection between `lo`, where `below` holds, and `hi`, where it does not (`below` changes once in
 * between): the last integer where it holds and the first where it does not.
 */
function boundary(lo: number, hi: number, below: (n: number) => boolean): [number, number] {
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (below(mid)) lo = mid;
    else hi = mid;
  }
  return [lo, hi];
}
