import { describe, expect, it } from 'vitest';
import { DeliveryError, type FanOutResult } from '../../functions/core/delivery/contract';
import { createDeliveryEngine } from '../../functions/core/delivery/engine';
import { deliveryId } from '../../functions/core/subscriptions/logic';
import type { DeliveryRecord } from '../../functions/core/subscriptions/records';
import { createKeyedLimiter, type KeyedLimiter } from '../../functions/core/webhooks/limiter';
import { at, attemptsOf, event, setup } from './engine-setup';
import { T0 } from './harness';
import { manualTimer, settle } from './manual-timer';

/**
 * The hold on a direct first attempt, on a process timer the test moves by hand (hold 100 ms, so
 * the line's limit is 1,000 ms): a slow endpoint (a request in flight for a whole hold), a line for
 * a slot that lasted ten holds, and a subscription another attempt has just found slow each write
 * the delivery claimed; anything shorter writes nothing.
 */

const HOLD = 100;

/** The real limiter behind a gate: no attempt gets to its slot while the gate is shut. */
function gatedLimiter(): { limiter: KeyedLimiter; shut: () => void; open: () => void } {
  const inner = createKeyedLimiter({ perKey: 4, global: 100 });
  let gate: Promise<void> = Promise.resolve();
  let openGate: () => void = () => undefined;
  return {
    limiter: {
      run: async (key, task) => {
        await gate;
        return inner.run(key, task);
      },
      stats: inner.stats,
    },
    shut: () => {
      gate = new Promise((r) => {
        openGate = r;
      });
    },
    open: () => openGate(),
  };
}

/** An endpoint that answers 204 only when the test releases it. */
function heldEndpoint() {
  const waiting: (() => void)[] = [];
  return {
    script: () =>
      new Promise<{ outcome: 'success'; statusCode: number }>((resolve) =>
        waiting.push(() => resolve({ outcome: 'success', statusCode: 204 })),
      ),
    releaseAll: () => {
      for (const r of waiting.splice(0)) r();
    },
  };
}

function world(options: { slowForMs?: number; held?: boolean } = {}) {
  const time = manualTimer();
  const gate = gatedLimiter();
  const endpoint = heldEndpoint();
  const ctx = setup({
    ...(options.held === false ? {} : { script: endpoint.script }),
    engine: {
      directHoldMs: HOLD,
      slowForMs: options.slowForMs ?? 30_000,
      timer: time.timer,
      limiter: gate.limiter,
    },
  });
  const created: DeliveryRecord[] = [];
  const create = ctx.stores.deliveries.create.bind(ctx.stores.deliveries);
  ctx.stores.deliveries.create = async (d) => {
    created.push(d);
    return create(d);
  };
  return { ...ctx, time, gate, endpoint, created };
}

/** Starts a fan-out and notes when it returns (the event may be acknowledged). */
function track(p: Promise<FanOutResult>) {
  const state: { result?: FanOutResult; error?: unknown } = {};
  p.then(
    (r) => {
      state.result = r;
    },
    (e: unknown) => {
      state.error = e;
    },
  );
  return state;
}

const claimedAt = (id: string, now: number, leaseEnd: number) => ({
  id,
  status: 'pending',
  attempts: 1,
  nextAttemptAt: at(leaseEnd),
  updatedAt: at(now),
});

describe('the hold: a slow endpoint', () => {
  it('is written claimed at the first tick a whole hold after its request began, not before, and its subscription is then written first for slowForMs', async () => {
    const w = world();
    const sub = await w.subscribe();
    const e = event();
    const id = deliveryId(e.id, sub.id);
    w.gate.shut();
    const fan = track(w.engine.fanOut(e));
    // A hold in line, then the request starts at process time 100, just after the first tick.
    await w.time.advanceTo(HOLD);
    expect(w.created).toStrictEqual([]);
    w.gate.open();
    await w.time.advanceTo(HOLD + 1);
    expect(w.sent.map((s) => s.id)).toStrictEqual([e.id]);
    // One ms short of a hold in flight: nothing written, the fan-out still holds the event.
    await w.time.advanceTo(2 * HOLD - 1);
    expect(w.created).toStrictEqual([]);
    expect(fan.result).toBeUndefined();
    // The tick at 200 sees exactly a hold in flight: written claimed, leased from the engine's clock.
    w.clock.advance(2_000);
    await w.time.advanceTo(2 * HOLD);
    expect(w.created.map(pick)).toStrictEqual([claimedAt(id, T0 + 2_000, T0 + 62_000)]);
    expect(fan.result?.deliveryIds).toStrictEqual([id]);
    expect(await w.stores.deliveries.get(id)).toMatchObject(claimedAt(id, T0 + 2_000, T0 + 62_000));

    // Marked slow until 30 s after the tick on the engine's clock: a fan-out one ms before that end
    // writes its delivery claimed before any request; at the end it attempts directly again.
    w.clock.advance(29_999);
    const next = event();
    const nextFan = track(w.engine.fanOut(next));
    await settle();
    expect(w.created.slice(1).map(pick)).toStrictEqual([
      claimedAt(deliveryId(next.id, sub.id), T0 + 31_999, T0 + 91_999),
    ]);
    expect(nextFan.result?.deliveryIds).toStrictEqual([deliveryId(next.id, sub.id)]);
    w.clock.advance(1);
    const later = event();
    track(w.engine.fanOut(later));
    await settle();
    expect(w.created).toHaveLength(2);
    expect(w.sent.map((s) => s.id)).toStrictEqual([e.id, next.id, later.id]);

    // The held request ends: its outcome finishes the claimed record.
    w.endpoint.releaseAll();
    await settle();
    expect(await w.stores.deliveries.get(id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect((await attemptsOf(w, sub.id)).map((a) => [a.deliveryId, a.attemptNumber, a.statusCode])).toEqual(
      expect.arrayContaining([[id, 1, 204]]),
    );
  });

  it('a request in flight for exactly a hold at a tick is slow', async () => {
    const w = world();
    const sub = await w.subscribe();
    const e = event();
    const id = deliveryId(e.id, sub.id);
    // The request starts at process time 0: the tick at 100 sees exactly one hold in flight.
    track(w.engine.fanOut(e));
    await w.time.advanceTo(HOLD - 1);
    expect(w.sent).toHaveLength(1);
    expect(w.created).toStrictEqual([]);
    await w.time.advanceTo(HOLD);
    expect(w.created.map(pick)).toStrictEqual([claimedAt(id, T0, T0 + 60_000)]);
    w.endpoint.releaseAll();
    await settle();
  });
});

describe('the hold: a line for a slot', () => {
  it('is written claimed at the tenth hold in line, not the ninth, and does not mark the subscription slow', async () => {
    const w = world({ held: false });
    const sub = await w.subscribe();
    const e = event();
    const id = deliveryId(e.id, sub.id);
    // The line is counted from the fan-out's own start, here at process time 5,000.
    const start = 5_000;
    await w.time.advanceTo(start);
    w.gate.shut();
    const fan = track(w.engine.fanOut(e));
    await w.time.advanceTo(start + 10 * HOLD - 1);
    expect(w.created).toStrictEqual([]);
    expect(fan.result).toBeUndefined();
    await w.time.advanceTo(start + 10 * HOLD);
    expect(w.created.map(pick)).toStrictEqual([claimedAt(id, T0, T0 + 60_000)]);
    expect(fan.result?.deliveryIds).toStrictEqual([id]);
    expect(w.sent).toStrictEqual([]);
    // The slot frees: attempted under its lease, the claimed record finished.
    w.gate.open();
    await settle();
    expect(w.sent.map((s) => s.id)).toStrictEqual([e.id]);
    expect(await w.stores.deliveries.get(id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    // A long line is this process being busy, not the endpoint: the next fan-out attempts directly.
    const next = event();
    track(w.engine.fanOut(next));
    await settle();
    expect(w.created).toHaveLength(1);
    expect(w.sent.map((s) => s.id)).toStrictEqual([e.id, next.id]);
  });

  it('a claim that waited in line past its attempt budget is given back and queued, never attempted', async () => {
    const w = world({ held: false });
    const sub = await w.subscribe();
    const e = event();
    const id = deliveryId(e.id, sub.id);
    w.gate.shut();
    track(w.engine.fanOut(e));
    await w.time.advanceTo(10 * HOLD);
    expect(await w.stores.deliveries.get(id)).toMatchObject(claimedAt(id, T0, T0 + 60_000));
    // 40,001 ms later only 39,999 ms of the lease remain, less than the 20 s budget.
    w.clock.advance(40_001);
    w.gate.open();
    await settle();
    expect(w.sent).toStrictEqual([]);
    expect(await w.stores.deliveries.get(id)).toMatchObject({
      status: 'pending',
      attempts: 0,
      nextAttemptAt: at(T0 + 40_001),
      updatedAt: at(T0 + 40_001),
    });
    expect(w.queue.sent).toStrictEqual([{ body: { deliveryId: id }, delaySeconds: 0 }]);
    expect(await attemptsOf(w, sub.id)).toStrictEqual([]);
    expect(w.problems).toStrictEqual([]);
  });

  it('a claim given back after the store moved on (release refused) is not queued', async () => {
    const w = world({ held: false });
    await w.subscribe();
    const e = event();
    w.gate.shut();
    track(w.engine.fanOut(e));
    await w.time.advanceTo(10 * HOLD);
    // The store refuses the release: another worker's claim replaced this one meanwhile.
    w.stores.deliveries.release = async () => false;
    w.clock.advance(40_001);
    w.gate.open();
    await settle();
    expect(w.sent).toStrictEqual([]);
    expect(w.queue.sent).toStrictEqual([]);
  });
});

describe('the hold: a subscription already known slow', () => {
  it('an attempt in flight for less than a hold is written claimed once another attempt marked its subscription slow', async () => {
    const w = world();
    const sub = await w.subscribe();
    const a = event();
    const b = event();
    track(w.engine.fanOut(a)); // request from process time 0
    await w.time.advanceTo(50);
    w.gate.shut();
    const fanB = track(w.engine.fanOut(b)); // held from 50, in line until 120
    await w.time.advanceTo(120);
    w.gate.open();
    await w.time.advanceTo(121);
    expect(w.sent.map((s) => s.id)).toStrictEqual([a.id, b.id]);
    // A's tick at 100 found it slow; B's tick at 150 (30 ms in flight, 100 in all) finds the mark.
    await w.time.advanceTo(149);
    expect(w.created.map((d) => d.id)).toStrictEqual([deliveryId(a.id, sub.id)]);
    await w.time.advanceTo(150);
    expect(w.created.map((d) => d.id)).toStrictEqual([deliveryId(a.id, sub.id), deliveryId(b.id, sub.id)]);
    expect(fanB.result?.deliveryIds).toStrictEqual([deliveryId(b.id, sub.id)]);
    w.endpoint.releaseAll();
    await settle();
  });

  it('with a slow period of 0 the mark has already ended: the other attempt waits until it is slow itself', async () => {
    const w = world({ slowForMs: 0 });
    const sub = await w.subscribe();
    const a = event();
    const b = event();
    track(w.engine.fanOut(a));
    await w.time.advanceTo(50);
    w.gate.shut();
    track(w.engine.fanOut(b));
    await w.time.advanceTo(120);
    w.gate.open();
    await w.time.advanceTo(150);
    expect(w.created.map((d) => d.id)).toStrictEqual([deliveryId(a.id, sub.id)]);
    await w.time.advanceTo(219);
    expect(w.created).toHaveLength(1);
    await w.time.advanceTo(250);
    expect(w.created.map((d) => d.id)).toStrictEqual([deliveryId(a.id, sub.id), deliveryId(b.id, sub.id)]);
    w.endpoint.releaseAll();
    await settle();
  });
});

describe('a limiter that resolves without running the attempt', () => {
  it('fails the fan-out (its message comes back) and reports the delivery: nothing is lost silently', async () => {
    const w = world({ held: false });
    const sub = await w.subscribe();
    const e = event();
    const id = deliveryId(e.id, sub.id);
    const inner = createKeyedLimiter({ perKey: 4, global: 100 });
    w.engine = createDeliveryEngine({
      ...w.deps,
      limiter: { run: async () => undefined as never, stats: inner.stats },
    });
    const fan = track(w.engine.fanOut(e));
    await w.time.advanceTo(10);
    expect(w.sent).toStrictEqual([]);
    expect(fan.error).toBeInstanceOf(DeliveryError);
    expect((fan.error as DeliveryError).context).toStrictEqual({ eventId: e.id, deliveryIds: id });
    expect(w.problems).toStrictEqual([
      {
        kind: 'StoreFailure',
        deliveryId: id,
        subscriptionId: sub.id,
        message: `DeliveryError: delivery ${id}: no attempt was made`,
      },
    ]);
    expect((fan.error as DeliveryError).message).toContain(`delivery ${id}: no attempt was made`);
    expect(await w.stores.deliveries.get(id)).toBeUndefined();
  });
});

describe('the hold ends with the attempt', () => {
  it('an attempt answered within the hold leaves no timer, writes nothing claimed and marks nothing slow', async () => {
    const w = world({ held: false });
    const sub = await w.subscribe();
    const e = event();
    const fan = track(w.engine.fanOut(e));
    await w.time.advanceTo(10);
    expect(fan.result?.deliveryIds).toStrictEqual([deliveryId(e.id, sub.id)]);
    expect(w.time.pending()).toBe(0);
    await w.time.advanceTo(20 * HOLD);
    expect(w.created).toStrictEqual([]);
    const next = event();
    track(w.engine.fanOut(next));
    await settle();
    expect(w.created).toStrictEqual([]);
    expect(w.sent.map((s) => s.id)).toStrictEqual([e.id, next.id]);
  });
});

describe('the escalation write', () => {
  it('failing: reported with the delivery and subscription, the attempt goes on and its outcome is written as a direct one', async () => {
    const w = world();
    const sub = await w.subscribe();
    const e = event();
    const id = deliveryId(e.id, sub.id);
    w.stores.deliveries.create = async () => {
      throw new Error('throttled');
    };
    const fan = track(w.engine.fanOut(e));
    await w.time.advanceTo(HOLD);
    expect(w.problems).toStrictEqual([
      { kind: 'StoreFailure', deliveryId: id, subscriptionId: sub.id, message: 'Error: throttled' },
    ]);
    expect(fan.result).toBeUndefined();
    expect(await w.stores.deliveries.get(id)).toBeUndefined();
    w.clock.advance(500);
    w.endpoint.releaseAll();
    await settle();
    expect(fan.result?.deliveryIds).toStrictEqual([id]);
    expect(await w.stores.deliveries.get(id)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      firstAttemptAt: at(T0),
      lastAttemptAt: at(T0),
      lastStatusCode: 204,
      updatedAt: at(T0 + 500),
    });
    expect(w.problems).toHaveLength(1);
  });

  it('finding the delivery already written (another process): the fan-out waits for the outcome, which replaces it', async () => {
    const w = world();
    const sub = await w.subscribe();
    const e = event();
    const id = deliveryId(e.id, sub.id);
    const fan = track(w.engine.fanOut(e));
    await settle();
    // Another process's fan-out of the same event wrote it first.
    await w.stores.deliveries.create({
      ...claimedAt(id, T0, T0 + 60_000),
      ...base(e, sub.id),
    } as DeliveryRecord);
    await w.time.advanceTo(HOLD);
    expect(fan.result).toBeUndefined();
    w.endpoint.releaseAll();
    await settle();
    expect(fan.result?.deliveryIds).toStrictEqual([id]);
    expect(await w.stores.deliveries.get(id)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      lastStatusCode: 204,
    });
  });
});

function pick(d: DeliveryRecord) {
  return {
    id: d.id,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: d.nextAttemptAt,
    updatedAt: d.updatedAt,
  };
}

function base(e: ReturnType<typeof event>, subscriptionId: string) {
  return {
    subscriptionId,
    eventId: e.id,
    eventType: e.type,
    envelope: e,
    origin: 'event',
    createdAt: at(T0),
  };
}
