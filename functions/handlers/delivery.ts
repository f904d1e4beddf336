/**
 * SQS deliveries queue → one webhook delivery attempt per message (retries, replays, resumed
 * deliveries); a retry-later outcome re-times the message, a failure is reported alone.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createSqsBatchHandler } from '../adapters/sqs/lambda';
import { type DeliveryJob, deliveryJobHandler, parseDeliveryJob } from '../core/delivery/engine';
import { type AwsRuntime, createAwsRuntime, lazy } from '../runtime/aws';
import { ALL_SERVICES } from '../runtime/aws-services';
import { required } from '../runtime/config';
import { withPowertools } from '../runtime/lambda';
import { logger } from '../runtime/observability';
import { createWebhooks } from '../runtime/webhooks';

export function createDeliveryHandler(get: () => AwsRuntime) {
  return withPowertools<SQSEvent, SQSBatchResponse>(async (event, _context, signal) => {
    const aws = get();
    const webhooks = await required(aws.webhooks(), 'CARHOOK_DELIVERY_QUEUE_URL');
    const batch = createSqsBatchHandler<DeliveryJob>(deliveryJobHandler(webhooks.engine), {
      client: aws.clients.sqs,
      parse: parseDeliveryJob,
      onResult: (r) => {
        if (r.status === 'failed') logger.warn('delivery job failed', { messageId: r.id, error: r.error });
      },
    });
    return batch(event, { signal });
  });
}

export const handler = createDeliveryHandler(
  lazy(() =>
    createAwsRuntime({
      needs: ['keyRing', 'bus', 'deliveryQueue'],
      webhooks: createWebhooks,
      services: ALL_SERVICES,
    }),
  ),
);
