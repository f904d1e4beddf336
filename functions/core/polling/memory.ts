/**
 * The planner's memory between cycles: when it booked each vehicle's reads. It lives with the
 * planner process (a warm function keeps it between runs), not in the store: one write per vehicle
 * per poll is what the design avoids. A planner without memory (a cold start) gives each vehicle a
 * phase from a hash of its id, as if it had been read in a fair round, so every guarantee holds
 * from its first cycle and the memory fills as it plans.
 */
import type { VehicleRecord } from '../store/records';
import type { PollVehicleJob } from './jobs';
import type { Plan } from './planner';

/** When the planner last booked each read of a vehicle (epoch ms). */
export interface LastReads {
  readonly events?: number;
  readonly alerts?: number;
  /**
   * The last events read booked where the budget could not refuse it (not in the cycle's tail, see
   * `Plan.atRisk`): the guarantee counts from it, so a read refused at the tail of a busy cycle
   * (and counted as made) does not push the vehicle's next read a whole guarantee further.
   */
  readonly eventsSure?: number;
}

/**
 * The planner's memory between cycles: when it booked each vehicle's reads. It lives with the
 * planner process (a warm function keeps it); a lost memory costs one fair round, not a guarantee.
 */
export interface PlannerMemory {
  get(vehicleId: string): LastReads | undefined;
  set(vehicleId: string, reads: LastReads): void;
  /** Forgets every vehicle not in `keep` (paused, removed). */
  retain(keep: ReadonlySet<string>): void;
}

export function createPlannerMemory(): PlannerMemory {
  const reads = new Map<string, LastReads>();
  return {
    get: (id) => reads.get(id),
    set: (id, r) => {
      reads.set(id, r);
    },
    retain: (keep) => {
      for (const id of reads.keys()) if (!keep.has(id)) reads.delete(id);
    },
  };
}

/**
 * How long ago a read was made: from the memory, else a phase in `[1, K]` cycles given by a hash
 * of the id and resource, K the cycles of the guarantee (a fair round the planner assumes).
 */
export function ageOf(
  at: number | undefined,
  hash: number,
  now: number,
  cycleMs: number,
  boundMs: number,
): number {
  if (at !== undefined) return Math.max(0, now - at);
  const k = Math.max(1, Math.floor(boundMs / cycleMs));
  const cycle = Math.floor(now / cycleMs);
  return (((cycle + hash) % k) + 1) * cycleMs;
}

/** Records the reads a plan booked, and forgets the vehicles no longer due. */
export function remember(
  memory: PlannerMemory,
  due: readonly Pick<VehicleRecord, 'id'>[],
  planned: Plan,
  now: number,
): void {
  memory.retain(new Set(due.map((v) => v.id)));
  for (const job of planned.jobs) {
    if (job.kind !== 'poll-vehicle') continue;
    const last = memory.get(job.vehicleId) ?? {};
    const sure = planned.atRisk?.has(job.vehicleId) !== true;
    memory.set(job.vehicleId, {
      ...last,
      ...(job.resources.includes('events') ? { events: now, ...(sure ? { eventsSure: now } : {}) } : {}),
      ...(job.resources.includes('alerts') ? { alerts: now } : {}),
    });
  }
}

/**
 * The vehicles whose events read is booked in a cycle's tail: past `budget − 3 × reserve` requests
 * of the jobs in queue order, where follow-ups beyond the reserve (a burst, a rush hour the decayed
 * rates have not caught up with) would have the budget refuse it. Measured at 800 vehicles of the
 * mixed world: a tail of 2 × reserve still let a quiet vehicle be refused twice in a row (max lag
 * 1.6 × G); 3 × kept every change within G + one cycle.
 */
export function bookedAtRisk(
  jobs: readonly Pick<PollVehicleJob, 'vehicleId' | 'resources'>[],
  budget: number,
  reserve: number,
): Set<string> {
  const atRisk = new Set<string>();
  let spent = 0;
  for (const j of jobs) {
    spent += j.resources.length;
    if (spent > budget - 3 * reserve && j.resources.includes('events')) atRisk.add(j.vehicleId);
  }
  return atRisk;
}
