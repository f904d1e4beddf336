import type http from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { validateEvent } from '../../functions/core/events/validate';
import { deliveryId } from '../../functions/core/subscriptions/logic';
import { MAX_ATTEMPTS, RETRY_SCHEDULE_MS } from '../../functions/core/webhooks/policy';
import { type ReceivedRequest, type Receiver, startReceiver } from '../webhooks/receiver';
import { event, harness, realClock, T0 } from './harness';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function receiver(
  handler?: (req: ReceivedRequest, res: http.ServerResponse) => void,
): Promise<Receiver> {
  const r = await startReceiver(handler);
  cleanups.push(r.close);
  return r;
}

function setup(options: Parameters<typeof harness>[0] = {}) {
  const h = harness(options);
  cleanups.push(h.sender.close);
  return h;
}

const headers = (r: ReceivedRequest) => r.headers as Record<string, string>;

describe('fan-out and signatures', () => {
  it('delivers each event once per matching active subscription, signed so standardwebhooks verifies it', async () => {
    const h = setup({ clock: realClock() });
    const rx = await receiver();
    const other = await receiver();
    const sub = await h.subscribe({ url: rx.url(), eventTypes: ['vehicle.alert.*'] });
    await h.subscribe({ url: other.url(), eventTypes: ['vehicle.trip.completed'] });
    const e = event();
    const [result] = await h.publish(e);
    expect(result?.deliveryIds).toEqual([deliveryId(e.id, sub.id)]);
    expect(rx.requests).toHaveLength(1);
    expect(other.requests).toHaveLength(0);
    const req = rx.requests[0] as ReceivedRequest;
    expect(req.headers['webhook-id']).toBe(e.id);
    const payload = new Webhook(sub.secret).verify(req.body, headers(req)) as Record<string, unknown>;
    expect(payload).toEqual({ type: e.type, timestamp: e.occurredAt, data: e });
    expect((await h.stores.deliveries.get(deliveryId(e.id, sub.id)))?.status).toBe('succeeded');
  });

  it('never creates a second delivery when the same event is fanned out again', async () => {
    const h = setup();
    const rx = await receiver();
    await h.subscribe({ url: rx.url() });
    const e = event();
    const [first] = await h.publish(e);
    const [again] = await h.publish(e);
    expect(first?.deliveryIds).toHaveLength(1);
    expect(again?.deliveryIds).toEqual([]);
    expect(rx.requests).toHaveLength(1);
  });

  it('after a rotation sends both signatures, and a receiver holding either secret verifies', async () => {
    const h = setup({ clock: realClock() });
    const rx = await receiver();
    const sub = await h.subscribe({ url: rx.url() });
    const rotated = await h.service.rotateSecret(sub.id);
    if (!rotated.ok) throw new Error(rotated.error.message);
    expect(rotated.value.secret).not.toBe(sub.secret);
    await h.publish(event());
    const req = rx.requests[0] as ReceivedRequest;
    expect(String(req.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => new Webhook(sub.secret).verify(req.body, headers(req))).not.toThrow();
    expect(() => new Webhook(rotated.value.secret).verify(req.body, headers(req))).not.toThrow();
  });

  it('drops the old signature 24 h after the rotation', async () => {
    const h = setup();
    const rx = await receiver();
    const sub = await h.subscribe({ url: rx.url() });
    await h.service.rotateSecret(sub.id);
    h.clock.advance(24 * 3600_000 + 1);
    await h.publish(event());
    expect(String(rx.requests[0]?.headers['webhook-signature']).split(' ')).toHaveLength(1);
  });

  it('stores the secret only encrypted', async () => {
    const h = setup();
    const rx = await receiver();
    const sub = await h.subscribe({ url: rx.url() });
    const stored = await h.stores.subscriptions.get(sub.id);
    expect(JSON.stringify(stored)).not.toContain(sub.secret.slice(6));
    expect((await h.secrets.open(stored?.secretCiphertext ?? '', sub.id)).current).toBe(sub.secret);
    await expect(h.secrets.open(stored?.secretCiphertext ?? '', 'sub_other')).rejects.toThrow();
  });

  it('sends webhook.test to that subscription only', async () => {
    const h = setup();
    const rx = await receiver();
    const other = await receiver();
    const sub = await h.subscribe({ url: rx.url(), eventTypes: ['vehicle.trip.completed'] });
    await h.subscribe({ url: other.url() });
    const result = await h.service.test(sub.id);
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.attempt).toMatchObject({ outcome: 'success', statusCode: 204, attemptNumber: 1 });
    expect(other.requests).toHaveLength(0);
    const body = JSON.parse(rx.requests[0]?.body ?? '{}');
    expect(body.type).toBe('webhook.test');
    expect(body.data.data.subscriptionId).toBe(sub.id);
    expect(validateEvent(body.data)).toEqual({ ok: true });
    expect(rx.requests[0]?.headers['webhook-id']).toBe(result.value.eventId);
  });
});

describe('retries, dead letters and disabling', () => {
  it('a receiver down for hours then back gets every event, each with its original webhook-id', async () => {
    const h = setup();
    let down = true;
    const rx = await receiver((_req, res) => res.writeHead(down ? 503 : 200).end(down ? 'down' : 'ok'));
    const sub = await h.subscribe({ url: rx.url() });
    const events = [event(), event(), event()];
    await h.publish(...events);
    // Run the schedule on the virtual clock for the first 3 retries (≈ 35 min), then recover.
    for (let i = 0; i < 3; i++) {
      const next = h.queue.nextAt() as number;
      h.clock.set(next);
      for (const job of h.queue.takeAvailable()) await h.engine.handleJob(job);
    }
    down = false;
    await h.drain();
    const delivered = rx.requests
      .filter((_, i) => i >= rx.requests.length - 3)
      .map((r) => r.headers['webhook-id']);
    expect(new Set(delivered)).toEqual(new Set(events.map((e) => e.id)));
    for (const e of events) {
      const ids = rx.requests.filter((r) => r.headers['webhook-id'] === e.id);
      expect(ids).toHaveLength(5); // first attempt + 3 failed retries + the successful one
      expect(new Set(ids.map((r) => r.body)).size).toBe(1); // same bytes every time
      expect(await h.stores.deliveries.get(deliveryId(e.id, sub.id))).toMatchObject({
        status: 'succeeded',
        attempts: 5,
      });
    }
    const log = await h.service.deliveries(sub.id, { limit: '100' });
    if (!log.ok) throw new Error(log.error.message);
    expect(log.value.items).toHaveLength(15);
    expect(log.value.items[0]?.outcome).toBe('success');
    expect(log.value.items.at(-1)).toMatchObject({
      outcome: 'failure',
      statusCode: 503,
      responseExcerpt: 'down',
    });
    // Retries followed the schedule (random 0.5 = no jitter): 5 s, 5 min, 30 min.
    const starts = rx.requests
      .filter((r) => r.headers['webhook-id'] === events[0]?.id)
      .map((r) => Number(r.headers['webhook-timestamp']));
    expect(starts.slice(1, 4).map((t, i) => t - (starts[i] as number))).toEqual([5, 300, 1800]);
    expect((await h.stores.subscriptions.get(sub.id))?.health.firstFailureAt).toBeUndefined();
  });

  it('dead-letters after the whole schedule and publishes webhook.delivery.exhausted', async () => {
    const h = setup();
    const rx = await receiver((_req, res) => res.writeHead(500).end('boom'));
    const sub = await h.subscribe({ url: rx.url() });
    const e = event();
    await h.publish(e);
    await h.drain();
    expect(rx.requests).toHaveLength(MAX_ATTEMPTS);
    const d = await h.stores.deliveries.get(deliveryId(e.id, sub.id));
    expect(d).toMatchObject({ status: 'dead', attempts: MAX_ATTEMPTS, lastStatusCode: 500 });
    const total = RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0);
    expect(Date.parse(d?.lastAttemptAt ?? '') - T0).toBe(total);
    const exhausted = h.bus.events.filter((x) => x.type === 'webhook.delivery.exhausted');
    expect(exhausted).toHaveLength(1);
    expect(exhausted[0]?.data).toMatchObject({
      subscriptionId: sub.id,
      eventId: e.id,
      attempts: MAX_ATTEMPTS,
      lastStatus: 500,
    });
    expect(validateEvent(exhausted[0])).toEqual({ ok: true });
    const dead = await h.service.deadLetters(sub.id, {});
    expect(dead.ok && dead.value.items.map((x) => x.eventId)).toEqual([e.id]);
    // Still active: 27.6 h of failures is not 5 days.
    expect((await h.stores.subscriptions.get(sub.id))?.status).toBe('active');
  });

  it('410 disables the subscription, publishes webhook.endpoint.disabled once, parks the rest; enable resumes them and delivers what it missed', async () => {
    const h = setup();
    let gone = true;
    const rx = await receiver((_req, res) => res.writeHead(gone ? 410 : 204).end());
    const sub = await h.subscribe({ url: rx.url() });
    const first = event();
    // A delivery already waiting for a retry when the endpoint says 410.
    const waiting = event();
    gone = false;
    await h.stores.deliveries.create({
      id: deliveryId(waiting.id, sub.id),
      subscriptionId: sub.id,
      eventId: waiting.id,
      eventType: waiting.type,
      envelope: waiting,
      origin: 'event',
      status: 'pending',
      attempts: 1,
      nextAttemptAt: new Date(T0 + 5000).toISOString(),
      createdAt: new Date(T0).toISOString(),
      updatedAt: new Date(T0).toISOString(),
    });
    await h.queue.send([{ body: { deliveryId: deliveryId(waiting.id, sub.id) }, delaySeconds: 5 }]);
    gone = true;
    await h.publish(first);
    const disabled = h.bus.events.filter((x) => x.type === 'webhook.endpoint.disabled');
    expect(disabled).toHaveLength(1);
    expect(disabled[0]?.data).toMatchObject({ subscriptionId: sub.id, reason: 'gone', url: rx.url() });
    expect(validateEvent(disabled[0])).toEqual({ ok: true });
    expect(await h.stores.subscriptions.get(sub.id)).toMatchObject({
      status: 'disabled',
      disabledReason: 'gone',
    });
    await h.drain();
    expect(rx.requests).toHaveLength(1); // the waiting one was parked, not sent
    expect((await h.stores.deliveries.get(deliveryId(waiting.id, sub.id)))?.status).toBe('parked');
    expect((await h.stores.deliveries.get(deliveryId(first.id, sub.id)))?.status).toBe('parked');
    // Events while disabled are not fanned out to it; enable delivers them from the log.
    const missed = event();
    const [skipped] = await h.publish(missed);
    expect(skipped?.deliveryIds).toEqual([]);

    gone = false;
    const enabled = await h.service.enable(sub.id);
    expect(enabled.ok && enabled.value).toMatchObject({
      resumed: 2,
      subscription: { status: 'active', health: {} },
      // `first` was detected as it was disabled: its parked delivery resumes, it is not recovered twice.
      backlog: { action: 'recover', matched: 2, recovered: 1 },
    });
    await h.drain();
    expect(
      rx.requests
        .slice(1)
        .map((r) => r.headers['webhook-id'])
        .sort(),
    ).toEqual([first.id, waiting.id, missed.id].sort());
    expect((await h.stores.deliveries.get(deliveryId(first.id, sub.id)))?.status).toBe('succeeded');
  });

  it('disables a subscription that has failed every attempt for 5 days', async () => {
    const h = setup();
    const rx = await receiver((_req, res) => res.writeHead(500).end());
    const sub = await h.subscribe({ url: rx.url() });
    for (let day = 0; day <= 5; day++) {
      h.clock.set(T0 + day * 24 * 3600_000);
      await h.publish(event({}, h.clock.ms()));
      const jobs = h.queue.takeAvailable();
      for (const job of jobs) await h.engine.handleJob(job);
      if (day < 5) expect((await h.stores.subscriptions.get(sub.id))?.status).toBe('active');
    }
    expect(await h.stores.subscriptions.get(sub.id)).toMatchObject({
      status: 'disabled',
      disabledReason: 'failing-for-5-days',
    });
    const disabled = h.bus.events.filter((x) => x.type === 'webhook.endpoint.disabled');
    expect(disabled.map((x) => x.data.reason)).toEqual(['failing-for-5-days']);
  });

  it('honours Retry-After on 429 beyond the schedule', async () => {
    const h = setup();
    let calls = 0;
    const rx = await receiver((_req, res) => {
      calls += 1;
      if (calls === 1) res.writeHead(429, { 'retry-after': '3600' }).end();
      else res.writeHead(200).end();
    });
    const sub = await h.subscribe({ url: rx.url() });
    const e = event();
    await h.publish(e);
    const d = await h.stores.deliveries.get(deliveryId(e.id, sub.id));
    expect(Date.parse(d?.nextAttemptAt ?? '') - T0).toBe(3600_000);
    expect(h.queue.sent.at(-1)?.delaySeconds).toBe(3600);
    const log = await h.stores.deliveries.listAttempts({ subscriptionId: sub.id });
    expect(log.items[0]).toMatchObject({ statusCode: 429, retryAfterMs: 3600_000, decision: 'retry' });
    await h.drain();
    expect(rx.requests).toHaveLength(2);
    expect(
      Number(rx.requests[1]?.headers['webhook-timestamp']) -
        Number(rx.requests[0]?.headers['webhook-timestamp']),
    ).toBe(3600);
  });

  it('treats a redirect as a failure and never follows it', async () => {
    const h = setup();
    const rx = await receiver((req, res) => {
      if (req.url === '/hooks') res.writeHead(302, { location: '/elsewhere' }).end();
      else res.writeHead(200).end();
    });
    const sub = await h.subscribe({ url: rx.url() });
    await h.publish(event());
    expect(rx.requests.map((r) => r.url)).toEqual(['/hooks']);
    const log = await h.stores.deliveries.listAttempts({ subscriptionId: sub.id });
    expect(log.items[0]).toMatchObject({ outcome: 'failure', statusCode: 302, decision: 'retry' });
    expect(log.items[0]?.error).toContain('/elsewhere');
  });

  it('times out a hung endpoint and a slow body, and retries them', async () => {
    const h = setup({ sender: { timeoutMs: 300 } });
    const held: http.ServerResponse[] = [];
    const hung = await receiver((_req, res) => held.push(res));
    const slow = await receiver((_req, res) => {
      res.writeHead(200);
      res.write('a');
      held.push(res);
    });
    cleanups.push(() => {
      for (const r of held) r.destroy();
    });
    const a = await h.subscribe({ url: hung.url() });
    const b = await h.subscribe({ url: slow.url() });
    await h.publish(event());
    for (const sub of [a, b]) {
      const log = await h.stores.deliveries.listAttempts({ subscriptionId: sub.id });
      expect(log.items[0]).toMatchObject({ outcome: 'timeout', decision: 'retry' });
    }
  });

  it('keeps the first 4 KB of a huge response', async () => {
    const h = setup();
    const rx = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x'.repeat(2_000_000));
    });
    const sub = await h.subscribe({ url: rx.url() });
    await h.publish(event());
    const log = await h.stores.deliveries.listAttempts({ subscriptionId: sub.id });
    expect(log.items[0]?.outcome).toBe('success');
    expect(log.items[0]?.responseExcerpt?.length).toBe(4096);
    expect(log.items[0]?.responseTruncated).toBe(true);
  });
});

describe('SSRF', () => {
  it('refuses at delivery a name that was public at subscribe time and now resolves to loopback', async () => {
    let answer = '93.184.216.34';
    const h = setup({
      allowList: null,
      allowInsecureLoopback: false,
      resolve: async () => [{ address: answer, family: 4 }],
    });
    const sub = await h.subscribe({ url: 'https://rebind.example.com/hook' });
    answer = '127.0.0.1';
    await h.publish(event());
    const log = await h.stores.deliveries.listAttempts({ subscriptionId: sub.id });
    expect(log.items[0]).toMatchObject({ outcome: 'refused', decision: 'retry' });
    expect(log.items[0]?.error).toMatch(/loopback/);
  });

  it.each([['127.0.0.1'], ['10.0.0.7'], ['169.254.169.254'], ['::1'], ['::ffff:127.0.0.1']])(
    'refuses at subscribe time a name resolving to %s',
    async (address) => {
      const h = setup({
        allowList: null,
        allowInsecureLoopback: false,
        resolve: async () => [{ address, family: address.includes(':') ? 6 : 4 }],
      });
      const created = await h.service.create({ url: 'https://evil.example.com/hook' });
      expect(created.ok).toBe(false);
      if (!created.ok) expect(created.error).toMatchObject({ kind: 'Malformed', issues: [{ field: 'url' }] });
    },
  );
});

describe('replay', () => {
  it('re-sends exactly the selected events of the log, with their original ids', async () => {
    const h = setup();
    const rx = await receiver();
    const sub = await h.subscribe({ url: rx.url(), vehicleIds: ['veh_1'] });
    const hour = 3600_000;
    const inRange = event({}, T0 + hour);
    const trip = event({ type: 'vehicle.trip.completed' }, T0 + 2 * hour);
    const otherVehicle = event({ vehicle: { id: 'veh_2' } }, T0 + 2 * hour);
    const tooEarly = event({}, T0 - hour);
    const tooLate = event({}, T0 + 5 * hour);
    for (const e of [inRange, trip, otherVehicle, tooEarly, tooLate]) await h.log.append([e], T0);
    h.clock.set(T0 + 6 * hour);
    const result = await h.service.replay(sub.id, {
      since: new Date(T0).toISOString(),
      until: '2026-11-22T14:00:00+01:00',
      eventTypes: ['vehicle.alert.*'],
    });
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.eventIds).toEqual([inRange.id]);
    await h.drain();
    expect(rx.requests.map((r) => r.headers['webhook-id'])).toEqual([inRange.id]);
    expect(JSON.parse(rx.requests[0]?.body ?? '{}').data).toEqual(inRange);
    // Without a type filter the trip comes too (the subscription's own filters still apply).
    const all = await h.service.replay(sub.id, { since: new Date(T0).toISOString() });
    expect(all.ok && [...all.value.eventIds].sort()).toEqual([inRange.id, trip.id, tooLate.id].sort());
  });

  it('refuses a replay that selects more events than the limit, naming since', async () => {
    const h = setup();
    const rx = await receiver();
    const sub = await h.subscribe({ url: rx.url() });
    const service = (await import('../../functions/core/subscriptions/service')).createSubscriptionService({
      ...h.stores,
      events: h.log,
      engine: h.engine,
      secrets: h.secrets,
      now: h.clock.now,
      maxReplayEvents: 2,
    });
    for (let i = 0; i < 3; i++) await h.log.append([event({}, T0 + i)], T0);
    h.clock.set(T0 + 10_000);
    const result = await service.replay(sub.id, { since: new Date(T0).toISOString() });
    expect(!result.ok && result.error).toMatchObject({ kind: 'Malformed', issues: [{ field: 'since' }] });
    expect(h.queue.sent).toHaveLength(0);
  });
});

describe('isolation and crash safety', () => {
  it('a hung endpoint does not delay another subscription', async () => {
    const h = setup({ sender: { timeoutMs: 60_000 }, engine: { perSubscriptionConcurrency: 1 } });
    const held: http.ServerResponse[] = [];
    const slow = await receiver((_req, res) => held.push(res));
    cleanups.push(() => {
      for (const r of held) r.destroy();
    });
    const fast = await receiver();
    const slowSub = await h.subscribe({ url: slow.url() });
    const fastSub = await h.subscribe({ url: fast.url() });
    const events = [event(), event(), event()];
    const settled: Promise<void>[] = [];
    for (const e of events) settled.push((await h.engine.fanOut(e)).settled);
    await vi.waitFor(async () => {
      const log = await h.stores.deliveries.listAttempts({ subscriptionId: fastSub.id });
      expect(log.items.filter((a) => a.outcome === 'success')).toHaveLength(3);
    });
    // Meanwhile the slow one holds its single slot and its other deliveries wait.
    expect(held).toHaveLength(1);
    expect(h.engine.limiter.stats().queuedFor(slowSub.id)).toBe(2);
    for (const r of held.splice(0)) r.writeHead(200).end();
    await vi.waitFor(() => expect(held).toHaveLength(1));
    for (const r of held.splice(0)) r.writeHead(200).end();
    await vi.waitFor(() => expect(held).toHaveLength(1));
    for (const r of held.splice(0)) r.writeHead(200).end();
    await Promise.all(settled);
    const log = await h.stores.deliveries.listAttempts({ subscriptionId: slowSub.id });
    expect(log.items.map((a) => a.outcome)).toEqual(['success', 'success', 'success']);
  });

  it('sends a queue job back (jittered) when its subscription is at its limit with a line waiting', async () => {
    const h = setup({ sender: { timeoutMs: 60_000 }, engine: { perSubscriptionConcurrency: 1 } });
    const held: http.ServerResponse[] = [];
    const rx = await receiver((_req, res) => held.push(res));
    cleanups.push(() => {
      for (const r of held) r.destroy();
    });
    await h.subscribe({ url: rx.url() });
    const a = await h.engine.fanOut(event());
    const b = await h.engine.fanOut(event());
    await vi.waitFor(() => expect(held).toHaveLength(1));
    const c = event();
    const [sub] = await h.stores.subscriptions.listActive();
    const id = deliveryId(c.id, sub?.id ?? '');
    await h.stores.deliveries.create({
      id,
      subscriptionId: sub?.id ?? '',
      eventId: c.id,
      eventType: c.type,
      envelope: c,
      origin: 'replay',
      status: 'pending',
      attempts: 0,
      nextAttemptAt: new Date(T0).toISOString(),
      createdAt: new Date(T0).toISOString(),
      updatedAt: new Date(T0).toISOString(),
    });
    expect(await h.engine.handleJob({ deliveryId: id })).toEqual({ retryInSeconds: 3 });
    expect((await h.stores.deliveries.get(id))?.attempts).toBe(0); // not claimed
    for (const r of held.splice(0)) r.writeHead(204).end();
    await vi.waitFor(() => expect(held).toHaveLength(1));
    for (const r of held.splice(0)) r.writeHead(204).end();
    await Promise.all([a.settled, b.settled]);
  });

  it('hands a delivery that waited too long for a slot to the queue instead of risking a duplicate', async () => {
    const h = setup({ sender: { timeoutMs: 120_000 }, engine: { perSubscriptionConcurrency: 1 } });
    const held: http.ServerResponse[] = [];
    let hold = true;
    const rx = await receiver((_req, res) => (hold ? held.push(res) : res.writeHead(204).end()));
    cleanups.push(() => {
      for (const r of held) r.destroy();
    });
    const sub = await h.subscribe({ url: rx.url() });
    const a = event();
    const b = event();
    const first = await h.engine.fanOut(a);
    const second = await h.engine.fanOut(b);
    await vi.waitFor(() => expect(held).toHaveLength(1));
    h.clock.advance(45_000); // b's lease (60 s) no longer leaves the 20 s an attempt needs
    hold = false;
    for (const r of held.splice(0)) r.writeHead(204).end();
    await Promise.all([first.settled, second.settled]);
    expect(rx.requests).toHaveLength(1);
    expect(await h.stores.deliveries.get(deliveryId(b.id, sub.id))).toMatchObject({
      status: 'pending',
      attempts: 0,
    });
    await h.drain();
    expect(rx.requests.map((r) => r.headers['webhook-id'])).toEqual([a.id, b.id]);
    expect(await h.stores.deliveries.get(deliveryId(b.id, sub.id))).toMatchObject({
      status: 'succeeded',
      attempts: 1,
    });
  });

  it('a first attempt whose process died is recovered by the sweep, with the same webhook-id', async () => {
    const h = setup();
    const rx = await receiver();
    const sub = await h.subscribe({ url: rx.url() });
    const e = event();
    // What fan-out writes before its direct attempt; the process then dies.
    const stored = await h.stores.subscriptions.get(sub.id);
    await h.stores.deliveries.create({
      id: deliveryId(e.id, sub.id),
      subscriptionId: sub.id,
      eventId: e.id,
      eventType: e.type,
      envelope: e,
      origin: 'event',
      status: 'pending',
      attempts: 1,
      nextAttemptAt: new Date(T0 + 60_000).toISOString(),
      createdAt: new Date(T0).toISOString(),
      updatedAt: new Date(T0).toISOString(),
    });
    expect(stored?.status).toBe('active');
    expect(await h.engine.sweep()).toBe(0); // still within its lease (+ grace)
    h.clock.advance(121_000);
    expect(await h.engine.sweep()).toBe(1);
    await h.drain();
    expect(rx.requests.map((r) => r.headers['webhook-id'])).toEqual([e.id]);
    expect(await h.stores.deliveries.get(deliveryId(e.id, sub.id))).toMatchObject({
      status: 'succeeded',
      attempts: 2,
    });
    const log = await h.stores.deliveries.listAttempts({ subscriptionId: sub.id });
    expect(log.items.map((a) => a.attemptNumber)).toEqual([2]); // attempt 1 was abandoned: not logged
  });

  it('a queue worker dying mid-attempt: the redelivered message retries with the same webhook-id', async () => {
    const h = setup({ sender: { timeoutMs: 60_000 } });
    const held: http.ServerResponse[] = [];
    let hold = true;
    const rx = await receiver((_req, res) => (hold ? held.push(res) : res.writeHead(204).end()));
    cleanups.push(() => {
      for (const r of held) r.destroy();
    });
    const sub = await h.subscribe({ url: rx.url() });
    const e = event();
    const id = deliveryId(e.id, sub.id);
    await h.stores.deliveries.create({
      id,
      subscriptionId: sub.id,
      eventId: e.id,
      eventType: e.type,
      envelope: e,
      origin: 'replay',
      status: 'pending',
      attempts: 0,
      nextAttemptAt: new Date(T0).toISOString(),
      createdAt: new Date(T0).toISOString(),
      updatedAt: new Date(T0).toISOString(),
    });
    // Worker A takes the job; its attempt hangs; then it "dies" (never finishes in time).
    const workerA = h.engine.handleJob({ deliveryId: id });
    await vi.waitFor(() => expect(held).toHaveLength(1));
    // The queue redelivers after the visibility timeout; the lease is still running: come back later.
    h.clock.advance(30_000);
    const workerB = h.makeEngine();
    expect(await workerB.handleJob({ deliveryId: id })).toEqual({ retryInSeconds: 30 });
    h.clock.advance(30_000);
    hold = false;
    expect(await workerB.handleJob({ deliveryId: id })).toBeUndefined();
    expect(rx.requests.map((r) => r.headers['webhook-id'])).toEqual([e.id, e.id]);
    expect(await h.stores.deliveries.get(id)).toMatchObject({ status: 'succeeded', attempts: 2 });
    // A finally wakes up: its stale claim changes nothing.
    for (const r of held.splice(0)) r.writeHead(500).end();
    await workerA;
    expect(await h.stores.deliveries.get(id)).toMatchObject({ status: 'succeeded', attempts: 2 });
    const log = await h.stores.deliveries.listAttempts({ subscriptionId: sub.id });
    expect(log.items.map((a) => [a.attemptNumber, a.outcome])).toEqual([[2, 'success']]);
  });

  it('cancels the deliveries of a deleted subscription', async () => {
    const h = setup();
    const rx = await receiver((_req, res) => res.writeHead(500).end());
    const sub = await h.subscribe({ url: rx.url() });
    const e = event();
    await h.publish(e);
    expect((await h.service.remove(sub.id)).ok).toBe(true);
    await h.drain();
    expect(rx.requests).toHaveLength(1);
    expect((await h.stores.deliveries.get(deliveryId(e.id, sub.id)))?.status).toBe('cancelled');
  });
});
