import { describe, expect, it } from 'vitest';
import { DEFAULT_RATE_BUDGET, EMPTY_BUCKET } from '../../../functions/core/ratelimit/bucket';
import { plannedRate } from '../../../functions/core/ratelimit/budget';
import { effectiveLimit, followHeader } from '../../../functions/core/ratelimit/quota';

const W = DEFAULT_RATE_BUDGET.windowMs;
const config = { ...DEFAULT_RATE_BUDGET, maxLimit: 300 };

describe('the quota followed', () => {
  it('records the first response without telling when it says the configured quota', () => {
    expect(followHeader(EMPTY_BUCKET, 120, config)).toEqual({
      quota: { limit: 120, configured: 120, windowMs: W },
    });
    expect(followHeader(EMPTY_BUCKET, 120, DEFAULT_RATE_BUDGET).change).toBeUndefined();
  });

  it('tells a new configuration against what was followed under the old one', () => {
    const followed = { quota: { limit: 200, configured: 120, windowMs: W } };
    expect(effectiveLimit(followed, config)).toBe(200);
    const redeployed = { ...DEFAULT_RATE_BUDGET, limit: 60 };
    // Until a response says otherwise, the new configuration's quota is granted against.
    expect(effectiveLimit(followed, redeployed)).toBe(60);
    expect(followHeader(followed, 200, redeployed)).toEqual({
      quota: { limit: 60, configured: 60, windowMs: W },
      change: { previousLimit: 200, limit: 60, windowMs: W, source: 'configuration', ceiling: 60 },
    });
    // Same limit, another window: told too.
    expect(followHeader(followed, 200, { ...config, windowMs: 30_000 }).change).toMatchObject({
      previousLimit: 200,
      limit: 200,
      windowMs: 30_000,
      source: 'configuration',
    });
  });

  it('never rises past a lowered ceiling, and writes nothing when nothing moves', () => {
    const followed = { quota: { limit: 300, configured: 120, windowMs: W } };
    expect(effectiveLimit(followed, { ...config, maxLimit: 150 })).toBe(150);
    expect(followHeader(followed, 300, config)).toEqual({});
  });

  it('sizes the planner cycle from the quota followed under this configuration only', () => {
    const followed = {
      clientId: 'c',
      limit: 300,
      windowMs: W,
      configuredLimit: 120,
      ceiling: 300,
      source: 'header' as const,
      changedAt: 0,
    };
    expect(plannedRate(followed, config).limit).toBe(300);
    expect(plannedRate(followed, { ...config, maxLimit: 200 }).limit).toBe(200);
    expect(plannedRate(followed, { ...config, limit: 100 }).limit).toBe(100);
    expect(plannedRate(undefined, config)).toBe(config);
  });

  it('refuses a ceiling that is not a whole number, naming it', async () => {
    const { validateConfig } = await import('../../../functions/core/ratelimit/bucket');
    expect(() => validateConfig({ ...DEFAULT_RATE_BUDGET, maxLimit: 1.5 })).toThrow(/maxLimit/);
  });
});
