/**
 * Vehicle discovery of an oauth-user enrollment: the user's vehicle list (GET /vehicles, every
 * page) diffed by the detection engine's `diffEnrollmentVehicles`, so enrollment and periodic
 * discovery share one path:
 * - a new vehicle → `enrollment.vehicle.added`, and it is enrolled (`VehicleStore.put`);
 * - a vehicle missing from a COMPLETE list → `enrollment.vehicle.removed`, and it is paused
 *   (`removed`); a vehicle listed again is resumed. Either only once a read of the vehicle itself
 *   (`GET /vehicles/{id}`: 404 / 403 gone, 200 there) confirms it: a list can be an older copy, or
 *   miss one vehicle once.
 * - an unconfirmed change waits (the vehicle keeps being polled, or stays paused) for a later run.
 *
 * The enrollment-level state is kept through the VehicleStateStore under the id
 * `enrollment:<enrollmentId>` (a versioned, opaque state: exactly what that port offers), so no new
 * port is needed. Each event joins its vehicle's stream (../polling/vehicle-stream.ts): numbered on the
 * vehicle's one `sequence`, committed with the vehicle's state. Order: vehicles created/paused,
 * then the events on their vehicles' streams, then the enrollment state. Every step is idempotent,
 * so a crash in between is repaired by the next run, which re-diffs to the same event ids and finds
 * the ones already numbered on their vehicle.
 */
import type { CarClient } from '../api';
import { diffEnrollmentVehicles, type EnrollmentState, enrollmentStateSchema } from '../detection/enrollment';
import type { ObservationOf } from '../detection/observations';
import { commitToVehicleStreams, type VehicleStreamDeps } from '../polling/vehicle-stream';
import { vehicleIdOf } from '../store/identity';
import type { OAuthUserEnrollment } from '../store/records';

export const ENROLLMENT_STATE_FORMAT = 'enrollment-1';

/** The VehicleStateStore key of an enrollment's vehicle list state. */
export const enrollmentStateKey = (enrollmentId: string): string => `enrollment:${enrollmentId}`;

export interface DiscoveryDeps extends VehicleStreamDeps {
  /** Page size of GET /vehicles (default 100). */
  readonly pageLimit?: number;
  /**
   * Re-diffs after a VersionConflict on the enrollment state (default 3); also the re-numberings
   * of each event on its vehicle's stream when given.
   */
  readonly conflictRetries?: number;
}

export type DiscoveryResult =
  | {
      readonly kind: 'Synced';
      readonly added: readonly string[];
      readonly removed: readonly string[];
      readonly resumed: readonly string[];
      readonly eventsWritten: readonly string[];
      readonly published: readonly string[];
      readonly unpublished: readonly string[];
      /** Vehicle ids present now. */
      readonly vehicleIds: readonly string[];
    }
  | { readonly kind: 'ListFailed'; readonly errorKind: string; readonly message: string }
  | { readonly kind: 'StateUnreadable'; readonly message: string }
  | { readonly kind: 'ConflictRetriesExhausted' };

function parseEnrollmentState(text: string): EnrollmentState | string {
  try {
    const parsed = enrollmentStateSchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
    return parsed.error.issues[0]?.message ?? 'invalid enrollment state';
  } catch (cause) {
    return `not JSON: ${String(cause)}`;
  }
}

/** Reads the user's complete vehicle list with `client` and applies it. */
export async function syncVehicleList(
  deps: DiscoveryDeps,
  enrollment: Pick<OAuthUserEnrollment, 'id'>,
  client: CarClient,
): Promise<DiscoveryResult> {
  const listed = await client.v2.vehicles.all({ limit: deps.pageLimit ?? 100 });
  if (!listed.ok) return { kind: 'ListFailed', errorKind: listed.error.kind, message: listed.error.message };
  const observation: ObservationOf<'v2.vehicles'> = {
    source: 'v2.vehicles',
    // A 404 "user has no vehicle declared" arrives from the client as a complete empty list.
    items: listed.value.items,
    complete: true,
    fetchedAt: new Date(deps.now()).toISOString(),
  };
  return applyVehicleList(deps, enrollment, observation, vehicleCheck(client));
}

/**
 * Reads one vehicle of the user (`GET /vehicles/{id}`): `present` when the API answers it,
 * `absent` on 404 / 403 (the user no longer has it), undefined when nothing can be concluded.
 */
export type VehicleCheck = (apiVehicleId: string) => Promise<'present' | 'absent' | undefined>;

/** Vehicle reads one discovery run makes at most to confirm what its list alone does not prove. */
export const MAX_VEHICLE_READS = 20;

export const vehicleCheck =
  (client: CarClient): VehicleCheck =>
  async (apiVehicleId) => {
    const r = await client.v2.vehicle(apiVehicleId);
    if (r.ok) return 'present';
    return r.error.kind === 'NotFound' || r.error.kind === 'AccessDenied' ? 'absent' : undefined;
  };

/**
 * Applies a vehicle list. `checkVehicle` confirms what the list alone does not prove (a known
 * vehicle it misses, a removed one it lists again): without it, such a vehicle keeps its state
 * until a later run confirms it.
 */
export async function applyVehicleList(
  deps: DiscoveryDeps,
  enrollment: Pick<OAuthUserEnrollment, 'id'>,
  observation: ObservationOf<'v2.vehicles'>,
  checkVehicle?: VehicleCheck,
): Promise<DiscoveryResult> {
  const { stores } = deps;
  const checked = new Map<string, 'present' | 'absent'>();
  const key = enrollmentStateKey(enrollment.id);
  let stored = await stores.states.getState(key);
  const retries = deps.conflictRetries ?? 3;
  const resumed = new Set<string>();
  const eventsWritten: string[] = [];
  const published: string[] = [];
  for (let attempt = 0; attempt <= retries; attempt++) {
    const now = deps.now();
    let previous: EnrollmentState | undefined;
    if (stored) {
      const parsed = parseEnrollmentState(stored.state);
      if (typeof parsed === 'string') return { kind: 'StateUnreadable', message: `${key}: ${parsed}` };
      previous = parsed;
    }
    const context = {
      enrollment: { id: enrollment.id, kind: 'oauth-user' as const },
      now: new Date(now),
      vehicleId: (apiId: string) => vehicleIdOf(enrollment.id, apiId),
      // The first list of an enrollment is what it enrolls: each vehicle is announced.
      ...(previous === undefined ? { config: { initialPolicy: 'all' as const } } : {}),
    };
    let d = diffEnrollmentVehicles(previous, observation, context);
    if (d.unconfirmed.length > 0 && checkVehicle !== undefined) {
      // A vehicle the list misses (or lists again after its removal) is read itself first.
      for (const apiId of d.unconfirmed.slice(0, MAX_VEHICLE_READS)) {
        if (checked.has(apiId)) continue;
        const seen = await checkVehicle(apiId);
        if (seen !== undefined) checked.set(apiId, seen);
      }
      d = diffEnrollmentVehicles(previous, observation, { ...context, checked });
    }

    // Effects first (idempotent), then the commit that records them.
    const known = new Map((await stores.vehicles.listByEnrollment(enrollment.id)).map((v) => [v.id, v]));
    const byApiId = new Map(observation.items.map((v) => [v.id, v]));
    const added: string[] = [];
    for (const apiId of d.vehicleIds) {
      const id = vehicleIdOf(enrollment.id, apiId);
      const existing = known.get(id);
      if (!existing) {
        const v = byApiId.get(apiId);
        const entry = d.state.vehicles[apiId];
        const vin = v?.vin ?? entry?.vin ?? '';
        const brand = v?.brand ?? entry?.brand;
        const r = await stores.vehicles.put(
          {
            id,
            enrollmentId: enrollment.id,
            vin,
            ...(brand !== undefined ? { brand } : {}),
            ...(v?.model ? { model: v.model } : {}),
            ...(v?.subModel ? { subModel: v.subModel } : {}),
            apiVehicleId: apiId,
            nextPollAt: new Date(now).toISOString(),
          },
          now,
        );
        if (r.created) added.push(id);
      } else if (
        existing.paused &&
        (existing.pauseReason === 'removed' || existing.pauseReason === 'access_denied')
      ) {
        if (await stores.vehicles.resume(id, now, { reason: existing.pauseReason })) resumed.add(id);
      }
    }
    const present = new Set(d.vehicleIds);
    const removed: string[] = [];
    for (const [id, v] of known) {
      if (v.apiVehicleId === undefined || present.has(v.apiVehicleId)) continue;
      // Only a complete list removes (diffEnrollmentVehicles marks it not present).
      if (d.state.vehicles[v.apiVehicleId]?.present === false) {
        if (v.paused && v.pauseReason === 'removed') continue;
        await stores.vehicles.pause(id, 'removed', now);
        removed.push(id);
      }
    }

    if (d.changed === 'none') {
      return {
        kind: 'Synced',
        added,
        removed,
        resumed: [...resumed],
        eventsWritten: [],
        published: [],
        unpublished: [],
        vehicleIds: d.vehicleIds.map((a) => vehicleIdOf(enrollment.id, a)),
      };
    }
    // The events on their vehicles' streams first: a crash before the enrollment state is
    // committed re-diffs to the same ids next run, and those are found already numbered.
    const told = await commitToVehicleStreams(deps, d.events);
    eventsWritten.push(...told.written);
    published.push(...told.published);
    if (told.failed.length > 0) return { kind: 'ConflictRetriesExhausted' };
    const result = await stores.states.commitPoll({
      vehicleId: key,
      expectedVersion: stored?.version ?? 0,
      state: JSON.stringify(d.state),
      stateFormat: ENROLLMENT_STATE_FORMAT,
      events: [],
      now,
    });
    if (result.kind === 'VersionConflict') {
      stored = result.current;
      continue;
    }
    const done = new Set(published);
    return {
      kind: 'Synced',
      added,
      removed,
      resumed: [...resumed],
      eventsWritten,
      published,
      unpublished: eventsWritten.filter((id) => !done.has(id)),
      vehicleIds: d.vehicleIds.map((a) => vehicleIdOf(enrollment.id, a)),
    };
  }
  return { kind: 'ConflictRetriesExhausted' };
}
