/**
 * The one backoff of Carhook, for the retries the AWS SDK does not make itself: the API client's
 * (its own HTTP), the token endpoint's, and the partial failures of batch calls (PutEvents'
 * FailedEntryCount, SendMessageBatch's Failed, BatchWriteItem's UnprocessedItems) and transaction
 * conflicts, which the SDK returns as successes or as errors it does not retry. Never wrap an SDK
 * call in a retry of its own: the SDK's retry strategy already backs off on throttling and 5xx.
 */

/** The ceiling before retry `n` (1 for the first retry): `base · 2^(n-1)`, capped at `max`. */
export function backoffCeiling(n: number, baseMs: number, maxMs = Number.POSITIVE_INFINITY): number {
  return Math.min(maxMs, baseMs * 2 ** (n - 1));
}

/** Full jitter: whole ms uniform in [0, ceiling). Spreads clients that retry on their own. */
export function fullJitter(ceiling: number, random: () => number): number {
  return Math.floor(random() * ceiling);
}

/** Equal jitter: at least half the ceiling, so a throttled service really gets a pause. */
export function equalJitter(ceiling: number, random: () => number): number {
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
