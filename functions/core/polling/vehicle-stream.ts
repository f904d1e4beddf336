/**
 * Events about a vehicle told outside a poll's diff (enrollment membership: a vehicle added to or
 * removed from a user's list, a fleet contract enrolled or deleted, a fleet vehicle the v1 API no
 * longer knows) join the vehicle's one stream: each takes the next number of the vehicle's
 * (VIN-keyed) `sequence`, written in the same conditional commit as the state that counts it
 * (`commitPoll` with `expectedVersion`, as a poll commits, ./commit.ts). A poll or another such
 * change racing on the same vehicle makes one of the two commits fail with `VersionConflict`; the
 * loser numbers again on the state the winner wrote, so a vehicle's events are 1, 2, 3… across all
 * types, with no repeat and no gap. It lives with the poll commit because it is the same write on
 * the same state; core/enrollment builds on it.
 *
 * The ids are deterministic and the state remembers which enrollment events it numbered
 * (`told`), so a retry after a crash (a repeated DELETE, a discovery run again) tells nothing twice.
 */
import { sequenceMembership } from '../detection/membership';
import { parseState, STATE_FORMAT, serializeState } from '../detection/state';
import type { CarhookEvent } from '../events/catalogue';
import type { EventBus } from '../publishing/ports';
import { isLegacyState, stateKeyOf } from '../store/identity';
import type { Stores } from '../store/ports';
import type { VehicleRecord } from '../store/records';
import { type PublishTuning, publishCommitted } from './commit';

/** What committing on a vehicle's stream needs (and what enrollment's use cases take). */
export interface VehicleStreamDeps {
  readonly stores: Stores;
  readonly bus: EventBus;
  readonly now: () => number;
  readonly publish?: PublishTuning;
  /** Re-numberings after a VersionConflict before giving up (default 10). */
  readonly conflictRetries?: number;
}

export type VehicleStreamResult =
  | {
      readonly kind: 'Committed';
      /** The events as committed (numbered), new ones only. */
      readonly events: readonly CarhookEvent[];
      /** Ids written to the event log by this call. */
      readonly written: readonly string[];
      readonly published: readonly string[];
      readonly conflicts: number;
    }
  | {
      /**
       * The vehicle's state cannot be read (newer format or corrupt) and is never overwritten: the
       * events are still written to the log (nothing is lost) with `sequence` 0, unnumbered.
       */
      readonly kind: 'StateUnreadable';
      readonly field: string;
      readonly reason: string;
      readonly written: readonly string[];
      readonly published: readonly string[];
    }
  /** Other writers kept winning: nothing was written; the caller's retry tells them. */
  | { readonly kind: 'ConflictRetriesExhausted'; readonly conflicts: number };

/**
 * Commits `events`, all about `vehicle`, on the vehicle's stream, then publishes the ones written
 * (what fails to publish stays unpublished in the log for the sweeper).
 */
export async function commitToVehicleStream(
  deps: VehicleStreamDeps,
  vehicle: Pick<VehicleRecord, 'id' | 'vin'>,
  events: readonly CarhookEvent[],
): Promise<VehicleStreamResult> {
  const { stores } = deps;
  if (events.length === 0) return { kind: 'Committed', events: [], written: [], published: [], conflicts: 0 };
  const identity = stateKeyOf(vehicle);
  let { state: stored } = await stores.states.getVehicleWithState(vehicle.id);
  // A state from before the VIN keying starts the identity; the identity's first commit migrates it.
  let legacy = stored !== undefined && isLegacyState(vehicle, stored);
  const retries = deps.conflictRetries ?? 10;
  for (let conflicts = 0; conflicts <= retries; conflicts++) {
    const now = deps.now();
    let previous: ReturnType<typeof parseState> | undefined;
    if (stored !== undefined) {
      previous = parseState(stored.state);
      if (!previous.ok) {
        const unnumbered = events.map((e) => ({ ...e, sequence: 0 }) as CarhookEvent);
        const appended = await stores.events.append(unnumbered, now);
        const written = new Set(appended.written);
        const outcome = await publishCommitted(
          deps,
          unnumbered.filter((e) => written.has(e.id)),
        );
        return {
          kind: 'StateUnreadable',
          field: previous.error.field,
          reason: previous.error.reason,
          written: appended.written,
          published: outcome.published,
        };
      }
    }
    const start = previous?.ok ? { ...previous.state, vehicleId: identity } : undefined;
    const s = sequenceMembership(start, identity, events, new Date(now));
    if (!s.changed) return { kind: 'Committed', events: [], written: [], published: [], conflicts };
    const result = await stores.states.commitPoll({
      vehicleId: vehicle.id,
      stateKey: identity,
      expectedVersion: legacy ? 0 : (stored?.version ?? 0),
      state: serializeState(s.state),
      stateFormat: String(STATE_FORMAT),
      events: s.events,
      now,
    });
    if (result.kind === 'VersionConflict') {
      stored = result.current;
      legacy = false;
      continue;
    }
    const written = new Set(result.eventsWritten);
    const outcome = await publishCommitted(
      deps,
      s.events.filter((e) => written.has(e.id)),
    );
    return {
      kind: 'Committed',
      events: s.events,
      written: result.eventsWritten,
      published: outcome.published,
      conflicts,
    };
  }
  return { kind: 'ConflictRetriesExhausted', conflicts: retries + 1 };
}

/**
 * Commits events about several vehicles, each on its own vehicle's stream (grouped by
 * `vehicle.id`, order kept within a vehicle).
 */
export async function commitToVehicleStreams(
  deps: VehicleStreamDeps,
  events: readonly CarhookEvent[],
): Promise<{
  readonly written: readonly string[];
  readonly published: readonly string[];
  /** Vehicle ids whose events could not be committed (conflicts exhausted). */
  readonly failed: readonly string[];
}> {
  const byVehicle = new Map<string, { vin: string; events: CarhookEvent[] }>();
  for (const e of events) {
    const id = e.vehicle?.id;
    if (id === undefined) continue;
    const group = byVehicle.get(id) ?? { vin: e.vehicle?.vin ?? '', events: [] };
    group.events.push(e);
    byVehicle.set(id, group);
  }
  const written: string[] = [];
  const published: string[] = [];
  const failed: string[] = [];
  for (const [id, group] of byVehicle) {
    const r = await commitToVehicleStream(deps, { id, vin: group.vin }, group.events);
    if (r.kind === 'ConflictRetriesExhausted') {
      failed.push(id);
      continue;
    }
    written.push(...r.written);
    published.push(...r.published);
  }
  return { written, published, failed };
}
