/**
 * Job and delivery queues: SQS on AWS, a durable DynamoDB-backed queue
 * locally. Both have SQS semantics — at-least-once, a visibility timeout per receive, a receipt to
 * delete or re-time the message, a receive count and a dead-letter queue — so the same worker code
 * (functions/core/queue/process.ts) runs on both.
 */

export interface OutgoingMessage<T> {
  readonly body: T;
  /**
   * Seconds before the message can be received. Up to 900 s it is the queue's own delay (SQS
   * `DelaySeconds`); beyond, the message also carries `notBefore` and consumers defer it
   * (see `splitDelay` in ./limits and `processMessages`), so any delay works on both runtimes.
   */
  readonly delaySeconds?: number;
  /** SQS `MessageGroupId` (FIFO ordering / fair queues); stored but not used for ordering locally. */
  readonly groupKey?: string;
  /** SQS FIFO `MessageDeduplicationId`; locally, a second send with a pending id is dropped. */
  readonly dedupId?: string;
}

export interface JobQueue<T> {
  /**
   * Sends every message or rejects with a `QueueSendError`: `InvalidMessage` (nothing was sent;
   * names the message index and field) or `SendFailed` (after bounded retries; the listed ones were
   * not sent, the others were — sending all again is safe, consumers are idempotent).
   */
  send(messages: readonly OutgoingMessage<T>[]): Promise<void>;
}

export interface ReceivedMessage<T> {
  /** Stable across receives (SQS MessageId). */
  readonly id: string;
  readonly body: T;
  /** Changes on every receive; only the latest one can delete or re-time the message. */
  readonly receipt: string;
  /** 1 on the first receive. */
  readonly receiveCount: number;
  /** Epoch ms the message was sent. */
  readonly sentAt: number;
  /** Epoch ms before which the message must not be processed (long delays), if any. */
  readonly notBefore?: number;
  readonly groupKey?: string;
}

/** The polling side, as the local runtime (and any non-Lambda worker) uses it. */
export interface QueueConsumer<T> {
  /** Up to `max` visible messages, each hidden for `visibilityTimeoutSeconds` (≤ 12 h). */
  receive(max: number, visibilityTimeoutSeconds: number): Promise<ReceivedMessage<T>[]>;
  /** False when the receipt is stale (the message was received again since, or is gone). */
  delete(receipt: string): Promise<boolean>;
  /** Hides the message `seconds` from now (0 = visible now). False when the receipt is stale. */
  changeVisibility(receipt: string, seconds: number): Promise<boolean>;
}

export type QueueSendErrorKind = 'InvalidMessage' | 'SendFailed';

export interface QueueSendFailure {
  /** Index in the array given to `send`. */
  readonly index: number;
  readonly code: string;
  readonly message: string;
}

export class QueueSendError extends Error {
  override readonly name = 'QueueSendError';
  constructor(
    readonly kind: QueueSendErrorKind,
    readonly queue: string,
    readonly failures: readonly QueueSendFailure[],
  ) {
    const first = failures[0];
    super(
      `${kind} on queue ${queue}: ${failures.length} message(s) not sent` +
        (first ? `; message ${first.index}: ${first.message}` : ''),
    );
  }
}

/**
 * The logical queues: SQS queue names on AWS (with `-dlq` twins), the
 * `queue` partition of the local queue table. One name per concept everywhere.
 */
export const QUEUE_NAMES = {
  pollJobs: 'poll-jobs',
  fanOut: 'fan-out',
  deliveries: 'deliveries',
} as const;

export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];
