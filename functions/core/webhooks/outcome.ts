/**
 * How one delivery attempt ended. Its own module (no IO, no node built-ins) so that the HTTP API's
 * contract, which the browser console also reads, can name the values.
 */
export const ATTEMPT_OUTCOMES = ['success', 'failure', 'gone', 'timeout', 'network', 'refused'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/**
 * Why an attempt got no 2xx, in one word: `http` (an answer, not 2xx), `redirect` (3xx, never
 * followed), `timeout`, `dns` (the name did not resolve), `refused` (connection refused), `reset`
 * (the connection dropped), `tls` (handshake or certificate), `ssrf` (the URL or its address is one
 * webhooks may not reach), `invalid` (nothing to send: the body or the secret), `other`.
 */
export const ERROR_CLASSES = [
  'http',
  'redirect',
  'timeout',
  'dns',
  'refused',
  'reset',
  'tls',
  'ssrf',
  'invalid',
  'other',
] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

/** One attempt of one delivery: what the attempt log (`GET /subscriptions/{id}/deliveries`) shows. */
export interface DeliveryAttempt {
  /** ISO 8601, the attempt's start (also its `webhook-timestamp`). */
  readonly startedAt: string;
  readonly durationMs: number;
  readonly statusCode?: number;
  readonly outcome: AttemptOutcome;
  /** The receiver's Retry-After, clamped to [5 s, 24 h] (the sender's RETRY_AFTER_MIN_MS, RETRY_AFTER_MAX_MS). */
  readonly retryAfterMs?: number;
  readonly error?: string;
  /** Why it failed, in one word (absent on success). */
  readonly errorClass?: ErrorClass;
  /** The headers sent (the signature is there; the secret never is). */
  readonly requestHeaders?: Readonly<Record<string, string>>;
  /** The response's headers (lower-cased names, at most the sender's MAX_RESPONSE_HEADERS). */
  readonly responseHeaders?: Readonly<Record<string, string>>;
  /** At most the sender's MAX_EXCERPT_BYTES bytes of the response body, UTF-8. */
  readonly responseExcerpt?: string;
  /** True when the body was longer than the excerpt and the connection was cut. */
  readonly responseTruncated?: boolean;
  /** The address actually connected to (after the guarded lookup). */
  readonly remoteAddress?: string;
}
