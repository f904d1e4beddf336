import { describe, expect, it } from 'vitest';
import { DeliveryError } from '../../functions/core/delivery/contract';
import type { KeyedLimiter } from '../../functions/core/webhooks/limiter';
import { at, event, pendingDelivery, setup } from './engine-setup';
import { T0 } from './harness';

/**
 * The engine's entry points besides the fan-out (the queue worker, test sends, replays, resume):
 * the exact records, queue messages and errors at each boundary.
 */

/** A limiter that runs every task at once and reports the given line for every subscription. */
function limiterReporting(inFlight: number, queued: number): KeyedLimiter {
  return {
    run: async (_key, task) => task(),
    stats: () => ({ inFlight, queued, inFlightFor: () => inFlight, queuedFor: () => queued }),
  };
}

describe('the queue worker and a busy subscription', () => {
  it('comes back later only when the subscription is at its limit and as many attempts already wait', async () => {
    const ctx = setup({ engine: { perSubscriptionConcurrency: 2, limiter: limiterReporting(2, 2) } });
    const sub = await ctx.subscribe();
    const d = await pendingDelivery(ctx, sub, event(), 0);
    // random = 0.5: 1 + floor(2.5) seconds.
    expect(await ctx.engine.handleJob({ deliveryId: d.id })).toStrictEqual({ retryInSeconds: 3 });
    expect(ctx.sent).toStrictEqual([]);
    expect(await ctx.stores.deliveries.get(d.id)).toStrictEqual(d);
  });

  for (const [inFlight, queued, why] of [
    [2, 1, 'at its limit with a shorter line'],
    [1, 2, 'with a slot free'],
    [1, 1, 'below its limit'],
  ] as const) {
    it(`attempts a job for a subscription ${why} (${inFlight} in flight, ${queued} waiting, limit 2)`, async () => {
      const ctx = setup({
        engine: { perSubscriptionConcurrency: 2, limiter: limiterReporting(inFlight, queued) },
      });
      const sub = await ctx.subscribe();
      const e = event();
      const d = await pendingDelivery(ctx, sub, e, 0);
      expect(await ctx.engine.handleJob({ deliveryId: d.id })).toBeUndefined();
      expect(ctx.sent.map((s) => s.id)).toStrictEqual([e.id]);
      expect(await ctx.stores.deliveries.get(d.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    });
  }
});

describe('the queue worker and a claim the store refuses', () => {
  for (const refused of [{ kind: 'NotPending', status: 'succeeded' }, { kind: 'NotFound' }] as const) {
    it(`a claim answered ${refused.kind}: nothing attempted, written or queued`, async () => {
      const ctx = setup();
      const sub = await ctx.subscribe();
      const d = await pendingDelivery(ctx, sub, event(), 0);
      // Another worker finished (or removed) the delivery between the read and the claim.
      ctx.stores.deliveries.claim = async () => refused;
      expect(await ctx.engine.handleJob({ deliveryId: d.id })).toBeUndefined();
      expect(ctx.sent).toStrictEqual([]);
      expect(await ctx.stores.deliveries.get(d.id)).toStrictEqual(d);
      expect(ctx.queue.sent).toStrictEqual([]);
      expect(ctx.problems).toStrictEqual([]);
    });
  }
});

describe('a test send whose outcome cannot be written', () => {
  it('rejects with a StoreFailure naming the subscription and the delivery', async () => {
    const ctx = setup();
    const sub = await ctx.subscribe();
    ctx.stores.deliveries.finish = async () => {
      throw new Error('down');
    };
    const error = await ctx.engine.sendTest(sub).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(error).toBeInstanceOf(DeliveryError);
    const e = error as DeliveryError;
    expect(e.kind).toBe('StoreFailure');
    const id = /^test delivery (\S+) could not be recorded$/.exec(e.message)?.[1];
    expect(id).toMatch(/^dlv_/);
    expect(e.context).toStrictEqual({ subscriptionId: sub.id, deliveryId: id });
  });
});

describe('a replay', () => {
  it('writes at most 16 deliveries at a time, in batches of 16 in event order', async () => {
    const ctx = setup();
    const sub = await ctx.subscribe();
    const events = Array.from({ length: 40 }, () => event());
    const create = ctx.stores.deliveries.create.bind(ctx.stores.deliveries);
    let out = 0;
    const batches: string[][] = [];
    let current: string[] = [];
    ctx.stores.deliveries.create = async (d) => {
      // A write started while none is out begins a new batch.
      if (out === 0) {
        current = [];
        batches.push(current);
      }
      out += 1;
      current.push(d.eventId);
      await new Promise((r) => setImmediate(r));
      out -= 1;
      return create(d);
    };
    const ids = await ctx.engine.enqueueReplay(sub, events, 'run_1');
    expect(ids).toHaveLength(40);
    expect(batches).toStrictEqual([
      events.slice(0, 16).map((e) => e.id),
      events.slice(16, 32).map((e) => e.id),
      events.slice(32).map((e) => e.id),
    ]);
    expect(ctx.queue.sent).toHaveLength(40);
  });
});

describe('resume', () => {
  it('resumes every parked delivery across pages of the store (more than 500)', async () => {
    const ctx = setup();
    const sub = await ctx.subscribe();
    const parked: string[] = [];
    for (let i = 0; i < 501; i++) {
      const d = await pendingDelivery(ctx, sub, event(), 1);
      await ctx.stores.deliveries.park(d.id, T0);
      parked.push(d.id);
    }
    ctx.clock.advance(1000);
    expect(await ctx.engine.resume(sub.id)).toBe(501);
    expect(new Set(ctx.queue.sent.map((m) => m.body.deliveryId))).toStrictEqual(new Set(parked));
    expect(ctx.queue.sent).toHaveLength(501);
    expect(await ctx.stores.deliveries.get(parked[500] ?? '')).toMatchObject({
      status: 'pending',
      nextAttemptAt: at(T0 + 1000),
    });
    // Nothing parked is left: a second resume finds none.
    expect(await ctx.engine.resume(sub.id)).toBe(0);
  });

  it("reads each next page with the cursor the store's previous page returned", async () => {
    const ctx = setup();
    const sub = await ctx.subscribe();
    const parked: string[] = [];
    for (let i = 0; i < 3; i++) {
      const d = await pendingDelivery(ctx, sub, event(), 1);
      await ctx.stores.deliveries.park(d.id, T0);
      parked.push(d.id);
    }
    // A store answering two pages: the first names a cursor, the second (asked with it) none.
    const queries: unknown[] = [];
    const list = ctx.stores.deliveries.listBySubscription.bind(ctx.stores.deliveries);
    ctx.stores.deliveries.listBySubscription = async (query) => {
      queries.push(query);
      const page = await list({ ...query, limit: 2 });
      return page;
    };
    expect(await ctx.engine.resume(sub.id)).toBe(3);
    expect(queries).toHaveLength(2);
    expect(queries[0]).toStrictEqual({ subscriptionId: sub.id, status: 'parked', limit: 500 });
    expect(queries[1]).toMatchObject({ subscriptionId: sub.id, status: 'parked', limit: 500 });
    expect(typeof (queries[1] as { cursor?: unknown }).cursor).toBe('string');
  });
});
