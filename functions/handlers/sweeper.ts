/**
 * Schedule → the two recovery sweeps and the freshness check (the local runtime runs the same):
 * - events: republishes what the event log still holds unpublished (same ids);
 * - deliveries: `engine.sweep()` queues pending deliveries whose claim expired more than the grace
 *   ago (a Lambda died mid-attempt, or a retry's queue send failed), same `webhook-id`;
 * - freshness: when targets are set and a check is due, `carhook.freshness.at_risk` / `.restored`
 *   (functions/core/capacity/watch.ts).
 * All always run; a part that failed is reported next to the others' results, then the invocation
 * fails so Scheduler retries it (each part is idempotent: at worst an event is published or a
 * delivery queued twice, with the same id, and the claim lets one attempt through).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { type FreshnessWatchResult, watchFreshness } from '../core/capacity/watch';
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
  readonly freshness: FreshnessWatchResult;
}

/** What one part of a sweep reports: its result, or why it failed. */
export type SweepPart<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: string };

/** A part of the sweep failed; `events`, `deliveries` and `freshness` say what each part did. */
export class SweeperError extends Error {
  override readonly name = 'SweeperError';
  readonly kind = 'SweepFailed';
  constructor(
    readonly events: SweepPart<EventSweep>,
    readonly deliveries: SweepPart<DeliverySweep>,
    readonly freshness: SweepPart<FreshnessWatchResult>,
  ) {
    const failed = [
      ...(events.ok ? [] : [`events: ${events.error}`]),
      ...(deliveries.ok ? [] : [`deliveries: ${deliveries.error}`]),
      ...(freshness.ok ? [] : [`freshness: ${freshness.error}`]),
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
    const [events, deliveries, freshness] = await Promise.all([
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
      settle(async (): Promise<FreshnessWatchResult> => {
        const deps = aws.runtime.freshnessDeps();
        return deps ? watchFreshness(deps) : { kind: 'NoTargets' };
      }),
    ]);
    if (events.ok && deliveries.ok && freshness.ok) {
      const result = { events: events.value, deliveries: deliveries.value, freshness: freshness.value };
      logger.info('sweep', { ...result });
      return result;
    }
    const error = new SweeperError(events, deliveries, freshness);
    logger.error('sweep failed', { kind: error.kind, events, deliveries, freshness });
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
