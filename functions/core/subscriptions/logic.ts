import { createHash, randomBytes } from 'node:crypto';
import { invalidInput } from '../store/errors';
import { requireId, requireIsoDate } from '../store/logic';
import type { AttemptFilter, FinishInput } from './ports';
import {
  type AttemptRecord,
  type DeliveryRecord,
  deliveryStatuses,
  type SubscriptionRecord,
} from './records';

/** Rules shared by the memory and DynamoDB stores, so both validate and order the same way. */

/** The stored last failure's error is cut to this many characters (the attempt log has it whole). */
export const MAX_FAILURE_ERROR = 500;

/** Attempt log and finished deliveries are kept this long (TTL), like the event log. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

function hash(parts: readonly string[], length = 26): string {
  // Unit separators keep ('a', 'b|c') and ('a|b', 'c') apart.
  return createHash('sha256').update(parts.join('\u001f')).digest('base64url').slice(0, length);
}

/** Fan-out delivery id: one event to one subscription is one delivery, however often fan-out runs. */
export function deliveryId(eventId: string, subscriptionId: string): string {
  return `dlv_${hash(['event', eventId, subscriptionId])}`;
}

/** A replayed (or test) delivery is a new delivery of the same event (same `webhook-id`). */
export function extraDeliveryId(
  kind: 'replay' | 'test',
  eventId: string,
  subscriptionId: string,
  runId: string,
) {
  return `dlv_${hash([kind, eventId, subscriptionId, runId])}`;
}

/** `sub_` + creation time (base36, fixed width) + randomness: ids list in creation order. */
export function newSubscriptionId(now: number, random: () => Buffer = () => randomBytes(10)): string {
  return `sub_${now.toString(36).padStart(10, '0')}${random().toString('hex')}`;
}

/** Attempt log sort key: newest first is descending order of it. */
export function attemptSortKey(a: { startedAt: string; deliveryId: string; attemptNumber: number }): string {
  return `${a.startedAt}#${a.deliveryId}#${String(a.attemptNumber).padStart(3, '0')}`;
}

export function dueSortKey(d: Pick<DeliveryRecord, 'nextAttemptAt' | 'id'>): string {
  return `${d.nextAttemptAt}#${d.id}`;
}

/** Each of `ids` a non-empty id and each of `dates` an ISO date, refused as `<what>.<field>`. */
function requireFields<T>(
  what: string,
  record: T,
  ids: readonly (keyof T & string)[],
  dates: readonly (keyof T & string)[],
) {
  for (const k of ids) requireId(`${what}.${k}`, record[k]);
  for (const k of dates) requireIsoDate(`${what}.${k}`, record[k]);
}

export function validateSubscription(s: SubscriptionRecord): SubscriptionRecord {
  requireFields('subscription', s, ['id', 'url', 'secretCiphertext'], ['createdAt', 'updatedAt']);
  if (s.status !== 'active' && s.status !== 'disabled')
    throw invalidInput('subscription.status', 'must be active or disabled');
  return s;
}

export function validateDelivery(d: DeliveryRecord): DeliveryRecord {
  requireFields('delivery', d, ['id', 'subscriptionId', 'eventId'], ['nextAttemptAt', 'createdAt']);
  if (d.envelope?.id !== d.eventId) throw invalidInput('delivery.envelope.id', 'must equal delivery.eventId');
  if (!deliveryStatuses.includes(d.status))
    throw invalidInput('delivery.status', `must be one of ${deliveryStatuses.join(', ')}`);
  if (!Number.isInteger(d.attempts) || d.attempts < 0)
    throw invalidInput('delivery.attempts', 'must be a non-negative integer');
  return d;
}

export function validateFinish(input: FinishInput): FinishInput {
  requireId('deliveryId', input.deliveryId);
  if (!Number.isInteger(input.attemptNumber) || input.attemptNumber < 1)
    throw invalidInput('attemptNumber', 'must be a positive integer');
  if (input.status === 'pending') requireIsoDate('nextAttemptAt', input.nextAttemptAt);
  requireIsoDate('attempt.startedAt', input.attempt.startedAt);
  if (input.attempt.deliveryId !== input.deliveryId)
    throw invalidInput('attempt.deliveryId', 'must equal deliveryId');
  return input;
}

/** What `recordAttempts` accepts: a delivery after its attempt and that attempt's line, consistent. */
export function validateRecordedAttempt(entry: { delivery: DeliveryRecord; attempt: AttemptRecord }): void {
  validateDelivery(entry.delivery);
  const a = entry.attempt;
  requireIsoDate('attempt.startedAt', a.startedAt);
  if (a.deliveryId !== entry.delivery.id) throw invalidInput('attempt.deliveryId', 'must equal delivery.id');
  if (a.subscriptionId !== entry.delivery.subscriptionId)
    throw invalidInput('attempt.subscriptionId', 'must equal delivery.subscriptionId');
  if (!Number.isInteger(a.attemptNumber) || a.attemptNumber < 1)
    throw invalidInput('attempt.attemptNumber', 'must be a positive integer');
}

export const iso = (ms: number): string => new Date(ms).toISOString();

/** An attempt log filter: ISO times, a known status, ids of sane length. */
export function validateAttemptFilter(filter: AttemptFilter): AttemptFilter {
  if (filter.since !== undefined) requireIsoDate('since', filter.since);
  if (filter.until !== undefined) requireIsoDate('until', filter.until);
  if (filter.status !== undefined && filter.status !== 'succeeded' && filter.status !== 'failed')
    throw invalidInput('status', 'must be succeeded or failed');
  if (filter.eventType !== undefined) requireId('eventType', filter.eventType);
  if (filter.eventId !== undefined) requireId('eventId', filter.eventId);
  return filter;
}

/** Does an attempt line pass the filter? (The memory store's rule; DynamoDB states the same in its query.) */
export function attemptMatches(a: AttemptRecord, filter: AttemptFilter): boolean {
  if (filter.since !== undefined && a.startedAt < filter.since) return false;
  if (filter.until !== undefined && a.startedAt >= filter.until) return false;
  if (filter.status === 'succeeded' && a.outcome !== 'success') return false;
  if (filter.status === 'failed' && a.outcome === 'success') return false;
  if (filter.eventType !== undefined && a.eventType !== filter.eventType) return false;
  if (filter.eventId !== undefined && a.eventId !== filter.eventId) return false;
  return true;
}
