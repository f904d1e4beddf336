/**
 * The webhook sender port: what one delivery attempt takes and what it records. The sender itself
 * (sockets, TLS, the connect-time guarded lookup) is an adapter,
 * functions/adapters/webhooks/sender.ts; this module holds only the shapes and the pure rules
 * (which statuses succeed, how Retry-After is read).
 */
import type { SubscriptionSecrets } from './signing';

export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_USER_AGENT = 'Carhook-Webhooks/0.1';
/** The start of a response body kept on the attempt (the rest is not read: the connection is cut). */
export const MAX_EXCERPT_BYTES = 4096;
/** Response headers kept on an attempt: at most this many, each value cut to MAX_HEADER_VALUE. */
export const MAX_RESPONSE_HEADERS = 50;
export const MAX_HEADER_VALUE = 512;
/** Retry-After is honoured within [5 s, 24 h]: shorter would hammer a struggling endpoint, longer is clamped. */
export const RETRY_AFTER_MIN_MS = 5_000;
export const RETRY_AFTER_MAX_MS = 24 * 60 * 60 * 1000;
/** Statuses whose Retry-After is honoured: rate limiting and a gateway or service that is unavailable. */
export const RETRY_AFTER_STATUSES: readonly number[] = [429, 502, 503, 504];

import type { AttemptOutcome, DeliveryAttempt } from './outcome';

export {
  ATTEMPT_OUTCOMES,
  type AttemptOutcome,
  type DeliveryAttempt,
  ERROR_CLASSES,
  type ErrorClass,
} from './outcome';

export interface SendInput {
  readonly url: string;
  /** The event id: `webhook-id`, identical on every retry. */
  readonly id: string;
  /** The exact body bytes (serializePayload), identical on every retry. */
  readonly body: string;
  readonly secrets: SubscriptionSecrets;
  /** Cut the attempt short (e.g. the Lambda is about to time out). */
  readonly signal?: AbortSignal;
}

export interface Sender {
  /** Never throws and never rejects: every failure is an attempt record. */
  readonly send: (input: SendInput) => Promise<DeliveryAttempt>;
  /** Closes pooled connections. */
  readonly close: () => void;
}

/**
 * Retry-After as delay seconds or an HTTP date (RFC 9110 10.2.3), clamped to [5 s, 24 h].
 * Undefined when absent or unparseable.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at) || !/[a-z]/i.test(text)) return undefined;
    ms = at - now.getTime();
  }
  return Math.min(RETRY_AFTER_MAX_MS, Math.max(RETRY_AFTER_MIN_MS, ms));
}

export function outcomeOf(status: number): AttemptOutcome {
  if (status >= 200 && status < 300) return 'success';
  if (status === 410) return 'gone';
  return 'failure';
}

/** The response headers an attempt keeps: lower-cased, at most MAX_RESPONSE_HEADERS, values cut. */
export function keptHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers).slice(0, MAX_RESPONSE_HEADERS)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    out[name.toLowerCase()] = text.length > MAX_HEADER_VALUE ? `${text.slice(0, MAX_HEADER_VALUE)}…` : text;
  }
  return out;
}
