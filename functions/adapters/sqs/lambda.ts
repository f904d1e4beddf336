import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
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

/** A record not done (failed, or kept for a later retry or its due time): reported as a batch item failure. */
export class SqsRecordNotDone extends Error {
  override readonly name = 'SqsRecordNotDone';
  constructor(readonly result: MessageResult) {
    super(result.error ?? `message ${result.id}: ${result.status}`);
  }
}

/**
 * The Lambda side of a queue (event source mapping with `ReportBatchItemFailures`): runs the same
 * `processMessages` as the local worker over the batch (same-group messages in order, the others
 * concurrently), and Powertools Batch (`processPartialResponse`) turns the records not done into
 * `batchItemFailures`; Lambda deletes the others. Deferred and retry-later records had their
 * visibility changed first, so they come back when due; failed ones come back after the queue's
 * visibility timeout and go to the DLQ after `maxReceiveCount`. A batch with no record done is
 * answered the same way, not thrown (`throwOnFullBatchFailure: false`): deferring every record is
 * not a failure of the invocation.
 */
export const createSqsBatchHandler = <T>(handler: MessageHandler<T>, options: SqsBatchHandlerOptions<T>) => {
  const processor = new BatchProcessor(EventType.SQS);
  return async (event: SQSEvent, context?: { signal?: AbortSignal }): Promise<SQSBatchResponse> => {
    const urls = new Map(
      event.Records.map((r) => [r.receiptHandle, options.queueUrl ?? queueUrlFromArn(r.eventSourceARN)]),
    );
    const processed = processMessages(event.Records.map(fromSqsRecord), handler, {
      changeVisibility: async (receipt, seconds) => {
        const url = urls.get(receipt);
        if (!url) return false; // the message then simply comes back after the queue's visibility timeout
        return changeSqsVisibility(options.client, url, receipt, seconds);
      },
      ...(options.parse ? { parse: options.parse } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(context?.signal ? { signal: context.signal } : {}),
    }).then((results) => {
      for (const result of results) options.onResult?.(result);
      return new Map(results.map((r) => [r.id, r]));
    });
    const record = async (r: SQSRecord): Promise<void> => {
      const result = (await processed).get(r.messageId);
      if (result?.status !== 'done') {
        throw new SqsRecordNotDone(
          result ?? { id: r.messageId, receipt: r.receiptHandle, status: 'failed', error: 'no result' },
        );
      }
    };
    return processPartialResponse(event, record, processor, { throwOnFullBatchFailure: false });
  };
};
