import { buildEvent, type CarhookEvent } from '../events/catalogue';
import { eventId } from '../events/ids';
import type { EnrollmentRef } from './context';
import { initialState, type VehicleState } from './state';

/**
 * Enrollment events of a vehicle (`enrollment.vehicle.added` / `removed`): the ones the vehicle-list
 * diff tells (./enrollment.ts) and the ones built here by `membershipEvent` (an enrollment deleted,
 * a fleet contract enrolled, a fleet vehicle the v1 API no longer knows), numbered on the vehicle's
 * own `sequence`, the counter its `vehicle.*` events take in `diff`: one counter per physical
 * vehicle across every event type, so a consumer orders a vehicle's events by it and a missing
 * number is a missed event.
 *
 * Pure, like `diff`: the caller commits the returned state and events in one conditional write
 * (the poll commit's `expectedVersion`), so a racing poll or a second enrollment change either sees
 * the numbers taken or loses the write and numbers again on the new state.
 */

type MembershipType = 'enrollment.vehicle.added' | 'enrollment.vehicle.removed';

/**
 * One membership event, not yet numbered (`sequence` 0): `sequenceMembership` gives it the next
 * number of its vehicle's stream when it is committed there.
 */
export function membershipEvent(
  type: MembershipType,
  input: {
    readonly enrollment: EnrollmentRef;
    readonly vehicle: { readonly id: string; readonly vin: string; readonly brand?: string };
    /** Why: `unenrolled`, `fleet-enrolled`, `v1-unknown`. Part of the event id. */
    readonly transition: string;
    readonly at: number;
    readonly operation: string;
    /** The API whose answer revealed it (default `carhook`: a management call). */
    readonly api?: 'v1' | 'v2' | 'carhook';
  },
): CarhookEvent {
  const { enrollment, vehicle } = input;
  const at = new Date(input.at).toISOString();
  const brand = vehicle.brand;
  return buildEvent(type, {
    id: eventId({ scope: enrollment.id, type, key: vehicle.id, transition: input.transition }),
    occurredAt: at,
    detectedAt: at,
    sequence: 0,
    vehicle:
      brand === undefined
        ? { id: vehicle.id, vin: vehicle.vin }
        : { id: vehicle.id, vin: vehicle.vin, brand },
    enrollment: { id: enrollment.id, kind: enrollment.kind },
    source: { api: input.api ?? 'carhook', operation: input.operation, recordId: vehicle.id },
    data: {
      vehicleId: vehicle.id,
      vin: vehicle.vin,
      ...(brand === undefined ? {} : { brand }),
    },
  }) as CarhookEvent;
}

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
