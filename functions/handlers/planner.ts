/** EventBridge Scheduler → one planner run → poll jobs on the SQS poll-jobs queue. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { type PlannerRun, runPlanner } from '../core/polling/planner';
import { createAwsPlanner } from '../runtime/aws-planner';
import { lazy } from '../runtime/aws-ports';
import { withPowertools } from '../runtime/lambda';
import { logger } from '../runtime/observability';
import type { Runtime } from '../runtime/runtime';

/** Anything that can plan: the planner's own composition, or the whole AWS runtime in tests. */
export function createPlannerHandler(get: () => { readonly runtime: Pick<Runtime, 'plannerDeps'> }) {
  return withPowertools<unknown, PlannerRun>(async () => {
    const { runtime } = get();
    const run = await runPlanner(await runtime.plannerDeps());
    logger.info('planner run', { ...run });
    return run;
  });
}

export const handler = createPlannerHandler(
  lazy(() =>
    createAwsPlanner({
      needs: ['pollQueue'],
      // It reads the table, sends poll jobs and reads the map API secret (whether to plan map jobs).
      services: {
        dynamodb: (c) => new DynamoDBClient(c),
        sqs: (c) => new SQSClient(c),
        secretsManager: (c) => new SecretsManagerClient(c),
      },
    }),
  ),
);
