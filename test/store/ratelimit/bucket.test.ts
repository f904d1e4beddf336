import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyFreeze,
  applyObservation,
  type BucketState,
  capacityOf,
  DEFAULT_RATE_BUDGET,
  decideTake,
  EMPTY_BUCKET,
  RateBudgetError,
  validateConfig,
  windowStartOf,
} from '../../../functions/core/ratelimit/bucket';

const config = DEFAULT_RATE_BUDGET;
const W = config.windowMs;
const T0 = 1_800_000_000_000 - (1_800_000_000_000 % W);

describe('rate bucket math', () => {
  it('sizes the bucket to the quota minus the safety margin (120 per 60 s, 10 % → 108)', () => {
    expect(capacityOf(config)).toBe(108);
    expect(capacityOf({ limit: 120, safetyMargin: 0 })).toBe(120);
  });

  it('grants up to capacity in a window, then denies until the next window starts', () => {
    let state: BucketState = EMPTY_BUCKET;
    for (let i = 0; i < 108; i += 1) {
      const decision = decideTake(state, 1, T0 + 10_000, config);
      if (!decision.granted) throw new Error(`take ${i} denied`);
      state = decision.state;
    }
    expect(decideTake(state, 1, T0 + 59_999, config)).toEqual({ granted: false, retryAt: T0 + W });
    expect(decideTake(state, 1, T0 + W, config).granted).toBe(true);
  });

  it('counts a lagging clock in the newer window another worker opened, never in a closed one', () => {
    const state = { windowStart: T0 + W, used: 108, frozenUntil: 0 };
    expect(decideTake(state, 1, T0 + 30_000, config)).toEqual({ granted: false, retryAt: T0 + 2 * W });
  });

  it('corrects down from X-RateLimit-Remaining, keeping its margin, and never up', () => {
    const quota = { limit: 120, configured: 120, windowMs: W };
    // The first response records the quota followed.
    expect(
      applyObservation(EMPTY_BUCKET, { limit: 120, remaining: 120, observedAt: T0 }, config).quota,
    ).toEqual(quota);
    const state = { windowStart: T0, used: 10, frozenUntil: 0, quota };
    // The API has 50 left: we allow ourselves 50 - 12 = 38 more.
    const lowered = applyObservation(state, { limit: 120, remaining: 50, observedAt: T0 + 1 }, config);
    expect(108 - lowered.used).toBe(38);
    expect(applyObservation(lowered, { limit: 120, remaining: 119, observedAt: T0 + 2 }, config)).toBe(
      lowered,
    );
    // A stale observation from a closed window is ignored.
    const next = { windowStart: T0 + W, used: 1, frozenUntil: 0, quota };
    expect(applyObservation(next, { limit: 120, remaining: 0, observedAt: T0 + 5 }, config)).toBe(next);
    // A lower quota than configured lowers the budget too: it is followed (54 of 60 granted).
    const lowered60 = applyObservation(EMPTY_BUCKET, { limit: 60, remaining: 60, observedAt: T0 }, config);
    expect(lowered60.quota).toEqual({ limit: 60, configured: 120, windowMs: W });
    expect(lowered60.used).toBe(0);
    let s60: BucketState = lowered60;
    for (let i = 0; i < 54; i += 1) {
      const d = decideTake(s60, 1, T0 + 1, config);
      if (!d.granted) throw new Error(`take ${i} denied`);
      s60 = d.state;
    }
    expect(decideTake(s60, 1, T0 + 2, config)).toEqual({ granted: false, retryAt: T0 + W });
  });

  it('denies everything before the freeze ends and never shortens a freeze', () => {
    const frozen = applyFreeze(EMPTY_BUCKET, T0 + 30_000);
    expect(decideTake(frozen, 1, T0 + 29_999, config)).toEqual({ granted: false, retryAt: T0 + 30_000 });
    expect(decideTake(frozen, 1, T0 + 30_000, config).granted).toBe(true);
    expect(applyFreeze(frozen, T0 + 1_000)).toBe(frozen);
  });

  it('refuses bad input, naming the field', () => {
    expect(() => decideTake(EMPTY_BUCKET, 0, T0, config)).toThrow(RateBudgetError);
    expect(() => decideTake(EMPTY_BUCKET, 109, T0, config)).toThrow(/n: must be at most/);
    expect(() => validateConfig({ ...config, safetyMargin: 1 })).toThrow(/safetyMargin/);
    expect(() =>
      applyObservation(EMPTY_BUCKET, { limit: 120, remaining: -1, observedAt: T0 }, config),
    ).toThrow(/remaining/);
  });

  it('never grants more than capacity in any window, whatever the takes, clocks and observations (property)', () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('take' as const),
        at: fc.integer({ min: 0, max: 5 * W }),
        n: fc.integer({ min: 1, max: 20 }),
      }),
      fc.record({
        kind: fc.constant('observe' as const),
        at: fc.integer({ min: 0, max: 5 * W }),
        remaining: fc.integer({ min: 0, max: 120 }),
      }),
      fc.record({ kind: fc.constant('freeze' as const), at: fc.integer({ min: 0, max: 5 * W }) }),
    );
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 300 }),
        fc.double({ min: 0, max: 0.5, noNaN: true }),
        (ops, margin) => {
          const cfg = { ...config, safetyMargin: margin };
          const cap = capacityOf(cfg);
          let state: BucketState = EMPTY_BUCKET;
          const grantedPerWindow = new Map<number, number>();
          for (const o of ops) {
            const now = T0 + o.at;
            if (o.kind === 'take') {
              const n = Math.min(o.n, cap);
              const before = state;
              const decision = decideTake(state, n, now, cfg);
              if (decision.granted) {
                state = decision.state;
                const w = state.windowStart;
                grantedPerWindow.set(w, (grantedPerWindow.get(w) ?? 0) + n);
                expect(w).toBeGreaterThanOrEqual(windowStartOf(now, W));
              } else {
                // Denied only when it really does not fit (or frozen), and retryAt is in the future.
                expect(decision.retryAt).toBeGreaterThan(now);
                const w = Math.max(windowStartOf(now, W), before.windowStart);
                const used = w === before.windowStart ? before.used : 0;
                expect(now < before.frozenUntil || used + n > cap).toBe(true);
              }
            } else if (o.kind === 'observe') {
              state = applyObservation(state, { limit: 120, remaining: o.remaining, observedAt: now }, cfg);
            } else {
              state = applyFreeze(state, now + 5_000);
            }
          }
          for (const granted of grantedPerWindow.values()) expect(granted).toBeLessThanOrEqual(cap);
        },
      ),
      { numRuns: 300 },
    );
  });
});
