import { afterEach, describe, expect, it } from 'vitest';
import { deliveryId } from '../../functions/core/subscriptions/logic';
import { type Receiver, startReceiver } from '../webhooks/receiver';
import { event, harness, T0 } from './harness';

// Disable costs nothing per event (the fan-out skips the subscription); enable reads back from the
// event log what the subscription's filters match since it was disabled and delivers it, in
// detection order, each event under its own id and its fan-out delivery id.

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver((_req, res) => res.writeHead(204).end());
  cleanups.push(r.close);
  return r;
}

function setup(options: Parameters<typeof harness>[0] = {}) {
  const h = harness(options);
  cleanups.push(h.sender.close);
  return h;
}

const fixed = (at: number) => event({ type: 'vehicle.alert.fixed' }, at);
const ids = (rx: Receiver) => rx.requests.map((r) => r.headers['webhook-id']);

describe('disable, then enable: nothing lost', () => {
  it('delivers every matching event detected while disabled exactly once, in detection order, with its own id', async () => {
    const h = setup();
    const rx = await receiver();
    const sub = await h.subscribe({ url: rx.url(), eventTypes: ['vehicle.alert.fixed'] });
    const before = fixed(T0);
    await h.publish(before);
    expect(ids(rx)).toEqual([before.id]);

    h.clock.advance(1000);
    const disabled = await h.service.disable(sub.id);
    expect(disabled.ok && disabled.value.disabledAt).toBe(new Date(T0 + 1000).toISOString());
    const missed = [fixed(T0 + 2000), fixed(T0 + 3000), fixed(T0 + 4000)];
    const other = event({ type: 'vehicle.alert.raised' }, T0 + 3500);
    h.clock.set(T0 + 5000);
    for (const e of [missed[0], other, missed[1], missed[2]]) {
      if (!e) throw new Error('four events');
      const [fanned] = await h.publish(e);
      expect(fanned?.deliveryIds).toEqual([]); // no write while disabled
    }
    expect(ids(rx)).toEqual([before.id]);

    // Shown before the operator confirms: the window and what it holds.
    const preview = await h.service.backlog(sub.id);
    expect(preview.ok && preview.value).toMatchObject({
      status: 'disabled',
      events: 3,
      more: false,
      parked: 0,
      window: {
        disabledAt: new Date(T0 + 1000).toISOString(),
        from: new Date(T0 + 1000).toISOString(),
        retentionDays: 30,
        truncated: false,
      },
    });

    h.clock.advance(1000);
    const enabled = await h.service.enable(sub.id);
    if (!enabled.ok) throw new Error(enabled.error.message);
    expect(enabled.value.subscription.status).toBe('active');
    expect(enabled.value.backlog).toMatchObject({
      action: 'recover',
      matched: 3,
      recovered: 3,
      discarded: 0,
      more: false,
    });
    await h.drain();
    expect(ids(rx)).toEqual([before.id, ...missed.map((e) => e.id)]);
    for (const e of missed) {
      expect(await h.stores.deliveries.get(deliveryId(e.id, sub.id))).toMatchObject({
        status: 'succeeded',
        origin: 'recovery',
        eventId: e.id,
      });
    }

    // Enabling again (already active) recovers nothing more; neither does a later cycle re-send them.
    const again = await h.service.enable(sub.id);
    expect(again.ok && again.value.backlog).toBeUndefined();
    h.clock.advance(1000);
    await h.service.disable(sub.id);
    h.clock.advance(1000);
    const second = await h.service.enable(sub.id);
    expect(second.ok && second.value.backlog).toMatchObject({ matched: 0, recovered: 0 });
    await h.drain();
    expect(ids(rx)).toHaveLength(4);
    expect(h.problems).toEqual([]);
  });

  it('does not deliver twice an event that already has its delivery (fanned out as the disable landed)', async () => {
    const h = setup();
    const rx = await receiver();
    const sub = await h.subscribe({ url: rx.url() });
    await h.service.disable(sub.id);
    const [a, b] = [fixed(T0 + 10), fixed(T0 + 20)];
    h.clock.advance(100);
    await h.publish(a, b);
    const existing = await h.stores.deliveries.create({
      id: deliveryId(a.id, sub.id),
      subscriptionId: sub.id,
      eventId: a.id,
      eventType: a.type,
      envelope: a,
      origin: 'event',
      status: 'succeeded',
      attempts: 1,
      nextAttemptAt: new Date(T0).toISOString(),
      createdAt: new Date(T0).toISOString(),
      updatedAt: new Date(T0).toISOString(),
    });
    expect(existing).toBe(true);
    const enabled = await h.service.enable(sub.id);
    expect(enabled.ok && enabled.value.backlog).toMatchObject({ matched: 2, recovered: 1 });
    await h.drain();
    expect(ids(rx)).toEqual([b.id]);
  });

  it('with backlog "discard", delivers none of the missed events; parked deliveries still resume', async () => {
    const h = setup();
    let status = 503;
    const rx = await startReceiver((_req, res) => res.writeHead(status).end());
    cleanups.push(rx.close);
    const sub = await h.subscribe({ url: rx.url() });
    const pending = fixed(T0);
    await h.publish(pending); // fails: a retry is pending
    h.clock.advance(1000);
    await h.service.disable(sub.id);
    await h.drain(); // the retry's job parks it
    expect((await h.stores.deliveries.get(deliveryId(pending.id, sub.id)))?.status).toBe('parked');
    h.clock.advance(1000);
    const missed = fixed(h.clock.ms());
    await h.publish(missed);
    const preview = await h.service.backlog(sub.id);
    expect(preview.ok && preview.value).toMatchObject({ events: 1, parked: 1 });

    status = 204;
    const enabled = await h.service.enable(sub.id, { backlog: 'discard' });
    expect(enabled.ok && enabled.value).toMatchObject({
      resumed: 1,
      backlog: { action: 'discard', matched: 1, recovered: 0, discarded: 1 },
    });
    await h.drain();
    expect(ids(rx).filter((id) => id === missed.id)).toEqual([]);
    expect(ids(rx).at(-1)).toBe(pending.id);
  });

  it("past the event log's retention: the window starts at what the log keeps and says it is truncated", async () => {
    const DAY = 86_400_000;
    const h = setup({ service: { eventRetentionMs: 2 * DAY } });
    const rx = await receiver();
    const sub = await h.subscribe({ url: rx.url() });
    await h.service.disable(sub.id);
    h.clock.advance(3 * DAY);
    const kept = fixed(h.clock.ms() - DAY);
    await h.log.append([kept], h.clock.ms() - DAY);
    const preview = await h.service.backlog(sub.id);
    expect(preview.ok && preview.value.window).toEqual({
      disabledAt: new Date(T0).toISOString(),
      until: new Date(T0 + 3 * DAY + 1).toISOString(),
      keptSince: new Date(T0 + DAY).toISOString(),
      retentionDays: 2,
      truncated: true,
      from: new Date(T0 + DAY).toISOString(),
    });
    expect(preview.ok && preview.value.events).toBe(1);
    const enabled = await h.service.enable(sub.id);
    expect(enabled.ok && enabled.value.backlog).toMatchObject({ truncated: true, recovered: 1 });
    await h.drain();
    expect(ids(rx)).toEqual([kept.id]);
  });

  it('recovers at most the limit per enable and says where the rest starts', async () => {
    const h = setup({ service: { maxReplayEvents: 2 } });
    const rx = await receiver();
    const sub = await h.subscribe({ url: rx.url() });
    await h.service.disable(sub.id);
    const missed = [fixed(T0 + 10), fixed(T0 + 20), fixed(T0 + 30)];
    h.clock.advance(100);
    await h.publish(...missed);
    const enabled = await h.service.enable(sub.id);
    expect(enabled.ok && enabled.value.backlog).toMatchObject({
      matched: 2,
      recovered: 2,
      more: true,
      nextFrom: missed[2]?.detectedAt,
    });
  });

  it('refuses an unknown backlog choice, naming the field', async () => {
    const h = setup();
    const rx = await receiver();
    const sub = await h.subscribe({ url: rx.url() });
    await h.service.disable(sub.id);
    const refused = await h.service.enable(sub.id, { backlog: 'maybe' });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.error).toMatchObject({
      kind: 'Malformed',
      issues: [{ field: 'backlog', reason: 'must be recover or discard' }],
    });
    expect((await h.stores.subscriptions.get(sub.id))?.status).toBe('disabled');
  });
});

describe('replay by event id', () => {
  it('needs no time range, and says why each requested event that was not sent was left out', async () => {
    const h = setup();
    const rx = await receiver();
    const sub = await h.subscribe({ url: rx.url(), eventTypes: ['vehicle.alert.fixed'] });
    const [wanted, raised] = [fixed(T0), event({ type: 'vehicle.alert.raised' }, T0)];
    await h.log.append([wanted, raised], T0);
    h.clock.advance(60_000);
    const replay = await h.service.replay(sub.id, { eventIds: [wanted.id, raised.id, 'evt_unknown'] });
    if (!replay.ok) throw new Error(replay.error.message);
    expect(replay.value).toMatchObject({ events: 1, eventIds: [wanted.id] });
    expect(replay.value.skipped).toEqual([
      {
        eventId: raised.id,
        reason: "the subscription's eventTypes (vehicle.alert.fixed) exclude vehicle.alert.raised",
      },
      { eventId: 'evt_unknown', reason: 'not in the event log: unknown, or older than its retention' },
    ]);
    await h.drain();
    expect(ids(rx)).toEqual([wanted.id]);
    const none = await h.service.replay(sub.id, {});
    expect(!none.ok && none.error).toMatchObject({
      issues: [{ field: 'since', reason: 'is required, unless eventIds names the events' }],
    });
  });
});
