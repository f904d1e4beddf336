/**
 * Schedule → the two recovery sweeps (the local runtime runs the same pair):
 * - events: republishes what the event log still holds unpublished (same ids);
 * - deliveries: `engine.sweep()` queues pending deliveries whose claim expired more than the grace
 *   ago (a Lambda died mid-attempt, or a retry's queue send failed), same `webhook-id`.
 * Both always run; a part that failed is reported next to the other's result, then the invocation
 * fails so Scheduler retries it (both sweeps are idempotent: at worst an event is published or a
 * delivery queued twice, with the same id, and the claim lets one attempt through).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { republishPending } from '../core/polling/commit';
import { type AwsRuntime, createAwsRuntime, lazy } from '../runtime/aws';
import { required } from '../runtime/config';
import { withPowertools } from '../runtime/lambda';
import { logger } from '../runtime/observability';
import { createWebhooks } from '../runtime/webhooks';

export interface EventSweep {
  /** Events published by this sweep. */
  readonly published: number;
  /** Events still unpublished after it (the bus refused them): the next sweep tries again. */
  readonly unpublished: number;
}

export interface DeliverySweep {
  /** Overdue pending deliveries sent to the `deliveries` queue. */
  readonly requeued: number;
}

export interface SweeperResult {
  readonly events: EventSweep;
  readonly deliveries: DeliverySweep;
}

/** What one part of a sweep reports: its result, or why it failed. */
export type SweepPart<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: string };

/** One or both sweeps failed; `events` and `deliveries` say what each part did. */
export class SweeperError extends Error {
  override readonly name = 'SweeperError';
  readonly kind = 'SweepFailed';
  constructor(
    readonly events: SweepPart<EventSweep>,
    readonly deliveries: SweepPart<DeliverySweep>,
  ) {
    const failed = [
      ...(events.ok ? [] : [`events: ${events.error}`]),
      ...(deliveries.ok ? [] : [`deliveries: ${deliveries.error}`]),
    ];
    super(`sweep failed (${failed.join('; ')})`);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

async function settle<T>(run: () => Promise<T>): Promise<SweepPart<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, error: describe(error) };
  }
}

export function createSweeperHandler(get: () => AwsRuntime) {
  return withPowertools<unknown, SweeperResult>(async () => {
    const aws = get();
    const [events, deliveries] = await Promise.all([
      settle(async (): Promise<EventSweep> => {
        const r = await republishPending(aws.runtime.republishDeps());
        if (r.unpublished.length > 0) {
          logger.warn('events still unpublished', {
            published: r.published.length,
            unpublished: r.unpublished.length,
            calls: r.calls,
            ids: r.unpublished.slice(0, 20),
          });
        }
        return { published: r.published.length, unpublished: r.unpublished.length };
      }),
      settle(async (): Promise<DeliverySweep> => {
        const webhooks = await required(aws.webhooks(), 'CARHOOK_DELIVERY_QUEUE_URL');
        return { requeued: await webhooks.engine.sweep() };
      }),
    ]);
    if (events.ok && deliveries.ok) {
      const result = { events: events.value, deliveries: deliveries.value };
      logger.info('sweep', { ...result });
      return result;
    }
    const error = new SweeperError(events, deliveries);
    logger.error('sweep failed', { kind: error.kind, events, deliveries });
    throw error;
  });
}

export const handler = createSweeperHandler(
  lazy(() =>
    createAwsRuntime({
      needs: ['bus', 'deliveryQueue'],
      webhooks: createWebhooks,
      // It reads no secret: the webhook engine opens the key ring only to open a subscription's.
      services: {
        dynamodb: (c) => new DynamoDBClient(c),
        eventBridge: (c) => new EventBridgeClient(c),
        sqs: (c) => new SQSClient(c),
      },
    }),
  ),
);
