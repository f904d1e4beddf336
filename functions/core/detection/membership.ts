import type { CarhookEvent } from '../events/catalogue';
import { initialState, type VehicleState } from './state';

/**
 * Enrollment events of a vehicle (`enrollment.vehicle.added` / `removed`) numbered on the vehicle's
 * own `sequence`, the counter its `vehicle.*` events take in `diff`: one counter per physical
 * vehicle across every event type, so a consumer orders a vehicle's events by it and a missing
 * number is a missed event.
 *
 * Pure, like `diff`: the caller commits the returned state and events in one conditional write
 * (the poll commit's `expectedVersion`), so a racing poll or a second enrollment change either sees
 * the numbers taken or loses the write and numbers again on the new state.
 */

/** How many told enrollment event ids a state keeps (newest first). */
export const MAX_TOLD = 100;

export interface SequencedMembership {
  /** The state to commit (unchanged when nothing is new). */
  readonly state: VehicleState;
  /** The new events, each with its number (1 above the previous one, in the order given). */
  readonly events: readonly CarhookEvent[];
  /** Ids already numbered on this vehicle (a retry, a repeated DELETE): not told again. */
  readonly skipped: readonly string[];
  readonly changed: boolean;
}

/**
 * Numbers `events` (about one vehicle, its state `state` under `identity`) after the vehicle's
 * last event. Without a state yet, a fresh one is started and marked `unpolled`, so the first
 * poll keeps its first-poll rules.
 */
export const sequenceMembership = (
  state: VehicleState | undefined,
  identity: string,
  events: readonly CarhookEvent[],
  now: Date,
): SequencedMembership => {
  const nowIso = now.toISOString();
  const base: VehicleState = state ?? { ...initialState(identity, nowIso), unpolled: true };
  const told: Record<string, string> = { ...(base.told ?? {}) };
  let sequence = base.sequence;
  const out: CarhookEvent[] = [];
  const skipped: string[] = [];
  for (const e of events) {
    // An id numbered earlier in this call is in `told` already.
    if (told[e.id] !== undefined) {
      skipped.push(e.id);
      continue;
    }
    sequence += 1;
    out.push({ ...e, sequence } as CarhookEvent);
    told[e.id] = nowIso;
  }
  if (out.length === 0) return { state: base, events: out, skipped, changed: false };
  const kept = Object.entries(told)
    .sort((a, b) => (a[1] > b[1] ? -1 : a[1] < b[1] ? 1 : a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_TOLD);
  return {
    state: { ...base, vehicleId: identity, sequence, told: Object.fromEntries(kept) },
    events: out,
    skipped,
    changed: true,
  };
};
