import {
  PutEventsCommand,
  type PutEventsCommandOutput,
  type PutEventsRequestEntry,
} from '@aws-sdk/client-eventbridge';
import type { EventEnvelope } from '../../core/events/envelope';
import {
  DEFAULT_EVENT_SOURCE,
  envelopeEntrySize,
  PUBLISH_LIMITS,
  planBatches,
} from '../../core/publishing/limits';
import type { EventBus, PublishFailure, PublishResult } from '../../core/publishing/ports';

/** What the adapter needs of an `EventBridgeClient`; a fake with the same shape serves in tests. */
export interface PutEventsClient {
  send(command: PutEventsCommand): Promise<PutEventsCommandOutput>;
}

export interface EventBridgeBusOptions {
  readonly client: PutEventsClient;
  /** Name or ARN of the custom bus. */
  readonly eventBusName: string;
  /** EventBridge `Source` (`carhook` by default, configurable). */
  readonly source?: string;
}

// aws-facts.md "EventBridge": only these per-entry codes may succeed when sent again.
const RETRYABLE_ENTRY_CODES = new Set(['InternalFailure', 'ThrottlingException']);

/**
 * EventBridge as the `EventBus`. One PutEvents call per ≤ 10 entries within
 * the byte limits; per-entry results mapped to retryable / permanent; no retries here (the
 * publisher retries only what is retryable, with backoff). `Resources` stays empty: Carhook vehicle
 * ids are not ARNs, and rules match on `detail.vehicle.id` instead.
 */
export const createEventBridgeBus = (options: EventBridgeBusOptions): EventBus => {
  const source = options.source ?? DEFAULT_EVENT_SOURCE;
  const entrySize = (event: EventEnvelope) => envelopeEntrySize(event, source);

  const toEntry = (event: EventEnvelope): PutEventsRequestEntry => {
    const time = new Date(event.occurredAt);
    return {
      EventBusName: options.eventBusName,
      Source: source,
      DetailType: event.type,
      Detail: JSON.stringify(event),
      // An unparsable occurredAt would make the SDK throw for the whole call; EventBridge then
      // stamps the receive time, and the envelope still carries the original text.
      ...(Number.isNaN(time.getTime()) ? {} : { Time: time }),
    };
  };

  return {
    entrySize,
    async publish(events) {
      const published: string[] = [];
      const failed: PublishFailure[] = [];
      const plan = planBatches(events, {
        maxEntries: PUBLISH_LIMITS.maxEntriesPerCall,
        maxItemBytes: PUBLISH_LIMITS.maxEntryBytes,
        maxBatchBytes: PUBLISH_LIMITS.maxCallBytes,
        sizeOf: entrySize,
      });
      for (const { item, size } of plan.oversized) {
        failed.push({
          id: item.id,
          retryable: false,
          code: 'EntryTooLarge',
          message: `event ${item.id} (${item.type}) is ${size} bytes as a PutEvents entry; the limit is ${PUBLISH_LIMITS.maxEntryBytes}`,
        });
      }
      for (const batch of plan.batches) {
        let output: PutEventsCommandOutput;
        try {
          output = await options.client.send(new PutEventsCommand({ Entries: batch.map(toEntry) }));
        } catch (error) {
          // The SDK client has retried this call already (its retry mode and attempts): final here.
          const { retryable, code, message } = classifyCallError(error, 'PutEvents');
          for (const event of batch)
            failed.push({ id: event.id, retryable, code, message, clientRetried: true });
          continue;
        }
        // Results come back in request order, one per entry.
        batch.forEach((event, index) => {
          const entry = output.Entries?.[index];
          if (entry?.EventId && !entry.ErrorCode) {
            published.push(event.id);
            return;
          }
          const code = entry?.ErrorCode ?? 'NoResult';
          failed.push({
            id: event.id,
            // A missing result is unknown, not refused: trying again is safe (same id).
            retryable: entry === undefined || RETRYABLE_ENTRY_CODES.has(code),
            code,
            message: `PutEvents refused event ${event.id} (${event.type}) on ${options.eventBusName}: ${entry?.ErrorMessage ?? 'no result entry returned'}`,
          });
        });
      }
      return { published, failed } satisfies PublishResult;
    },
  };
};

/**
 * A whole AWS call that failed (PutEvents here, SendMessageBatch in the SQS adapter): throttling,
 * 5xx and network errors (no HTTP response) may pass when sent again; a 4xx such as AccessDenied
 * or ResourceNotFound (wrong bus or queue name) will not.
 */
export const classifyCallError = (
  error: unknown,
  operation: string,
): { retryable: boolean; code: string; message: string } => {
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
    $retryable?: unknown;
  };
  const code = e.name ?? 'UnknownError';
  const status = e.$metadata?.httpStatusCode;
  const retryable =
    code === 'ThrottlingException' ||
    code === 'InternalException' ||
    code === 'InternalFailure' ||
    Boolean(e.$retryable) ||
    status === undefined ||
    status >= 500 ||
    status === 429;
  return {
    retryable,
    code,
    message: `${operation} call failed (${code}${status ? `, HTTP ${status}` : ''}): ${e.message ?? String(error)}`,
  };
};
