import { systemNow } from '../clock';
import { QUEUE_LIMITS } from './limits';
import type { QueueConsumer, ReceivedMessage } from './ports';

// SQS counts the 12 h visibility limit from the receive: keep a margin for the time the handler took.
const MAX_REHIDE_SECONDS = QUEUE_LIMITS.maxVisibilitySeconds - 300;

/**
 * What a handler says about one message: nothing (done: delete it) or "try again in n seconds"
 * (kept, hidden for n seconds, ≤ 11 h 55 min). A throw is a failure: the message comes back when its
 * visibility timeout ends, and goes to the dead-letter queue after `maxReceiveCount` receives.
 */
export type HandlerOutcome = undefined | { retryInSeconds: number };

// biome-ignore lint/suspicious/noConfusingVoidType: handlers written as `async (): Promise<void>` must fit
type MaybeOutcome = HandlerOutcome | void;

export type MessageHandler<T> = (
  body: T,
  context: { message: ReceivedMessage<T>; signal: AbortSignal },
) => Promise<MaybeOutcome> | MaybeOutcome;

export type MessageStatus =
  /** Handled: delete it (Lambda deletes what is not reported failed). */
  | 'done'
  /** The handler asked for a later retry; visibility changed, keep it. */
  | 'retry'
  /** Received before its `notBefore`: hidden again for the remaining time, not handled. */
  | 'deferred'
  /** Body rejected by `parse`, or the handler threw: keep it for redelivery / the DLQ. */
  | 'failed';

export interface MessageResult {
  readonly id: string;
  readonly receipt: string;
  readonly status: MessageStatus;
  /** For `failed`: what went wrong, for the log. */
  readonly error?: string;
}

export interface ProcessOptions<T> {
  /** Validates a raw body (e.g. a zod schema's `parse`); a throw fails the message with its text. */
  readonly parse?: (raw: unknown) => T;
  readonly changeVisibility: (receipt: string, seconds: number) => Promise<boolean>;
  readonly now?: () => number;
  readonly signal?: AbortSignal;
}

/**
 * The runtime-neutral part of a worker: the same code behind the Lambda SQS handler
 * (functions/adapters/sqs/lambda.ts) and the local `runConsumer`. Messages with the same
 * `groupKey` run one after the other in arrival order; the others concurrently.
 * Deleting is left to the caller (Lambda deletes the messages not reported as failures).
 */
export const processMessages = async <T>(
  messages: readonly ReceivedMessage<unknown>[],
  handler: MessageHandler<T>,
  options: ProcessOptions<T>,
): Promise<MessageResult[]> => {
  const now = options.now ?? systemNow;
  const signal = options.signal ?? new AbortController().signal;
  const results = new Map<string, MessageResult>();

  const one = async (message: ReceivedMessage<unknown>): Promise<MessageResult> => {
    const base = { id: message.id, receipt: message.receipt };
    if (message.notBefore !== undefined && message.notBefore > now()) {
      const remaining = Math.ceil((message.notBefore - now()) / 1000);
      await options.changeVisibility(message.receipt, Math.min(remaining, MAX_REHIDE_SECONDS));
      return { ...base, status: 'deferred' };
    }
    let body: T;
    try {
      body = options.parse ? options.parse(message.body) : (message.body as T);
    } catch (error) {
      return {
        ...base,
        status: 'failed',
        error: `message ${message.id} has an invalid body: ${describe(error)}`,
      };
    }
    try {
      const outcome = await handler(body, { message: { ...message, body }, signal });
      if (outcome && typeof outcome.retryInSeconds === 'number') {
        const seconds = Math.min(
          MAX_REHIDE_SECONDS,
          Math.max(0, Math.ceil(Number.isFinite(outcome.retryInSeconds) ? outcome.retryInSeconds : 0)),
        );
        await options.changeVisibility(message.receipt, seconds);
        return { ...base, status: 'retry' };
      }
      return { ...base, status: 'done' };
    } catch (error) {
      return {
        ...base,
        status: 'failed',
        error: `handler failed for message ${message.id}: ${describe(error)}`,
      };
    }
  };

  const groups = new Map<string, ReceivedMessage<unknown>[]>();
  const singles: ReceivedMessage<unknown>[] = [];
  for (const message of messages) {
    if (message.groupKey === undefined) singles.push(message);
    else groups.set(message.groupKey, [...(groups.get(message.groupKey) ?? []), message]);
  }
  const safe = async (message: ReceivedMessage<unknown>) => {
    try {
      results.set(message.id, await one(message));
    } catch (error) {
      // changeVisibility itself failed: the message stays as it is and comes back later.
      results.set(message.id, {
        id: message.id,
        receipt: message.receipt,
        status: 'failed',
        error: `changing visibility failed for message ${message.id}: ${describe(error)}`,
      });
    }
  };
  await Promise.all([
    ...singles.map(safe),
    ...[...groups.values()].map(async (group) => {
      // FIFO order: once one message of a group is not done, the later ones wait for their turn
      // (reported failed without running, so SQS redelivers them after it).
      let blocked: string | undefined;
      for (const message of group) {
        if (blocked) {
          results.set(message.id, {
            id: message.id,
            receipt: message.receipt,
            status: 'failed',
            error: `not run: message ${blocked} before it in group ${message.groupKey} is not done`,
          });
          continue;
        }
        await safe(message);
        if (results.get(message.id)?.status !== 'done') blocked = message.id;
      }
    }),
  ]);
  return messages.map((message) => results.get(message.id) as MessageResult);
};

export interface ConsumerOptions<T> {
  /** Messages handled at the same time (default 4). */
  readonly concurrency?: number;
  readonly visibilityTimeoutSeconds?: number;
  /** Stops receiving when aborted; the promise resolves once in-flight messages are settled. */
  readonly signal: AbortSignal;
  /**
   * Stop once a receive finds no visible message and none is in flight, instead of waiting for
   * more (a driver that moves a simulated clock drains the queue after each step).
   */
  readonly untilEmpty?: boolean;
  readonly parse?: (raw: unknown) => T;
  /** Pause after an empty receive (default 250 ms) and after a receive error (×4). */
  readonly idleDelayMs?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Every message result and every receive/delete error, for logs and tests. */
  readonly onResult?: (result: MessageResult) => void;
  readonly onError?: (error: { stage: 'receive' | 'delete'; message: string }) => void;
}

export interface ConsumerStats {
  received: number;
  done: number;
  retried: number;
  deferred: number;
  failed: number;
}

const abortableSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * Local worker loop over a `QueueConsumer` (on AWS the Lambda event source plays this part).
 * Clean shutdown: after `signal` aborts nothing new is received; messages in flight finish (the
 * handler gets the signal to hurry). One the handler could not finish is made visible again at once,
 * so a restart picks it up: nothing is lost, nothing waits for a long visibility timeout.
 */
export const runConsumer = async <T>(
  queue: QueueConsumer<unknown>,
  handler: MessageHandler<T>,
  options: ConsumerOptions<T>,
): Promise<ConsumerStats> => {
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 4));
  const visibility = options.visibilityTimeoutSeconds ?? 30;
  const idle = options.idleDelayMs ?? 250;
  const sleep = options.sleep ?? abortableSleep;
  const { signal } = options;
  const stats: ConsumerStats = { received: 0, done: 0, retried: 0, deferred: 0, failed: 0 };
  const inFlight = new Set<Promise<void>>();

  const handle = async (message: ReceivedMessage<unknown>) => {
    const [result] = await processMessages([message], handler, {
      changeVisibility: (receipt, seconds) => queue.changeVisibility(receipt, seconds),
      signal,
      ...(options.parse ? { parse: options.parse } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
    if (!result) return;
    options.onResult?.(result);
    try {
      if (result.status === 'done') {
        stats.done++;
        if (!(await queue.delete(result.receipt))) {
          options.onError?.({
            stage: 'delete',
            message: `message ${result.id} was handled but its receipt had expired (visibility timeout too short?): it will be delivered again`,
          });
        }
      } else if (result.status === 'failed') {
        stats.failed++;
        // Interrupted by shutdown: hand it back now rather than after the visibility timeout.
        if (signal.aborted) await queue.changeVisibility(result.receipt, 0);
      } else if (result.status === 'retry') stats.retried++;
      else stats.deferred++;
    } catch (error) {
      options.onError?.({ stage: 'delete', message: `message ${result.id}: ${describe(error)}` });
    }
  };

  while (!signal.aborted) {
    if (inFlight.size >= concurrency) {
      await Promise.race(inFlight);
      continue;
    }
    let messages: ReceivedMessage<unknown>[];
    try {
      messages = await queue.receive(
        Math.min(concurrency - inFlight.size, QUEUE_LIMITS.maxReceive),
        visibility,
      );
    } catch (error) {
      options.onError?.({ stage: 'receive', message: describe(error) });
      await sleep(idle * 4, signal);
      continue;
    }
    stats.received += messages.length;
    if (messages.length === 0) {
      if (options.untilEmpty) {
        // Messages in flight may send more (a retry, a follow-up): receive again once one settles.
        if (inFlight.size === 0) break;
        await Promise.race(inFlight);
        continue;
      }
      await sleep(idle, signal);
      continue;
    }
    for (const message of messages) {
      const task = handle(message).finally(() => inFlight.delete(task));
      inFlight.add(task);
    }
  }
  await Promise.all(inFlight);
  return stats;
};

const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);
