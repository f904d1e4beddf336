import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalClient, startDynamoDbLocal } from '../../functions/adapters/local/dynamodb-local';
import { createQueueTable, LocalQueue } from '../../functions/adapters/local/queue';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('local queue across a DynamoDB Local restart (--data-dir)', () => {
  it('keeps pending, delayed and in-flight messages when the whole runtime stops and starts again', {
    timeout: 90_000,
  }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'carhook-queue-data-'));
    dirs.push(dataDir);
    let now = 1_800_000_000_000;
    const open = (endpoint: string) =>
      new LocalQueue<{ n: number }>({
        client: dynamoDbLocalClient(endpoint),
        tableName: 'carhook-local',
        queueName: 'deliveries',
        now: () => now,
      });

    const first = await startDynamoDbLocal({ dataDir });
    try {
      await createQueueTable(dynamoDbLocalClient(first.endpoint), 'carhook-local');
      const queue = open(first.endpoint);
      await queue.send([{ body: { n: 1 } }, { body: { n: 2 } }, { body: { n: 3 }, delaySeconds: 600 }]);
      expect((await queue.receive(1, 60)).length).toBe(1); // in flight at the "crash"
    } finally {
      await first.stop();
    }

    const second = await startDynamoDbLocal({ dataDir });
    try {
      await createQueueTable(dynamoDbLocalClient(second.endpoint), 'carhook-local');
      const queue = open(second.endpoint);
      expect(await queue.count()).toBe(3);
      now += 600_000;
      const got = await queue.receive(10, 60);
      expect(got.map((m) => m.body.n).sort()).toEqual([1, 2, 3]);
    } finally {
      await second.stop();
    }
  });
});
