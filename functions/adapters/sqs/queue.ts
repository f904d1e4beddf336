import {
  ChangeMessageVisibilityCommand,
  type ChangeMessageVisibilityCommandOutput,
  DeleteMessageCommand,
  type DeleteMessageCommandOutput,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  type ReceiveMessageCommandOutput,
  SendMessageBatchCommand,
  type SendMessageBatchCommandOutput,
  type SendMessageBatchRequestEntry,
} from '@aws-sdk/client-sqs';
import { backoffCeiling, equalJitter } from '../../core/backoff';
import { planBatches } from '../../core/publishing/limits';
import { checkVisibility, QUEUE_LIMITS, splitDelay, validateOutgoing } from '../../core/queue/limits';
import {
  type JobQueue,
  type OutgoingMessage,
  type QueueConsumer,
  QueueSendError,
  type QueueSendFailure,
  type ReceivedMessage,
} from '../../core/queue/ports';
import { classifyCallError } from '../eventbridge/bus';

export type SqsCommand =
  | SendMessageBatchCommand
  | ReceiveMessageCommand
  | DeleteMessageCommand
  | ChangeMessageVisibilityCommand;

/** What the adapter needs of an `SQSClient` (which satisfies it); fakes implement it in tests. */
export interface SqsClientLike {
  send(
    command: SqsCommand,
  ): Promise<
    | SendMessageBatchCommandOutput
    | ReceiveMessageCommandOutput
    | DeleteMessageCommandOutput
    | ChangeMessageVisibilityCommandOutput
  >;
}

/** Message attribute carrying a due time beyond the 900 s queue delay (see `splitDelay`). */
export const NOT_BEFORE_ATTRIBUTE = 'carhookNotBefore';

export interface SqsQueueOptions {
  readonly client: SqsClientLike;
  readonly queueUrl: string;
  /**
   * SendMessageBatch rounds for entries a successful call reported failed without sender fault
   * (default 3; SendMessageBatch leaves them to the caller). A call that fails is not sent again
   * here: the SDK client has retried it.
   */
  readonly maxAttempts?: number;
  readonly baseDelayMs?: number;
  /** Long polling for `receive` (0–20 s, default 1: short enough to stop promptly). */
  readonly waitTimeSeconds?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

const attributeBytes = (name: string, value: MessageAttributeValue): number =>
  Buffer.byteLength(name) +
  Buffer.byteLength(value.DataType ?? '') +
  Buffer.byteLength(value.StringValue ?? '');

/**
 * SQS as `JobQueue` and `QueueConsumer`. Sends with SendMessageBatch, ≤ 10 entries and ≤ 256 KB
 * per call (body + attributes, as SQS counts them), resends entries a call reported failed
 * without sender fault. Delays over 900 s, and any delay on a FIFO queue (which refuses per-message DelaySeconds),
 * travel as the `carhookNotBefore` attribute: the consumer defers them (`processMessages`).
 */
export class SqsQueue<T> implements JobQueue<T>, QueueConsumer<T> {
  private readonly fifo: boolean;
  constructor(private readonly options: SqsQueueOptions) {
    this.fifo = options.queueUrl.endsWith('.fifo');
  }

  async send(messages: readonly OutgoingMessage<T>[]): Promise<void> {
    const { client, queueUrl } = this.options;
    const now = (this.options.now ?? Date.now)();
    const { encoded, failures } = validateOutgoing(messages, (body) => JSON.stringify(body));
    if (failures.length > 0) throw new QueueSendError('InvalidMessage', queueUrl, failures);

    const entries = messages.map((message, index) => {
      const requested = message.delaySeconds ?? 0;
      const split = this.fifo
        ? requested > 0
          ? { delaySeconds: 0, notBefore: now + Math.ceil(requested) * 1000 }
          : { delaySeconds: 0 }
        : splitDelay(requested, now);
      const attributes: Record<string, MessageAttributeValue> = {};
      if (split.notBefore !== undefined) {
        attributes[NOT_BEFORE_ATTRIBUTE] = { DataType: 'Number', StringValue: String(split.notBefore) };
      }
      const entry: SendMessageBatchRequestEntry = {
        Id: String(index),
        MessageBody: encoded[index],
        ...(split.delaySeconds > 0 ? { DelaySeconds: split.delaySeconds } : {}),
        ...(Object.keys(attributes).length > 0 ? { MessageAttributes: attributes } : {}),
        ...(message.groupKey ? { MessageGroupId: message.groupKey } : {}),
        ...(this.fifo && message.dedupId ? { MessageDeduplicationId: message.dedupId } : {}),
      };
      const size =
        Buffer.byteLength(encoded[index] ?? '') +
        Object.entries(attributes).reduce((sum, [name, value]) => sum + attributeBytes(name, value), 0);
      return { index, entry, size };
    });
    const tooLarge = entries.filter((e) => e.size > QUEUE_LIMITS.maxMessageBytes);
    if (tooLarge.length > 0) {
      throw new QueueSendError(
        'InvalidMessage',
        queueUrl,
        tooLarge.map((e) => ({
          index: e.index,
          code: 'MessageTooLarge',
          message: `message with attributes is ${e.size} bytes; the limit is ${QUEUE_LIMITS.maxMessageBytes}`,
        })),
      );
    }

    const maxAttempts = Math.max(1, this.options.maxAttempts ?? 3);
    const sleep = this.options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    const random = this.options.random ?? Math.random;
    let pending = entries;
    let lastFailures: QueueSendFailure[] = [];
    const permanent: QueueSendFailure[] = [];
    for (let attempt = 1; attempt <= maxAttempts && pending.length > 0; attempt++) {
      if (attempt > 1) {
        await sleep(equalJitter(backoffCeiling(attempt - 1, this.options.baseDelayMs ?? 100), random));
      }
      const { batches } = planBatches(pending, {
        maxEntries: QUEUE_LIMITS.maxBatchEntries,
        maxItemBytes: QUEUE_LIMITS.maxMessageBytes,
        maxBatchBytes: QUEUE_LIMITS.maxBatchBytes,
        sizeOf: (e) => e.size,
      });
      const retry: typeof entries = [];
      lastFailures = [];
      for (const batch of batches) {
        const byId = new Map(batch.map((e) => [e.entry.Id, e]));
        try {
          const output = (await client.send(
            new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: batch.map((e) => e.entry) }),
          )) as SendMessageBatchCommandOutput;
          for (const failed of output.Failed ?? []) {
            const entry = byId.get(failed.Id);
            if (!entry) continue;
            const failure = {
              index: entry.index,
              code: failed.Code ?? 'Unknown',
              message: `SQS refused message ${entry.index}: ${failed.Message ?? failed.Code ?? 'no reason given'}`,
            };
            if (failed.SenderFault) permanent.push(failure);
            else {
              retry.push(entry);
              lastFailures.push(failure);
            }
          }
        } catch (error) {
          // A failed call has had the SDK's retries already: it is final here (only the entries a
          // successful call reports failed are the caller's to resend, as SendMessageBatch says).
          const classified = classifyCallError(error, 'SendMessageBatch');
          for (const entry of batch) {
            permanent.push({ index: entry.index, code: classified.code, message: classified.message });
          }
        }
      }
      pending = retry;
    }
    // Sender faults are not retried; the rest had maxAttempts. Everything not listed was sent.
    if (permanent.length > 0 || pending.length > 0) {
      throw new QueueSendError('SendFailed', queueUrl, [
        ...permanent,
        ...(pending.length > 0 ? lastFailures : []),
      ]);
    }
  }

  async receive(max: number, visibilityTimeoutSeconds: number): Promise<ReceivedMessage<T>[]> {
    if (!Number.isInteger(max) || max < 1 || max > QUEUE_LIMITS.maxReceive) {
      throw new RangeError(
        `receive: max must be an integer in 1…${QUEUE_LIMITS.maxReceive}, got ${String(max)}`,
      );
    }
    const invalid = checkVisibility(visibilityTimeoutSeconds);
    if (invalid) throw new RangeError(`receive: ${invalid}`);
    const output = (await this.options.client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.options.queueUrl,
        MaxNumberOfMessages: max,
        VisibilityTimeout: visibilityTimeoutSeconds,
        WaitTimeSeconds: this.options.waitTimeSeconds ?? 1,
        MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp', 'MessageGroupId'],
        MessageAttributeNames: [NOT_BEFORE_ATTRIBUTE],
      }),
    )) as ReceiveMessageCommandOutput;
    return (output.Messages ?? []).map((message) => fromSqsMessage<T>(message));
  }

  async delete(receipt: string): Promise<boolean> {
    try {
      await this.options.client.send(
        new DeleteMessageCommand({ QueueUrl: this.options.queueUrl, ReceiptHandle: receipt }),
      );
      return true;
    } catch (error) {
      if (isStaleReceipt(error)) return false;
      throw error;
    }
  }

  async changeVisibility(receipt: string, seconds: number): Promise<boolean> {
    const invalid = checkVisibility(seconds);
    if (invalid) throw new RangeError(`changeVisibility: ${invalid}`);
    return changeSqsVisibility(this.options.client, this.options.queueUrl, receipt, seconds);
  }
}

export const changeSqsVisibility = async (
  client: SqsClientLike,
  queueUrl: string,
  receipt: string,
  seconds: number,
): Promise<boolean> => {
  try {
    await client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: receipt,
        VisibilityTimeout: seconds,
      }),
    );
    return true;
  } catch (error) {
    if (isStaleReceipt(error)) return false;
    throw error;
  }
};

const isStaleReceipt = (error: unknown): boolean => {
  const name = error instanceof Error ? error.name : '';
  return (
    name === 'ReceiptHandleIsInvalid' ||
    name === 'MessageNotInflight' ||
    name === 'InvalidParameterValueException'
  );
};

/** SQS body as JSON when it is JSON; the raw text otherwise, so the consumer's `parse` explains. */
export const decodeBody = (body: string | undefined): unknown => {
  if (body === undefined) return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
};

const fromSqsMessage = <T>(message: Message): ReceivedMessage<T> => {
  const notBefore = Number(message.MessageAttributes?.[NOT_BEFORE_ATTRIBUTE]?.StringValue);
  const groupKey = message.Attributes?.MessageGroupId;
  return {
    id: message.MessageId ?? '',
    body: decodeBody(message.Body) as T,
    receipt: message.ReceiptHandle ?? '',
    receiveCount: Number(message.Attributes?.ApproximateReceiveCount ?? '1'),
    sentAt: Number(message.Attributes?.SentTimestamp ?? '0'),
    ...(Number.isFinite(notBefore) && notBefore > 0 ? { notBefore } : {}),
    ...(groupKey ? { groupKey } : {}),
  };
};
