import { describe, expect, it } from 'vitest';
import {
  createDeliveryEngine,
  DeliveryError,
  deliveryJobHandler,
  fanOutSubscriber,
  parseDeliveryJob,
} from '../../functions/core/delivery/engine';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { eventId } from '../../functions/core/events/ids';
import type { PublishResult } from '../../functions/core/publishing/ports';
import { deliveryId, extraDeliveryId } from '../../functions/core/subscriptions/logic';
import type { DeliveryRecord } from '../../functions/core/subscriptions/records';
import { serializePayload } from '../../functions/core/webhooks/payload';
import type { DeliveryAttempt } from '../../functions/core/webhooks/sender';
import { at, attemptsOf, event, lastEventId, pendingDelivery, setup, URL } from './engine-setup';
import { T0 } from './harness';

/**
 * The delivery engine on memory stores with a scripted sender: no sockets, the clock virtual, the
 * jitter fixed (random = 0.5, so the first retry is exactly 5 s). Each test states the exact
 * records written, the queue messages sent and the operational events published.
 */

describe('fan-out: a first attempt before any write, its outcome recorded after', () => {
  it('a success: one delivery per matching subscription, stored succeeded with its attempt line', async () => {
    const ctx = setup();
    const sub = await ctx.subscribe();
    await ctx.subscribe({ eventTypes: ['vehicle.trip.completed'] });
    const e = event();
    const id = deliveryId(e.id, sub.id);
    const result = await ctx.engine.fanOut(e);
    await result.settled;
    expect(result.deliveryIds).toStrictEqual([id]);
    expect(result.queued).toStrictEqual([]);
    const body = serializePayload(e);
    expect(ctx.sent.map((s) => [s.url, s.id, s.body])).toStrictEqual([
      [URL, e.id, body.ok ? body.value : ''],
    ]);
    expect(await ctx.stores.deliveries.get(id)).toStrictEqual({
      id,
      subscriptionId: sub.id,
      eventId: e.id,
      eventType: e.type,
      envelope: e,
      origin: 'event',
      status: 'succeeded',
      attempts: 1,
      nextAttemptAt: at(T0),
      createdAt: at(T0),
      updatedAt: at(T0),
      firstAttemptAt: at(T0),
      lastAttemptAt: at(T0),
      lastStatusCode: 200,
    });
    expect(await attemptsOf(ctx, sub.id)).toStrictEqual([
      {
        subscriptionId: sub.id,
        deliveryId: id,
        eventId: e.id,
        eventType: e.type,
        attemptNumber: 1,
        startedAt: at(T0),
        durationMs: 7,
        outcome: 'success',
        statusCode: 200,
        decision: 'done',
      },
    ]);
    expect(ctx.queue.sent).toStrictEqual([]);
    expect(ctx.bus.events).toStrictEqual([]);
    expect(ctx.problems).toStrictEqual([]);
  });

  it('a failure: pending until the first retry (5 s), its message queued with that delay, the streak started', async () => {
    const ctx = setup({
      script: () => ({ outcome: 'failure', statusCode: 503, error: 'HTTP 503', responseExcerpt: 'busy' }),
    });
    const sub = await ctx.subscribe();
    const e = event();
    const id = deliveryId(e.id, sub.id);
    await (await ctx.engine.fanOut(e)).settled;
    expect(await ctx.stores.deliveries.get(id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      nextAttemptAt: at(T0 + 5000),
      updatedAt: at(T0),
      firstAttemptAt: at(T0),
      lastAttemptAt: at(T0),
      lastStatusCode: 503,
      lastError: 'HTTP 503',
    });
    expect(await attemptsOf(ctx, sub.id)).toStrictEqual([
      {
        subscriptionId: sub.id,
        deliveryId: id,
        eventId: e.id,
        eventType: e.type,
        attemptNumber: 1,
        startedAt: at(T0),
        durationMs: 7,
        outcome: 'failure',
        statusCode: 503,
        error: 'HTTP 503',
        responseExcerpt: 'busy',
        decision: 'retry',
        nextAttemptAt: at(T0 + 5000),
      },
    ]);
    expect(ctx.queue.sent).toStrictEqual([{ body: { deliveryId: id }, delaySeconds: 5 }]);
    expect((await ctx.stores.subscriptions.get(sub.id))?.health).toStrictEqual({
      firstFailureAt: at(T0),
      consecutiveFailures: 1,
      lastFailure: { at: at(T0), outcome: 'failure', statusCode: 503, error: 'HTTP 503' },
    });
  });

  it('a truncated response and a Retry-After are kept on the attempt line; the retry waits for Retry-After', async () => {
    const ctx = setup({
      script: () => ({
        outcome: 'failure',
        statusCode: 429,
        retryAfterMs: 90_000,
        responseTruncated: true,
      }),
    });
    const sub = await ctx.subscribe();
    const e = event();
    await (await ctx.engine.fanOut(e)).settled;
    const [line] = await attemptsOf(ctx, sub.id);
    expect(line).toMatchObject({
      responseTruncated: true,
      retryAfterMs: 90_000,
      nextAttemptAt: at(T0 + 90_000),
    });
    expect(ctx.queue.sent).toStrictEqual([
      { body: { deliveryId: deliveryId(e.id, sub.id) }, delaySeconds: 90 },
    ]);
  });

  it('the same event fanned out again in this process sends nothing and creates nothing', async () => {
    const ctx = setup();
    await ctx.subscribe();
    const e = event();
    await (await ctx.engine.fanOut(e)).settled;
    const again = await ctx.engine.fanOut(e);
    await again.settled;
    expect(again.deliveryIds).toStrictEqual([]);
    expect(ctx.sent).toHaveLength(1);
  });

  it('a disabled subscription gets nothing', async () => {
    const ctx = setup();
    await ctx.subscribe({ status: 'disabled' });
    const r = await ctx.engine.fanOut(event());
    expect(r.deliveryIds).toStrictEqual([]);
    expect(ctx.sent).toStrictEqual([]);
  });

  it('a subscription with a full line: the delivery is written pending (not attempted) and queued', async () => {
    const ctx = setup({ engine: { maxWaitingPerSubscription: 0 } });
    const sub = await ctx.subscribe();
    const e = event();
    const id = deliveryId(e.id, sub.id);
    const r = await ctx.engine.fanOut(e);
    await r.settled;
    expect(r).toMatchObject({ deliveryIds: [id], queued: [id] });
    expect(ctx.sent).toStrictEqual([]);
    expect(await ctx.stores.deliveries.get(id)).toStrictEqual({
      id,
      subscriptionId: sub.id,
      eventId: e.id,
      eventType: e.type,
      envelope: e,
      origin: 'event',
      status: 'pending',
      attempts: 0,
      nextAttemptAt: at(T0),
      createdAt: at(T0),
      updatedAt: at(T0),
    });
    expect(ctx.queue.sent).toStrictEqual([{ body: { deliveryId: id }, delaySeconds: 0 }]);
    // Written by another process already: not created again, not queued again.
    const other = createDeliveryEngine({ ...ctx.deps, maxWaitingPerSubscription: 0 });
    const repeat = await other.fanOut(e);
    expect(repeat).toMatchObject({ deliveryIds: [], queued: [] });
    expect(ctx.queue.sent).toHaveLength(1);
  });

  it('a subscription whose secret cannot be decrypted: the attempt is refused, not sent, and retried', async () => {
    const ctx = setup();
    const sub = await ctx.subscribe({ secretCiphertext: 'v1.k1.garbage' });
    const e = event();
    await (await ctx.engine.fanOut(e)).settled;
    expect(ctx.sent).toStrictEqual([]);
    const [line] = await attemptsOf(ctx, sub.id);
    expect(line).toMatchObject({ attemptNumber: 1, outcome: 'refused', durationMs: 0, decision: 'retry' });
    expect(line?.error).toMatch(/^the subscription's secret cannot be decrypted: /);
  });

  it('the outcome write failing: the fan-out rejects (StoreFailure), and the event fanned out again is attempted again', async () => {
    const ctx = setup();
    const sub = await ctx.subscribe();
    const record = ctx.stores.deliveries.recordAttempts.bind(ctx.stores.deliveries);
    let fail = true;
    ctx.stores.deliveries.recordAttempts = async (entries) => {
      if (fail) throw new Error('throttled');
      return record(entries);
    };
    const e = event();
    const id = deliveryId(e.id, sub.id);
    const error = await ctx.engine.fanOut(e).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({
      kind: 'StoreFailure',
      message: `fan-out of ${e.id}: 1 of 1 deliveries not recorded: Error: throttled`,
      context: { eventId: e.id, deliveryIds: id },
    });
    expect(ctx.problems).toStrictEqual([
      { kind: 'StoreFailure', deliveryId: id, subscriptionId: sub.id, message: 'Error: throttled' },
    ]);
    fail = false;
    await (await ctx.engine.fanOut(e)).settled;
    expect(ctx.sent.map((s) => s.id)).toStrictEqual([e.id, e.id]);
    expect((await ctx.stores.deliveries.get(id))?.status).toBe('succeeded');
  });

  it('some outcomes of one write lost: only theirs fail the fan-out', async () => {
    const ctx = setup();
    const a = await ctx.subscribe();
    const b = await ctx.subscribe();
    const e = event();
    const lostId = deliveryId(e.id, b.id);
    const record = ctx.stores.deliveries.recordAttempts.bind(ctx.stores.deliveries);
    ctx.stores.deliveries.recordAttempts = async (entries) => {
      await record(entries.filter((x) => x.delivery.id !== lostId));
      return { failed: entries.some((x) => x.delivery.id === lostId) ? [lostId] : [] };
    };
    const error = await ctx.engine.fanOut(e).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(error).toMatchObject({
      kind: 'StoreFailure',
      message: `fan-out of ${e.id}: 1 of 2 deliveries not recorded: DeliveryError: delivery ${lostId}: its attempt could not be recorded`,
      context: { eventId: e.id, deliveryIds: lostId },
    });
    expect((await ctx.stores.deliveries.get(deliveryId(e.id, a.id)))?.status).toBe('succeeded');
    expect(await ctx.stores.deliveries.get(lostId)).toBeUndefined();
  });

  it('many outcomes at once leave in batches of at most 12 per write, with one write out at a time', async () => {
    const ctx = setup({ engine: { recordConcurrency: 1 } });
    for (let i = 0; i < 30; i++) await ctx.subscribe();
    const sizes: number[] = [];
    let out = 0;
    let most = 0;
    const record = ctx.stores.deliveries.recordAttempts.bind(ctx.stores.deliveries);
    ctx.stores.deliveries.recordAttempts = async (entries) => {
      out += 1;
      most = Math.max(most, out);
      sizes.push(entries.length);
      await new Promise((r) => setTimeout(r, 1));
      out -= 1;
      return record(entries);
    };
    const r = await ctx.engine.fanOut(event());
    await r.settled;
    expect(r.deliveryIds).toHaveLength(30);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(30);
    expect(Math.max(...sizes)).toBe(12);
    expect(sizes[0]).toBe(1);
    expect(most).toBe(1);
  });
});

describe('the hold: an attempt still running is written claimed, and the endpoint is then written first', () => {
  it('an endpoint slower than the hold: claimed record written, the fan-out acknowledged, the outcome finished', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const ctx = setup({
      engine: { directHoldMs: 5 },
      script: async () => {
        await gate;
        return { outcome: 'success', statusCode: 204 };
      },
    });
    const sub = await ctx.subscribe();
    const e = event();
    const id = deliveryId(e.id, sub.id);
    const r = await ctx.engine.fanOut(e);
    expect(await ctx.stores.deliveries.get(id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      nextAttemptAt: at(T0 + 60_000),
      updatedAt: at(T0),
    });
    release();
    await r.settled;
    expect(await ctx.stores.deliveries.get(id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(
      (await attemptsOf(ctx, sub.id)).map((a) => [a.attemptNumber, a.decision, a.statusCode]),
    ).toStrictEqual([[1, 'done', 204]]);
    // Lately slow: the next fan-out to it writes the delivery claimed before attempting.
    const next = event();
    const created: DeliveryRecord[] = [];
    const create = ctx.stores.deliveries.create.bind(ctx.stores.deliveries);
    ctx.stores.deliveries.create = async (d) => {
      created.push(d);
      return create(d);
    };
    const second = await ctx.engine.fanOut(next);
    await second.settled;
    expect(created.map((d) => [d.id, d.status, d.attempts, d.nextAttemptAt])).toStrictEqual([
      [deliveryId(next.id, sub.id), 'pending', 1, at(T0 + 60_000)],
    ]);
    expect((await ctx.stores.deliveries.get(deliveryId(next.id, sub.id)))?.status).toBe('succeeded');
  });
});

describe('the line: a direct attempt waiting for a slot', () => {
  it('after ten holds in line it is written claimed, so the fan-out is acknowledged; it is attempted when the slot frees', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const ctx = setup({
      engine: { directHoldMs: 5, slowForMs: 0, perSubscriptionConcurrency: 1 },
      script: async () => {
        await gate;
        return { outcome: 'success', statusCode: 200 };
      },
    });
    const sub = await ctx.subscribe();
    const first = event();
    const second = event();
    const a = await ctx.engine.fanOut(first);
    const b = await ctx.engine.fanOut(second);
    for (const e of [first, second])
      expect(await ctx.stores.deliveries.get(deliveryId(e.id, sub.id))).toMatchObject({
        status: 'pending',
        attempts: 1,
        nextAttemptAt: at(T0 + 60_000),
      });
    expect(ctx.sent.map((s) => s.id)).toStrictEqual([first.id]);
    release();
    await Promise.all([a.settled, b.settled]);
    expect(ctx.sent.map((s) => s.id)).toStrictEqual([first.id, second.id]);
    for (const e of [first, second])
      expect((await ctx.stores.deliveries.get(deliveryId(e.id, sub.id)))?.status).toBe('succeeded');
  });
});

describe('the queue worker', () => {
  it('a due pending delivery: claimed, attempted, finished; nothing to come back for', async () => {
    const ctx = setup();
    const sub = await ctx.subscribe();
    const e = event();
    const d = await pendingDelivery(ctx, sub, e, 1);
    expect(await ctx.engine.handleJob({ deliveryId: d.id })).toBeUndefined();
    expect(await ctx.stores.deliveries.get(d.id)).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect((await attemptsOf(ctx, sub.id)).map((a) => [a.attemptNumber, a.decision])).toStrictEqual([
      [2, 'done'],
    ]);
  });

  it('a failure on attempt 3: retried after the third delay (30 min), its message delayed as much', async () => {
    const ctx = setup({ script: () => ({ outcome: 'network', error: 'ECONNRESET' }) });
    const sub = await ctx.subscribe();
    const d = await pendingDelivery(ctx, sub, event(), 2);
    await ctx.engine.handleJob({ deliveryId: d.id });
    expect(await ctx.stores.deliveries.get(d.id)).toMatchObject({
      status: 'pending',
      attempts: 3,
      nextAttemptAt: at(T0 + 30 * 60_000),
    });
    expect(ctx.queue.sent).toStrictEqual([{ body: { deliveryId: d.id }, delaySeconds: 1800 }]);
  });

  it('the last attempt failing: dead, and webhook.delivery.exhausted with its id and data', async () => {
    const ctx = setup({ script: () => ({ outcome: 'failure', statusCode: 500, error: 'HTTP 500' }) });
    const sub = await ctx.subscribe();
    const e = event();
    const d = await pendingDelivery(ctx, sub, e, 7, { firstAttemptAt: at(T0 - 86_400_000) });
    await ctx.engine.handleJob({ deliveryId: d.id });
    expect(await ctx.stores.deliveries.get(d.id)).toMatchObject({ status: 'dead', attempts: 8 });
    expect(ctx.queue.sent).toStrictEqual([]);
    expect(ctx.bus.events).toStrictEqual([
      {
        id: eventId({ scope: sub.id, type: 'webhook.delivery.exhausted', key: d.id, transition: 'dead' }),
        type: 'webhook.delivery.exhausted',
        schemaVersion: 1,
        occurredAt: at(T0),
        detectedAt: at(T0),
        sequence: 0,
        source: { api: 'carhook', operation: 'webhook.delivery.exhausted' },
        data: {
          subscriptionId: sub.id,
          eventId: e.id,
          eventType: e.type,
          attempts: 8,
          lastStatus: 500,
          lastError: 'HTTP 500',
          firstAttemptAt: at(T0 - 86_400_000),
          lastAttemptAt: at(T0),
        },
      },
    ]);
  });

  it('a dead letter without a recorded first attempt dates it from this one; no status or error, none told', async () => {
    const ctx = setup({ script: () => ({ outcome: 'timeout' }) });
    const sub = await ctx.subscribe();
    const d = await pendingDelivery(ctx, sub, event(), 7);
    await ctx.engine.handleJob({ deliveryId: d.id });
    const data = ctx.bus.events[0]?.data as Record<string, unknown>;
    expect(data.firstAttemptAt).toBe(at(T0));
    expect('lastStatus' in data || 'lastError' in data).toBe(false);
  });

  it('410 Gone: the subscription disabled, webhook.endpoint.disabled published once, the delivery parked', async () => {
    const ctx = setup({ script: () => ({ outcome: 'gone', statusCode: 410 }) });
    const sub = await ctx.subscribe();
    const first = await pendingDelivery(ctx, sub, event(), 0);
    const second = await pendingDelivery(ctx, sub, event(), 0);
    await ctx.engine.handleJob({ deliveryId: first.id });
    expect(await ctx.stores.deliveries.get(first.id)).toMatchObject({ status: 'parked', attempts: 1 });
    expect(await ctx.stores.subscriptions.get(sub.id)).toMatchObject({
      status: 'disabled',
      disabledReason: 'gone',
    });
    expect(ctx.bus.events).toStrictEqual([
      {
        id: eventId({ scope: sub.id, type: 'webhook.endpoint.disabled', key: sub.id, transition: at(T0) }),
        type: 'webhook.endpoint.disabled',
        schemaVersion: 1,
        occurredAt: at(T0),
        detectedAt: at(T0),
        sequence: 0,
        source: { api: 'carhook', operation: 'webhook.endpoint.disabled' },
        data: { subscriptionId: sub.id, url: URL, reason: 'gone', disabledAt: at(T0) },
      },
    ]);
    expect((await attemptsOf(ctx, sub.id))[0]?.decision).toBe('disabled');
    // The next job of that subscription parks its delivery without an attempt.
    await ctx.engine.handleJob({ deliveryId: second.id });
    expect((await ctx.stores.deliveries.get(second.id))?.status).toBe('parked');
    expect(ctx.sent).toHaveLength(1);
    expect(ctx.bus.events).toHaveLength(1);
  });

  it('a delivery of a deleted subscription is cancelled; one not pending, or unknown, is left alone', async () => {
    const ctx = setup();
    const sub = await ctx.subscribe();
    const d = await pendingDelivery(ctx, sub, event(), 1);
    await ctx.stores.subscriptions.delete(sub.id);
    expect(await ctx.engine.handleJob({ deliveryId: d.id })).toBeUndefined();
    expect((await ctx.stores.deliveries.get(d.id))?.status).toBe('cancelled');
    expect(await ctx.engine.handleJob({ deliveryId: d.id })).toBeUndefined();
    expect(await ctx.engine.handleJob({ deliveryId: 'dlv_unknown' })).toBeUndefined();
    expect(ctx.sent).toStrictEqual([]);
  });

  it('not due yet: within a lease it comes back when the lease ends (whole seconds, at least 1); a later retry is dropped', async () => {
    const ctx = setup();
    const sub = await ctx.subscribe();
    const leased = await pendingDelivery(ctx, sub, event(), 1, { nextAttemptAt: at(T0 + 12_300) });
    expect(await ctx.engine.handleJob({ deliveryId: leased.id })).toStrictEqual({ retryInSeconds: 13 });
    const almost = await pendingDelivery(ctx, sub, event(), 1, { nextAttemptAt: at(T0 + 1) });
    expect(await ctx.engine.handleJob({ deliveryId: almost.id })).toStrictEqual({ retryInSeconds: 1 });
    const atLeaseEnd = await pendingDelivery(ctx, sub, event(), 1, { nextAttemptAt: at(T0 + 60_000) });
    expect(await ctx.engine.handleJob({ deliveryId: atLeaseEnd.id })).toStrictEqual({ retryInSeconds: 60 });
    const retry = await pendingDelivery(ctx, sub, event(), 1, { nextAttemptAt: at(T0 + 60_001) });
    expect(await ctx.engine.handleJob({ deliveryId: retry.id })).toBeUndefined();
    expect(ctx.sent).toStrictEqual([]);
  });

  it('under a lease longer than 11 hours, a job comes back after 11 hours at most (the queue delay limit)', async () => {
    const ctx = setup({ engine: { leaseMs: 24 * 3_600_000 } });
    const sub = await ctx.subscribe();
    const d = await pendingDelivery(ctx, sub, event(), 1, { nextAttemptAt: at(T0 + 20 * 3_600_000) });
    expect(await ctx.engine.handleJob({ deliveryId: d.id })).toStrictEqual({ retryInSeconds: 11 * 3600 });
    const near = await pendingDelivery(ctx, sub, event(), 1, {
      nextAttemptAt: at(T0 + 11 * 3_600_000 - 500),
    });
    expect(await ctx.engine.handleJob({ deliveryId: near.id })).toStrictEqual({ retryInSeconds: 11 * 3600 });
  });

  it('a success after failures ends the subscription failing streak in the store', async () => {
    const ctx = setup();
    const sub = await ctx.subscribe({ health: { firstFailureAt: at(T0 - 3_600_000) } });
    const d = await pendingDelivery(ctx, sub, event(), 1);
    await ctx.engine.handleJob({ deliveryId: d.id });
    expect((await ctx.stores.subscriptions.get(sub.id))?.health).toStrictEqual({ lastSuccessAt: at(T0) });
  });

  it('failing for five days: the subscription is disabled (failing-for-5-days) instead of another retry', async () => {
    const ctx = setup({ script: () => ({ outcome: 'failure', statusCode: 500 }) });
    const sub = await ctx.subscribe({ health: { firstFailureAt: at(T0 - 5 * 86_400_000) } });
    await ctx.stores.subscriptions.recordFailure(
      sub.id,
      { at: at(T0 - 5 * 86_400_000), outcome: 'failure', statusCode: 500 },
      T0,
    );
    const d = await pendingDelivery(ctx, sub, event(), 2);
    await ctx.engine.handleJob({ deliveryId: d.id });
    expect((await ctx.stores.deliveries.get(d.id))?.status).toBe('parked');
    expect(ctx.bus.events.map((x) => [x.type, (x.data as { reason: string }).reason])).toStrictEqual([
      ['webhook.endpoint.disabled', 'failing-for-5-days'],
    ]);
  });

  it('the subscription store failing on the health write: reported, and the attempt still decided and recorded', async () => {
    const ctx = setup({ script: () => ({ outcome: 'failure', statusCode: 500 }) });
    const sub = await ctx.subscribe();
    ctx.stores.subscriptions.recordFailure = async () => {
      throw new Error('store down');
    };
    const d = await pendingDelivery(ctx, sub, event(), 1);
    await ctx.engine.handleJob({ deliveryId: d.id });
    expect(ctx.problems).toStrictEqual([
      { kind: 'StoreFailure', subscriptionId: sub.id, message: 'Error: store down' },
    ]);
    expect(await ctx.stores.deliveries.get(d.id)).toMatchObject({ status: 'pending', attempts: 2 });
  });

  it('the finish write failing: reported; the delivery stays claimed for the sweep', async () => {
    const ctx = setup();
    const sub = await ctx.subscribe();
    ctx.stores.deliveries.finish = async () => {
      throw new Error('conditional check failed');
    };
    const d = await pendingDelivery(ctx, sub, event(), 1);
    await ctx.engine.handleJob({ deliveryId: d.id });
    expect(ctx.problems).toStrictEqual([
      {
        kind: 'StoreFailure',
        deliveryId: d.id,
        subscriptionId: sub.id,
        message: 'Error: conditional check failed',
      },
    ]);
    expect(await ctx.stores.deliveries.get(d.id)).toMatchObject({
      status: 'pending',
      attempts: 2,
      nextAttemptAt: at(T0 + 60_000),
    });
  });

  it('a stale claim (another worker took over) writes nothing and queues nothing', async () => {
    const ctx = setup({ script: () => ({ outcome: 'failure', statusCode: 500 }) });
    const sub = await ctx.subscribe();
    ctx.stores.deliveries.finish = async () => false;
    const d = await pendingDelivery(ctx, sub, event(), 1);
    await ctx.engine.handleJob({ deliveryId: d.id });
    expect(ctx.queue.sent).toStrictEqual([]);
  });

  it('the job handler and the fan-out subscriber call the engine; a job is parsed strictly', async () => {
    const ctx = setup();
    const sub = await ctx.subscribe();
    const e = event();
    await fanOutSubscriber(ctx.engine)(e);
    expect((await ctx.stores.deliveries.get(deliveryId(e.id, sub.id)))?.status).toBe('succeeded');
    const d = await pendingDelivery(ctx, sub, event(), 1);
    expect(await deliveryJobHandler(ctx.engine)({ deliveryId: d.id })).toBeUndefined();
    expect((await ctx.stores.deliveries.get(d.id))?.status).toBe('succeeded');
    expect(parseDeliveryJob({ deliveryId: 'dlv_1' })).toStrictEqual({ deliveryId: 'dlv_1' });
    expect(() => parseDeliveryJob({ deliveryId: '' })).toThrow();
    expect(() => parseDeliveryJob({ deliveryId: 'dlv_1', extra: 1 })).toThrow();
  });
});

describe('the subscription health the policy decides on', () => {
  it('a healthy subscription: a success writes no health; a failure then a success (list cached) end the streak once', async () => {
    const outcomes: Partial<DeliveryAttempt>[] = [
      { outcome: 'success', statusCode: 200 },
      { outcome: 'failure', statusCode: 500 },
      { outcome: 'success', statusCode: 200 },
      { outcome: 'success', statusCode: 200 },
    ];
    const ctx = setup({ engine: { subscriptionCacheMs: 3_600_000 }, script: () => outcomes.shift() ?? {} });
    const sub = await ctx.subscribe();
    const healthNow = async () => (await ctx.stores.subscriptions.get(sub.id))?.health;
    await (await ctx.engine.fanOut(event())).settled;
    expect(await healthNow()).toStrictEqual({});
    ctx.clock.advance(1000);
    await (await ctx.engine.fanOut(event())).settled;
    const failed = { at: at(T0 + 1000), outcome: 'failure', statusCode: 500 };
    expect(await healthNow()).toStrictEqual({
      firstFailureAt: at(T0 + 1000),
      consecutiveFailures: 1,
      lastFailure: failed,
    });
    // The cached subscription still shows no failure: this process remembers it failed.
    ctx.clock.advance(1000);
    await (await ctx.engine.fanOut(event())).settled;
    expect(await healthNow()).toStrictEqual({ lastSuccessAt: at(T0 + 2000), lastFailure: failed });
    ctx.clock.advance(1000);
    await (await ctx.engine.fanOut(event())).settled;
    expect(await healthNow()).toStrictEqual({ lastSuccessAt: at(T0 + 2000), lastFailure: failed });
  });

  it('the health write failing on a success: reported, the delivery still succeeds', async () => {
    const ctx = setup();
    const sub = await ctx.subscribe({ health: { firstFailureAt: at(T0 - 60_000) } });
    ctx.stores.subscriptions.recordSuccess = async () => {
      throw new Error('store down');
    };
    const d = await pendingDelivery(ctx, sub, event(), 1);
    await ctx.engine.handleJob({ deliveryId: d.id });
    expect(ctx.problems).toStrictEqual([
      { kind: 'StoreFailure', subscriptionId: sub.id, message: 'Error: store down' },
    ]);
    expect((await ctx.stores.deliveries.get(d.id))?.status).toBe('succeeded');
  });

  it('the health write failing on a failure: the stored streak start still counts (5 days: disabled)', async () => {
    const ctx = setup({ script: () => ({ outcome: 'failure', statusCode: 500 }) });
    const sub = await ctx.subscribe({ health: { firstFailureAt: at(T0 - 5 * 86_400_000) } });
    ctx.stores.subscriptions.recordFailure = async () => {
      throw new Error('store down');
    };
    const d = await pendingDelivery(ctx, sub, event(), 1);
    await ctx.engine.handleJob({ deliveryId: d.id });
    expect((await ctx.stores.deliveries.get(d.id))?.status).toBe('parked');
    expect((await attemptsOf(ctx, sub.id))[0]?.decision).toBe('disabled');
  });
});

describe('attempts that are not sent', () => {
  it('an event whose data has no JSON form is refused without a request, naming the field, and retried', async () => {
    const ctx = setup();
    const sub = await ctx.subscribe();
    const e = event({ data: { alertId: 'al_x', level: Number.NaN } });
    await (await ctx.engine.fanOut(e)).settled;
    expect(ctx.sent).toStrictEqual([]);
    const [line] = await attemptsOf(ctx, sub.id);
    expect(line).toMatchObject({ outcome: 'refused', durationMs: 0, decision: 'retry', startedAt: at(T0) });
    expect(line?.error).toMatch(/^data\.data\.level: NaN is not representable in JSON$/);
  });

  it('a claim whose lease leaves exactly the attempt budget once the slot is held is attempted; less is given back and queued', async () => {
    // A limiter that holds each attempt in line for `wait` ms of the virtual clock before its slot.
    let wait = 0;
    const clock: { advance: (ms: number) => void } = { advance: () => undefined };
    const ctx = setup({
      engine: {
        leaseMs: 60_000,
        attemptBudgetMs: 20_000,
        limiter: {
          run: async (_key, task) => {
            clock.advance(wait);
            return task();
          },
          stats: () => ({ inFlight: 0, queued: 0, inFlightFor: () => 0, queuedFor: () => 0 }),
        },
      },
    });
    clock.advance = (ms) => ctx.clock.advance(ms);
    const sub = await ctx.subscribe();
    wait = 40_000;
    const exact = await pendingDelivery(ctx, sub, event(), 0);
    await ctx.engine.handleJob({ deliveryId: exact.id });
    expect(ctx.sent).toHaveLength(1);
    expect((await ctx.stores.deliveries.get(exact.id))?.status).toBe('succeeded');
    wait = 40_001;
    const late = await pendingDelivery(ctx, sub, event(), 0);
    const claimedAt = ctx.clock.ms();
    await ctx.engine.handleJob({ deliveryId: late.id });
    expect(ctx.sent).toHaveLength(1);
    expect(await ctx.stores.deliveries.get(late.id)).toMatchObject({
      status: 'pending',
      attempts: 0,
      nextAttemptAt: at(claimedAt + 40_001),
    });
    expect(ctx.queue.sent).toStrictEqual([{ body: { deliveryId: late.id }, delaySeconds: 0 }]);
  });

  it('an attempt without a status code (network error) has none on its line; a dead letter says dead-letter', async () => {
    const ctx = setup({ script: () => ({ outcome: 'network', error: 'ECONNREFUSED' }) });
    const sub = await ctx.subscribe();
    const d = await pendingDelivery(ctx, sub, event(), 7);
    await ctx.engine.handleJob({ deliveryId: d.id });
    expect(await attemptsOf(ctx, sub.id)).toStrictEqual([
      {
        subscriptionId: sub.id,
        deliveryId: d.id,
        eventId: d.eventId,
        eventType: d.eventType,
        attemptNumber: 8,
        startedAt: at(T0),
        durationMs: 7,
        outcome: 'network',
        error: 'ECONNREFUSED',
        decision: 'dead-letter',
      },
    ]);
  });
});

describe('test sends, replays, resume and the sweep', () => {
  it('sendTest: a webhook.test event with its id, delivered now, returned with its recorded attempt', async () => {
    const ctx = setup();
    const sub = await ctx.subscribe();
    const { delivery, attempt } = await ctx.engine.sendTest(sub);
    const id = eventId({ scope: sub.id, type: 'webhook.test', key: 'test', transition: at(T0) });
    expect(delivery).toMatchObject({
      id: extraDeliveryId('test', id, sub.id, at(T0)),
      eventId: id,
      eventType: 'webhook.test',
      origin: 'test',
      status: 'succeeded',
      attempts: 1,
    });
    expect(delivery.envelope).toMatchObject({
      id,
      type: 'webhook.test',
      occurredAt: at(T0),
      detectedAt: at(T0),
      sequence: 0,
      source: { api: 'carhook', operation: 'webhook.test' },
      data: { subscriptionId: sub.id, message: 'A test delivery from Carhook.' },
    });
    expect(attempt).toMatchObject({ attemptNumber: 1, outcome: 'success', decision: 'done' });
    expect(ctx.sent.map((s) => s.id)).toStrictEqual([id]);
  });

  it('sendTest whose outcome cannot be written rejects naming the delivery', async () => {
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
    expect((error as DeliveryError).message).toMatch(/^test delivery dlv_\w+ could not be recorded$/);
    expect((error as DeliveryError).context.subscriptionId).toBe(sub.id);
  });

  it('enqueueReplay: one new delivery per event (same event ids), queued; the same run again creates none', async () => {
    const ctx = setup();
    const sub = await ctx.subscribe();
    const events = Array.from({ length: 20 }, () => event());
    const ids = await ctx.engine.enqueueReplay(sub, events, 'run_1');
    expect(ids).toStrictEqual(events.map((e) => extraDeliveryId('replay', e.id, sub.id, 'run_1')));
    expect(await ctx.stores.deliveries.get(ids[19] ?? '')).toMatchObject({
      eventId: events[19]?.id,
      origin: 'replay',
      status: 'pending',
      attempts: 0,
      nextAttemptAt: at(T0),
    });
    expect(ctx.queue.sent.map((m) => [m.body.deliveryId, m.delaySeconds])).toStrictEqual(
      ids.map((id) => [id, 0]),
    );
    expect(await ctx.engine.enqueueReplay(sub, events, 'run_1')).toStrictEqual([]);
    expect(ctx.sent).toStrictEqual([]);
  });

  it('resume: every parked delivery of the subscription pending again and queued; the count returned', async () => {
    const ctx = setup();
    const sub = await ctx.subscribe();
    const other = await ctx.subscribe();
    const parked: string[] = [];
    for (let i = 0; i < 3; i++) {
      const d = await pendingDelivery(ctx, sub, event(), 1);
      await ctx.stores.deliveries.park(d.id, T0);
      parked.push(d.id);
    }
    const elsewhere = await pendingDelivery(ctx, other, event(), 1);
    await ctx.stores.deliveries.park(elsewhere.id, T0);
    ctx.clock.advance(1000);
    expect(await ctx.engine.resume(sub.id)).toBe(3);
    for (const id of parked)
      expect(await ctx.stores.deliveries.get(id)).toMatchObject({
        status: 'pending',
        nextAttemptAt: at(T0 + 1000),
      });
    expect((await ctx.stores.deliveries.get(elsewhere.id))?.status).toBe('parked');
    expect(new Set(ctx.queue.sent.map((m) => m.body.deliveryId))).toStrictEqual(new Set(parked));
  });

  it('sweep: pending deliveries overdue by more than the grace are queued; those within it are not', async () => {
    const ctx = setup({ engine: { sweepGraceMs: 60_000 } });
    const sub = await ctx.subscribe();
    const overdue = await pendingDelivery(ctx, sub, event(), 1, { nextAttemptAt: at(T0 - 60_000) });
    await pendingDelivery(ctx, sub, event(), 1, { nextAttemptAt: at(T0 - 59_999) });
    expect(await ctx.engine.sweep()).toBe(1);
    expect(ctx.queue.sent).toStrictEqual([{ body: { deliveryId: overdue.id }, delaySeconds: 0 }]);
    expect(await ctx.engine.sweep({ limit: 1 })).toBe(1);
  });

  it('a queue that refuses the messages: reported, not thrown (the sweep sends them again)', async () => {
    const ctx = setup();
    const sub = await ctx.subscribe();
    ctx.queue.send = async () => {
      throw new Error('SQS down');
    };
    await pendingDelivery(ctx, sub, event(), 1, { nextAttemptAt: at(T0 - 120_000) });
    expect(await ctx.engine.sweep()).toBe(1);
    expect(ctx.problems).toStrictEqual([
      { kind: 'QueueFailure', message: 'queue send failed: Error: SQS down' },
    ]);
  });

  it('a bus that fails or refuses an operational event: reported, not thrown', async () => {
    const ctx = setup({ script: () => ({ outcome: 'gone', statusCode: 410 }) });
    const sub = await ctx.subscribe();
    ctx.bus.publish = async () => {
      throw new Error('bus down');
    };
    const d = await pendingDelivery(ctx, sub, event(), 0);
    await ctx.engine.handleJob({ deliveryId: d.id });
    const id = eventId({ scope: sub.id, type: 'webhook.endpoint.disabled', key: sub.id, transition: at(T0) });
    expect(ctx.problems).toStrictEqual([
      { kind: 'BusFailure', message: `publishing webhook.endpoint.disabled ${id}: Error: bus down` },
    ]);
    const ctx2 = setup({ script: () => ({ outcome: 'gone', statusCode: 410 }) });
    const sub2 = await ctx2.subscribe();
    (ctx2.bus as { publish: (events: readonly EventEnvelope[]) => Promise<PublishResult> }).publish = async (
      events,
    ) => ({
      published: [],
      failed: events.map((e) => ({
        id: e.id,
        retryable: true,
        code: 'InternalFailure',
        message: 'try later',
      })),
    });
    const d2 = await pendingDelivery(ctx2, sub2, event(), 0);
    await ctx2.engine.handleJob({ deliveryId: d2.id });
    expect(ctx2.problems).toStrictEqual([{ kind: 'BusFailure', message: 'InternalFailure: try later' }]);
  });
});

describe('engine options', () => {
  it('refuses a hold under 1 ms, a negative slow period, or no outcome writes, naming the option', () => {
    const ctx = setup();
    expect(() => createDeliveryEngine({ ...ctx.deps, directHoldMs: 0 })).toThrow(/directHoldMs/);
    expect(() => createDeliveryEngine({ ...ctx.deps, directHoldMs: 1.5 })).toThrow(/directHoldMs/);
    expect(() => createDeliveryEngine({ ...ctx.deps, slowForMs: -1 })).toThrow(/slowForMs/);
    expect(() => createDeliveryEngine({ ...ctx.deps, recordConcurrency: 0 })).toThrow(/recordConcurrency/);
    expect(() =>
      createDeliveryEngine({ ...ctx.deps, directHoldMs: 1, slowForMs: 0, recordConcurrency: 1 }),
    ).not.toThrow();
  });

  it('the list of active subscriptions is reused for the cache period, and read again after it', async () => {
    const ctx = setup({ engine: { subscriptionCacheMs: 60_000 } });
    let reads = 0;
    const list = ctx.stores.subscriptions.listActive.bind(ctx.stores.subscriptions);
    ctx.stores.subscriptions.listActive = async () => {
      reads += 1;
      return list();
    };
    await ctx.subscribe();
    // The events were detected at T0; the list is read after that.
    ctx.clock.advance(1);
    await Promise.all([ctx.engine.fanOut(event()), ctx.engine.fanOut(event())]);
    await ctx.engine.fanOut(event());
    expect(reads).toBe(1);
    const none = setup({ engine: { subscriptionCacheMs: 0 } });
    let noneReads = 0;
    const list2 = none.stores.subscriptions.listActive.bind(none.stores.subscriptions);
    none.stores.subscriptions.listActive = async () => {
      noneReads += 1;
      return list2();
    };
    await none.engine.fanOut(event());
    await none.engine.fanOut(event());
    expect(noneReads).toBe(2);
  });

  it('a subscription created before an event was detected receives it, even inside the cache period', async () => {
    const ctx = setup({ engine: { subscriptionCacheMs: 60_000 } });
    let reads = 0;
    const list = ctx.stores.subscriptions.listActive.bind(ctx.stores.subscriptions);
    ctx.stores.subscriptions.listActive = async () => {
      reads += 1;
      return list();
    };
    const first = await ctx.subscribe();
    ctx.clock.advance(1);
    const before = await ctx.engine.fanOut(event({ detectedAt: at(T0) }));
    expect(before.deliveryIds).toEqual([deliveryId(lastEventId(), first.id)]);
    // A second subscription, then an event detected after the list was read: the list is read again.
    const second = await ctx.subscribe();
    ctx.clock.advance(1);
    const after = await ctx.engine.fanOut(event({ detectedAt: at(T0 + 1) }));
    expect(reads).toBe(2);
    expect([...after.deliveryIds].sort()).toEqual(
      [deliveryId(lastEventId(), first.id), deliveryId(lastEventId(), second.id)].sort(),
    );
    // An event detected before that read (a burst fanned out late, a replay) uses the cache.
    await ctx.engine.fanOut(event({ detectedAt: at(T0 + 1) }));
    expect(reads).toBe(2);
  });
});
