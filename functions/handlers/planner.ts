/** EventBridge Scheduler → one planner run → poll jobs on the SQS poll-jobs queue. */
import { type PlannerRun, runPlanner } from '../core/polling/planner';
import { type AwsRuntime, createAwsRuntime, lazy } from '../runtime/aws';
import { withPowertools } from '../runtime/lambda';
import { logger } from '../runtime/observability';

export function createPlannerHandler(get: () => AwsRuntime) {
  return withPowertools<unknown, PlannerRun>(async () => {
    const { runtime } = get();
    const run = await runPlanner(await runtime.plannerDeps());
    logger.info('planner run', { ...run });
    return run;
  });
}

export const handler = createPlannerHandler(lazy(() => createAwsRuntime({ needs: ['pollQueue'] })));
