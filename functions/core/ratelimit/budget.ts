import {
  applyFreeze,
  type BucketState,
  DEFAULT_RATE_BUDGET,
  decideTake,
  EMPTY_BUCKET,
  observeQuota,
  type RateBudgetConfig,
  RateBudgetError,
  type RateObservation,
  type TakeResult,
  validateConfig,
} from './bucket';
import { ceilingOf, type FollowedQuota, type QuotaChange } from './quota';

/**
 * The rate budget port: one bucket per client_id, shared by every worker. Implemented in memory
 * (one process: tests, single-worker local runs) and in DynamoDB (functions/adapters/dynamodb).
 *
 * Take in batches where you can: the planner reserving a whole cycle's requests with one
 * `tryTake(clientId, n)` costs one write for n requests.
 */
export interface RateBudget {
  tryTake(clientId: string, n: number, now: number): Promise<TakeResult>;
  /**
   * Corrects the local view from `X-RateLimit-Remaining` (only ever down) and follows
   * `X-RateLimit-Limit` (../ratelimit/quota.ts). Returns the change of the quota followed when this
   * call made it (one caller per change, whatever the workers), to be told.
   */
  observe(clientId: string, observation: RateObservation): Promise<QuotaChange | undefined>;
  /** After a 429: no grant before `resetAt` (epoch ms). */
  freezeUntil(clientId: string, resetAt: number): Promise<void>;
  /** The quota followed since its last change; undefined before the first one. */
  followed(): Promise<FollowedQuota | undefined>;
}

/** What `followed()` records for a change. */
export const followedOf = (change: QuotaChange, config: RateBudgetConfig): FollowedQuota => ({
  clientId: change.clientId,
  limit: change.limit,
  windowMs: change.windowMs,
  configuredLimit: config.limit,
  ceiling: ceilingOf(config),
  source: change.source,
  changedAt: change.changedAt,
});

/**
 * The rate settings one planner cycle is sized from: the configured ones, with the limit followed
 * when it was decided under this configuration.
 */
export function plannedRate(followed: FollowedQuota | undefined, config: RateBudgetConfig): RateBudgetConfig {
  if (!followed || followed.configuredLimit !== config.limit || followed.windowMs !== config.windowMs) {
    return config;
  }
  return { ...config, limit: Math.min(followed.limit, ceilingOf(config)) };
}

export function requireClientId(clientId: unknown): string {
  if (typeof clientId !== 'string' || clientId.length === 0 || clientId.length > 256) {
    throw new RateBudgetError('clientId', 'must be a non-empty string of at most 256 characters');
  }
  return clientId;
}

export function createMemoryRateBudget(config: RateBudgetConfig = DEFAULT_RATE_BUDGET): RateBudget {
  validateConfig(config);
  const buckets = new Map<string, BucketState>();
  let last: FollowedQuota | undefined;
  const get = (clientId: string): BucketState => buckets.get(requireClientId(clientId)) ?? EMPTY_BUCKET;
  return {
    async tryTake(clientId, n, now) {
      const decision = decideTake(get(clientId), n, now, config);
      if (!decision.granted) return decision;
      buckets.set(clientId, decision.state);
      return { granted: true };
    },
    async observe(clientId, observation) {
      const { state, change } = observeQuota(get(clientId), observation, config);
      buckets.set(clientId, state);
      if (!change) return undefined;
      const told: QuotaChange = { ...change, clientId, changedAt: observation.observedAt };
      last = followedOf(told, config);
      return told;
    },
    async followed() {
      return last;
    },
    async freezeUntil(clientId, resetAt) {
      buckets.set(clientId, applyFreeze(get(clientId), resetAt));
    },
  };
}
