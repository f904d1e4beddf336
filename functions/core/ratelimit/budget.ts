import {
  applyFreeze,
  applyObservation,
  type BucketState,
  DEFAULT_RATE_BUDGET,
  decideTake,
  EMPTY_BUCKET,
  type RateBudgetConfig,
  RateBudgetError,
  type RateObservation,
  type TakeResult,
  validateConfig,
} from './bucket';

/**
 * The rate budget port: one bucket per client_id, shared by every worker. Implemented in memory
 * (one process: tests, single-worker local runs) and in DynamoDB (functions/adapters/dynamodb).
 *
 * Take in batches where you can: the planner reserving a whole cycle's requests with one
 * `tryTake(clientId, n)` costs one write for n requests.
 */
export interface RateBudget {
  tryTake(clientId: string, n: number, now: number): Promise<TakeResult>;
  /** Corrects the local view from `X-RateLimit-Limit` / `X-RateLimit-Remaining` (only ever down). */
  observe(clientId: string, observation: RateObservation): Promise<void>;
  /** After a 429: no grant before `resetAt` (epoch ms). */
  freezeUntil(clientId: string, resetAt: number): Promise<void>;
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
  const get = (clientId: string): BucketState => buckets.get(requireClientId(clientId)) ?? EMPTY_BUCKET;
  return {
    async tryTake(clientId, n, now) {
      const decision = decideTake(get(clientId), n, now, config);
      if (!decision.granted) return decision;
      buckets.set(clientId, decision.state);
      return { granted: true };
    },
    async observe(clientId, observation) {
      buckets.set(clientId, applyObservation(get(clientId), observation, config));
    },
    async freezeUntil(clientId, resetAt) {
      buckets.set(clientId, applyFreeze(get(clientId), resetAt));
    },
  };
}
