/**
 * The capacity report `GET /capacity` and `carhook capacity` show: the fleet's learned rates read
 * from its vehicle records as the planner reads them, the model's predictions per kind (./model.ts),
 * and for each kind with a freshness target whether it is met, how many vehicles like the current
 * ones fit, and the quota that would meet it. Pure: the time of the answer is given.
 */
import type { PollingConfig } from '../polling/config';
import { advance, decodeRates, fleetPrior, posterior } from '../polling/rates';
import { isFleetVehicle } from '../polling/reads';
import type { VehicleRecord } from '../store/records';
import {
  type CapacityQuota,
  type CapacityVehicle,
  type FreshnessKind,
  freshnessKinds,
  KIND_EVENT_TYPES,
  predictFleet,
  quotaForTarget,
  vehiclesThatFit,
} from './model';

/** Freshness targets: the p95 lag each kind should stay within (ms). */
export type FreshnessTargets = Partial<Record<FreshnessKind, number>>;

/** The vehicles the planner reads one by one (not paused, not under a fleet contract), with their rates at `now`. */
export function capacityVehicles(
  records: readonly VehicleRecord[],
  now: number,
  config: PollingConfig,
): CapacityVehicle[] {
  const v2 = records.filter((v) => !v.paused && !isFleetVehicle(v));
  const states = v2.map((v) => {
    const st = decodeRates(v.hints.rates);
    return st && advance(st, now, config);
  });
  const prior = fleetPrior(states, config);
  return v2.map((v, i) => {
    const st = states[i];
    const rates = st ? posterior(st, prior) : prior;
    const active = v.hints.activeAlerts ? Math.max(1, st?.active ?? 1) : 0;
    return { eventsPerHour: rates.eventsPerHour, alertFixesPerHour: rates.fixesPerHour * active };
  });
}

/** Milliseconds as seconds to a tenth; null for never (no read left for it). */
export const seconds = (ms: number): number | null =>
  Number.isFinite(ms) ? Math.round(ms / 100) / 10 : null;

export interface KindCapacity {
  readonly kind: FreshnessKind;
  readonly eventTypes: readonly string[];
  /** Seconds; null when no read is left for it (never seen). */
  readonly guaranteeS: number | null;
  readonly meanS: number | null;
  readonly p95S: number | null;
  readonly target?: {
    readonly s: number;
    /** The predicted p95 is within the target. */
    readonly met: boolean;
    /** Vehicles like the current ones that fit within it (null: not limited by the quota, or no fleet). */
    readonly vehiclesThatFit: number | null;
    /** vehiclesThatFit minus the fleet (negative: that many too many). */
    readonly moreVehicles: number | null;
    /** Requests per window that would meet it for the current fleet (null: none can, or not quota-bound). */
    readonly quotaForTarget: number | null;
  };
}

export interface CapacityReport {
  readonly at: string;
  readonly strategy: PollingConfig['strategy'];
  readonly vehicles: number;
  readonly vehiclesWithActiveAlerts: number;
  /** Changes per hour the fleet's events feeds are expected to reveal (learned). */
  readonly changesPerHour: number;
  readonly quota: {
    readonly limit: number;
    readonly windowSeconds: number;
    readonly cycleSeconds: number;
    readonly budgetPerCycle: number;
    readonly reservePerCycle: number;
    readonly readsPerCycle: number;
  };
  readonly kinds: readonly KindCapacity[];
}

export function capacityReport(input: {
  readonly now: number;
  readonly vehicles: readonly CapacityVehicle[];
  readonly quota: CapacityQuota;
  readonly config: PollingConfig;
  readonly targets?: FreshnessTargets;
}): CapacityReport {
  const { vehicles, quota, config } = input;
  const p = predictFleet(vehicles, quota, config);
  let changes = 0;
  for (const v of vehicles) changes += v.eventsPerHour;
  const kinds = freshnessKinds.map((kind): KindCapacity => {
    const k = p.kinds[kind];
    const targetMs = input.targets?.[kind];
    const base = {
      kind,
      eventTypes: KIND_EVENT_TYPES[kind],
      guaranteeS: seconds(k.guaranteeMs),
      meanS: seconds(k.meanMs),
      p95S: seconds(k.p95Ms),
    };
    if (targetMs === undefined) return base;
    const question = { vehicles, quota, settings: config, kind, targetMs };
    const fit = vehiclesThatFit(question);
    const needed = quotaForTarget(question);
    return {
      ...base,
      target: {
        s: targetMs / 1000,
        met: k.p95Ms <= targetMs,
        vehiclesThatFit: fit ?? null,
        moreVehicles: fit === undefined ? null : fit - vehicles.length,
        quotaForTarget: needed ?? null,
      },
    };
  });
  return {
    at: new Date(input.now).toISOString(),
    strategy: config.strategy,
    vehicles: vehicles.length,
    vehiclesWithActiveAlerts: vehicles.filter((v) => v.alertFixesPerHour > 0).length,
    changesPerHour: Math.round(changes * 100) / 100,
    quota: {
      limit: quota.limit,
      windowSeconds: quota.windowMs / 1000,
      cycleSeconds: config.cycleMs / 1000,
      budgetPerCycle: p.budgetPerCycle,
      reservePerCycle: p.reservePerCycle,
      readsPerCycle: p.readsPerCycle,
    },
    kinds,
  };
}
