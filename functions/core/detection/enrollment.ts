import * as z from 'zod';
import type { Vehicle } from '../api/model';
import { buildEvent, type CarhookEvent } from '../events/catalogue';
import { eventId } from '../events/ids';
import { DEFAULT_CONFIG, type DiffConfig } from './config';
import { checkObservation, DEFAULT_OPERATION, type ObservationOf, type RejectedInput } from './observations';

/**
 * Enrollment-level state: which vehicles the user's account has (an OAuth enrollment; a fleet
 * contract's vehicles are configured, not listed). One small item per enrollment.
 */
export const ENROLLMENT_STATE_FORMAT = 1;

export const enrollmentStateSchema = z.object({
  stateFormat: z.literal(ENROLLMENT_STATE_FORMAT),
  version: z.number().int().nonnegative(),
  enrollmentId: z.string(),
  createdAt: z.string(),
  /** Last `sequence` of this enrollment's events (enrollment events have their own sequence). */
  sequence: z.number().int().nonnegative(),
  vehicles: z.record(
    z.string(),
    z.object({
      vin: z.string(),
      brand: z.string().optional(),
      model: z.string().optional(),
      energy: z.string().optional(),
      present: z.boolean(),
      /** How many times it was added: a vehicle removed then added again is a new addition. */
      additions: z.number().int().nonnegative(),
      changedAt: z.string(),
    }),
  ),
  /** `fetchedAt` of the list that last changed this state: an older list is stale. */
  seenAt: z.string().optional(),
});

export type EnrollmentState = z.infer<typeof enrollmentStateSchema>;

export interface EnrollmentContext {
  readonly enrollment: { readonly id: string; readonly kind: 'oauth-user' | 'fleet-contract' };
  readonly now: Date;
  readonly config?: Partial<Pick<DiffConfig, 'initialPolicy' | 'confirmAbsences'>>;
  /**
   * What a read of each vehicle itself (`GET /vehicles/{id}`) said, for the vehicles a first diff
   * listed as `unconfirmed`: `present` (200: still the user's), `absent` (404 / 403: no longer).
   */
  readonly checked?: ReadonlyMap<string, 'present' | 'absent'>;
  /**
   * Carhook's id of a vehicle of this enrollment, from the API's vehicle id (default: the API id),
   * so `enrollment.vehicle.*` events name a vehicle as every `vehicle.*` event does.
   */
  readonly vehicleId?: (apiVehicleId: string) => string;
}

export interface EnrollmentDiffResult {
  readonly state: EnrollmentState;
  readonly events: readonly CarhookEvent[];
  readonly changed: 'none' | 'state';
  /** Ids of the vehicles present now: the ones to poll. */
  readonly vehicleIds: readonly string[];
  readonly rejected: readonly RejectedInput[];
  /**
   * Vehicles whose change this list alone does not prove: a known vehicle missing from it, or one
   * removed earlier listed again. Read each (`checked`) and diff again; until then nothing changes.
   */
  readonly unconfirmed: readonly string[];
}

const MAX_REMOVED = 500;

/**
 * Diffs the user's vehicle list (GET /vehicles): `enrollment.vehicle.added` for a new
 * vehicle, `enrollment.vehicle.removed` only when a COMPLETE list no longer has it (a 404 "user
 * has no vehicle declared" arrives as a complete empty list and does remove). The first
 * list is baseline unless `initialPolicy` is `all`.
 *
 * A list may be an older copy or miss one vehicle once: a known vehicle it misses is removed only
 * once a read of the vehicle itself says the user no longer has it (`checked` `absent`), and a
 * vehicle removed earlier comes back only once that read says it is there (`present`). Until then
 * it is listed in `unconfirmed` and nothing changes for it. A new vehicle id is evidence enough.
 */
export const diffEnrollmentVehicles = (
  state: EnrollmentState | undefined,
  observation: ObservationOf<'v2.vehicles'>,
  context: EnrollmentContext,
): EnrollmentDiffResult => {
  const policy = context.config?.initialPolicy ?? DEFAULT_CONFIG.initialPolicy;
  const now = context.now.toISOString();
  const present = (s: EnrollmentState) =>
    Object.entries(s.vehicles)
      .filter(([, v]) => v.present)
      .map(([id]) => id)
      .sort();
  const confirm = context.config?.confirmAbsences ?? DEFAULT_CONFIG.confirmAbsences;
  const unconfirmed: string[] = [];
  const problem = checkObservation(observation, 0);
  if (problem !== undefined || observation.source !== 'v2.vehicles') {
    const fallback = state ?? emptyEnrollmentState(context.enrollment.id, now);
    return {
      state: fallback,
      events: [],
      changed: 'none',
      unconfirmed,
      vehicleIds: present(fallback),
      rejected: [
        problem ?? {
          kind: 'Malformed',
          observation: 0,
          source: String(observation.source),
          field: 'source',
          reason: 'expected v2.vehicles',
        },
      ],
    };
  }
  const rejected: RejectedInput[] = [];
  if (state !== undefined && state.seenAt !== undefined && observation.fetchedAt < state.seenAt) {
    return { state, events: [], changed: 'none', vehicleIds: present(state), rejected, unconfirmed };
  }
  const first = state === undefined;
  const next: EnrollmentState =
    state === undefined
      ? emptyEnrollmentState(context.enrollment.id, now)
      : { ...state, vehicles: { ...state.vehicles } };
  const events: CarhookEvent[] = [];
  let changed = first;
  const emit = (
    type: 'enrollment.vehicle.added' | 'enrollment.vehicle.removed',
    id: string,
    v: EnrollmentState['vehicles'][string],
  ) => {
    next.sequence += 1;
    const vehicleId = context.vehicleId ? context.vehicleId(id) : id;
    events.push(
      buildEvent(type, {
        id: eventId({
          scope: context.enrollment.id,
          type,
          key: `${id}#${v.additions}`,
          transition: type.slice(19),
        }),
        occurredAt: observation.fetchedAt,
        detectedAt: now,
        sequence: next.sequence,
        vehicle:
          v.brand === undefined
            ? { id: vehicleId, vin: v.vin }
            : { id: vehicleId, vin: v.vin, brand: v.brand },
        enrollment: { id: context.enrollment.id, kind: context.enrollment.kind },
        source: {
          api: 'v2',
          operation: observation.operation ?? DEFAULT_OPERATION['v2.vehicles'],
          recordId: id,
        },
        data: {
          vehicleId,
          vin: v.vin,
          ...(v.brand === undefined ? {} : { brand: v.brand }),
          ...(v.model === undefined ? {} : { model: v.model }),
          ...(v.energy === undefined ? {} : { energy: v.energy }),
        },
      }) as CarhookEvent,
    );
  };
  const listed = new Set<string>();
  observation.items.forEach((v: Vehicle, i) => {
    if (typeof v?.id !== 'string' || v.id === '' || typeof v.vin !== 'string') {
      rejected.push({
        kind: 'Malformed',
        observation: 0,
        source: 'v2.vehicles',
        field: `items[${i}].id`,
        reason: 'vehicle without id or vin',
      });
      return;
    }
    listed.add(v.id);
    const known = next.vehicles[v.id];
    if (known?.present) return;
    if (known !== undefined && confirm && context.checked?.get(v.id) !== 'present') {
      // Removed earlier: an older copy of the list may still have it. Back only when confirmed.
      if (context.checked?.get(v.id) === undefined) unconfirmed.push(v.id);
      return;
    }
    const entry = {
      vin: v.vin,
      ...(v.brand === undefined ? {} : { brand: v.brand }),
      ...(v.model === undefined ? {} : { model: v.model }),
      ...(v.energy === undefined ? {} : { energy: v.energy }),
      present: true,
      additions: (known?.additions ?? 0) + 1,
      changedAt: observation.fetchedAt,
    };
    next.vehicles[v.id] = entry;
    changed = true;
    if (!first || policy === 'all') emit('enrollment.vehicle.added', v.id, entry);
  });
  if (observation.complete) {
    for (const [id, v] of Object.entries(next.vehicles)) {
      if (!v.present || listed.has(id)) continue;
      if (confirm && context.checked?.get(id) !== 'absent') {
        // Missing from one list: removed only once a read of the vehicle says it is gone.
        if (context.checked?.get(id) === undefined) unconfirmed.push(id);
        continue;
      }
      const entry = { ...v, present: false, changedAt: observation.fetchedAt };
      next.vehicles[id] = entry;
      changed = true;
      emit('enrollment.vehicle.removed', id, entry);
    }
  }
  // Unchanged, `next` lists the same vehicles as `state`.
  unconfirmed.sort();
  if (!changed)
    return {
      state: state ?? next,
      events,
      changed: 'none',
      vehicleIds: present(next),
      rejected,
      unconfirmed,
    };
  next.seenAt = observation.fetchedAt;
  // Bound: forget the longest-removed vehicles beyond MAX_REMOVED; of those removed at the same
  // time, the smaller id first (a stored map's key order is not kept, so it cannot decide).
  const removed = Object.entries(next.vehicles)
    .filter(([, v]) => !v.present)
    .sort(([ia, a], [ib, b]) =>
      a.changedAt < b.changedAt ? -1 : a.changedAt > b.changedAt ? 1 : ia < ib ? -1 : ia > ib ? 1 : 0,
    );
  for (const [id] of removed.slice(0, Math.max(0, removed.length - MAX_REMOVED))) delete next.vehicles[id];
  return { state: next, events, changed: 'state', vehicleIds: present(next), rejected, unconfirmed };
};

export const emptyEnrollmentState = (enrollmentId: string, now: string): EnrollmentState => ({
  stateFormat: ENROLLMENT_STATE_FORMAT,
  version: 0,
  enrollmentId,
  createdAt: now,
  sequence: 0,
  vehicles: {},
});
