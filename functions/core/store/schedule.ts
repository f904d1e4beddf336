import { iso } from './logic';
import type { ScheduleUpdate, VehicleRecord } from './records';

/**
 * Keeping the steady state write-free (nothing is written when a poll finds no change,
 * scheduling data aside, and that is kept minimal; bench target ≤ 0.05 writes per steady-state poll).
 *
 * A vehicle polled every cycle does not need its `nextPollAt` moved after every poll: the planner
 * polls vehicles whose `nextPollAt <= now`, so a `nextPollAt` left in the past keeps it due every
 * cycle at no write cost (events are polled every cycle).
 * The scheduling fields are written only when they say something new: the cadence changed by a
 * cycle or more, a resource on a slow cadence was polled (daily maintenance/map: a few writes a
 * day), or a priority hint changed. `lastPolledAt` alone is never a reason to write: the worker
 * knows it, and the staleness bound is kept by `nextPollAt`.
 */
export interface SchedulePolicy {
  /** How often the planner runs (default 60 s): a vehicle due within one cycle is polled then either way. */
  readonly cycleMs: number;
}

export const DEFAULT_SCHEDULE_POLICY: SchedulePolicy = { cycleMs: 60_000 };

/** Whether `update` says something the stored vehicle does not: false means skip the write. */
export function scheduleNeedsWrite(
  vehicle: Pick<VehicleRecord, 'nextPollAt' | 'hints' | 'resourcePolledAt'>,
  update: ScheduleUpdate,
  now: number,
  policy: SchedulePolicy = DEFAULT_SCHEDULE_POLICY,
): boolean {
  const stored = Date.parse(vehicle.nextPollAt);
  const next = Date.parse(update.nextPollAt);
  const horizon = now + policy.cycleMs;
  // Both due by the next planner run: the vehicle is polled next cycle whichever is stored.
  const sameCycle = stored <= horizon && next <= horizon;
  if (!sameCycle && Math.abs(next - stored) >= policy.cycleMs) return true;
  for (const [key, value] of Object.entries(update.hints ?? {})) {
    if (value !== undefined && vehicle.hints[key as keyof typeof vehicle.hints] !== value) return true;
  }
  for (const [resource, at] of Object.entries(update.resourcePolledAt ?? {})) {
    if (vehicle.resourcePolledAt[resource] !== at) return true;
  }
  return false;
}

/** The vehicle record after a schedule update (what a store writes for it). */
export function applySchedule(vehicle: VehicleRecord, update: ScheduleUpdate, now: number): VehicleRecord {
  return {
    ...vehicle,
    nextPollAt: update.nextPollAt,
    ...(update.lastPolledAt !== undefined ? { lastPolledAt: update.lastPolledAt } : {}),
    ...(update.lastChangeAt !== undefined ? { lastChangeAt: update.lastChangeAt } : {}),
    hints: { ...vehicle.hints, ...update.hints },
    resourcePolledAt: { ...vehicle.resourcePolledAt, ...update.resourcePolledAt },
    updatedAt: iso(now),
  };
}
