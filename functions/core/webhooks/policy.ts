import type { AttemptOutcome } from './outcome';

/** What the policy reads of an attempt (functions/core/webhooks/sender.ts `DeliveryAttempt`). */
interface AttemptFacts {
  readonly outcome: AttemptOutcome;
  readonly startedAt: string;
  readonly retryAfterMs?: number;
}

/**
 * Delivery policy (pure): retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, each
 * with ±20 % jitter, then the delivery is dead-lettered: 8 attempts over about 27.6 h. A
 * subscription failing for 5 days without a single success is disabled.
 */
const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
export const RETRY_SCHEDULE_MS: readonly number[] = [5 * S, 5 * MIN, 30 * MIN, 2 * H, 5 * H, 10 * H, 10 * H];
export const JITTER_RATIO = 0.2;
/** First attempt plus one per scheduled retry. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * H;

/** A uniform random number in [0, 1), injectable for tests. */
export type Random = () => number;

/**
 * The delay before retry number `retry` (1-based: retry 1 follows the first attempt), jittered
 * uniformly within ±20 %. Undefined when the schedule is exhausted.
 */
export function retryDelayMs(
  retry: number,
  random: Random = Math.random,
  schedule: readonly number[] = RETRY_SCHEDULE_MS,
): number | undefined {
  const base = schedule[retry - 1];
  if (base === undefined || !Number.isInteger(retry)) return undefined;
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(base * (1 - JITTER_RATIO + 2 * JITTER_RATIO * r));
}

/** What a subscription's recent history says about its endpoint, as stored on it. */
export interface SubscriptionHealth {
  /** The first failure since the last success (unset while healthy). ISO 8601. */
  readonly firstFailureAt?: string;
  /**
   * When a failing streak last ended (a success in steady state writes nothing, so this is not the
   * last success: the attempt log has that).
   */
  readonly lastSuccessAt?: string;
  /** Failed attempts since the last success that cleared the streak (every failure writes it). */
  readonly consecutiveFailures?: number;
  /** The most recent failed attempt: when, its outcome, and the status or error. */
  readonly lastFailure?: {
    readonly at: string;
    readonly outcome: AttemptOutcome;
    readonly statusCode?: number;
    readonly error?: string;
  };
}

/** Folds one attempt into the health record: a success clears the failing streak. */
export function recordAttempt(
  health: SubscriptionHealth,
  attempt: Pick<AttemptFacts, 'outcome' | 'startedAt'>,
) {
  if (attempt.outcome === 'success') return { lastSuccessAt: attempt.startedAt } satisfies SubscriptionHealth;
  return {
    ...health,
    firstFailureAt: health.firstFailureAt ?? attempt.startedAt,
  } satisfies SubscriptionHealth;
}

/**
 * True when the endpoint has been failing for 5 days with no success since the streak began.
 * An unparseable `firstFailureAt` is never grounds to disable.
 */
export function isEndpointDead(
  health: SubscriptionHealth,
  now: Date,
  disableAfterFailingMs: number = DISABLE_AFTER_FAILING_MS,
): boolean {
  if (!health.firstFailureAt) return false;
  const since = Date.parse(health.firstFailureAt);
  if (Number.isNaN(since)) return false;
  const lastSuccess = health.lastSuccessAt ? Date.parse(health.lastSuccessAt) : Number.NaN;
  if (!Number.isNaN(lastSuccess) && lastSuccess >= since) return false;
  return now.getTime() - since >= disableAfterFailingMs;
}

export interface DeliveryProgress {
  /** How many attempts have been made, including the one being judged (1 after the first). */
  readonly attemptNumber: number;
}

export type NextStep =
  | { readonly action: 'done' }
  | { readonly action: 'retry'; readonly at: Date; readonly delayMs: number; readonly retry: number }
  | { readonly action: 'dead-letter'; readonly attempts: number }
  | {
      readonly action: 'disable-subscription';
      /** `failing-for-5-days` under the standard schedule; `failing-for-<span>` under another. */
      readonly reason: string;
      readonly message: string;
    };

export interface NextStepOptions {
  readonly random?: Random;
  /** The subscription's health *including* this attempt (see `recordAttempt`). */
  readonly health?: SubscriptionHealth;
  /**
   * Another retry schedule than the standard one (../delivery/retry-schedule.ts): the delays before
   * each retry, and how long an endpoint may fail without a success before it is disabled.
   */
  readonly schedule?: {
    readonly retriesMs: readonly number[];
    readonly disableAfterFailingMs: number;
    /** The failing span as the disable reason says it (`5-days`, `2-min`). */
    readonly failingFor?: string;
  };
}

/**
 * What to do after an attempt.
 *
 * - 2xx: done.
 * - 410 Gone: disable the subscription (the receiver said the endpoint is gone for good).
 * - Any other failure (3xx, 4xx, 5xx, timeout, network, refused address): retry on the schedule,
 *   or dead-letter after the last one; but disable the subscription if the endpoint has now been
 *   failing for 5 days without a success.
 * - Retry-After (429/502/503/504, already clamped to [5 s, 24 h] by the sender) can only push a
 *   retry later, never earlier than the jittered schedule: a receiver cannot make us retry faster
 *   than the schedule, and each honoured Retry-After still uses up one attempt, so the delivery
 *   still ends.
 */
export function nextStep(
  delivery: DeliveryProgress,
  attempt: Pick<AttemptFacts, 'outcome' | 'retryAfterMs'>,
  now: Date,
  options: NextStepOptions = {},
): NextStep {
  if (attempt.outcome === 'success') return { action: 'done' };
  if (attempt.outcome === 'gone') {
    return { action: 'disable-subscription', reason: 'gone', message: 'the endpoint answered 410 Gone' };
  }
  const disableAfter = options.schedule?.disableAfterFailingMs ?? DISABLE_AFTER_FAILING_MS;
  if (options.health && isEndpointDead(options.health, now, disableAfter)) {
    return {
      action: 'disable-subscription',
      reason: `failing-for-${options.schedule?.failingFor ?? '5-days'}`,
      message: `the endpoint has failed every delivery since ${options.health.firstFailureAt}`,
    };
  }
  const retry = Math.max(1, Math.floor(delivery.attemptNumber));
  const scheduled = retryDelayMs(retry, options.random, options.schedule?.retriesMs);
  if (scheduled === undefined) return { action: 'dead-letter', attempts: retry };
  const delayMs = Math.max(scheduled, attempt.retryAfterMs ?? 0);
  return { action: 'retry', at: new Date(now.getTime() + delayMs), delayMs, retry };
}
