import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { ReceivedMessage } from '../../core/queue/ports';
import { type MessageHandler, type MessageResult, processMessages } from '../../core/queue/process';
import { changeSqsVisibility, decodeBody, NOT_BEFORE_ATTRIBUTE, type SqsClientLike } from './queue';

export interface SqsBatchHandlerOptions<T> {
  /** For ChangeMessageVisibility (retries after n seconds, deferrals of long delays). */
  readonly client: SqsClientLike;
  /** Validates each body (e.g. a zod schema's `parse`); a failure reports the message failed. */
  readonly parse?: (raw: unknown) => T;
  /** Default: derived from each record's `eventSourceARN`. */
  readonly queueUrl?: string;
  readonly now?: () => number;
  /** Every message result (for the Powertools logger). */
  readonly onResult?: (result: MessageResult) => void;
}

/**
 * https://sqs.{region}.amazonaws.com/{account}/{name} from arn:{partition}:sqs:{region}:{account}:{name}.
 * Returns undefined for anything else, so a wrong ARN is reported, not guessed.
 */
export const queueUrlFromArn = (arn: string): string | undefined => {
  const match = /^arn:(aws|aws-cn|aws-us-gov):sqs:([a-z0-9-]+):(\d{12}):([A-Za-z0-9_.-]+)$/.exec(arn);
  if (!match) return undefined;
  const [, partition, region, account, name] = match;
  const domain = partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `https://sqs.${region}.${domain}/${account}/${name}`;
};

export const fromSqsRecord = (record: SQSRecord): ReceivedMessage<unknown> => {
  const notBefore = Number(record.messageAttributes?.[NOT_BEFORE_ATTRIBUTE]?.stringValue);
  const groupKey = record.attributes?.MessageGroupId;
  return {
    id: record.messageId,
    body: decodeBody(record.body),
    receipt: record.receiptHandle,
    receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? '1'),
    sentAt: Number(record.attributes?.SentTimestamp ?? '0'),
    ...(Number.isFinite(notBefore) && notBefore > 0 ? { notBefore } : {}),
    ...(groupKey ? { groupKey } : {}),
  };
};

/**
 * The Lambda side of a queue (event source mapping with `ReportBatchItemFailures`): runs the same
 * `processMessages` as the local worker and returns the records not done as `batchItemFailures`;
 * Lambda deletes the others. Deferred and retry-later records had their visibility changed first,
 * so they come back when due; failed ones come back after the queue's visibility timeout and go to
 * the DLQ after `maxReceiveCount`.
 *
 * (`@aws-lambda-powertools/batch` `processPartialResponse` does the failure reporting too; we keep
 * this one because deferral and retry-after need the receipt and the shared `processMessages`.)
 */
export const createSqsBatchHandler = <T>(handler: MessageHandler<T>, options: SqsBatchHandlerOptions<T>) => {
  return async (event: SQSEvent, context?: { signal?: AbortSignal }): Promise<SQSBatchResponse> => {
    const urls = new Map(
      event.Records.map((r) => [r.receiptHandle, options.queueUrl ?? queueUrlFromArn(r.eventSourceARN)]),
    );
    const results = await processMessages(event.Records.map(fromSqsRecord), handler, {
      changeVisibility: async (receipt, seconds) => {
        const url = urls.get(receipt);
        if (!url) return false; // the message then simply comes back after the queue's visibility timeout
        return changeSqsVisibility(options.client, url, receipt, seconds);
      },
      ...(options.parse ? { parse: options.parse } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(context?.signal ? { signal: context.signal } : {}),
    });
    for (const result of results) options.onResult?.(result);
    return {
      batchItemFailures: results.filter((r) => r.status !== 'done').map((r) => ({ itemIdentifier: r.id })),
    };
  };
};
