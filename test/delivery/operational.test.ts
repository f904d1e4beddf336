/**
 * Operational events for webhook users: `webhook.delivery.exhausted` and `webhook.endpoint.disabled`
 * reach the subscriptions that ask for them (never the endpoint they are about) and the bus; the
 * `fast` retry schedule makes exhaustion and disabling happen in about a minute.
 */
import type http from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DeliveryEngine } from '../../functions/core/delivery/engine';
import { deliveryMatches } from '../../functions/core/delivery/operational';
import { parseRetrySchedule, RETRY_SCHEDULES } from '../../functions/core/delivery/retry-schedule';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { validateEvent } from '../../functions/core/events/validate';
import type { EventBus } from '../../functions/core/publishing/ports';
import { deliveryId } from '../../functions/core/subscriptions/logic';
import { nextStep, RETRY_SCHEDULE_MS } from '../../functions/core/webhooks/policy';
import { type ReceivedRequest, type Receiver, startReceiver } from '../webhooks/receiver';
import { event, harness, T0 } from './harness';

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

/**
 * The engine over a bus that fans out what it publishes, as the local runtime's bus does (and the
 * fan-out rule on AWS): operational events come back through the fan-out.
 */
function setup() {
  const h = harness();
  cleanups.push(h.sender.close);
  const published: EventEnvelope[] = [];
  const settled: Promise<void>[] = [];
  let engine: DeliveryEngine | undefined;
  const bus: EventBus = {
    async publish(events) {
      published.push(...events);
      for (const e of events) settled.push((await (engine as DeliveryEngine).fanOut(e)).settled);
      return { published: events.map((e) => e.id), failed: [] };
    },
  };
  engine = h.makeEngine({ bus, retrySchedule: RETRY_SCHEDULES.fast });
  const running = engine;
  async function publish(e: EventEnvelope) {
    settled.push((await running.fanOut(e)).settled);
    await settle();
  }
  async function settle() {
    while (settled.length > 0) await Promise.all(settled.splice(0));
  }
  async function drain(): Promise<void> {
    for (let steps = 0; steps < 500; steps++) {
      const jobs = h.queue.takeAvailable();
      if (jobs.length === 0) {
        const next = h.queue.nextAt();
        if (next === undefined) return settle();
        h.clock.set(Math.max(h.clock.ms(), next));
        continue;
      }
      for (const job of jobs) {
        const outcome = await running.handleJob(job);
        if (outcome) await h.queue.send([{ body: job, delaySeconds: outcome.retryInSeconds }]);
      }
      await settle();
    }
    throw new Error('queue not drained');
  }
  return { ...h, engine: running, published, publish, drain };
}

/** Verifies with standardwebhooks at the virtual clock's time (its tolerance is 5 minutes). */
function verifyAt(at: number, secret: string, req: ReceivedRequest): { data: EventEnvelope } {
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    vi.setSystemTime(at);
    return new Webhook(secret).verify(req.body, req.headers as Record<string, string>) as {
      data: EventEnvelope;
    };
  } finally {
    vi.useRealTimers();
  }
}

const ofType = (rx: Receiver, type: string) =>
  rx.requests.filter((r) => (JSON.parse(r.body) as { type: string }).type === type);

describe('deliveryMatches', () => {
  const base = { id: 'sub_a', status: 'active' as const };
  const disabled = {
    type: 'webhook.endpoint.disabled',
    data: { subscriptionId: 'sub_b', url: 'https://b.example.com/', reason: 'gone', disabledAt: '' },
  };
  it.each([
    ['no filter (everything)', {}, false],
    ['*', { eventTypes: ['*'] }, false],
    ['vehicle.*', { eventTypes: ['vehicle.*'] }, false],
    ['webhook.*', { eventTypes: ['webhook.*'] }, true],
    ['the exact type', { eventTypes: ['webhook.endpoint.disabled'] }, true],
    ['the other operational type only', { eventTypes: ['webhook.delivery.exhausted'] }, false],
    [
      'webhook.* with a vehicle filter (it concerns no vehicle)',
      { eventTypes: ['webhook.*'], vehicleIds: ['v'] },
      true,
    ],
  ])('an operational event goes to a subscription asking for %s: %s', (_name, filter, expected) => {
    expect(deliveryMatches({ ...base, ...filter }, disabled)).toBe(expected);
  });

  it.each([
    ['no filter (everything)', {}, false],
    ['*', { eventTypes: ['*'] }, false],
    ['webhook.*', { eventTypes: ['webhook.*'] }, false],
    ['carhook.*', { eventTypes: ['carhook.*'] }, true],
    ['the exact type', { eventTypes: ['carhook.quota.changed'] }, true],
  ])('carhook.quota.changed goes to a subscription asking for %s: %s', (_name, filter, expected) => {
    const changed = { type: 'carhook.quota.changed', data: { clientId: 'c', previousLimit: 120, limit: 60 } };
    expect(deliveryMatches({ ...base, ...filter }, changed)).toBe(expected);
  });

  it('never goes to the subscription it is about, nor to a disabled one', () => {
    expect(deliveryMatches({ ...base, id: 'sub_b', eventTypes: ['webhook.*'] }, disabled)).toBe(false);
    expect(deliveryMatches({ ...base, status: 'disabled', eventTypes: ['webhook.*'] }, disabled)).toBe(false);
  });

  it('keeps an exhausted delivery of an operational event on the bus (no loop between failing endpoints)', () => {
    const exhausted = (eventType: string) => ({
      type: 'webhook.delivery.exhausted',
      data: { subscriptionId: 'sub_b', eventId: 'evt_1', eventType, attempts: 6, lastAttemptAt: '' },
    });
    expect(deliveryMatches({ ...base, eventTypes: ['webhook.*'] }, exhausted('vehicle.alert.raised'))).toBe(
      true,
    );
    expect(
      deliveryMatches({ ...base, eventTypes: ['webhook.*'] }, exhausted('webhook.endpoint.disabled')),
    ).toBe(false);
  });

  it('leaves vehicle events to the subscription filters', () => {
    const e = event();
    expect(deliveryMatches({ ...base }, e)).toBe(true);
    expect(deliveryMatches({ ...base, eventTypes: ['webhook.*'] }, e)).toBe(false);
  });
});

describe('retry schedules', () => {
  it('parses the names, defaults to standard and names the field otherwise', () => {
    expect(parseRetrySchedule('--retry-schedule', undefined)).toEqual({
      ok: true,
      value: RETRY_SCHEDULES.standard,
    });
    expect(parseRetrySchedule('--retry-schedule', ' fast ')).toEqual({
      ok: true,
      value: RETRY_SCHEDULES.fast,
    });
    expect(parseRetrySchedule('--retry-schedule', 'slow')).toEqual({
      ok: false,
      message: "--retry-schedule: must be one of standard, fast, got 'slow'",
    });
    expect(RETRY_SCHEDULES.standard.retriesMs).toEqual(RETRY_SCHEDULE_MS);
  });

  it('fast: retries after 1, 2, 5, 10, 20 s, then dead-letters; disables after 2 min of failures', () => {
    const now = new Date(T0);
    const failed = { outcome: 'failure' as const };
    const schedule = RETRY_SCHEDULES.fast;
    const delays = [1, 2, 3, 4, 5].map((n) => {
      const step = nextStep({ attemptNumber: n }, failed, now, { random: () => 0.5, schedule });
      return step.action === 'retry' ? step.delayMs : step.action;
    });
    expect(delays).toEqual([1000, 2000, 5000, 10_000, 20_000]);
    expect(nextStep({ attemptNumber: 6 }, failed, now, { schedule })).toEqual({
      action: 'dead-letter',
      attempts: 6,
    });
    const health = { firstFailureAt: new Date(T0 - 120_000).toISOString() };
    expect(nextStep({ attemptNumber: 1 }, failed, now, { schedule, health })).toMatchObject({
      action: 'disable-subscription',
      reason: 'failing-for-2-min',
    });
    // The standard schedule does not disable after 2 minutes.
    expect(nextStep({ attemptNumber: 1 }, failed, now, { health, random: () => 0.5 })).toMatchObject({
      action: 'retry',
    });
  });
});

describe('operational events through the fan-out', () => {
  it('an exhausted delivery is reported to the subscriptions asking for it, signed, and to the bus, never to the failing endpoint', async () => {
    const h = setup();
    const failing = await receiver((_req, res) => res.writeHead(500).end('boom'));
    const ops = await receiver();
    const everything = await receiver();
    const a = await h.subscribe({ url: failing.url(), eventTypes: ['vehicle.*', 'webhook.*'] });
    const b = await h.subscribe({ url: ops.url(), eventTypes: ['webhook.*'] });
    await h.subscribe({ url: everything.url() });
    const e = event();
    await h.publish(e);
    await h.drain();

    // 1 + 5 retries over 38 s of the fast schedule.
    expect(ofType(failing, e.type)).toHaveLength(6);
    const d = await h.stores.deliveries.get(deliveryId(e.id, a.id));
    expect(d).toMatchObject({ status: 'dead', attempts: 6 });
    expect(Date.parse(d?.lastAttemptAt ?? '') - T0).toBe(38_000);

    const onBus = h.published.filter((x) => x.type === 'webhook.delivery.exhausted');
    expect(onBus).toHaveLength(1);
    expect(validateEvent(onBus[0])).toEqual({ ok: true });
    const got = ofType(ops, 'webhook.delivery.exhausted');
    expect(got).toHaveLength(1);
    const req = got[0] as ReceivedRequest;
    expect(req.headers['webhook-id']).toBe(onBus[0]?.id);
    const payload = verifyAt(h.clock.ms(), b.secret, req);
    expect(payload.data).toEqual(onBus[0]);
    expect(payload.data.data).toMatchObject({
      subscriptionId: a.id,
      eventId: e.id,
      eventType: e.type,
      attempts: 6,
      lastStatus: 500,
    });
    // Not to the failing endpoint (it asked for webhook.* too), not through `*`.
    expect(ofType(failing, 'webhook.delivery.exhausted')).toHaveLength(0);
    expect(ofType(everything, 'webhook.delivery.exhausted')).toHaveLength(0);
    expect(ofType(everything, e.type)).toHaveLength(1);
  });

  it('a disabled endpoint (410 Gone) is reported to the subscriptions asking for it, not to itself', async () => {
    const h = setup();
    const gone = await receiver((_req, res) => res.writeHead(410).end());
    const ops = await receiver();
    const a = await h.subscribe({ url: gone.url(), eventTypes: ['vehicle.*', 'webhook.*'] });
    const b = await h.subscribe({ url: ops.url(), eventTypes: ['webhook.endpoint.disabled'] });
    await h.publish(event());
    await h.drain();
    expect((await h.stores.subscriptions.get(a.id))?.status).toBe('disabled');
    const got = ofType(ops, 'webhook.endpoint.disabled');
    expect(got).toHaveLength(1);
    const payload = verifyAt(h.clock.ms(), b.secret, got[0] as ReceivedRequest);
    expect(payload.data.data).toMatchObject({ subscriptionId: a.id, url: gone.url(), reason: 'gone' });
    expect(gone.requests).toHaveLength(1);
  });

  it('fast schedule: an endpoint failing for 2 minutes is disabled and reported', async () => {
    const h = setup();
    const failing = await receiver((_req, res) => res.writeHead(503).end());
    const ops = await receiver();
    const a = await h.subscribe({ url: failing.url(), eventTypes: ['vehicle.*'] });
    await h.subscribe({ url: ops.url(), eventTypes: ['webhook.*'] });
    await h.publish(event({}, T0));
    await h.drain();
    expect((await h.stores.subscriptions.get(a.id))?.status).toBe('active');
    h.clock.set(T0 + 121_000);
    await h.publish(event({}, T0 + 121_000));
    await h.drain();
    expect(await h.stores.subscriptions.get(a.id)).toMatchObject({
      status: 'disabled',
      disabledReason: 'failing-for-2-min',
    });
    const got = ofType(ops, 'webhook.endpoint.disabled').map(
      (r) => (JSON.parse(r.body) as { data: EventEnvelope }).data.data,
    );
    expect(got).toMatchObject([{ subscriptionId: a.id, reason: 'failing-for-2-min' }]);
  });

  it('two failing endpoints asking for webhook.* do not report each other forever', async () => {
    const h = setup();
    const one = await receiver((_req, res) => res.writeHead(500).end());
    const two = await receiver((_req, res) => res.writeHead(500).end());
    await h.subscribe({ url: one.url(), eventTypes: ['vehicle.*', 'webhook.*'] });
    await h.subscribe({ url: two.url(), eventTypes: ['webhook.*'] });
    await h.publish(event());
    await h.drain();
    // one's delivery exhausted → reported to two, whose delivery of that report is exhausted too →
    // on the bus only.
    expect(h.published.map((x) => x.type)).toEqual([
      'webhook.delivery.exhausted',
      'webhook.delivery.exhausted',
    ]);
    expect(ofType(two, 'webhook.delivery.exhausted')).toHaveLength(6);
    expect(ofType(one, 'webhook.delivery.exhausted')).toHaveLength(0);
  });
});
