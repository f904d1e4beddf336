/**
 * SQS poll-jobs queue → `runPollJob` per message, partial batch failures (a malformed or failing
 * job is reported alone and goes to the DLQ after maxReceiveCount; the others are deleted).
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createSqsBatchHandler } from '../adapters/sqs/lambda';
import { runPollJob } from '../core/jobs/worker';
import { type AwsRuntime, createAwsRuntime, lazy } from '../runtime/aws';
import { ALL_SERVICES } from '../runtime/aws-services';
import { withPowertools } from '../runtime/lambda';
import { describeJobResult, logger, recordJobResult } from '../runtime/observability';

const isMapJob = (body: unknown): boolean =>
  typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind === 'poll-map';

export function createPollWorkerHandler(get: () => AwsRuntime) {
  return withPowertools<SQSEvent, SQSBatchResponse>(async (event, _context, signal) => {
    const { runtime, clients } = get();
    const batch = createSqsBatchHandler<unknown>(
      async (body, { signal: jobSignal }) => {
        if (isMapJob(body) && !(await runtime.mapEnabled())) {
          logger.info('map update polling skipped: the map API secret is not set');
          return;
        }
        const result = await runPollJob(await runtime.pollDeps({ signal: jobSignal }), body);
        recordJobResult(runtime.metrics, result);
        logger.info('poll job', describeJobResult(result));
      },
      {
        client: clients.sqs,
        onResult: (r) => {
          if (r.status === 'failed') logger.warn('poll job failed', { messageId: r.id, error: r.error });
        },
      },
    );
    return batch(event, { signal });
  });
}

export const handler = createPollWorkerHandler(
  lazy(() =>
    createAwsRuntime({
      needs: ['secrets', 'bus'],
      services: ALL_SERVICES,
    }),
  ),
);
