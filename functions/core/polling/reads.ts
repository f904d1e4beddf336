/**
 * What each vehicle needs read besides the index: the baseline reads a vehicle never had, the
 * periodic reads (alert reconciliation, maintenance, services daily, map in bulk), fleet contracts'
 * batches through the v1 bulk lists, and the follow-up reserve. Shared by every strategy.
 */
import { createHash } from 'node:crypto';
import type { VehicleRecord } from '../store/records';
import { type PollingConfig, type VehicleResource, vehicleResources } from './config';
import type { PollFleetJob, PollMapJob, PollVehicleJob } from './jobs';
import type { Rates } from './rates';

/** Requests one fleet batch costs: active alerts, crash, maintenance and trip lists (v1). */
export const FLEET_REQUESTS_PER_BATCH = 4;

export interface Booking {
  job: PollVehicleJob | PollFleetJob | PollMapJob;
  cost: number;
}

const olderThan = (at: string | undefined, ms: number, now: number): boolean =>
  at === undefined || now - Date.parse(at) >= ms;

/**
 * True in one cycle out of every `periodMs / cycleMs`, at an offset given by a hash of `key`: a
 * periodic task spread over the cycles without storing when it last ran (no write).
 */
export function inCycle(key: string, now: number, periodMs: number, cycleMs: number): boolean {
  const every = Math.max(1, Math.round(periodMs / cycleMs));
  if (every === 1) return true;
  const cycle = Math.floor(now / cycleMs);
  const offset = createHash('sha256').update(key).digest().readUInt32BE(0) % every;
  return cycle % every === offset;
}

/** Map update information is read every `mapIntervalMs` (daily by default), in bulk (`poll-map` jobs). */
export const mapDue = (vehicle: VehicleRecord, now: number, config: PollingConfig): boolean =>
  olderThan(vehicle.resourcePolledAt.map, config.mapIntervalMs, now);

/** A vehicle polled through v1 bulk lists: a fleet contract's vehicle has no v2 id. */
export const isFleetVehicle = (vehicle: Pick<VehicleRecord, 'apiVehicleId'>): boolean =>
  vehicle.apiVehicleId === undefined;

/** The resources in the order a poll reads them (`vehicleResources`' order). */
export const inResourceOrder = (rs: Iterable<VehicleResource>): VehicleResource[] => {
  const set = new Set(rs);
  return vehicleResources.filter((r) => set.has(r));
};

/** A periodic read this late goes with the events, whatever the spare budget. */
const OVERDUE_FACTOR = 1.5;

export type SplitReads = { now: VehicleResource[]; periodic: VehicleResource[] };

/**
 * `splitResources` for many vehicles at one `now`: the cut-off dates are computed once and compared
 * as strings (ISO 8601 UTC with milliseconds compares lexicographically), so a 10,000-vehicle plan
 * parses no date.
 */
export function resourceSplitter(now: number, config: PollingConfig): (vehicle: VehicleRecord) => SplitReads {
  const cut = (ms: number): string => new Date(now - ms).toISOString();
  const due = {
    alerts: cut(config.alertsReconcileMs),
    maintenance: cut(config.dailyMs),
    services: cut(config.servicesIntervalMs),
  };
  const overdue = {
    alerts: cut(config.alertsReconcileMs * OVERDUE_FACTOR),
    maintenance: cut(config.dailyMs * OVERDUE_FACTOR),
    services: cut(config.servicesIntervalMs * OVERDUE_FACTOR),
  };
  return (vehicle) => {
    const polled = vehicle.resourcePolledAt;
    const urgent: VehicleResource[] = ['events'];
    const periodic: VehicleResource[] = [];
    for (const r of ['alerts', 'maintenance', 'services'] as const) {
      const at = polled[r];
      if (at === undefined || at <= overdue[r]) urgent.push(r);
      else if (at <= due[r]) periodic.push(r);
    }
    return { now: urgent, periodic };
  };
}

/**
 * A v2 vehicle's reads besides the index: `now` (with its events, whatever the index: a baseline
 * never read, a periodic read overdue by half its period) and `periodic` (due, booked only with the
 * budget left at the end of the cycle).
 */
export function splitResources(vehicle: VehicleRecord, now: number, config: PollingConfig): SplitReads {
  return resourceSplitter(now, config)(vehicle);
}

/** Requests of each cycle's budget left unbooked for follow-ups. */
export function followUpReserve(budget: number, config: PollingConfig): number {
  return Math.floor(Math.max(0, budget) * config.followUpReserveRatio);
}

export function fleetBookings(
  fleet: readonly VehicleRecord[],
  config: PollingConfig,
  plannedAt: string,
): Booking[] {
  const out: Booking[] = [];
  for (const brand of ['C', 'P'] as const) {
    // The v1 bulk lists take one brand (`C` or `P`) per request: one batch holds one brand group.
    const ids = fleet.filter((v) => (v.brand === 'P' ? 'P' : 'C') === brand).map((v) => v.id);
    for (let i = 0; i < ids.length; i += config.fleetBatchSize) {
      const vehicleIds = ids.slice(i, i + config.fleetBatchSize);
      out.push({
        job: { kind: 'poll-fleet', brand, vehicleIds, rotate: false, plannedAt },
        cost: FLEET_REQUESTS_PER_BATCH,
      });
    }
  }
  return out;
}

/**
 * The reserve of a cycle when rates are learned: the follow-up reads the fleet's changes are
 * expected to cost in one cycle (m = Σ learned events rates × cycle × `followUpsPerChange`) plus
 * one standard deviation of that Poisson count (√m), or the configured share of the budget when
 * that is more; never more than half the budget, so the
 * guarantees keep their room. A fixed share refuses the follow-ups of a busy fleet at the tail of
 * each cycle (and the reads after them, which the planner counts as made).
 */
export function learnedReserve(budget: number, rates: readonly Rates[], config: PollingConfig): number {
  const fixed = followUpReserve(budget, config);
  let perHour = 0;
  for (const r of rates) perHour += r.eventsPerHour;
  const mean = (perHour * config.cycleMs * config.followUpsPerChange) / 3_600_000;
  const expected = Math.round(mean + Math.sqrt(mean));
  return Math.max(fixed, Math.min(Math.floor(Math.max(0, budget) / 2), expected));
}
