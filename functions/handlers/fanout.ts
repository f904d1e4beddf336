/**
 * Webhook fan-out: the EventBridge rule's target (directly, or through the fan-out SQS queue with
 * partial batch failures). One event → one delivery per matching active subscription, first
 * attempt direct; the invocation ends when those attempts are recorded.
 */
import type { EventBridgeEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createSqsBatchHandler } from '../adapters/sqs/lambda';
import { type EventEnvelope, envelopeSchema } from '../core/events/envelope';
import { FieldError } from '../core/field-error';
import { type AwsRuntime, createAwsRuntime, lazy } from '../runtime/aws';
import { ALL_SERVICES } from '../runtime/aws-services';
import { required } from '../runtime/config';
import { withPowertools } from '../runtime/lambda';
import { logger } from '../runtime/observability';
import { createWebhooks } from '../runtime/webhooks';

type FanOutInput = EventBridgeEvent<string, unknown> | SQSEvent;

/** The bus event is not a Carhook envelope: names the field (it would fail the same way again). */
export class FanOutInputError extends FieldError {
  override readonly name = 'FanOutInputError';
  readonly kind = 'Malformed';
}

export function parseBusEvent(raw: unknown): EventEnvelope {
  if (typeof raw !== 'object' || raw === null)
    throw new FanOutInputError('event', 'must be an EventBridge event');
  const parsed = envelopeSchema.safeParse((raw as { detail?: unknown }).detail);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new FanOutInputError(
      `detail.${issue?.path.join('.') ?? ''}`,
      issue?.message ?? 'not a Carhook event envelope',
    );
  }
  return parsed.data;
}

export function createFanOutHandler(get: () => AwsRuntime) {
  const fanOut = async (event: EventEnvelope): Promise<number> => {
    const webhooks = await required(get().webhooks(), 'CARHOOK_DELIVERY_QUEUE_URL');
    const r = await webhooks.engine.fanOut(event);
    await r.settled;
    logger.info('fan-out', {
      eventId: event.id,
      type: event.type,
      deliveries: r.deliveryIds.length,
      queued: r.queued.length,
    });
    return r.deliveryIds.length;
  };
  return withPowertools<FanOutInput, SQSBatchResponse | { deliveries: number }>(
    async (input, _context, signal) => {
      if ('Records' in input) {
        const batch = createSqsBatchHandler<EventEnvelope>(
          async (event) => {
            await fanOut(event);
          },
          {
            client: get().clients.sqs,
            parse: parseBusEvent,
            onResult: (r) => {
              if (r.status === 'failed') logger.warn('fan-out failed', { messageId: r.id, error: r.error });
            },
          },
        );
        return batch(input, { signal });
      }
      return { deliveries: await fanOut(parseBusEvent(input)) };
    },
  );
}

export const handler = createFanOutHandler(
  lazy(() =>
    createAwsRuntime({
      needs: ['keyRing', 'bus', 'deliveryQueue'],
      webhooks: createWebhooks,
      services: ALL_SERVICES,
    }),
  ),
);
