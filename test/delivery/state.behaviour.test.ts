import { describe, expect, it } from 'vitest';
import { createEngineState, remember } from '../../functions/core/delivery/state';
import { deliveryId } from '../../functions/core/subscriptions/logic';
import type { KeyedLimiter } from '../../functions/core/webhooks/limiter';
import { at, event, setup } from './engine-setup';
import { T0 } from './harness';

/**
 * The engine's defaults and process memory: the line of waiting attempts past which a fan-out
 * goes through the queue (2,000 by default), and the bounded memory of fanned-out delivery ids.
 */

/** A limiter that runs every task at once and reports `waiting` attempts in line for every subscription. */
function lineOf(waiting: number): KeyedLimiter {
  return {
    run: async (_key, task) => task(),
    stats: () => ({ inFlight: 0, queued: waiting, inFlightFor: () => 0, queuedFor: () => waiting }),
  };
}

describe('the default line of waiting attempts per subscription', () => {
  it('with 1,999 attempts waiting, a fan-out still attempts directly', async () => {
    const ctx = setup({ engine: { maxWaitingPerSubscription: undefined, limiter: lineOf(1999) } });
    const sub = await ctx.subscribe();
    const e = event();
    const r = await ctx.engine.fanOut(e);
    await r.settled;
    expect(r.queued).toStrictEqual([]);
    expect(ctx.sent.map((s) => s.id)).toStrictEqual([e.id]);
    expect((await ctx.stores.deliveries.get(deliveryId(e.id, sub.id)))?.status).toBe('succeeded');
  });

  it('with 2,000 waiting, the delivery is written pending and queued instead', async () => {
    const ctx = setup({ engine: { maxWaitingPerSubscription: undefined, limiter: lineOf(2000) } });
    const sub = await ctx.subscribe();
    const e = event();
    const id = deliveryId(e.id, sub.id);
    const r = await ctx.engine.fanOut(e);
    await r.settled;
    expect(r).toMatchObject({ deliveryIds: [id], queued: [id] });
    expect(ctx.sent).toStrictEqual([]);
    expect(await ctx.stores.deliveries.get(id)).toMatchObject({
      status: 'pending',
      attempts: 0,
      nextAttemptAt: at(T0),
    });
    expect(ctx.queue.sent).toStrictEqual([{ body: { deliveryId: id }, delaySeconds: 0 }]);
  });
});

describe('the memory of fanned-out delivery ids', () => {
  it('keeps the last 10,000 ids, forgetting the oldest first', () => {
    const { deps } = setup();
    const state = createEngineState(deps);
    for (let i = 0; i < 10_000; i++) remember(state, `dlv_${i}`);
    expect(state.seen.size).toBe(10_000);
    expect(state.seen.has('dlv_0')).toBe(true);
    remember(state, 'dlv_10000');
    expect(state.seen.size).toBe(10_000);
    expect(state.seen.has('dlv_0')).toBe(false);
    expect(state.seen.has('dlv_1')).toBe(true);
    expect(state.seen.has('dlv_10000')).toBe(true);
    // A repeat is not a new id: nothing forgotten.
    remember(state, 'dlv_5');
    expect(state.seen.has('dlv_1')).toBe(true);
    expect(state.seen.size).toBe(10_000);
  });
});
