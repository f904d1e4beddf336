import { describe, expect, it } from 'vitest';
import { createQueueTable, LocalQueue } from '../../functions/adapters/local/queue';
import { QueueSendError } from '../../functions/core/queue/ports';
import { localDynamoClient, uniqueTableName } from '../support/dynamodb';

interface Job {
  n: number;
}

const setup = async (options: { maxReceiveCount?: number } = {}) => {
  const client = localDynamoClient();
  const tableName = uniqueTableName('queue');
  await createQueueTable(client, tableName);
  const clock = { now: 1_800_000_000_000 };
  const make = (queueName = 'jobs') =>
    new LocalQueue<Job>({ client, tableName, queueName, now: () => clock.now, ...options });
  return { client, tableName, clock, make, queue: make() };
};

const jobs = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => ({ body: { n: from + i } }));

describe('local durable queue (DynamoDB)', () => {
  it('delivers every sent message, hidden while in flight, gone once deleted', async () => {
    const { queue } = await setup();
    await queue.send(jobs(3));
    const first = await queue.receive(10, 30);
    expect(first.map((m) => m.body.n).sort()).toEqual([0, 1, 2]);
    expect(first.every((m) => m.receiveCount === 1)).toBe(true);
    expect(await queue.receive(10, 30)).toEqual([]);
    for (const message of first) expect(await queue.delete(message.receipt)).toBe(true);
    expect(await queue.count()).toBe(0);
  });

  it('never gives one message to two concurrent consumers within its visibility timeout', async () => {
    const { make } = await setup();
    const producer = make();
    await producer.send(jobs(40));
    const consumers = Array.from({ length: 6 }, () => make());
    const got: number[] = [];
    for (let round = 0; round < 6; round++) {
      const batches = await Promise.all(consumers.map((c) => c.receive(5, 60)));
      for (const batch of batches) got.push(...batch.map((m) => m.body.n));
    }
    expect(got.length).toBe(new Set(got).size);
    expect(new Set(got)).toEqual(new Set(Array.from({ length: 40 }, (_, i) => i)));
  });

  it('redelivers a message whose visibility timeout expired, and the old receipt can no longer delete it', async () => {
    const { queue, clock } = await setup();
    await queue.send(jobs(1));
    const [first] = await queue.receive(1, 5);
    clock.now += 4_999;
    expect(await queue.receive(1, 5)).toEqual([]);
    clock.now += 1;
    const [second] = await queue.receive(1, 5);
    expect(second?.id).toBe(first?.id);
    expect(second?.receiveCount).toBe(2);
    expect(await queue.delete(first?.receipt ?? '')).toBe(false);
    expect(await queue.delete(second?.receipt ?? '')).toBe(true);
  });

  it('holds a delayed message back until its delay has passed', async () => {
    const { queue, clock } = await setup();
    await queue.send([{ body: { n: 1 }, delaySeconds: 3_600 }, { body: { n: 2 } }]);
    const [now] = await queue.receive(10, 30);
    expect(now?.body.n).toBe(2);
    await queue.delete(now?.receipt ?? '');
    clock.now += 3_599_000;
    expect(await queue.receive(10, 30)).toEqual([]);
    clock.now += 1_000;
    expect((await queue.receive(10, 30)).map((m) => m.body.n)).toEqual([1]);
  });

  it('changeVisibility re-times an in-flight message and refuses a stale receipt', async () => {
    const { queue, clock } = await setup();
    await queue.send(jobs(1));
    const [message] = await queue.receive(1, 30);
    expect(await queue.changeVisibility(message?.receipt ?? '', 600)).toBe(true);
    clock.now += 300_000;
    expect(await queue.receive(1, 30)).toEqual([]);
    clock.now += 300_000;
    const [again] = await queue.receive(1, 30);
    expect(again?.id).toBe(message?.id);
    expect(await queue.changeVisibility(message?.receipt ?? '', 0)).toBe(false);
    expect(await queue.changeVisibility('not-a-receipt', 0)).toBe(false);
    await expect(queue.changeVisibility(again?.receipt ?? '', 43_201)).rejects.toThrow(/0…43200/);
  });

  it('moves a message to the dead-letter queue after maxReceiveCount receives', async () => {
    const { queue, clock, make } = await setup({ maxReceiveCount: 3 });
    await queue.send([{ body: { n: 7 } }]);
    for (let i = 1; i <= 3; i++) {
      const [message] = await queue.receive(1, 10);
      expect(message?.receiveCount).toBe(i);
      clock.now += 10_000;
    }
    expect(await queue.receive(1, 10)).toEqual([]);
    expect(await queue.count()).toBe(0);
    const dlq = make('jobs-dlq');
    const [dead] = await dlq.receive(1, 10);
    expect(dead?.body).toEqual({ n: 7 });
  });

  it('redrives dead-lettered messages back to their queue with a fresh receive count', async () => {
    const { queue, clock, make } = await setup({ maxReceiveCount: 1 });
    await queue.send([{ body: { n: 1 } }, { body: { n: 2 } }]);
    await queue.receive(10, 10);
    clock.now += 10_000;
    expect(await queue.receive(10, 10)).toEqual([]); // both dead-lettered now
    expect(await make('jobs-dlq').count()).toBe(2);
    expect(await queue.redrive()).toBe(2);
    expect(await make('jobs-dlq').count()).toBe(0);
    const back = await queue.receive(10, 10);
    expect(back.map((m) => [m.body.n, m.receiveCount]).sort()).toEqual([
      [1, 1],
      [2, 1],
    ]);
  });

  it('loses nothing across a restart: a new instance on the same table sees pending and in-flight messages', async () => {
    const { client, tableName, clock } = await setup();
    const before = new LocalQueue<Job>({ client, tableName, queueName: 'deliveries', now: () => clock.now });
    await before.send(jobs(5));
    await before.receive(2, 30); // in flight when the process "dies"
    const after = new LocalQueue<Job>({ client, tableName, queueName: 'deliveries', now: () => clock.now });
    await createQueueTable(client, tableName); // start-up on an existing table is harmless
    expect((await after.receive(10, 30)).length).toBe(3);
    clock.now += 30_000;
    expect((await after.receive(10, 30)).length).toBe(5);
  });

  it('keeps logical queues apart in one table', async () => {
    const { make } = await setup();
    await make('poll-jobs').send(jobs(2));
    expect(await make('deliveries').receive(10, 30)).toEqual([]);
    expect((await make('poll-jobs').receive(10, 30)).length).toBe(2);
  });

  it('drops a second send with a dedupId that is still pending', async () => {
    const { queue } = await setup();
    await queue.send([{ body: { n: 1 }, dedupId: 'poll-v1-events' }]);
    await queue.send([{ body: { n: 2 }, dedupId: 'poll-v1-events' }]);
    const got = await queue.receive(10, 30);
    expect(got.map((m) => m.body.n)).toEqual([1]);
  });

  it('refuses bad messages and arguments with errors naming the field', async () => {
    const { queue } = await setup();
    const error = await queue
      .send([{ body: { n: 1 } }, { body: { n: 2 }, delaySeconds: -1 }])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueueSendError);
    expect((error as QueueSendError).kind).toBe('InvalidMessage');
    expect((error as QueueSendError).failures).toEqual([
      expect.objectContaining({ index: 1, code: 'InvalidDelay' }),
    ]);
    expect(await queue.count()).toBe(0); // nothing sent when one message is invalid
    const big = await queue
      .send([{ body: { n: 1, pad: 'x'.repeat(300_000) } as Job }])
      .catch((e: unknown) => e);
    expect((big as QueueSendError).failures[0]?.code).toBe('MessageTooLarge');
    await expect(queue.receive(0, 30)).rejects.toThrow(/max must be an integer/);
    await expect(queue.receive(1, -1)).rejects.toThrow(/visibility timeout/);
  });
});
