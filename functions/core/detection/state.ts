import * as z from 'zod';
import { latestSchema } from './latest-record';
import { reportingSchema } from './reporting-record';

/**
 * What Carhook remembers of one vehicle between polls: one DynamoDB item (README.md "State").
 *
 * It has two parts. Everything but `cursors` changes only when something happened to the vehicle
 * (a record first seen, an alert changed, a level crossed…); `cursors` (when each source was last
 * read, the events `since` cursor) move on every poll. `stateChanged` tells them apart so a store
 * writes nothing on a quiet poll and may write cursor-only changes rarely.
 *
 * Field names are short-ish but readable: the item must stay well under DynamoDB's 400 KB.
 */
export const STATE_FORMAT = 1;

const iso = z.string();

/** Ids of records already turned into events (or baselined), with their record time. */
export const seenSetSchema = z.object({
  /** record key → record time (or the time Carhook first saw it, when the record has none). */
  ids: z.record(z.string(), iso),
  /** Newest time among forgotten ids: an unknown record at or before it is old, not new. */
  floor: iso.optional(),
});
export type SeenSet = z.infer<typeof seenSetSchema>;

/**
 * One alert, keyed `v2:<id>` / `v1:<idAlert>` in `alerts` (a complete list of one API only fixes
 * alerts of that API). Its occurrence key is derived from `startedAt` and `reopened` (README).
 */
export const alertEntrySchema = z.object({
  active: z.boolean(),
  message: z.string(),
  severity: z.string().optional(),
  category: z.string().optional(),
  startedAt: iso.optional(),
  endedAt: iso.optional(),
  /** `updatedAt` of the newest record applied. */
  updatedAt: iso.optional(),
  /** `fetchedAt` of the observation that last changed this entry. */
  seenAt: iso,
  /** Times this alert id came back active with the same start (README "Alerts"). */
  reopened: z.number().int().nonnegative().optional(),
  /**
   * Set while an absence is unconfirmed: `fetchedAt` of the first complete list of its API that
   * did not list this active alert. The alert stays active until its record says it ended or a
   * later complete list misses it too; then this time is the end told (README "Alerts").
   */
  missingSince: iso.optional(),
});
export type AlertEntry = z.infer<typeof alertEntrySchema>;

export const maintenanceStateSchema = z.object({
  days: z.number(),
  mileageKm: z.number(),
  /** Incremented by each reset; due/overdue are emitted at most once per cycle. */
  cycle: z.number().int().nonnegative(),
  emitted: z.array(z.enum(['due', 'overdue'])),
  updatedAt: iso.optional(),
  seenAt: iso,
});
export type MaintenanceState = z.infer<typeof maintenanceStateSchema>;

export const pendingTripSchema = z.object({
  /** When Carhook first saw the trip completed: it waits for eco-driving from then. */
  heldSince: iso,
  occurredAt: iso,
  operation: z.string(),
  /** The `vehicle.trip.completed` data without eco-driving (validated by the event schema on emit). */
  data: z.record(z.string(), z.unknown()),
});
export type PendingTrip = z.infer<typeof pendingTripSchema>;

export const cursorsSchema = z.object({
  /** `since` for the next events read (newest event time minus an overlap). */
  eventsSince: iso.optional(),
  /** Last `fetchedAt` per source. */
  fetched: z.record(z.string(), iso),
  /** Last complete, unwindowed alert list. */
  alertsReconciledAt: iso.optional(),
  /**
   * The newest `updatedAt` a complete unwindowed v2 alert list held. That list keeps fixed alerts,
   * so its newest record time never goes back: a list whose newest is older is a stale answer.
   * `lowerSince`: when a list first showed a lower newest; a later list showing it again means the
   * record really left the list, and the mark comes down (README "Stale and flapping answers").
   */
  alertsNewest: z.object({ at: iso, lowerSince: iso.optional() }).optional(),
});
export type Cursors = z.infer<typeof cursorsSchema>;

export const vehicleStateSchema = z.object({
  stateFormat: z.literal(STATE_FORMAT),
  /** Optimistic locking: the store increments it on each write; the engine carries it. */
  version: z.number().int().nonnegative(),
  vehicleId: z.string(),
  /** `now` of the first poll: records older than this are history (README "First poll"). */
  createdAt: iso,
  /** Last `sequence` given to an event of this vehicle. */
  sequence: z.number().int().nonnegative(),
  /** Sources observed at least once. */
  sources: z.array(z.string()),
  /** Alerts by key (`v2:<id>` / `v1:<idAlert>`). */
  alerts: z.record(z.string(), alertEntrySchema),
  /** Newest start and newest seenAt among forgotten fixed alerts. */
  alertFloor: z.object({ startedAt: iso.optional(), seenAt: iso }).optional(),
  collisions: seenSetSchema,
  trips: seenSetSchema,
  fuel: seenSetSchema,
  pendingTrips: z.record(z.string(), pendingTripSchema),
  maintenance: maintenanceStateSchema.optional(),
  services: z
    .object({
      eligible: z.array(z.string()),
      revision: z.number().int(),
      seenAt: iso,
      /**
       * A different set of eligible codes read once and not yet confirmed: services answers carry no
       * record time, so a stale or flapping answer can only be told from a change by reading again.
       */
      pending: z.object({ eligible: z.array(z.string()), seenAt: iso }).optional(),
    })
    .optional(),
  map: z
    .object({
      available: z.string(),
      installed: z.string().optional(),
      /** Versions already announced (newest last, bounded): a version flapping back is not news. */
      announced: z.array(z.string()),
      seenAt: iso,
    })
    .optional(),
  /** Newest trip end / event / alert start: the scheduler favours recently active vehicles. */
  lastActivityAt: iso.optional(),
  /** Time of the last trip completed: maintenance is worth reading after one. */
  lastTripAt: iso.optional(),
  /**
   * Enrollments of the same VIN that joined this stream without polling it (an OAuth user whose
   * car a fleet contract polls through v1): their ids go on the events (`enrollments`) while active.
   */
  links: z.array(z.object({ id: z.string(), kind: z.enum(['oauth-user', 'fleet-contract']) })).optional(),
  /**
   * Enrollment events (`enrollment.vehicle.added` / `removed`) already numbered on this vehicle's
   * `sequence`: event id → when. Their ids are deterministic, so a repeated DELETE or a re-run
   * discovery finds its event here and takes no second number (bounded, newest kept).
   */
  told: z.record(z.string(), iso).optional(),
  /**
   * Set when an enrollment event created the state before any poll: the first poll still treats
   * everything as history (README "First poll") and clears it.
   */
  unpolled: z.literal(true).optional(),
  /** The last trip, collision, position and fuel level told (./latest.ts), for `GET /vehicles/{id}/state`. */
  latest: latestSchema.optional(),
  /** Gaps between records, and a silence told (./reporting.ts). */
  reporting: reportingSchema.optional(),
  cursors: cursorsSchema,
});

export type VehicleState = z.infer<typeof vehicleStateSchema>;

export const emptySeenSet = (): SeenSet => ({ ids: {} });

export const initialState = (vehicleId: string, now: string): VehicleState => ({
  stateFormat: STATE_FORMAT,
  version: 0,
  vehicleId,
  createdAt: now,
  sequence: 0,
  sources: [],
  alerts: {},
  collisions: emptySeenSet(),
  trips: emptySeenSet(),
  fuel: emptySeenSet(),
  pendingTrips: {},
  cursors: { fetched: {} },
});

export const serializeState = (state: VehicleState): string => JSON.stringify(state);

export type StateParseError = {
  readonly kind: 'Malformed';
  readonly field: string;
  readonly reason: string;
};

/**
 * Parses a stored state. An unknown `stateFormat` is an error (a newer Carhook wrote it, or a
 * migration is missing): the caller must not overwrite it with a fresh state.
 */
export const parseState = (
  input: string | unknown,
): { ok: true; state: VehicleState } | { ok: false; error: StateParseError } => {
  let value: unknown = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (cause) {
      return { ok: false, error: { kind: 'Malformed', field: '', reason: `not JSON: ${String(cause)}` } };
    }
  }
  const parsed = vehicleStateSchema.safeParse(value);
  if (parsed.success) return { ok: true, state: parsed.data };
  const issue = parsed.error.issues[0];
  return {
    ok: false,
    error: {
      kind: 'Malformed',
      // Stryker disable next-line ConditionalExpression: a failed zod parse lists at least one issue
      field: issue === undefined ? '' : issue.path.join('.'),
      // Stryker disable next-line OptionalChaining: a failed zod parse lists at least one issue
      reason: issue?.message ?? 'invalid state',
    },
  };
};

const deepEqual = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
};

/**
 * What a store must write after a diff: `none` (nothing: the poll found nothing new), `cursors`
 * (only poll bookkeeping moved: write when convenient, e.g. at most every few minutes — losing it
 * costs one redundant read, never an event), `state` (write now, conditionally on `version`).
 */
export const stateChanged = (
  before: VehicleState | undefined,
  after: VehicleState,
): 'none' | 'cursors' | 'state' => {
  // Stryker disable next-line ConditionalExpression,BlockStatement: a shortcut; deepEqual finds the same state equal
  if (before === after) return 'none';
  if (before === undefined) return 'state';
  const { cursors: c1, ...core1 } = before;
  const { cursors: c2, ...core2 } = after;
  if (!deepEqual(core1, core2)) return 'state';
  return deepEqual(c1, c2) ? 'none' : 'cursors';
};
