import type { World } from '../world/world';

export interface Quota {
  readonly limit: number;
  readonly windowSeconds: number;
}

/** The API's default quota: 120 requests per 60 seconds per client. */
export const DEFAULT_QUOTA: Quota = { limit: 120, windowSeconds: 60 };

interface Window {
  quota: Quota;
  start: number;
  count: number;
  maxInWindow: number;
}

export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the current window ends. */
  readonly resetSeconds: number;
}

/**
 * Fixed windows per client on the world clock: a window opens with the client's first request and
 * lasts `windowSeconds`. Requests refused with 429 still count, as at a real gateway.
 */
export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly quotas = new Map<string, Quota>();

  constructor(
    private readonly world: World,
    private defaultQuota: Quota,
  ) {}

  quotaOf(clientId: string): Quota {
    return this.quotas.get(clientId) ?? this.defaultQuota;
  }

  setQuota(clientId: string, quota: Quota): void {
    this.quotas.set(clientId, quota);
    const w = this.windows.get(clientId);
    if (w) w.quota = quota;
  }

  hit(clientId: string): RateDecision {
    const now = this.world.now();
    const quota = this.quotaOf(clientId);
    let w = this.windows.get(clientId);
    if (!w || now >= w.start + w.quota.windowSeconds * 1000) {
      w = { quota, start: now, count: 0, maxInWindow: w?.maxInWindow ?? 0 };
      this.windows.set(clientId, w);
    }
    w.count++;
    w.maxInWindow = Math.max(w.maxInWindow, w.count);
    return {
      allowed: w.count <= quota.limit,
      limit: quota.limit,
      remaining: Math.max(0, quota.limit - w.count),
      resetSeconds: Math.max(1, Math.ceil((w.start + w.quota.windowSeconds * 1000 - now) / 1000)),
    };
  }

  /** Headers for a request that is not counted (unknown client). */
  peek(clientId: string | undefined): RateDecision {
    const quota = clientId ? this.quotaOf(clientId) : this.defaultQuota;
    const w = clientId ? this.windows.get(clientId) : undefined;
    const now = this.world.now();
    const live = w && now < w.start + w.quota.windowSeconds * 1000;
    return {
      allowed: true,
      limit: quota.limit,
      remaining: live ? Math.max(0, quota.limit - w.count) : quota.limit,
      resetSeconds: live
        ? Math.ceil((w.start + w.quota.windowSeconds * 1000 - now) / 1000)
        : quota.windowSeconds,
    };
  }

  maxInWindow(clientId: string): number {
    return this.windows.get(clientId)?.maxInWindow ?? 0;
  }

  /** Forgets windows (and, with `quotas`, configured quotas). */
  reset(quotas: boolean, defaultQuota?: Quota): void {
    this.windows.clear();
    if (quotas) this.quotas.clear();
    if (defaultQuota) this.defaultQuota = defaultQuota;
  }
}
