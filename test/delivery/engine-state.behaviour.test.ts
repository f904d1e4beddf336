import { describe, expect, it } from 'vitest';
import { createDeliveryEngine } from '../../functions/core/delivery/engine';
import { deliveryId } from '../../functions/core/subscriptions/logic';
import { at, event, lastEventId, pendingDelivery, setup } from './engine-setup';
import { T0 } from './harness';

/**
 * The engine's settings and shared memory (functions/core/delivery/state.ts): the options it
 * refuses, the defaults it applies, how it batches queue messages and reads the subscription list.
 */

describe('engine options: refused with the option and the rule', () => {
  it.each([
    ['directHoldMs', 0, 'directHoldMs: must be an integer ≥ 1'],
    ['directHoldMs', 1.5, 'directHoldMs: must be an integer ≥ 1'],
    ['slowForMs', -1, 'slowForMs: must be an integer ≥ 0'],
    ['slowForMs', 0.5, 'slowForMs: must be an integer ≥ 0'],
    ['recordConcurrency', 0, 'recordConcurrency: must be an integer ≥ 1'],
    ['recordConcurrency', 2.5, 'recordConcurrency: must be an integer ≥ 1'],
  ] as const)('%s = %s: "%s"', (option, value, message) => {
    const ctx = setup();
    expect(() => createDeliveryEngine({ ...ctx.deps, [option]: value })).toThrow(message);
  });
});

describe('engine defaults', () => {
  it('an attempt budget longer than the lease is cut to the lease: a job claimed now is still attempted', async () => {
    const ctx = setup({ engine: { leaseMs: 10_000, attemptBudgetMs: 20_000 } });
    const sub = await ctx.subscribe();
    const d = await pendingDelivery(ctx, sub, event(), 0);
    await ctx.engine.handleJob({ deliveryId: d.id });
    expect(ctx.sent).toHaveLength(1);
    expect((await ctx.stores.deliveries.get(d.id))?.status).toBe('succeeded');
  });

  it('without a random source, a job for a busy subscription comes back after 1 to 5 s (Math.random)', async () => {
    const ctx = setup({
      engine: {
        random: undefined,
        perSubscriptionConcurrency: 1,
        // The subscription at its limit with a line already waiting.
        limiter: {
          run: async (_key, task) => task(),
          stats: () => ({ inFlight: 1, queued: 1, inFlightFor: () => 1, queuedFor: () => 1 }),
        },
      },
    });
    const sub = await ctx.subscribe();
    const d = await pendingDelivery(ctx, sub, event(), 0);
    const result = await ctx.engine.handleJob({ deliveryId: d.id });
    expect(result?.retryInSeconds).toBeGreaterThanOrEqual(1);
    expect(result?.retryInSeconds).toBeLessThanOrEqual(5);
    expect(ctx.sent).toStrictEqual([]);
  });

  it('the default lease is 60 s: a delivery written claimed is due again a minute later', async () => {
    // The endpoint known slow: the fan-out writes the delivery claimed (leased) before attempting.
    let release: () => void = () => undefined;
    const ctx = setup({
      engine: { leaseMs: undefined, directHoldMs: 1 },
      script: () =>
        new Promise((resolve) => (release = () => resolve({ outcome: 'success', statusCode: 200 }))),
    });
    const sub = await ctx.subscribe();
    const e = event();
    const r = await ctx.engine.fanOut(e);
    const stored = await ctx.stores.deliveries.get(deliveryId(e.id, sub.id));
    expect(stored).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAt: at(T0 + 60_000) });
    release();
    await r.settled;
  });

  it('by default a burst of events detected before the list read shares one read of it', async () => {
    const ctx = setup({ engine: { subscriptionCacheMs: undefined } });
    let reads = 0;
    const list = ctx.stores.subscriptions.listActive.bind(ctx.stores.subscriptions);
    ctx.stores.subscriptions.listActive = async () => {
      reads += 1;
      return list();
    };
    await ctx.subscribe();
    ctx.clock.advance(1);
    const results = await Promise.all([ctx.engine.fanOut(event()), ctx.engine.fanOut(event())]);
    await Promise.all(results.map((r) => r.settled));
    expect(reads).toBe(1);
    expect(ctx.sent).toHaveLength(2);
  });

  it('a subscription listed with a failing streak has it ended in the store by its next success', async () => {
    const ctx = setup();
    const sub = await ctx.subscribe({ health: { firstFailureAt: at(T0 - 1000) } });
    await (await ctx.engine.fanOut(event())).settled;
    expect((await ctx.stores.subscriptions.get(sub.id))?.health).toStrictEqual({ lastSuccessAt: at(T0) });
  });
});

describe('the list of active subscriptions', () => {
  const counting = (ctx: ReturnType<typeof setup>) => {
    const reads = { n: 0 };
    const list = ctx.stores.subscriptions.listActive.bind(ctx.stores.subscriptions);
    ctx.stores.subscriptions.listActive = async () => {
      reads.n += 1;
      return list();
    };
    return reads;
  };

  it('without a cache period, fan-outs at the same time each read it (no sharing of a read in flight)', async () => {
    const ctx = setup({ engine: { subscriptionCacheMs: 0 } });
    const reads = counting(ctx);
    await ctx.subscribe();
    ctx.clock.advance(1);
    const results = await Promise.all([ctx.engine.fanOut(event()), ctx.engine.fanOut(event())]);
    await Promise.all(results.map((r) => r.settled));
    expect(reads.n).toBe(2);
  });

  it('an event detected at the very time a read began does not share that read', async () => {
    const ctx = setup({ engine: { subscriptionCacheMs: 60_000 } });
    const reads = counting(ctx);
    await ctx.subscribe();
    // The clock is at T0, the events are detected at T0: a read begun at T0 may miss what was
    // created at T0, so each fan-out reads.
    const results = await Promise.all([ctx.engine.fanOut(event()), ctx.engine.fanOut(event())]);
    await Promise.all(results.map((r) => r.settled));
    expect(reads.n).toBe(2);
  });

  it('once the cache period is over, a finished read is not reused even for an event detected before it', async () => {
    const ctx = setup({ engine: { subscriptionCacheMs: 1 } });
    const reads = counting(ctx);
    const first = await ctx.subscribe();
    ctx.clock.advance(1);
    await (await ctx.engine.fanOut(event({ detectedAt: at(T0) }))).settled;
    // The cache's age is process time: let the 1 ms period pass.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await ctx.subscribe();
    const r = await ctx.engine.fanOut(event({ detectedAt: at(T0) }));
    await r.settled;
    expect(reads.n).toBe(2);
    expect([...r.deliveryIds].sort()).toEqual(
      [deliveryId(lastEventId(), first.id), deliveryId(lastEventId(), second.id)].sort(),
    );
  });
});

describe('queue messages', () => {
  it('are sent 100 per call', async () => {
    const ctx = setup({ engine: { sweepGraceMs: 0 } });
    const sub = await ctx.subscribe();
    for (let i = 0; i < 201; i++) await pendingDelivery(ctx, sub, event(), 1, { nextAttemptAt: at(T0 - 1) });
    const calls: number[] = [];
    const send = ctx.queue.send.bind(ctx.queue);
    ctx.queue.send = async (messages) => {
      calls.push(messages.length);
      return send(messages);
    };
    expect(await ctx.engine.sweep()).toBe(201);
    expect(calls).toStrictEqual([100, 100, 1]);
    expect(new Set(ctx.queue.sent.map((m) => m.body.deliveryId)).size).toBe(201);
    expect(ctx.queue.sent.every((m) => m.delaySeconds === 0)).toBe(true);
    // Nothing due: no call at all.
    calls.length = 0;
    expect(await ctx.engine.sweep()).toBe(201);
    expect(calls).toStrictEqual([100, 100, 1]);
    const empty = setup();
    const emptyCalls: number[] = [];
    empty.queue.send = async (messages) => {
      emptyCalls.push(messages.length);
    };
    expect(await empty.engine.sweep()).toBe(0);
    expect(emptyCalls).toStrictEqual([]);
  });

  it('a send failing with a value that is not an Error is reported with that value', async () => {
    const ctx = setup();
    const sub = await ctx.subscribe();
    ctx.queue.send = async () => {
      throw 'throttled';
    };
    await pendingDelivery(ctx, sub, event(), 1, { nextAttemptAt: at(T0 - 120_000) });
    expect(await ctx.engine.sweep()).toBe(1);
    expect(ctx.problems).toStrictEqual([{ kind: 'QueueFailure', message: 'queue send failed: throttled' }]);
  });
});

describe("a direct attempt's record", () => {
  it('an attempt without a status code (network error) leaves no status code field on the delivery', async () => {
    const ctx = setup({
      script: () => ({ outcome: 'failure', statusCode: undefined, error: 'ECONNREFUSED' }),
    });
    const sub = await ctx.subscribe();
    const e = event();
    await (await ctx.engine.fanOut(e)).settled;
    const stored = await ctx.stores.deliveries.get(deliveryId(e.id, sub.id));
    expect(stored).toMatchObject({ status: 'pending', attempts: 1, lastError: 'ECONNREFUSED' });
    expect(stored).not.toHaveProperty('lastStatusCode');
  });
});
