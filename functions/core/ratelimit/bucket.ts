/**
 * The shared request budget of one client_id (the API allows 120
 * requests per 60 s per client by default and sends `X-RateLimit-Remaining` on every response,
 * `X-RateLimit-Reset` on a 429).
 *
 * Fixed windows, not a continuously refilling bucket: the API counts requests in a window and
 * resets the counter, so a continuous refill would let a burst at the end of one API window and
 * the start of the next spend up to twice the quota inside one API window. Windows are aligned on
 * multiples of `windowMs` since the epoch. Whatever the API's own window alignment, at most
 * `capacity` requests are granted per local window; the safety margin absorbs the misalignment
 * and other callers, and `observe` / `freezeUntil` correct the local view from the API's headers.
 *
 * Everything here is pure; the stores (memory, DynamoDB) persist `BucketState`.
 */

import { FieldError } from '../field-error';
import {
  ceilingOf,
  followedConfig,
  followHeader,
  type QuotaChange,
  type RateBudgetConfig,
  type StoredQuota,
} from './quota';

export type { RateBudgetConfig };

export const DEFAULT_RATE_BUDGET: RateBudgetConfig = { limit: 120, windowMs: 60_000, safetyMargin: 0.1 };

export interface BucketState {
  /** Start of the window `used` counts in (epoch ms, multiple of windowMs). */
  readonly windowStart: number;
  readonly used: number;
  /** Nothing is granted before this (epoch ms); 0 when not frozen. */
  readonly frozenUntil: number;
  /** The quota followed from the headers (./quota.ts); absent until a response was seen. */
  readonly quota?: StoredQuota;
}

export const EMPTY_BUCKET: BucketState = { windowStart: 0, used: 0, frozenUntil: 0 };

export type TakeResult = { readonly granted: true } | { readonly granted: false; readonly retryAt: number };

export type TakeDecision =
  | { readonly granted: true; readonly state: BucketState }
  | { readonly granted: false; readonly retryAt: number };

export interface RateObservation {
  /** `X-RateLimit-Limit` of the response. */
  readonly limit: number;
  /** `X-RateLimit-Remaining` of the response. */
  readonly remaining: number;
  /** When the response was received (epoch ms). */
  readonly observedAt: number;
}

export class RateBudgetError extends FieldError {
  override readonly name = 'RateBudgetError';
  readonly kind = 'InvalidInput';
}

export function validateConfig(config: RateBudgetConfig): RateBudgetConfig {
  if (!Number.isInteger(config.limit) || config.limit < 1)
    throw new RateBudgetError('limit', 'must be an integer ≥ 1');
  if (!Number.isInteger(config.windowMs) || config.windowMs < 1) {
    throw new RateBudgetError('windowMs', 'must be an integer ≥ 1');
  }
  if (!(config.safetyMargin >= 0 && config.safetyMargin < 1)) {
    throw new RateBudgetError('safetyMargin', 'must be a fraction in [0, 1)');
  }
  if (capacityOf(config) < 1) throw new RateBudgetError('safetyMargin', 'leaves no request to grant');
  if (config.maxLimit !== undefined && (!Number.isInteger(config.maxLimit) || config.maxLimit < 1)) {
    throw new RateBudgetError('maxLimit', 'must be an integer ≥ 1');
  }
  return config;
}

/** Requests granted per window: the quota minus the safety margin (default 120 → 108). */
export function capacityOf(config: Pick<RateBudgetConfig, 'limit' | 'safetyMargin'>): number {
  return Math.floor(config.limit * (1 - config.safetyMargin));
}

export function windowStartOf(now: number, windowMs: number): number {
  return Math.floor(now / windowMs) * windowMs;
}

export function validateTake(n: number, now: number, config: RateBudgetConfig): void {
  if (!Number.isInteger(n) || n < 1) throw new RateBudgetError('n', 'must be an integer ≥ 1');
  const most = capacityOf({ limit: ceilingOf(config), safetyMargin: config.safetyMargin });
  if (n > most) {
    throw new RateBudgetError('n', `must be at most the window capacity ${most}, got ${n}`);
  }
  if (!Number.isFinite(now) || now < 0) throw new RateBudgetError('now', 'must be epoch milliseconds');
}

/**
 * A take of `n` requests at `now`. A caller whose clock lags behind a window another worker has
 * already opened is counted in that newer window (never in a closed one).
 */
export function decideTake(
  state: BucketState,
  n: number,
  now: number,
  config: RateBudgetConfig,
): TakeDecision {
  validateTake(n, now, config);
  if (now < state.frozenUntil) return { granted: false, retryAt: state.frozenUntil };
  const window = Math.max(windowStartOf(now, config.windowMs), state.windowStart);
  const used = window === state.windowStart ? state.used : 0;
  if (used + n <= capacityOf(followedConfig(state, config))) {
    return { granted: true, state: { ...state, windowStart: window, used: used + n } };
  }
  return { granted: false, retryAt: window + config.windowMs };
}

/**
 * What the API says is used, in local units: the local view keeps its own margin below what the
 * API reports remaining (and a lower `X-RateLimit-Limit` than configured lowers it too).
 */
export function usedFromObservation(observation: RateObservation, config: RateBudgetConfig): number {
  const reserve =
    observation.limit - capacityOf({ limit: observation.limit, safetyMargin: config.safetyMargin });
  const remainingForUs = Math.max(0, observation.remaining - reserve);
  return Math.max(0, capacityOf(config) - remainingForUs);
}

export function validateObservation(observation: RateObservation): void {
  if (!Number.isInteger(observation.limit) || observation.limit < 1) {
    throw new RateBudgetError('limit', 'X-RateLimit-Limit must be an integer ≥ 1');
  }
  if (!Number.isInteger(observation.remaining) || observation.remaining < 0) {
    throw new RateBudgetError('remaining', 'X-RateLimit-Remaining must be an integer ≥ 0');
  }
  if (!Number.isFinite(observation.observedAt) || observation.observedAt < 0) {
    throw new RateBudgetError('observedAt', 'must be epoch milliseconds');
  }
}

/**
 * Corrects the local view from the response headers: the quota followed (./quota.ts), then the
 * count, only ever up (requests in flight are not in the API's count yet, so the local count may
 * be the higher one). An observation from a window already closed changes no count.
 */
export function applyObservation(
  state: BucketState,
  observation: RateObservation,
  config: RateBudgetConfig,
): BucketState {
  return observeQuota(state, observation, config).state;
}

/** `applyObservation`, and the change of the quota followed it made, if any. */
export function observeQuota(
  state: BucketState,
  observation: RateObservation,
  config: RateBudgetConfig,
): { readonly state: BucketState; readonly change?: Omit<QuotaChange, 'clientId' | 'changedAt'> } {
  validateObservation(observation);
  const followed = followHeader(state, observation.limit, config);
  const withQuota: BucketState = followed.quota ? { ...state, quota: followed.quota } : state;
  const change = followed.change ? { change: followed.change } : {};
  const window = windowStartOf(observation.observedAt, config.windowMs);
  if (window < withQuota.windowStart) return { state: withQuota, ...change };
  const used = usedFromObservation(observation, followedConfig(withQuota, config));
  if (window > withQuota.windowStart)
    return { state: { ...withQuota, windowStart: window, used }, ...change };
  return { state: used > withQuota.used ? { ...withQuota, used } : withQuota, ...change };
}

/** After a 429: nothing is granted before `resetAt` (now + `X-RateLimit-Reset` seconds). Never shortens a freeze. */
export function applyFreeze(state: BucketState, resetAt: number): BucketState {
  if (!Number.isFinite(resetAt) || resetAt < 0)
    throw new RateBudgetError('resetAt', 'must be epoch milliseconds');
  return resetAt > state.frozenUntil ? { ...state, frozenUntil: resetAt } : state;
}
