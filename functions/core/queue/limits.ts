import type { OutgoingMessage, QueueSendFailure } from './ports';

/**
 * SQS limits (shared/reference/aws-facts.md "SQS and Lambda"): message 256 KB (1 MiB is supported
 * since 2025; we stay at 256 KB, also for a whole SendMessageBatch), `DelaySeconds` ≤ 900,
 * visibility timeout ≤ 12 h, at most 10 entries per batch call and per receive.
 */
export const QUEUE_LIMITS = {
  maxMessageBytes: 256 * 1024,
  maxBatchBytes: 256 * 1024,
  maxBatchEntries: 10,
  maxDelaySeconds: 900,
  maxVisibilitySeconds: 12 * 60 * 60,
  maxReceive: 10,
} as const;

/**
 * Long delays: the queue delay is capped at 900 s, and a message due later also carries
 * `notBefore` (epoch ms). A consumer that receives it early hides it again with
 * ChangeMessageVisibility for the remaining time (≤ 11 h 55 min per receive, a margin under SQS's
 * 12 h) instead of processing it: a 10 h webhook retry costs 2 receives. Each deferral counts as a receive, so size
 * `maxReceiveCount` with that in mind (delays over about 12 h 10 min cost one more receive per
 * 11 h 55 min).
 */
export const splitDelay = (
  delaySeconds: number,
  now: number,
  cap: number = QUEUE_LIMITS.maxDelaySeconds,
): { delaySeconds: number; notBefore?: number } => {
  const whole = Math.max(0, Math.ceil(delaySeconds));
  if (whole <= cap) return { delaySeconds: whole };
  return { delaySeconds: cap, notBefore: now + whole * 1000 };
};

/** Checks what `send` received; the failures name the message index and field. */
export const validateOutgoing = <T>(
  messages: readonly OutgoingMessage<T>[],
  encode: (body: T) => string | undefined,
): { encoded: string[]; failures: QueueSendFailure[] } => {
  const encoded: string[] = [];
  const failures: QueueSendFailure[] = [];
  messages.forEach((message, index) => {
    const fail = (code: string, text: string) => failures.push({ index, code, message: text });
    const delay = message.delaySeconds;
    if (delay !== undefined && (!Number.isFinite(delay) || delay < 0)) {
      fail('InvalidDelay', `delaySeconds must be a finite number ≥ 0, got ${String(delay)}`);
    }
    if (message.groupKey !== undefined && !/^[\x21-\x7e]{1,128}$/.test(message.groupKey)) {
      fail('InvalidGroupKey', 'groupKey must be 1–128 printable ASCII characters without spaces');
    }
    if (message.dedupId !== undefined && !/^[\x21-\x7e]{1,128}$/.test(message.dedupId)) {
      fail('InvalidDedupId', 'dedupId must be 1–128 printable ASCII characters without spaces');
    }
    let text: string | undefined;
    try {
      text = encode(message.body);
    } catch (error) {
      fail(
        'InvalidBody',
        `body cannot be serialized: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (text === undefined) {
      if (!failures.some((f) => f.index === index))
        fail('InvalidBody', 'body serializes to nothing (undefined?)');
      encoded.push('');
      return;
    }
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > QUEUE_LIMITS.maxMessageBytes) {
      fail(
        'MessageTooLarge',
        `body is ${bytes} bytes; the limit is ${QUEUE_LIMITS.maxMessageBytes} (aws-facts.md "SQS")`,
      );
    }
    encoded.push(text);
  });
  return { encoded, failures };
};

export const checkVisibility = (seconds: number): string | undefined =>
  Number.isInteger(seconds) && seconds >= 0 && seconds <= QUEUE_LIMITS.maxVisibilitySeconds
    ? undefined
    : `visibility timeout must be an integer number of seconds in 0…${QUEUE_LIMITS.maxVisibilitySeconds}, got ${String(seconds)}`;
