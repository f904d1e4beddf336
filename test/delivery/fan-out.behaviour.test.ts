import { describe, expect, it } from 'vitest';
import { DeliveryError } from '../../functions/core/delivery/contract';
import { deliveryId } from '../../functions/core/subscriptions/logic';
import type { DeliveryRecord } from '../../functions/core/subscriptions/records';
import { at, event, setup } from './engine-setup';
import { T0 } from './harness';
import { manualTimer } from './manual-timer';

/**
 * The fan-out's paths that write before attempting (a subscription lately slow, a subscription
 * with a full line) and what a failed fan-out tells its caller: the exact records written, the
 * error's kind, message and context, and that a delivery not recorded is attempted again when the
 * event comes back.
 */

const HOLD = 100;

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('resolved');
    },
    (x: unknown) => x,
  );
}

/**
 * A world whose subscription is lately slow: its first event's request was held for a whole hold
 * (written claimed, the subscription marked slow for 30 s), then answered.
 */
async function slowSubscription() {
  const time = manualTimer();
  let release: () => void = () => undefined;
  let held = true;
  const ctx = setup({
    engine: { directHoldMs: HOLD, slowForMs: 30_000, timer: time.timer },
    script: () =>
      held
        ? new Promise((resolve) => {
            release = () => resolve({ outcome: 'success', statusCode: 204 });
          })
        : { outcome: 'success', statusCode: 204 },
  });
  const sub = await ctx.subscribe();
  const first = event();
  const fan = ctx.engine.fanOut(first);
  await time.advanceTo(HOLD);
  // Written claimed at the tick: the fan-out returns while the request is still held.
  const r = await fan;
  held = false;
  release();
  await r.settled;
  expect((await ctx.stores.deliveries.get(deliveryId(first.id, sub.id)))?.status).toBe('succeeded');
  return { ctx, sub, time };
}

describe('a subscription lately slow: its delivery written claimed before the attempt', () => {
  it('writes the whole event delivery claimed and leased, returns its id, then attempts and finishes it', async () => {
    const { ctx, sub } = await slowSubscription();
    const created: DeliveryRecord[] = [];
    const create = ctx.stores.deliveries.create.bind(ctx.stores.deliveries);
    ctx.stores.deliveries.create = async (d) => {
      created.push(d);
      return create(d);
    };
    const e = event();
    const id = deliveryId(e.id, sub.id);
    const r = await ctx.engine.fanOut(e);
    expect(r.deliveryIds).toStrictEqual([id]);
    expect(r.queued).toStrictEqual([]);
    expect(created).toStrictEqual([
      {
        id,
        subscriptionId: sub.id,
        eventId: e.id,
        eventType: e.type,
        envelope: e,
        origin: 'event',
        status: 'pending',
        attempts: 1,
        nextAttemptAt: at(T0 + 60_000),
        createdAt: at(T0),
        updatedAt: at(T0),
      },
    ]);
    await r.settled;
    expect(await ctx.stores.deliveries.get(id)).toMatchObject({
      origin: 'event',
      status: 'succeeded',
      attempts: 1,
    });
  });

  it('a create that throws fails the fan-out with the event id only, and the event coming back is attempted', async () => {
    const { ctx, sub } = await slowSubscription();
    const create = ctx.stores.deliveries.create.bind(ctx.stores.deliveries);
    let fail = true;
    ctx.stores.deliveries.create = async (d) => {
      if (fail) throw new Error('throttled');
      return create(d);
    };
    const e = event();
    const id = deliveryId(e.id, sub.id);
    const error = await rejection(ctx.engine.fanOut(e));
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({
      kind: 'StoreFailure',
      message: `fan-out of ${e.id}: 1 of 1 deliveries not recorded: Error: throttled`,
    });
    // Nothing was attempted, so no outcome was lost: no delivery ids in the context.
    expect((error as DeliveryError).context).toStrictEqual({ eventId: e.id });
    expect(ctx.sent.map((s) => s.id)).not.toContain(e.id);

    fail = false;
    const again = await ctx.engine.fanOut(e);
    expect(again.deliveryIds).toStrictEqual([id]);
    await again.settled;
    expect((await ctx.stores.deliveries.get(id))?.status).toBe('succeeded');
  });
});

describe('a subscription with a full line: its delivery written and queued', () => {
  it('a create that throws fails the fan-out, nothing is queued, and the event coming back is written and queued', async () => {
    const ctx = setup({ engine: { maxWaitingPerSubscription: 0 } });
    const sub = await ctx.subscribe();
    const create = ctx.stores.deliveries.create.bind(ctx.stores.deliveries);
    let fail = true;
    ctx.stores.deliveries.create = async (d) => {
      if (fail) throw new Error('throttled');
      return create(d);
    };
    const e = event();
    const id = deliveryId(e.id, sub.id);
    const error = await rejection(ctx.engine.fanOut(e));
    expect(error).toMatchObject({
      kind: 'StoreFailure',
      message: `fan-out of ${e.id}: 1 of 1 deliveries not recorded: Error: throttled`,
      context: { eventId: e.id },
    });
    expect((error as DeliveryError).context).toStrictEqual({ eventId: e.id });
    expect(ctx.queue.sent).toStrictEqual([]);

    fail = false;
    const again = await ctx.engine.fanOut(e);
    expect(again).toMatchObject({ deliveryIds: [id], queued: [id] });
    expect(ctx.queue.sent).toStrictEqual([{ body: { deliveryId: id }, delaySeconds: 0 }]);
    expect(ctx.sent).toStrictEqual([]);
  });

  it('one subscription failing does not undo the others: the written one stays queued, the failed one is named by count', async () => {
    const ctx = setup({ engine: { maxWaitingPerSubscription: 0 } });
    const ok = await ctx.subscribe();
    const bad = await ctx.subscribe();
    const create = ctx.stores.deliveries.create.bind(ctx.stores.deliveries);
    ctx.stores.deliveries.create = async (d) => {
      if (d.subscriptionId === bad.id) throw new Error('throttled');
      return create(d);
    };
    const e = event();
    const error = await rejection(ctx.engine.fanOut(e));
    expect(error).toMatchObject({
      message: `fan-out of ${e.id}: 1 of 2 deliveries not recorded: Error: throttled`,
    });
    expect((error as DeliveryError).context).toStrictEqual({ eventId: e.id });
    expect(ctx.queue.sent).toStrictEqual([
      { body: { deliveryId: deliveryId(e.id, ok.id) }, delaySeconds: 0 },
    ]);
  });
});

describe('outcomes lost in the write after the attempts', () => {
  it('names every delivery whose outcome was lost, comma-separated, in the error context', async () => {
    const ctx = setup();
    const a = await ctx.subscribe();
    const b = await ctx.subscribe();
    const c = await ctx.subscribe();
    const e = event();
    const lost = [deliveryId(e.id, a.id), deliveryId(e.id, c.id)];
    const record = ctx.stores.deliveries.recordAttempts.bind(ctx.stores.deliveries);
    ctx.stores.deliveries.recordAttempts = async (entries) => {
      await record(entries.filter((x) => !lost.includes(x.delivery.id)));
      return { failed: entries.map((x) => x.delivery.id).filter((id) => lost.includes(id)) };
    };
    const error = await rejection(ctx.engine.fanOut(e));
    expect(error).toMatchObject({ kind: 'StoreFailure' });
    expect((error as DeliveryError).message).toMatch(
      new RegExp(`^fan-out of ${e.id}: 2 of 3 deliveries not recorded: `),
    );
    expect((error as DeliveryError).context).toStrictEqual({ eventId: e.id, deliveryIds: lost.join(',') });
    expect((await ctx.stores.deliveries.get(deliveryId(e.id, b.id)))?.status).toBe('succeeded');
  });
});
