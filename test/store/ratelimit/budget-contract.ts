import { describe, expect, it } from 'vitest';
import { DEFAULT_RATE_BUDGET, type RateBudgetConfig } from '../../../functions/core/ratelimit/bucket';
import type { RateBudget } from '../../../functions/core/ratelimit/budget';

const W = DEFAULT_RATE_BUDGET.windowMs;
export const T0 = 1_800_000_000_000 - (1_800_000_000_000 % W);

/** The behaviour every RateBudget implementation shares (memory and DynamoDB). */
export function rateBudgetContract(
  name: string,
  make: (config?: RateBudgetConfig) => Promise<RateBudget>,
): void {
  describe(`${name}: rate budget`, () => {
    it('grants the capacity of a window in batches, denies the rest until the next window, then grants again', async () => {
      const budget = await make();
      expect(await budget.tryTake('client-a', 100, T0 + 1_000)).toEqual({ granted: true });
      expect(await budget.tryTake('client-a', 9, T0 + 2_000)).toEqual({ granted: false, retryAt: T0 + W });
      expect(await budget.tryTake('client-a', 8, T0 + 3_000)).toEqual({ granted: true });
      expect(await budget.tryTake('client-a', 1, T0 + 4_000)).toEqual({ granted: false, retryAt: T0 + W });
      // Another client_id has its own bucket.
      expect(await budget.tryTake('client-b', 108, T0 + 4_000)).toEqual({ granted: true });
      expect(await budget.tryTake('client-a', 108, T0 + W)).toEqual({ granted: true });
    });

    it('counts a lagging worker in the window already opened', async () => {
      const budget = await make();
      expect(await budget.tryTake('c', 108, T0 + W + 1)).toEqual({ granted: true });
      expect(await budget.tryTake('c', 1, T0 + W - 1)).toEqual({ granted: false, retryAt: T0 + 2 * W });
    });

    it('is corrected down by X-RateLimit-Remaining and never up', async () => {
      const budget = await make();
      await budget.tryTake('c', 10, T0);
      await budget.observe('c', { limit: 120, remaining: 30, observedAt: T0 + 1 });
      await budget.observe('c', { limit: 120, remaining: 120, observedAt: T0 + 2 });
      // 30 remaining at the API, minus our 12 margin: 18 more.
      expect(await budget.tryTake('c', 18, T0 + 3)).toEqual({ granted: true });
      expect(await budget.tryTake('c', 1, T0 + 4)).toEqual({ granted: false, retryAt: T0 + W });
      // An observation in a new window opens it with what the API reports used.
      await budget.observe('c', { limit: 120, remaining: 20, observedAt: T0 + W + 5 });
      expect(await budget.tryTake('c', 9, T0 + W + 6)).toEqual({ granted: false, retryAt: T0 + 2 * W });
      expect(await budget.tryTake('c', 8, T0 + W + 6)).toEqual({ granted: true });
    });

    it('is frozen until the reset after a 429, and a freeze is never shortened', async () => {
      const budget = await make();
      await budget.freezeUntil('c', T0 + 45_000);
      await budget.freezeUntil('c', T0 + 10_000);
      expect(await budget.tryTake('c', 1, T0 + 44_999)).toEqual({ granted: false, retryAt: T0 + 45_000 });
      expect(await budget.tryTake('c', 1, T0 + 45_000)).toEqual({ granted: true });
    });

    it('honours a configured quota and margin', async () => {
      const budget = await make({ limit: 10, windowMs: W, safetyMargin: 0.2 });
      expect(await budget.tryTake('c', 8, T0)).toEqual({ granted: true });
      expect(await budget.tryTake('c', 1, T0)).toEqual({ granted: false, retryAt: T0 + W });
    });

    it('refuses a take larger than a window and an empty client id', async () => {
      const budget = await make();
      await expect(budget.tryTake('c', 109, T0)).rejects.toThrow(/n: must be at most/);
      await expect(budget.tryTake('', 1, T0)).rejects.toThrow(/clientId/);
    });

    it('follows a raised X-RateLimit-Limit up to the ceiling, at once, and tells the change once', async () => {
      const budget = await make({ ...DEFAULT_RATE_BUDGET, maxLimit: 300 });
      expect(await budget.tryTake('c', 108, T0)).toEqual({ granted: true });
      expect(await budget.tryTake('c', 1, T0 + 1)).toEqual({ granted: false, retryAt: T0 + W });
      expect(await budget.followed()).toBeUndefined();
      // The operator obtained 600: followed up to the ceiling, 300 (270 granted a window).
      const change = await budget.observe('c', { limit: 600, remaining: 492, observedAt: T0 + 2 });
      expect(change).toEqual({
        clientId: 'c',
        previousLimit: 120,
        limit: 300,
        windowMs: W,
        source: 'header',
        ceiling: 300,
        changedAt: T0 + 2,
      });
      expect(await budget.observe('c', { limit: 600, remaining: 491, observedAt: T0 + 3 })).toBeUndefined();
      expect(await budget.followed()).toEqual({
        clientId: 'c',
        limit: 300,
        windowMs: W,
        configuredLimit: 120,
        ceiling: 300,
        source: 'header',
        changedAt: T0 + 2,
      });
      // 270 a window from now on: this window has 108 used, so 162 more, not one past.
      expect(await budget.tryTake('c', 100, T0 + 4)).toEqual({ granted: true });
      expect(await budget.tryTake('c', 62, T0 + 5)).toEqual({ granted: true });
      expect(await budget.tryTake('c', 1, T0 + 6)).toEqual({ granted: false, retryAt: T0 + W });
      expect(await budget.tryTake('c', 270, T0 + W)).toEqual({ granted: true });
      expect(await budget.tryTake('c', 1, T0 + W + 1)).toEqual({ granted: false, retryAt: T0 + 2 * W });
    });

    it('follows a lowered X-RateLimit-Limit at once and tells it', async () => {
      const budget = await make({ ...DEFAULT_RATE_BUDGET, maxLimit: 300 });
      await budget.tryTake('c', 1, T0);
      expect(await budget.observe('c', { limit: 300, remaining: 299, observedAt: T0 + 1 })).toMatchObject({
        previousLimit: 120,
        limit: 300,
      });
      expect(await budget.observe('c', { limit: 30, remaining: 29, observedAt: T0 + 2 })).toEqual({
        clientId: 'c',
        previousLimit: 300,
        limit: 30,
        windowMs: W,
        source: 'header',
        ceiling: 300,
        changedAt: T0 + 2,
      });
      // 30 at the API, 27 ours, 1 used: 26 more in this window.
      expect(await budget.tryTake('c', 26, T0 + 3)).toEqual({ granted: true });
      expect(await budget.tryTake('c', 1, T0 + 4)).toEqual({ granted: false, retryAt: T0 + W });
      expect(await budget.tryTake('c', 28, T0 + W)).toEqual({ granted: false, retryAt: T0 + 2 * W });
      expect(await budget.tryTake('c', 27, T0 + W)).toEqual({ granted: true });
      expect((await budget.followed())?.limit).toBe(30);
    });

    it('never rises past the configured quota without a ceiling, and tells nothing', async () => {
      const budget = await make();
      await budget.tryTake('c', 1, T0);
      expect(await budget.observe('c', { limit: 600, remaining: 599, observedAt: T0 + 1 })).toBeUndefined();
      expect(await budget.tryTake('c', 107, T0 + 2)).toEqual({ granted: true });
      expect(await budget.tryTake('c', 1, T0 + 3)).toEqual({ granted: false, retryAt: T0 + W });
      expect(await budget.followed()).toBeUndefined();
    });
  });
}
