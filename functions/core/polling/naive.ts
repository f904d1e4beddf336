/**
 * The naive baseline (benchmark): events, alerts, collisions and maintenance for every vehicle
 * every cycle (the worker adds the eco-driving of the trips it sees).
 */
import type { VehicleRecord } from '../store/records';
import { NAIVE_RESOURCES } from './config';
import type { Plan, PollFleetJob, PollVehicleJob } from './jobs';
import type { Booking } from './reads';

/**
 * The naive baseline: four reads per vehicle, the stalest first (`lastPolledAt`, else creation);
 * when the budget is short, the polled vehicles record their poll time (`rotate`), so the others
 * go first next cycle.
 */
export function planNaive(
  v2: readonly VehicleRecord[],
  fleetBatches: readonly Booking[],
  budget: number,
  now: number,
  plannedAt: string,
): Plan {
  const stale = (v: VehicleRecord): number => now - Date.parse(v.lastPolledAt ?? v.createdAt);
  const ordered = [...v2].sort((a, b) => stale(b) - stale(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  let left = budget;
  const jobs: (PollVehicleJob | PollFleetJob)[] = [];
  const deferred: string[] = [];
  for (const v of ordered) {
    if (NAIVE_RESOURCES.length > left) {
      deferred.push(v.id);
      continue;
    }
    left -= NAIVE_RESOURCES.length;
    jobs.push({
      kind: 'poll-vehicle',
      vehicleId: v.id,
      resources: [...NAIVE_RESOURCES],
      strategy: 'naive',
      rotate: false,
      plannedAt,
    });
  }
  for (const b of fleetBatches) {
    if (b.cost > left) {
      deferred.push(...(b.job as PollFleetJob).vehicleIds);
      continue;
    }
    left -= b.cost;
    jobs.push(b.job as PollFleetJob);
  }
  const rotate = deferred.length > 0;
  return {
    jobs: rotate ? jobs.map((j) => ({ ...j, rotate })) : jobs,
    estimatedRequests: budget - left,
    deferred,
    guaranteeMs: Number.POSITIVE_INFINITY,
    alertGuaranteeMs: Number.POSITIVE_INFINITY,
  };
}
