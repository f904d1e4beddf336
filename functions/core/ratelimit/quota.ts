/**
 * The quota the budget follows. The API sends `X-RateLimit-Limit` on every response and grants a
 * higher quota on request; the window is not in any header, so it is the configured one. The rule:
 *
 * - a limit below the one followed is followed at once (the API counts against it already);
 * - a limit above it is followed up to the ceiling: the configured quota, or the operator's
 *   `maxLimit` when set higher (so nobody's budget rises past what they configured unless they
 *   said so);
 * - a configuration that changed (a deploy with another `--quota` or window) replaces what was
 *   followed under the old one, and the next response's header applies on top.
 *
 * What is followed is stored with the bucket (`StoredQuota`): the limit, and the configured limit
 * and window it was decided under, so a process with another configuration can tell.
 */

/** The rate budget's configuration: the client's quota and how much of it is never granted. */
export interface RateBudgetConfig {
  /** Requests per window the API allows (120 by default). */
  readonly limit: number;
  /** Window length (60 s by default). */
  readonly windowMs: number;
  /** Fraction of `limit` never granted (default 0.1): headroom for misaligned windows and clock skew. */
  readonly safetyMargin: number;
  /**
   * The highest `X-RateLimit-Limit` followed when the API raises the quota (below). Absent:
   * the budget never rises past `limit`.
   */
  readonly maxLimit?: number;
}

/** What holds the quota followed: the bucket's state (./bucket.ts). */
export interface QuotaHolder {
  readonly quota?: StoredQuota;
}

export interface StoredQuota {
  /** The limit followed (requests per window). */
  readonly limit: number;
  /** The configured limit when it was decided. */
  readonly configured: number;
  /** The configured window when it was decided (ms). */
  readonly windowMs: number;
}

export type QuotaSource = 'header' | 'configuration';

/** One change of the quota followed, as `carhook.quota.changed` tells it. */
export interface QuotaChange {
  readonly clientId: string;
  readonly previousLimit: number;
  readonly limit: number;
  readonly windowMs: number;
  readonly source: QuotaSource;
  /** The highest limit followed (configured quota or `maxLimit`). */
  readonly ceiling: number;
  /** Epoch ms. */
  readonly changedAt: number;
}

/** What the budget follows now, readable without a client id (the planner's cycle, `GET /capacity`). */
export interface FollowedQuota {
  readonly clientId: string;
  readonly limit: number;
  readonly windowMs: number;
  readonly configuredLimit: number;
  readonly ceiling: number;
  readonly source: QuotaSource;
  /** Epoch ms of the last change. */
  readonly changedAt: number;
}

/** The highest limit the budget follows: the configured quota, or `maxLimit` when higher. */
export const ceilingOf = (config: Pick<RateBudgetConfig, 'limit' | 'maxLimit'>): number =>
  Math.max(config.limit, config.maxLimit ?? config.limit);

const decidedUnder = (quota: StoredQuota, config: RateBudgetConfig): boolean =>
  quota.configured === config.limit && quota.windowMs === config.windowMs;

/** The limit a bucket grants against: what it follows, when decided under this configuration. */
export function effectiveLimit(state: QuotaHolder, config: RateBudgetConfig): number {
  const quota = state.quota;
  if (quota === undefined || !decidedUnder(quota, config)) return config.limit;
  return Math.min(quota.limit, ceilingOf(config));
}

/** The configuration with the limit a bucket follows (the window is always configured). */
export const followedConfig = (state: QuotaHolder, config: RateBudgetConfig): RateBudgetConfig => ({
  ...config,
  limit: effectiveLimit(state, config),
});

/**
 * What a response's `X-RateLimit-Limit` makes of the quota followed: the quota to store (undefined
 * when the stored one stays) and the change to tell (undefined when the limit granted against is
 * the same). The first response ever stores the quota without telling unless it differs from the
 * configured one.
 */
export function followHeader(
  state: QuotaHolder,
  headerLimit: number,
  config: RateBudgetConfig,
): { readonly quota?: StoredQuota; readonly change?: Omit<QuotaChange, 'clientId' | 'changedAt'> } {
  const stored = state.quota;
  const ceiling = ceilingOf(config);
  const target = Math.min(headerLimit, ceiling);
  const quota: StoredQuota = { limit: target, configured: config.limit, windowMs: config.windowMs };
  if (stored === undefined) {
    return target === config.limit
      ? { quota }
      : {
          quota,
          change: {
            previousLimit: config.limit,
            limit: target,
            windowMs: config.windowMs,
            source: 'header',
            ceiling,
          },
        };
  }
  if (!decidedUnder(stored, config)) {
    // A new configuration: told against what was followed under the old one.
    const moved = target !== stored.limit || stored.windowMs !== config.windowMs;
    return moved
      ? {
          quota,
          change: {
            previousLimit: stored.limit,
            limit: target,
            windowMs: config.windowMs,
            source: 'configuration',
            ceiling,
          },
        }
      : { quota };
  }
  const current = effectiveLimit(state, config);
  if (target === current) return target === stored.limit ? {} : { quota };
  return {
    quota,
    change: { previousLimit: current, limit: target, windowMs: config.windowMs, source: 'header', ceiling },
  };
}
