import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createQueueTable, LocalQueue } from '../../functions/adapters/local/queue';
import type { ReceivedMessage } from '../../functions/core/queue/ports';
import { processMessages, runConsumer } from '../../functions/core/queue/process';
import { localDynamoClient, uniqueTableName } from '../support/dynamodb';

interface Job {
  n: number;
}

const setup = async () => {
  const client = localDynamoClient();
  const tableName = uniqueTableName('consumer');
  await createQueueTable(client, tableName);
  const clock = { now: 1_800_000_000_000 };
  const make = () => new LocalQueue<Job>({ client, tableName, queueName: 'jobs', now: () => clock.now });
  return { clock, make, queue: make() };
};

const deferred = () => {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

const message = (
  id: string,
  body: unknown,
  extra: Partial<ReceivedMessage<unknown>> = {},
): ReceivedMessage<unknown> => ({
  id,
  body,
  receipt: `r-${id}`,
  receiveCount: 1,
  sentAt: 0,
  ...extra,
});

describe('runConsumer over the local queue', () => {
  it('with untilEmpty: handles what is visible now, and what that sends, then returns without waiting', async () => {
    const { clock, queue } = await setup();
    await queue.send([{ body: { n: 1 } }, { body: { n: 2 } }, { body: { n: 3 }, delaySeconds: 60 }]);
    const seen: number[] = [];
    const drain = () =>
      runConsumer<Job>(
        queue,
        async (job) => {
          seen.push(job.n);
          // A handler that queues a follow-up, visible at once: handled in the same drain.
          if (job.n === 1) await queue.send([{ body: { n: 10 } }]);
        },
        // A consumer that waited for more would never return: no abort is ever signalled.
        { signal: new AbortController().signal, untilEmpty: true, concurrency: 2, idleDelayMs: 60_000 },
      );
    const first = await drain();
    expect(seen.sort((a, b) => a - b)).toEqual([1, 2, 10]);
    expect(first).toMatchObject({ received: 3, done: 3 });
    // The delayed message stays queued until the injected clock reaches it.
    expect(await queue.count()).toBe(1);
    expect(await drain()).toMatchObject({ received: 0 });
    clock.now += 60_000;
    expect(await drain()).toMatchObject({ received: 1, done: 1 });
    expect(seen).toContain(3);
    expect(await queue.count()).toBe(0);
  });

  it('handles every message once and deletes it', async () => {
    const { queue } = await setup();
    await queue.send(Array.from({ length: 25 }, (_, n) => ({ body: { n } })));
    const controller = new AbortController();
    const seen: number[] = [];
    const stats = await runConsumer<Job>(
      queue,
      async (job) => {
        seen.push(job.n);
        if (seen.length === 25) controller.abort();
      },
      { signal: controller.signal, concurrency: 5, idleDelayMs: 5 },
    );
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, n) => n));
    expect(stats.done).toBe(25);
    expect(await queue.count()).toBe(0);
  });

  it('on shutdown finishes in-flight messages and leaves the rest queued for the next start', async () => {
    const { make, queue } = await setup();
    await queue.send(Array.from({ length: 6 }, (_, n) => ({ body: { n } })));
    const controller = new AbortController();
    const started: number[] = [];
    const gate = deferred();
    const allStarted = deferred();
    const running = runConsumer<Job>(
      queue,
      async (job) => {
        started.push(job.n);
        if (started.length === 2) allStarted.resolve();
        await gate.promise;
      },
      { signal: controller.signal, concurrency: 2, idleDelayMs: 5 },
    );
    await allStarted.promise;
    controller.abort();
    gate.resolve();
    const stats = await running;
    expect(stats.done).toBe(2);
    // The four never received are still there, visible at once for the restarted worker.
    const restarted = await make().receive(10, 30);
    expect(restarted.map((m) => m.body.n).sort()).toEqual(
      [0, 1, 2, 3, 4, 5].filter((n) => !started.includes(n)).sort(),
    );
  });

  it('hands back a message its handler abandoned because of shutdown, without waiting for the timeout', async () => {
    const { queue } = await setup();
    await queue.send([{ body: { n: 1 } }]);
    const controller = new AbortController();
    const running = runConsumer<Job>(
      queue,
      async (_job, { signal }) => {
        controller.abort();
        if (signal.aborted) throw new Error('shutting down before the POST');
      },
      { signal: controller.signal, visibilityTimeoutSeconds: 3_600, idleDelayMs: 5 },
    );
    expect((await running).failed).toBe(1);
    const [again] = await queue.receive(1, 30);
    expect(again?.body.n).toBe(1);
    expect(again?.receiveCount).toBe(2);
  });

  it('keeps a message the handler asked to retry later hidden for that long', async () => {
    const { queue, clock } = await setup();
    await queue.send([{ body: { n: 1 } }]);
    const controller = new AbortController();
    const stats = await runConsumer<Job>(
      queue,
      async () => {
        controller.abort();
        return { retryInSeconds: 300 };
      },
      { signal: controller.signal, idleDelayMs: 5 },
    );
    expect(stats.retried).toBe(1);
    clock.now += 299_000;
    expect(await queue.receive(1, 30)).toEqual([]);
    clock.now += 1_000;
    expect((await queue.receive(1, 30)).length).toBe(1);
  });

  it('fails a message whose body does not parse, naming the field, and leaves it for the dead-letter queue', async () => {
    const { queue, clock } = await setup();
    await queue.send([{ body: { n: 'three' } as unknown as Job }]);
    const controller = new AbortController();
    const errors: string[] = [];
    await runConsumer<Job>(queue, async () => {}, {
      signal: controller.signal,
      idleDelayMs: 5,
      parse: (raw) => z.object({ n: z.number() }).parse(raw),
      onResult: (result) => {
        if (result.error) errors.push(result.error);
        controller.abort();
      },
    });
    expect(errors[0]).toMatch(/invalid body/);
    expect(errors[0]).toMatch(/"n"|\bn\b/);
    clock.now += 30_000;
    expect((await queue.receive(1, 30)).length).toBe(1);
  });

  it('keeps going when a receive fails, and reports it', async () => {
    const controller = new AbortController();
    let calls = 0;
    const errors: string[] = [];
    const flaky = {
      async receive() {
        calls++;
        if (calls === 1) throw new Error('DynamoDB Local is restarting');
        controller.abort();
        return [];
      },
      delete: async () => true,
      changeVisibility: async () => true,
    };
    await runConsumer(flaky, async () => {}, {
      signal: controller.signal,
      idleDelayMs: 1,
      onError: (e) => errors.push(`${e.stage}: ${e.message}`),
    });
    expect(calls).toBe(2);
    expect(errors).toEqual(['receive: Error: DynamoDB Local is restarting']);
  });
});

describe('processMessages (shared by Lambda and local workers)', () => {
  it('defers a message received before its notBefore for the remaining time, capped under 12 h', async () => {
    const changes: [string, number][] = [];
    const handled: string[] = [];
    const now = 1_000_000;
    const results = await processMessages(
      [
        message('a', {}, { notBefore: now + 90_500 }),
        message('b', {}, { notBefore: now + 20 * 3_600_000 }),
        message('c', {}, { notBefore: now - 1 }),
      ],
      async (_body, { message }) => {
        handled.push(message.id);
      },
      {
        now: () => now,
        changeVisibility: async (receipt, seconds) => {
          changes.push([receipt, seconds]);
          return true;
        },
      },
    );
    expect(results.map((r) => r.status)).toEqual(['deferred', 'deferred', 'done']);
    expect(changes).toEqual([
      ['r-a', 91],
      ['r-b', 42_900],
    ]);
    expect(handled).toEqual(['c']);
  });

  it('runs messages of one group in order and other messages alongside', async () => {
    const order: string[] = [];
    const firstGate = deferred();
    await processMessages(
      [message('g1', 1, { groupKey: 'v1' }), message('g2', 2, { groupKey: 'v1' }), message('x', 3)],
      async (_body, { message }) => {
        order.push(`start ${message.id}`);
        if (message.id === 'g1') await firstGate.promise;
        if (message.id === 'x') firstGate.resolve();
        order.push(`end ${message.id}`);
      },
      { changeVisibility: async () => true },
    );
    expect(order.indexOf('end g1')).toBeLessThan(order.indexOf('start g2'));
    expect(order.indexOf('start x')).toBeLessThan(order.indexOf('end g1'));
  });

  it('reports a handler that throws as failed without touching the message', async () => {
    let changed = false;
    const [result] = await processMessages(
      [message('a', {})],
      async () => {
        throw new Error('receiver returned 503');
      },
      {
        changeVisibility: async () => {
          changed = true;
          return true;
        },
      },
    );
    expect(result).toMatchObject({ id: 'a', status: 'failed', error: expect.stringMatching(/503/) });
    expect(changed).toBe(false);
  });
});

describe('two local workers on one queue', () => {
  it('together handle every message, none twice while within its visibility timeout', async () => {
    const { make } = await setup();
    const producer = make();
    await producer.send(Array.from({ length: 30 }, (_, n) => ({ body: { n } })));
    const controller = new AbortController();
    const handled: number[] = [];
    const handler = async (job: Job) => {
      handled.push(job.n);
      if (handled.length >= 30) controller.abort();
    };
    const options = {
      signal: controller.signal,
      concurrency: 3,
      idleDelayMs: 5,
      visibilityTimeoutSeconds: 300,
    };
    const [a, b] = await Promise.all([
      runConsumer(make(), handler, options),
      runConsumer(make(), handler, options),
    ]);
    expect(handled.sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, n) => n));
    expect(a.done + b.done).toBe(30);
    expect(await producer.count()).toBe(0);
  });
});
