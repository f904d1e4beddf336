import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DISABLE_AFTER_FAILING_MS,
  isEndpointDead,
  MAX_ATTEMPTS,
  nextStep,
  RETRY_SCHEDULE_MS,
  recordAttempt,
  retryDelayMs,
  type SubscriptionHealth,
} from '../../functions/core/webhooks/policy';
import type { AttemptOutcome } from '../../functions/core/webhooks/sender';

const now = new Date('2026-11-22T10:00:00.000Z');
const failure = { outcome: 'failure' as const };
const S = 1000;
const H = 3600 * S;

describe('retry schedule', () => {
  it('is 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: 8 attempts in all', () => {
    expect(RETRY_SCHEDULE_MS).toEqual([5 * S, 300 * S, 1800 * S, 2 * H, 5 * H, 10 * H, 10 * H]);
    expect(MAX_ATTEMPTS).toBe(8);
    const mid = () => 0.5;
    expect(RETRY_SCHEDULE_MS.map((_, i) => retryDelayMs(i + 1, mid))).toEqual(RETRY_SCHEDULE_MS);
    expect(retryDelayMs(8, mid)).toBeUndefined();
    expect(retryDelayMs(0, mid)).toBeUndefined();
  });

  it('keeps every delay within ±20 % of the schedule, whatever the random source returns', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7 }), fc.double({ min: 0, max: 1, noNaN: true }), (retry, r) => {
        const base = RETRY_SCHEDULE_MS[retry - 1] as number;
        const delay = retryDelayMs(retry, () => r) as number;
        expect(delay).toBeGreaterThanOrEqual(Math.floor(base * 0.8));
        expect(delay).toBeLessThanOrEqual(Math.ceil(base * 1.2));
      }),
    );
  });

  it('reaches both ends of the jitter range', () => {
    expect(retryDelayMs(2, () => 0)).toBe(240_000);
    expect(retryDelayMs(2, () => 0.999_999_999)).toBe(360_000);
  });

  it('schedules the retry at now + the jittered delay, and dead-letters after the 8th attempt', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, r) => {
        const step = nextStep({ attemptNumber: n }, failure, now, { random: () => r });
        if (step.action !== 'retry') throw new Error(`expected a retry, got ${step.action}`);
        const base = RETRY_SCHEDULE_MS[n - 1] as number;
        const delay = step.at.getTime() - now.getTime();
        expect(delay).toBe(step.delayMs);
        expect(Math.abs(delay - base)).toBeLessThanOrEqual(Math.ceil(base * 0.2));
      }),
    );
    expect(nextStep({ attemptNumber: 8 }, failure, now)).toEqual({ action: 'dead-letter', attempts: 8 });
  });
});

describe('nextStep', () => {
  it('is done after a success and disables the subscription after a 410', () => {
    expect(nextStep({ attemptNumber: 1 }, { outcome: 'success' }, now)).toEqual({ action: 'done' });
    expect(nextStep({ attemptNumber: 3 }, { outcome: 'gone' }, now)).toMatchObject({
      action: 'disable-subscription',
      reason: 'gone',
    });
  });

  it.each<AttemptOutcome>(['failure', 'timeout', 'network', 'refused'])('retries after a %s', (outcome) => {
    expect(nextStep({ attemptNumber: 1 }, { outcome }, now, { random: () => 0.5 })).toMatchObject({
      action: 'retry',
      delayMs: 5_000,
    });
  });

  it('lets Retry-After push a retry later but never earlier than the schedule', () => {
    const later = nextStep({ attemptNumber: 1 }, { outcome: 'failure', retryAfterMs: 120_000 }, now, {
      random: () => 0.5,
    });
    expect(later).toMatchObject({ action: 'retry', delayMs: 120_000 });
    const sooner = nextStep({ attemptNumber: 3 }, { outcome: 'failure', retryAfterMs: 5_000 }, now, {
      random: () => 0.5,
    });
    expect(sooner).toMatchObject({ action: 'retry', delayMs: 30 * 60 * 1000 });
  });

  it('still dead-letters after the last attempt even with a Retry-After', () => {
    expect(nextStep({ attemptNumber: 8 }, { outcome: 'failure', retryAfterMs: 60_000 }, now).action).toBe(
      'dead-letter',
    );
  });

  it('disables a subscription failing for 5 days without a single success', () => {
    const fiveDaysAgo = new Date(now.getTime() - DISABLE_AFTER_FAILING_MS).toISOString();
    const health: SubscriptionHealth = {
      firstFailureAt: fiveDaysAgo,
      lastSuccessAt: '2026-11-01T00:00:00.000Z',
    };
    expect(nextStep({ attemptNumber: 2 }, failure, now, { health })).toMatchObject({
      action: 'disable-subscription',
      reason: 'failing-for-5-days',
    });
    const almost = { firstFailureAt: new Date(now.getTime() - DISABLE_AFTER_FAILING_MS + 1).toISOString() };
    expect(nextStep({ attemptNumber: 2 }, failure, now, { health: almost }).action).toBe('retry');
  });
});

describe('subscription health', () => {
  it('starts a failing streak at the first failure and clears it on a success', () => {
    let h: SubscriptionHealth = {};
    h = recordAttempt(h, { outcome: 'timeout', startedAt: '2026-11-17T10:00:00.000Z' });
    h = recordAttempt(h, { outcome: 'failure', startedAt: '2026-11-18T10:00:00.000Z' });
    expect(h).toEqual({ firstFailureAt: '2026-11-17T10:00:00.000Z' });
    expect(isEndpointDead(h, now)).toBe(true);
    h = recordAttempt(h, { outcome: 'success', startedAt: '2026-11-22T09:00:00.000Z' });
    expect(h).toEqual({ lastSuccessAt: '2026-11-22T09:00:00.000Z' });
    expect(isEndpointDead(h, new Date('2026-12-30T00:00:00.000Z'))).toBe(false);
  });

  it('never disables on an unparseable date', () => {
    expect(isEndpointDead({ firstFailureAt: 'last week' }, now)).toBe(false);
  });
});
