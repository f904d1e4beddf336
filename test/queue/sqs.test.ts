import {
  type BatchResultErrorEntry,
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createSqsBatchHandler, queueUrlFromArn } from '../../functions/adapters/sqs/lambda';
import {
  NOT_BEFORE_ATTRIBUTE,
  type SqsClientLike,
  type SqsCommand,
  SqsQueue,
} from '../../functions/adapters/sqs/queue';
import { QueueSendError } from '../../functions/core/queue/ports';

const URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/carhook-deliveries';
const ARN = 'arn:aws:sqs:eu-west-1:123456789012:carhook-deliveries';
const NOW = 1_800_000_000_000;

/** Records every command; `failSend` decides per call which entries SQS fails. */
const fakeSqs = (
  options: {
    failSend?: (call: number, ids: string[]) => BatchResultErrorEntry[];
    onOther?: (command: SqsCommand) => unknown;
  } = {},
) => {
  const commands: SqsCommand[] = [];
  let sendCalls = 0;
  const client: SqsClientLike = {
    async send(command) {
      commands.push(command);
      if (command instanceof SendMessageBatchCommand) {
        sendCalls++;
        const ids = (command.input.Entries ?? []).map((e) => e.Id ?? '');
        const failed = options.failSend?.(sendCalls, ids) ?? [];
        const failedIds = new Set(failed.map((f) => f.Id));
        return {
          Successful: ids
            .filter((id) => !failedIds.has(id))
            .map((Id) => ({ Id, MessageId: `m-${Id}`, MD5OfMessageBody: '' })),
          Failed: failed,
          $metadata: {},
        };
      }
      const other = options.onOther?.(command);
      if (other instanceof Error) throw other;
      return { ...(other as object), $metadata: {} };
    },
  };
  const batches = () =>
    commands
      .filter((c): c is SendMessageBatchCommand => c instanceof SendMessageBatchCommand)
      .map((c) => c.input.Entries ?? []);
  return { client, commands, batches };
};

const queue = <T>(client: SqsClientLike, url = URL) =>
  new SqsQueue<T>({ client, queueUrl: url, now: () => NOW, sleep: async () => {}, random: () => 0 });

describe('SQS queue adapter: sending', () => {
  it('sends JSON bodies in SendMessageBatch calls of at most 10', async () => {
    const { client, batches } = fakeSqs();
    await queue<{ n: number }>(client).send(Array.from({ length: 23 }, (_, n) => ({ body: { n } })));
    expect(batches().map((b) => b.length)).toEqual([10, 10, 3]);
    expect(JSON.parse(batches()[2]?.[2]?.MessageBody ?? '')).toEqual({ n: 22 });
  });

  it('keeps each call within 256 KB', async () => {
    const { client, batches } = fakeSqs();
    const pad = 'x'.repeat(100_000);
    await queue<string>(client).send([{ body: pad }, { body: pad }, { body: pad }]);
    expect(batches().map((b) => b.length)).toEqual([2, 1]);
  });

  it('uses DelaySeconds up to 900 s and carries longer delays as a notBefore attribute', async () => {
    const { client, batches } = fakeSqs();
    await queue<string>(client).send([
      { body: 'soon', delaySeconds: 300 },
      { body: 'later', delaySeconds: 10 * 3600 },
      { body: 'now' },
    ]);
    const [soon, later, now] = batches()[0] ?? [];
    expect(soon?.DelaySeconds).toBe(300);
    expect(soon?.MessageAttributes).toBeUndefined();
    expect(later?.DelaySeconds).toBe(900);
    expect(later?.MessageAttributes?.[NOT_BEFORE_ATTRIBUTE]).toEqual({
      DataType: 'Number',
      StringValue: String(NOW + 10 * 3_600_000),
    });
    expect(now?.DelaySeconds).toBeUndefined();
  });

  it('on a FIFO queue sends group and deduplication ids and no per-message DelaySeconds', async () => {
    const { client, batches } = fakeSqs();
    await queue<string>(client, `${URL}.fifo`).send([
      { body: 'a', groupKey: 'veh-1', dedupId: 'job-1', delaySeconds: 60 },
    ]);
    const [entry] = batches()[0] ?? [];
    expect(entry).toMatchObject({ MessageGroupId: 'veh-1', MessageDeduplicationId: 'job-1' });
    expect(entry?.DelaySeconds).toBeUndefined();
    expect(entry?.MessageAttributes?.[NOT_BEFORE_ATTRIBUTE]?.StringValue).toBe(String(NOW + 60_000));
  });

  it('retries only the entries SQS failed without sender fault', async () => {
    const { client, batches } = fakeSqs({
      failSend: (call) => (call === 1 ? [{ Id: '1', SenderFault: false, Code: 'InternalError' }] : []),
    });
    await queue<number>(client).send([{ body: 0 }, { body: 1 }, { body: 2 }]);
    expect(batches().map((b) => b.map((e) => e.MessageBody))).toEqual([['0', '1', '2'], ['1']]);
  });

  it('rejects with SendFailed naming the message when SQS blames the sender, after sending the rest', async () => {
    const { client, batches } = fakeSqs({
      failSend: () => [{ Id: '1', SenderFault: true, Code: 'InvalidMessageContents', Message: 'bad char' }],
    });
    const error = (await queue<string>(client)
      .send([{ body: 'a' }, { body: 'b' }])
      .catch((e: unknown) => e)) as QueueSendError;
    expect(error).toBeInstanceOf(QueueSendError);
    expect(error.kind).toBe('SendFailed');
    expect(error.failures).toEqual([expect.objectContaining({ index: 1, code: 'InvalidMessageContents' })]);
    expect(batches()).toHaveLength(1);
  });

  it('gives up after maxAttempts on an entry that keeps failing', async () => {
    const { client, batches } = fakeSqs({
      failSend: () => [{ Id: '0', SenderFault: false, Code: 'InternalError' }],
    });
    const error = (await queue<string>(client)
      .send([{ body: 'a' }])
      .catch((e: unknown) => e)) as QueueSendError;
    expect(error.kind).toBe('SendFailed');
    expect(batches()).toHaveLength(3);
  });

  it('does not send a failed call again (the SDK client retried it): SendFailed names each of its messages', async () => {
    let calls = 0;
    const throttled = Object.assign(new Error('Rate exceeded'), {
      name: 'ThrottlingException',
      $metadata: { httpStatusCode: 400 },
    });
    const client: SqsClientLike = {
      async send() {
        calls++;
        throw throttled;
      },
    };
    const error = (await queue<string>(client)
      .send([{ body: 'a' }, { body: 'b' }])
      .catch((e: unknown) => e)) as QueueSendError;
    expect(error).toBeInstanceOf(QueueSendError);
    expect(error.kind).toBe('SendFailed');
    expect(error.failures.map((f) => [f.index, f.code])).toEqual([
      [0, 'ThrottlingException'],
      [1, 'ThrottlingException'],
    ]);
    expect(calls).toBe(1);
  });

  it('refuses an oversized or invalid message before sending anything', async () => {
    const { client, batches } = fakeSqs();
    const error = (await queue<string>(client)
      .send([{ body: 'ok' }, { body: 'x'.repeat(262_144) }, { body: 'ok', delaySeconds: Number.NaN }])
      .catch((e: unknown) => e)) as QueueSendError;
    expect(error.kind).toBe('InvalidMessage');
    expect(error.failures.map((f) => [f.index, f.code])).toEqual([
      [1, 'MessageTooLarge'],
      [2, 'InvalidDelay'],
    ]);
    expect(batches()).toEqual([]);
  });

  it('accepts a real SQSClient', () => {
    expect(new SqsQueue({ client: new SQSClient({ region: 'eu-west-1' }), queueUrl: URL })).toBeInstanceOf(
      SqsQueue,
    );
  });
});

describe('SQS queue adapter: consuming', () => {
  it('maps received messages, including receive count, group and notBefore', async () => {
    const { client, commands } = fakeSqs({
      onOther: (command) =>
        command instanceof ReceiveMessageCommand
          ? {
              Messages: [
                {
                  MessageId: 'm1',
                  ReceiptHandle: 'rh1',
                  Body: '{"n":1}',
                  Attributes: {
                    ApproximateReceiveCount: '3',
                    SentTimestamp: String(NOW),
                    MessageGroupId: 'g',
                  },
                  MessageAttributes: {
                    [NOT_BEFORE_ATTRIBUTE]: { DataType: 'Number', StringValue: String(NOW + 5) },
                  },
                },
              ],
            }
          : {},
    });
    const [message] = await queue<{ n: number }>(client).receive(10, 60);
    expect(message).toEqual({
      id: 'm1',
      body: { n: 1 },
      receipt: 'rh1',
      receiveCount: 3,
      sentAt: NOW,
      groupKey: 'g',
      notBefore: NOW + 5,
    });
    expect(commands[0]?.input).toMatchObject({ MaxNumberOfMessages: 10, VisibilityTimeout: 60 });
    await expect(queue(client).receive(11, 60)).rejects.toThrow(/1…10/);
  });

  it('answers false for a stale receipt on delete and changeVisibility', async () => {
    const stale = Object.assign(new Error('gone'), { name: 'ReceiptHandleIsInvalid' });
    const { client } = fakeSqs({
      onOther: (command) =>
        command instanceof DeleteMessageCommand || command instanceof ChangeMessageVisibilityCommand
          ? stale
          : {},
    });
    expect(await queue(client).delete('old')).toBe(false);
    expect(await queue(client).changeVisibility('old', 10)).toBe(false);
  });
});

const record = (id: string, body: unknown, extra: Partial<SQSRecord> = {}): SQSRecord => ({
  messageId: id,
  receiptHandle: `rh-${id}`,
  body: typeof body === 'string' ? body : JSON.stringify(body),
  attributes: {
    ApproximateReceiveCount: '1',
    SentTimestamp: String(NOW),
    SenderId: 'x',
    ApproximateFirstReceiveTimestamp: String(NOW),
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: ARN,
  awsRegion: 'eu-west-1',
  ...extra,
});

describe('Lambda SQS batch handler (partial batch responses)', () => {
  it('reports only the records not done as batchItemFailures', async () => {
    const { client } = fakeSqs();
    const handler = createSqsBatchHandler<{ n: number }>(
      async (body) => {
        if (body.n === 2) throw new Error('receiver returned 500');
      },
      { client },
    );
    const event: SQSEvent = {
      Records: [record('a', { n: 1 }), record('b', { n: 2 }), record('c', { n: 3 })],
    };
    expect(await handler(event)).toEqual({ batchItemFailures: [{ itemIdentifier: 'b' }] });
  });

  it('defers a record that carries a later notBefore, on the queue named by its ARN, without running it', async () => {
    const { client, commands } = fakeSqs();
    let ran = false;
    const handler = createSqsBatchHandler(
      async () => {
        ran = true;
      },
      { client, now: () => NOW },
    );
    const due = NOW + 10 * 3_600_000;
    const response = await handler({
      Records: [
        record('late', 'x', {
          messageAttributes: { [NOT_BEFORE_ATTRIBUTE]: { dataType: 'Number', stringValue: String(due) } },
        }),
      ],
    });
    expect(ran).toBe(false);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'late' }]);
    expect(commands[0]?.input).toEqual({
      QueueUrl: URL,
      ReceiptHandle: 'rh-late',
      VisibilityTimeout: 36_000,
    });
  });

  it('applies a handler retry-after with ChangeMessageVisibility', async () => {
    const { client, commands } = fakeSqs();
    const handler = createSqsBatchHandler(async () => ({ retryInSeconds: 1_800 }), { client });
    const response = await handler({ Records: [record('r', {})] });
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'r' }]);
    expect(commands[0]).toBeInstanceOf(ChangeMessageVisibilityCommand);
    expect(commands[0]?.input).toMatchObject({ VisibilityTimeout: 1_800 });
  });

  it('fails a record whose body is not valid, naming why', async () => {
    const { client } = fakeSqs();
    const errors: string[] = [];
    const handler = createSqsBatchHandler<{ n: number }>(async () => {}, {
      client,
      parse: (raw) => {
        if (typeof (raw as { n?: unknown })?.n !== 'number') throw new Error('field n: expected a number');
        return raw as { n: number };
      },
      onResult: (r) => r.error && errors.push(r.error),
    });
    const response = await handler({ Records: [record('bad', 'not json at all')] });
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'bad' }]);
    expect(errors[0]).toMatch(/invalid body.*field n/);
  });

  it('keeps FIFO order: after a failed record, later records of its group are reported without running', async () => {
    const { client } = fakeSqs();
    const ran: string[] = [];
    const group = (id: string) =>
      record(id, {}, { attributes: { ...record(id, {}).attributes, MessageGroupId: 'veh-1' } });
    const handler = createSqsBatchHandler(
      async (_b, { message }) => {
        ran.push(message.id);
        if (message.id === 'g1') throw new Error('boom');
      },
      { client },
    );
    const response = await handler({ Records: [group('g1'), group('g2'), record('other', {})] });
    expect(ran.sort()).toEqual(['g1', 'other']);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'g1' }, { itemIdentifier: 'g2' }]);
  });

  it('derives queue URLs from ARNs and refuses what is not an SQS ARN', () => {
    expect(queueUrlFromArn(ARN)).toBe(URL);
    expect(queueUrlFromArn('arn:aws-cn:sqs:cn-north-1:123456789012:q.fifo')).toBe(
      'https://sqs.cn-north-1.amazonaws.com.cn/123456789012/q.fifo',
    );
    expect(queueUrlFromArn('arn:aws:sns:eu-west-1:123456789012:topic')).toBeUndefined();
  });
});
