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
