/**
 * The planner's memory between cycles: when it booked each vehicle's reads. It lives with the
 * planner process (a warm function keeps it between runs), not in the store: one write per vehicle
 * per poll is what the design avoids. A planner without memory (a cold start) gives each vehicle a
 * phase from a hash of its id, as if it had been read in a fair round, so every guarantee holds
 * from its first cycle and the memory fills as it plans.
 */
import type { VehicleRecord } from '../store/records';
import type { Plan } from './jobs';

/** When the planner last booked each read of a vehicle (epoch ms). */
export interface LastReads {
  readonly events?: number;
  /** The events read booked before `events`: the last one made when the budget refused `events`. */
  readonly eventsBefore?: number;
  readonly alerts?: number;
}

/**
 * The planner's memory between cycles: when it booked each vehicle's reads. It lives with the
 * planner process (a warm function keeps it); a lost memory costs one fair round, not a guarantee.
 */
export interface PlannerMemory {
  get(vehicleId: string): LastReads | undefined;
  set(vehicleId: string, reads: LastReads): void;
  /** Forgets every vehicle not in `keep` (paused, removed). */
  retain(keep: Pick<ReadonlySet<string>, 'has'>): void;
  /** How many vehicles it remembers (those the planner last planned for). */
  size(): number;
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
    size: () => reads.size,
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

/**
 * When a vehicle's events were last read, as far as the planner knows: the last booked read, unless
 * the budget refused it (the poll wrote `eventsRefusedAt` at or after its booking), then the one
 * booked before it. Undefined: never booked (a cold start's phase stands in).
 */
export function lastEventsRead(
  last: LastReads | undefined,
  vehicle: Pick<VehicleRecord, 'hints'> | undefined,
): number | undefined {
  if (last === undefined) return undefined;
  // Stryker disable next-line StringLiteral: any text that is not a date parses to NaN, as '' does
  const refusedAt = Date.parse(vehicle?.hints.eventsRefusedAt ?? '');
  // NaN (no refusal) is never ≥: the last booking stands.
  return refusedAt >= (last.events ?? Number.POSITIVE_INFINITY) ? last.eventsBefore : last.events;
}

/** Records the reads a plan booked, and forgets the vehicles no longer due. */
export function remember(
  memory: PlannerMemory,
  due: readonly Pick<VehicleRecord, 'id' | 'hints'>[],
  planned: Plan,
  now: number,
): void {
  const byId = new Map(due.map((v) => [v.id, v]));
  memory.retain(byId);
  for (const job of planned.jobs) {
    if (job.kind !== 'poll-vehicle') continue;
    const last = memory.get(job.vehicleId);
    const before = lastEventsRead(last, byId.get(job.vehicleId));
    memory.set(job.vehicleId, {
      ...last,
      ...(job.resources.includes('events')
        ? { events: now, ...(before !== undefined ? { eventsBefore: before } : {}) }
        : {}),
      ...(job.resources.includes('alerts') ? { alerts: now } : {}),
    });
  }
}
