import type http from 'node:http';
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, type BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createDynamoDeliveryStore,
  createDynamoSubscriptionStore,
  DEFAULT_DUE_SHARDS,
  documentClient,
} from '../../functions/adapters/dynamodb/index';
import { LocalBus } from '../../functions/adapters/local/bus';
import { fanOutSubscriber } from '../../functions/core/delivery/engine';
import { deliveryId } from '../../functions/core/subscriptions/logic';
import type { DeliveryStore } from '../../functions/core/subscriptions/ports';
import {
  createSimulatedClockTable,
  localDynamoClient,
  onDynamoCall,
  uniqueTableName,
} from '../support/dynamodb';
import { startReceiver } from '../webhooks/receiver';
import { event, harness } from './harness';

/**
 * The boundaries of a direct first attempt (README "Writes per delivery"), each broken on purpose on
 * DynamoDB Local: the process dying between the attempt and its batch write, a BatchWriteItem
 * leaving items unprocessed, a throttled BatchWriteItem. None may lose a delivery.
 */

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Send = (command: BatchWriteCommand) => Promise<BatchWriteCommandOutput>;
/** Decides what DynamoDB Local gets for one BatchWriteItem (via `send`) and what the store sees. */
type BatchFault = (command: BatchWriteCommand, send: Send, call: number) => Promise<BatchWriteCommandOutput>;

/** What the SDK throws for a throttled BatchWriteItem once its own retries are spent. */
const throttled = () =>
  new ProvisionedThroughputExceededException({
    message: 'Rate exceeded',
    $metadata: { httpStatusCode: 400 },
  });

async function dynamo(fault?: BatchFault) {
  const client = localDynamoClient();
  const tableName = uniqueTableName();
  await createSimulatedClockTable(client, tableName);
  const doc = documentClient(client);
  const sleeps: number[] = [];
  const writes: Record<string, number> = {};
  onDynamoCall(client, (operation, _input, next) => {
    writes[operation] = (writes[operation] ?? 0) + 1;
    return next();
  });
  if (fault) {
    const real = doc.send.bind(doc) as (command: unknown) => Promise<unknown>;
    let calls = 0;
    // Only BatchWriteItem goes through the fault; everything else reaches DynamoDB Local unchanged.
    (doc as unknown as { send: (command: unknown) => Promise<unknown> }).send = (command) =>
      command instanceof BatchWriteCommand
        ? fault(command, (c) => real(c) as Promise<BatchWriteCommandOutput>, calls++)
        : real(command);
  }
  const ctx = { doc, tableName, eventRetentionMs: 30 * 24 * 3600 * 1000, dueShards: DEFAULT_DUE_SHARDS };
  const stores = {
    subscriptions: createDynamoSubscriptionStore(ctx),
    deliveries: createDynamoDeliveryStore(ctx, {
      // No sleeping in tests: the waits are recorded (random 1 → the upper end of each jitter).
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      random: () => 1,
    }),
  };
  const h = harness({ stores });
  cleanups.push(h.sender.close);
  return { h, tableName, sleeps, writes };
}

const requestsOf = (items: BatchWriteCommand) => Object.values(items.input.RequestItems ?? {})[0] ?? [];
const batchOf = (tableName: string, requests: ReturnType<typeof requestsOf>) =>
  new BatchWriteCommand({ RequestItems: { [tableName]: requests } });

describe('first attempts recorded after the fact, on DynamoDB Local', () => {
  it('writes nothing before a first attempt and records successes with BatchWriteItem only', async () => {
    const { h, writes } = await dynamo();
    const rx = await startReceiver();
    cleanups.push(rx.close);
    const sub = await h.subscribe({ url: rx.url() });
    const engine = h.makeEngine({ directHoldMs: 60_000 });
    for (const name of Object.keys(writes)) delete writes[name];
    const events = [event(), event(), event(), event(), event()];
    const results = await Promise.all(events.map((e) => engine.fanOut(e)));
    await Promise.all(results.map((r) => r.settled));
    expect(rx.requests).toHaveLength(5);
    for (const name of ['PutItem', 'UpdateItem', 'TransactWriteItems']) expect(writes[name] ?? 0).toBe(0);
    expect(writes.BatchWriteItem).toBeGreaterThanOrEqual(1);
    expect(writes.BatchWriteItem).toBeLessThanOrEqual(5);
    for (const e of events) {
      expect(await h.stores.deliveries.get(deliveryId(e.id, sub.id))).toMatchObject({
        status: 'succeeded',
        attempts: 1,
        lastStatusCode: 204,
      });
    }
    const log = await h.service.deliveries(sub.id, {});
    expect(
      log.ok && log.value.items.map((a) => [a.eventId, a.attemptNumber, a.statusCode, a.decision]),
    ).toEqual(expect.arrayContaining(events.map((e) => [e.id, 1, 204, 'done'])));
    expect(log.ok && log.value.items).toHaveLength(5);
  });

  it('a process dying after the attempt, before its batch write: the redelivered event is attempted again with the same webhook-id', async () => {
    const { h } = await dynamo();
    let answers = 0;
    const rx = await startReceiver((_req, res) => res.writeHead(++answers <= 2 ? 503 : 204).end());
    cleanups.push(rx.close);
    const sub = await h.subscribe({ url: rx.url() });
    const id = (e: { id: string }) => deliveryId(e.id, sub.id);
    const e = event();
    // Process A attempts, then dies before its outcome is written: the write never happens.
    const reached: string[] = [];
    const dying: DeliveryStore = {
      ...h.stores.deliveries,
      recordAttempts: (entries) => {
        reached.push(...entries.map((x) => x.delivery.id));
        return new Promise(() => undefined);
      },
    };
    const a = h.makeEngine({ deliveries: dying });
    void a.fanOut(e); // never acknowledged: its message (SQS; the unpublished event locally) comes back
    await vi.waitFor(() => expect(reached).toEqual([id(e)]));
    expect(rx.requests).toHaveLength(1);
    expect(await h.stores.deliveries.get(id(e))).toBeUndefined();
    // Process B gets the redelivered event: the endpoint fails again, so the retry is written durably
    // (with its schedule) before B's fan-out returns.
    const again = await h.engine.fanOut(e);
    await again.settled;
    expect(await h.stores.deliveries.get(id(e))).toMatchObject({ status: 'pending', attempts: 1 });
    expect(h.queue.sent.map((m) => m.body.deliveryId)).toEqual([id(e)]);
    await h.drain();
    expect(await h.stores.deliveries.get(id(e))).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(rx.requests.map((r) => r.headers['webhook-id'])).toEqual([e.id, e.id, e.id]);
    const log = await h.service.deliveries(sub.id, {});
    // A's attempt was never recorded (it died first): the log holds what B and the retry recorded.
    expect(log.ok && log.value.items.map((x) => [x.attemptNumber, x.statusCode])).toEqual([
      [2, 204],
      [1, 503],
    ]);
  });

  it('retries a BatchWriteItem that leaves items unprocessed, with backoff, until every item landed', async () => {
    let unprocessed = 0;
    const { h, tableName, sleeps } = await dynamo(async (command, send, call) => {
      const requests = requestsOf(command);
      if (call >= 3 || requests.length < 2) return send(command);
      // DynamoDB takes the first half and hands the rest back.
      const half = Math.ceil(requests.length / 2);
      await send(batchOf(tableName, requests.slice(0, half)));
      unprocessed += requests.length - half;
      return { $metadata: {}, UnprocessedItems: { [tableName]: requests.slice(half) } };
    });
    const rx = await startReceiver();
    cleanups.push(rx.close);
    const subs = [
      await h.subscribe({ url: rx.url() }),
      await h.subscribe({ url: rx.url() }),
      await h.subscribe({ url: rx.url() }),
    ];
    const e = event();
    const result = await h.engine.fanOut(e);
    await result.settled;
    expect(unprocessed).toBeGreaterThan(0);
    expect(sleeps.length).toBeGreaterThan(0);
    for (const sub of subs) {
      expect(await h.stores.deliveries.get(deliveryId(e.id, sub.id))).toMatchObject({
        status: 'succeeded',
        attempts: 1,
      });
      const log = await h.stores.deliveries.listAttempts({ subscriptionId: sub.id });
      expect(log.items.map((a) => [a.eventId, a.outcome])).toEqual([[e.id, 'success']]);
    }
    expect(h.problems).toEqual([]);
  });

  it('items still unprocessed after every round fail the fan-out; the bus retries the event, which is then recorded', async () => {
    let broken = true;
    const { h, tableName } = await dynamo(async (command, send) =>
      broken ? { $metadata: {}, UnprocessedItems: { [tableName]: requestsOf(command) } } : send(command),
    );
    const rx = await startReceiver();
    cleanups.push(rx.close);
    const sub = await h.subscribe({ url: rx.url() });
    const bus = new LocalBus({ out: null });
    bus.subscribe(fanOutSubscriber(h.engine), { name: 'webhooks' });
    const e = event();
    const first = await bus.publish([e]);
    expect(first.published).toEqual([]);
    expect(first.failed).toMatchObject([{ id: e.id, retryable: true, code: 'SubscriberFailed' }]);
    expect(first.failed[0]?.message).toContain('not recorded');
    expect(await h.stores.deliveries.get(deliveryId(e.id, sub.id))).toBeUndefined();
    broken = false;
    const second = await bus.publish([e]); // the publisher's retry of a failed event
    expect(second.published).toEqual([e.id]);
    expect(rx.requests.map((r) => r.headers['webhook-id'])).toEqual([e.id, e.id]);
    expect(await h.stores.deliveries.get(deliveryId(e.id, sub.id))).toMatchObject({ status: 'succeeded' });
    const log = await h.stores.deliveries.listAttempts({ subscriptionId: sub.id });
    expect(log.items).toHaveLength(1);
  });

  it('a throttled BatchWriteItem (the SDK’s retries spent) fails the fan-out unrecorded, without a store-level retry; the bus’s retry records it', async () => {
    let throttle = true;
    let batchCalls = 0;
    const { h, sleeps } = await dynamo(async (command, send) => {
      batchCalls++;
      if (throttle) throw throttled();
      return send(command);
    });
    const rx = await startReceiver();
    cleanups.push(rx.close);
    const sub = await h.subscribe({ url: rx.url() });
    const e = event();
    await expect(h.engine.fanOut(e)).rejects.toMatchObject({ name: 'DeliveryError', kind: 'StoreFailure' });
    expect(batchCalls).toBe(1);
    expect(sleeps).toEqual([]);
    expect(await h.stores.deliveries.get(deliveryId(e.id, sub.id))).toBeUndefined();

    throttle = false;
    await (await h.engine.fanOut(e)).settled; // the bus delivers the failed event again
    expect(await h.stores.deliveries.get(deliveryId(e.id, sub.id))).toMatchObject({ status: 'succeeded' });
    expect(rx.requests.map((r) => r.headers['webhook-id'])).toEqual([e.id, e.id]);
  });

  it('an attempt still running after the hold is written claimed before the fan-out returns; if its process dies, the sweep retries it', async () => {
    const { h } = await dynamo();
    const held: http.ServerResponse[] = [];
    let hold = true;
    const rx = await startReceiver((_req, res) => (hold ? held.push(res) : res.writeHead(204).end()));
    cleanups.push(rx.close, () => {
      for (const r of held) r.destroy();
    });
    const sub = await h.subscribe({ url: rx.url() });
    const e = event();
    const id = deliveryId(e.id, sub.id);
    const a = h.makeEngine(); // the process that will die
    const result = await a.fanOut(e); // returns after the hold (200 ms here) and the claimed write
    expect(held).toHaveLength(1);
    expect(await h.stores.deliveries.get(id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      nextAttemptAt: new Date(h.clock.ms() + 60_000).toISOString(),
    });
    // A dies mid-attempt. After its lease and the grace, the sweep hands the delivery to a worker.
    h.clock.advance(121_000);
    hold = false;
    expect(await h.engine.sweep()).toBe(1);
    await h.drain();
    expect(rx.requests.map((r) => r.headers['webhook-id'])).toEqual([e.id, e.id]);
    expect(await h.stores.deliveries.get(id)).toMatchObject({ status: 'succeeded', attempts: 2 });
    // A was only slow after all: its late outcome finds a newer claim and changes nothing.
    for (const r of held.splice(0)) r.writeHead(500).end();
    await result.settled;
    expect(await h.stores.deliveries.get(id)).toMatchObject({ status: 'succeeded', attempts: 2 });
    const log = await h.stores.deliveries.listAttempts({ subscriptionId: sub.id });
    expect(log.items.map((x) => [x.attemptNumber, x.outcome])).toEqual([[2, 'success']]);
  });
});

describe('options of the recorded first attempts', () => {
  it('refuses a bad hold, slow period, record concurrency or batch retry setting, naming it', async () => {
    const h = harness();
    cleanups.push(h.sender.close);
    expect(() => h.makeEngine({ directHoldMs: -1 })).toThrow(/directHoldMs/);
    expect(() => h.makeEngine({ slowForMs: 1.5 })).toThrow(/slowForMs/);
    expect(() => h.makeEngine({ recordConcurrency: 0 })).toThrow(/recordConcurrency/);
    const client = localDynamoClient();
    const ctx = {
      doc: documentClient(client),
      tableName: uniqueTableName(),
      eventRetentionMs: 1000,
      dueShards: DEFAULT_DUE_SHARDS,
    };
    expect(() => createDynamoDeliveryStore(ctx, { batchRounds: 0 })).toThrow(/batchRounds/);
    expect(() => createDynamoDeliveryStore(ctx, { batchBackoffMs: Number.NaN })).toThrow(/batchBackoffMs/);
  });
});
