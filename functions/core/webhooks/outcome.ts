/**
 * How one delivery attempt ended. Its own module (no IO, no node built-ins) so that the HTTP API's
 * contract, which the browser console also reads, can name the values.
 */
export const ATTEMPT_OUTCOMES = ['success', 'failure', 'gone', 'timeout', 'network', 'refused'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];
