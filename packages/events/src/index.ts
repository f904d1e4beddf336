/**
 * @carhook/events: what a receiver of Carhook's events needs. The types of every event type and
 * its envelope (generated from the published JSON Schemas, which ship in `schemas/`), a type guard
 * per type, and `verifyWebhook`, which checks a Standard Webhooks signature and returns the event.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { type CarhookEvent, CURRENT_VERSIONS } from './generated.js';

export * from './generated.js';
export { WebhookVerificationError };

/** Every event type name Carhook publishes. */
export type CarhookEventType = CarhookEvent['type'];

/** The event of one type, e.g. `EventOfType<'vehicle.alert.fixed'>`. */
export type EventOfType<T extends CarhookEventType> = Extract<CarhookEvent, { type: T }>;

/** The event type names, sorted. */
export const EVENT_TYPES = Object.keys(CURRENT_VERSIONS) as CarhookEventType[];

/**
 * The Standard Webhooks body Carhook sends: `type`, `timestamp` (when the change happened) and
 * `data`, the event envelope. The body is the same bytes on every retry and replay.
 */
export interface WebhookPayload<E extends { readonly type: string } = CarhookEvent> {
  readonly type: E['type'];
  readonly timestamp: string;
  readonly data: E;
}

/** Headers as a `fetch` Headers object, Node's `req.headers`, or a plain record. */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** The body did not have the shape of a Carhook webhook; `field` names what was wrong. */
export class WebhookPayloadError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'WebhookPayloadError';
    this.field = field;
  }
}

const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(', ') : (value as string | undefined);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks the signature of a webhook request with any of `secrets` (during a rotation Carhook signs
 * with the new and the old secrets, so a receiver may list both) and returns its parsed body.
 *
 * `rawBody` must be the bytes as received: a body parsed and serialized again no longer matches
 * its signature. Throws `WebhookVerificationError` when a header is missing, the timestamp is more
 * than five minutes away from now (replay protection), or no signature matches any secret; throws
 * `WebhookPayloadError` when a signed body is not a Carhook webhook.
 *
 * Events of a type newer than this package pass through with their own `type`: check them with
 * `isKnownEvent` or a per-type guard before relying on their fields.
 */
export function verifyWebhook(
  secrets: string | readonly string[],
  headers: WebhookHeaders,
  rawBody: string | Uint8Array,
): WebhookPayload {
  const list = typeof secrets === 'string' ? [secrets] : [...secrets];
  if (list.length === 0) throw new WebhookVerificationError('No secret to verify with');
  const required: Record<string, string> = {};
  for (const name of SIGNATURE_HEADERS) {
    const value = headerValue(headers, name);
    if (value === undefined || value === '')
      throw new WebhookVerificationError(`Missing required header ${name}`);
    required[name] = value;
  }
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  let parsed: unknown;
  let failure: unknown;
  let verified = false;
  for (const secret of list) {
    try {
      parsed = new Webhook(secret).verify(body, required);
      verified = true;
      break;
    } catch (error) {
      failure = error;
    }
  }
  if (!verified) {
    throw failure instanceof WebhookVerificationError
      ? failure
      : new WebhookVerificationError(String(failure));
  }
  return checkPayload(parsed);
}

/** The shape every Carhook webhook body has, checked after its signature. */
function checkPayload(body: unknown): WebhookPayload {
  if (!isObject(body)) throw new WebhookPayloadError('body', 'is not a JSON object');
  if (typeof body.type !== 'string') throw new WebhookPayloadError('type', 'is not a string');
  if (typeof body.timestamp !== 'string') throw new WebhookPayloadError('timestamp', 'is not a string');
  const data = body.data;
  if (!isObject(data)) throw new WebhookPayloadError('data', 'is not an object');
  if (typeof data.id !== 'string') throw new WebhookPayloadError('data.id', 'is not a string');
  if (data.type !== body.type)
    throw new WebhookPayloadError('data.type', `is not the body's type ${body.type}`);
  if (typeof data.schemaVersion !== 'number') {
    throw new WebhookPayloadError('data.schemaVersion', 'is not a number');
  }
  return body as unknown as WebhookPayload;
}

/** True when the event's type and schema version are ones this package describes. */
export function isKnownEvent(event: {
  readonly type: string;
  readonly schemaVersion?: unknown;
}): event is CarhookEvent {
  return (CURRENT_VERSIONS as Readonly<Record<string, number>>)[event.type] === event.schemaVersion;
}

/** True when `event` has type `type`, narrowing it to that type's event. */
export function isEventType<T extends CarhookEventType>(
  event: { readonly type: string; readonly schemaVersion?: unknown },
  type: T,
): event is EventOfType<T> {
  return event.type === type && isKnownEvent(event);
}
