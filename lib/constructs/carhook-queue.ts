import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CARHOOK_DEFAULTS } from '../config';
import { CarhookConfigError, requireIntegerInRange, requireWholeDuration } from '../validation';

export interface CarhookQueueProps {
  /**
   * The consumer's Lambda timeout: the visibility timeout is `CARHOOK_DEFAULTS.visibilityTimeoutFactor`
   * times it, so a batch still being worked on never becomes visible to a second invocation.
   */
  readonly consumerTimeout: Duration;
  /** Receives before a message moves to the dead-letter queue (SQS allows 1–1000). */
  readonly maxReceiveCount: number;
}

/**
 * A work queue and its dead-letter queue, both encrypted (SQS-managed SSE) and TLS-only. SQS-managed
 * keys rather than a customer key: EventBridge rules and Scheduler can send to them without key
 * policy grants, and nothing here outlives the 14-day retention.
 */
export class CarhookQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: CarhookQueueProps) {
    super(scope, id);
    requireIntegerInRange(`${id}.maxReceiveCount`, props.maxReceiveCount, 1, 1000);
    const timeoutSeconds = requireWholeDuration(
      `${id}.consumerTimeout`,
      props.consumerTimeout,
      'seconds',
      1,
      900,
    );
    if (timeoutSeconds === undefined) {
      throw new CarhookConfigError(
        `${id}.consumerTimeout`,
        'must be known at synth time (the visibility timeout derives from it)',
      );
    }
    this.deadLetterQueue = carhookDeadLetterQueue(this, 'DeadLetters');
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(timeoutSeconds * CARHOOK_DEFAULTS.visibilityTimeoutFactor),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    });
  }
}

/** A dead-letter queue: SQS-managed SSE, TLS only, the longest retention. */
export function carhookDeadLetterQueue(scope: Construct, id: string): Queue {
  return new Queue(scope, id, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: CARHOOK_DEFAULTS.deadLetterRetention,
  });
}
