import { afterEach, describe, expect, it } from 'vitest';
import { createDynamoSubscriptionStores } from '../../functions/adapters/dynamodb/index';
import { deliveryId } from '../../functions/core/subscriptions/logic';
import { MAX_ATTEMPTS } from '../../functions/core/webhooks/policy';
import { createSimulatedClockTable, localDynamoClient, uniqueTableName } from '../support/dynamodb';
import { startReceiver } from '../webhooks/receiver';
import { event, harness } from './harness';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function dynamoHarness() {
  const client = localDynamoClient();
  const tableName = uniqueTableName();
  await createSimulatedClockTable(client, tableName);
  const h = harness({ stores: createDynamoSubscriptionStores({ client, tableName }) });
  cleanups.push(h.sender.close);
  return h;
}

describe('delivery on DynamoDB Local', () => {
  it('retries through an outage, dead-letters what never succeeds, and keeps the attempt log', async () => {
    const h = await dynamoHarness();
    let failing = true;
    const ok = await startReceiver((_req, res) => res.writeHead(failing ? 503 : 204).end());
    const broken = await startReceiver((_req, res) => res.writeHead(500).end());
    cleanups.push(ok.close, broken.close);
    const good = await h.subscribe({ url: ok.url() });
    const bad = await h.subscribe({ url: broken.url() });
    const e = event();
    await h.publish(e);
    const next = h.queue.nextAt() as number;
    h.clock.set(next);
    for (const job of h.queue.takeAvailable()) await h.engine.handleJob(job);
    failing = false;
    await h.drain();
    expect(await h.stores.deliveries.get(deliveryId(e.id, good.id))).toMatchObject({
      status: 'succeeded',
      attempts: 3,
    });
    expect(await h.stores.deliveries.get(deliveryId(e.id, bad.id))).toMatchObject({
      status: 'dead',
      attempts: MAX_ATTEMPTS,
    });
    expect(h.bus.events.map((x) => x.type)).toEqual(['webhook.delivery.exhausted']);
    const log = await h.service.deliveries(good.id, {});
    expect(log.ok && log.value.items.map((a) => [a.attemptNumber, a.outcome])).toEqual([
      [3, 'success'],
      [2, 'failure'],
      [1, 'failure'],
    ]);
    expect(ok.requests.every((r) => r.headers['webhook-id'] === e.id)).toBe(true);
    expect(h.problems).toEqual([]);
  });

  it('parks on 410 and resumes on enable', async () => {
    const h = await dynamoHarness();
    let gone = true;
    const rx = await startReceiver((_req, res) => res.writeHead(gone ? 410 : 200).end());
    cleanups.push(rx.close);
    const sub = await h.subscribe({ url: rx.url() });
    const e = event();
    await h.publish(e);
    expect((await h.stores.subscriptions.get(sub.id))?.status).toBe('disabled');
    expect((await h.stores.deliveries.get(deliveryId(e.id, sub.id)))?.status).toBe('parked');
    gone = false;
    const enabled = await h.service.enable(sub.id);
    expect(enabled.ok && enabled.value.resumed).toBe(1);
    await h.drain();
    expect((await h.stores.deliveries.get(deliveryId(e.id, sub.id)))?.status).toBe('succeeded');
    expect(rx.requests).toHaveLength(2);
  });

  it('disable, three matching events, enable: each delivered once, in order, with its own id', async () => {
    const h = await dynamoHarness();
    const rx = await startReceiver((_req, res) => res.writeHead(204).end());
    cleanups.push(rx.close);
    const sub = await h.subscribe({ url: rx.url(), eventTypes: ['vehicle.alert.fixed'] });
    await h.service.disable(sub.id);
    h.clock.advance(1000);
    const missed = [1, 2, 3].map((i) => event({ type: 'vehicle.alert.fixed' }, h.clock.ms() + i));
    await h.publish(...missed, event({ type: 'vehicle.alert.raised' }, h.clock.ms() + 4));
    h.clock.advance(1000);
    expect(rx.requests).toEqual([]);
    const preview = await h.service.backlog(sub.id);
    expect(preview.ok && preview.value.events).toBe(3);
    const enabled = await h.service.enable(sub.id);
    expect(enabled.ok && enabled.value.backlog).toMatchObject({ matched: 3, recovered: 3 });
    expect((await h.service.enable(sub.id)).ok).toBe(true);
    await h.drain();
    expect(rx.requests.map((r) => r.headers['webhook-id'])).toEqual(missed.map((e) => e.id));
    for (const e of missed)
      expect((await h.stores.deliveries.get(deliveryId(e.id, sub.id)))?.origin).toBe('recovery');
  });
});
