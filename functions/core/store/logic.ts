import { type EventEnvelope, envelopeSchema } from '../events/envelope';
import { invalidInput, StoreError } from './errors';
import {
  type Enrollment,
  enrollmentStatuses,
  type IsoDate,
  type NewVehicle,
  pauseReasons,
  type ScheduleUpdate,
  type VehicleRecord,
} from './records';

/**
 * Pure rules shared by every store implementation (so the DynamoDB adapter and the in-memory one
 * validate and compute the same way).
 */

/** Event log retention (default 30 days). */
export const DEFAULT_EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * DynamoDB items are at most 400 KB (aws-facts.md). We refuse somewhat below that so the keys and
 * bookkeeping attributes always fit next to the payload.
 */
export const MAX_STATE_BYTES = 380 * 1024;
export const MAX_EVENT_BYTES = 350 * 1024;

/** Upper bound of a page (so a caller cannot ask one query for the whole table). */
export const MAX_PAGE_LIMIT = 1000;
export const DEFAULT_PAGE_LIMIT = 100;

// The map API's VIN pattern is 17 characters [A-Z0-9]; we use it for every fleet VIN.
const VIN_PATTERN = /^[A-Z0-9]{17}$/;
// One canonical form (what Date#toISOString gives) so dates compare as strings in sort keys.
const ISO_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MAX_ID_LENGTH = 256;

export function requireId(field: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0)
    throw invalidInput(field, 'must be a non-empty string');
  if (value.length > MAX_ID_LENGTH) throw invalidInput(field, `must be at most ${MAX_ID_LENGTH} characters`);
  return value;
}

/**
 * Encrypted token sets are long (JWT access and refresh tokens run to a few KB); the bound only
 * keeps an enrollment item far below DynamoDB's 400 KB.
 */
export const MAX_CIPHERTEXT_LENGTH = 32_768;

export function requireCiphertext(field: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0)
    throw invalidInput(field, 'must be a non-empty string');
  if (value.length > MAX_CIPHERTEXT_LENGTH)
    throw invalidInput(field, `must be at most ${MAX_CIPHERTEXT_LENGTH} characters`);
  return value;
}

export function requireIsoDate(field: string, value: unknown): IsoDate {
  if (typeof value !== 'string' || !ISO_PATTERN.test(value) || !isCanonical(value)) {
    throw invalidInput(
      field,
      'must be an ISO 8601 UTC date with milliseconds, like 2026-11-22T10:00:00.000Z',
    );
  }
  return value;
}

function isCanonical(value: string): boolean {
  const ms = Date.parse(value);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === value;
}

export function requireEpochMs(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw invalidInput(field, 'must be a non-negative epoch time in milliseconds');
  }
  return value;
}

export function isValidVin(vin: string): boolean {
  return VIN_PATTERN.test(vin);
}

export function requireVin(field: string, value: unknown): string {
  if (typeof value !== 'string' || !isValidVin(value)) {
    throw invalidInput(field, 'must be a VIN: 17 characters A-Z or 0-9');
  }
  return value;
}

export function requirePageLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT) {
    throw invalidInput('limit', `must be an integer from 1 to ${MAX_PAGE_LIMIT}`);
  }
  return limit;
}

export function validateEnrollment(enrollment: Enrollment): Enrollment {
  requireId('enrollment.id', enrollment.id);
  requireId('enrollment.brand', enrollment.brand);
  if (!enrollmentStatuses.includes(enrollment.status)) {
    throw invalidInput('enrollment.status', `must be one of ${enrollmentStatuses.join(', ')}`);
  }
  requireIsoDate('enrollment.createdAt', enrollment.createdAt);
  requireIsoDate('enrollment.updatedAt', enrollment.updatedAt);
  if (enrollment.kind === 'fleet-contract') {
    requireVin('enrollment.vin', enrollment.vin);
    requireId('enrollment.contract', enrollment.contract);
  } else if (enrollment.kind === 'oauth-user') {
    if (enrollment.tokenExpiresAt !== undefined)
      requireIsoDate('enrollment.tokenExpiresAt', enrollment.tokenExpiresAt);
    if (enrollment.tokenCiphertext !== undefined)
      requireCiphertext('enrollment.tokenCiphertext', enrollment.tokenCiphertext);
  } else {
    throw invalidInput('enrollment.kind', 'must be oauth-user or fleet-contract');
  }
  return enrollment;
}

export function validateNewVehicle(vehicle: NewVehicle): NewVehicle {
  requireId('vehicle.id', vehicle.id);
  requireId('vehicle.enrollmentId', vehicle.enrollmentId);
  requireId('vehicle.vin', vehicle.vin);
  requireIsoDate('vehicle.nextPollAt', vehicle.nextPollAt);
  if (vehicle.hints?.lastActivityAt !== undefined) {
    requireIsoDate('vehicle.hints.lastActivityAt', vehicle.hints.lastActivityAt);
  }
  if (vehicle.hints?.priority !== undefined && !Number.isFinite(vehicle.hints.priority)) {
    throw invalidInput('vehicle.hints.priority', 'must be a finite number');
  }
  if (vehicle.hints?.rates !== undefined) requireRates('vehicle.hints.rates', vehicle.hints.rates);
  for (const field of ['model', 'subModel'] as const) {
    const v: unknown = vehicle[field];
    if (v !== undefined && (typeof v !== 'string' || v.length === 0 || v.length > 256)) {
      throw invalidInput(`vehicle.${field}`, 'must be a string of 1-256 characters (as the API names it)');
    }
  }
  return vehicle;
}

/** A vehicle as first stored: validated, not paused, default hints, nothing polled yet. */
export function newVehicleRecord(vehicle: NewVehicle, now: number): VehicleRecord {
  validateNewVehicle(vehicle);
  return {
    id: vehicle.id,
    enrollmentId: vehicle.enrollmentId,
    vin: vehicle.vin,
    ...(vehicle.brand !== undefined ? { brand: vehicle.brand } : {}),
    ...(vehicle.model !== undefined ? { model: vehicle.model } : {}),
    ...(vehicle.subModel !== undefined ? { subModel: vehicle.subModel } : {}),
    ...(vehicle.apiVehicleId !== undefined ? { apiVehicleId: vehicle.apiVehicleId } : {}),
    paused: false,
    nextPollAt: vehicle.nextPollAt,
    hints: { activeAlerts: false, priority: 0, ...vehicle.hints },
    resourcePolledAt: {},
    createdAt: iso(now),
    updatedAt: iso(now),
  };
}

/** The rate estimate is a short printable string (its content is the planner's business). */
function requireRates(field: string, value: unknown): void {
  if (typeof value !== 'string' || !/^[\x21-\x7e]{1,256}$/.test(value)) {
    throw invalidInput(field, 'must be 1-256 printable characters');
  }
}

export function validateScheduleUpdate(update: ScheduleUpdate): ScheduleUpdate {
  requireIsoDate('schedule.nextPollAt', update.nextPollAt);
  if (update.lastPolledAt !== undefined) requireIsoDate('schedule.lastPolledAt', update.lastPolledAt);
  if (update.lastChangeAt !== undefined) requireIsoDate('schedule.lastChangeAt', update.lastChangeAt);
  if (update.hints?.lastActivityAt !== undefined) {
    requireIsoDate('schedule.hints.lastActivityAt', update.hints.lastActivityAt);
  }
  if (update.hints?.priority !== undefined && !Number.isFinite(update.hints.priority)) {
    throw invalidInput('schedule.hints.priority', 'must be a finite number');
  }
  if (update.hints?.rates !== undefined) requireRates('schedule.hints.rates', update.hints.rates);
  if (update.hints?.workWaitingAt !== undefined) {
    requireIsoDate('schedule.hints.workWaitingAt', update.hints.workWaitingAt);
  }
  if (update.hints?.eventsRefusedAt !== undefined) {
    requireIsoDate('schedule.hints.eventsRefusedAt', update.hints.eventsRefusedAt);
  }
  for (const [resource, at] of Object.entries(update.resourcePolledAt ?? {})) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(resource)) {
      throw invalidInput(
        `schedule.resourcePolledAt.${resource}`,
        'resource names are 1-64 of A-Z a-z 0-9 _ -',
      );
    }
    requireIsoDate(`schedule.resourcePolledAt.${resource}`, at);
  }
  return update;
}

export function requirePauseReason(value: unknown): void {
  if (!pauseReasons.includes(value as never)) {
    throw invalidInput('reason', `must be one of ${pauseReasons.join(', ')}`);
  }
}

/** A pause that a later pause of another reason never overrides and a plain resume never lifts. */
export function isTerminalPause(reason: string | undefined): boolean {
  return reason === 'unenrolled' || reason === 'removed';
}

/** Validates envelopes at the store boundary and removes repeated ids (first kept). */
export function prepareEvents(events: readonly EventEnvelope[]): EventEnvelope[] {
  const seen = new Set<string>();
  const out: EventEnvelope[] = [];
  events.forEach((event, index) => {
    const parsed = envelopeSchema.safeParse(event);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw invalidInput(
        `events[${index}].${issue?.path.join('.') ?? ''}`,
        issue?.message ?? 'invalid envelope',
      );
    }
    requireIsoDate(`events[${index}].detectedAt`, event.detectedAt);
    if (Buffer.byteLength(JSON.stringify(event)) > MAX_EVENT_BYTES) {
      throw new StoreError(
        'ItemTooLarge',
        `events[${index}]: envelope is larger than ${MAX_EVENT_BYTES} bytes`,
        {
          eventId: event.id,
        },
      );
    }
    if (seen.has(event.id)) return;
    seen.add(event.id);
    out.push(event);
  });
  return out;
}

export function checkStateSize(vehicleId: string, state: string): void {
  const bytes = Buffer.byteLength(state);
  if (bytes > MAX_STATE_BYTES) {
    throw new StoreError(
      'ItemTooLarge',
      `state of vehicle ${vehicleId} is ${bytes} bytes; the limit is ${MAX_STATE_BYTES} (DynamoDB items are at most 400 KB)`,
      { vehicleId, bytes },
    );
  }
}

/** When an event leaves the log: detection time + retention, in epoch seconds (the TTL unit). */
export function eventExpiresAt(event: EventEnvelope, retentionMs: number): number {
  return Math.ceil((Date.parse(event.detectedAt) + retentionMs) / 1000);
}

/** TTL is lazy (and never applied by DynamoDB Local): an item is gone once `now` reaches it. */
export function isExpired(expiresAtSeconds: number | undefined, now: number): boolean {
  return expiresAtSeconds !== undefined && expiresAtSeconds * 1000 <= now;
}

export function iso(epochMs: number): IsoDate {
  return new Date(epochMs).toISOString();
}

/** Splits a list into chunks of at most `size`. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function matchesTypes(type: string, types: readonly string[] | undefined): boolean {
  return types === undefined || types.length === 0 || types.includes(type);
}

/** The sort key of an event in every time-ordered view: detection time, then id. */
export function eventSortKey(event: EventEnvelope): string {
  return `${event.detectedAt}#${event.id}`;
}

/** One day past now: the latest detection time a time-range read looks at (clock skew margin). */
const FUTURE_MARGIN_MS = 24 * 60 * 60 * 1000;

/**
 * The part of `[since, until)` where live events can be: nothing detected before
 * `now - retention` is still in the log, and nothing is detected more than a day after `now`.
 * Undefined when the range is empty.
 */
export function liveEventRange(
  since: IsoDate | undefined,
  until: IsoDate | undefined,
  now: number,
  retentionMs: number,
): { readonly from: IsoDate; readonly to: IsoDate } | undefined {
  const oldest = iso(Math.max(0, now - retentionMs));
  const newest = iso(now + FUTURE_MARGIN_MS);
  const from = since !== undefined && since > oldest ? since : oldest;
  const to = until !== undefined && until < newest ? until : newest;
  return from < to ? { from, to } : undefined;
}

export function encodeCursor(after: string): string {
  return Buffer.from(JSON.stringify({ after }), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (parsed && typeof parsed === 'object' && typeof (parsed as { after?: unknown }).after === 'string') {
      return (parsed as { after: string }).after;
    }
  } catch {
    // falls through to the error below
  }
  throw invalidInput('cursor', 'is not a cursor returned by this store');
}

/** Event types filter: at most 100 (DynamoDB's IN takes 100 operands). */
export function requireTypes(types: readonly string[] | undefined): readonly string[] | undefined {
  if (types === undefined || types.length === 0) return undefined;
  if (types.length > 100) throw invalidInput('types', 'at most 100 event types');
  types.forEach((type, index) => {
    requireId(`types[${index}]`, type);
  });
  return types;
}
