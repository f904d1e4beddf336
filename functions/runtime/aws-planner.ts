/**
 * The planner function's composition: its configuration, the stores it reads, the poll jobs
 * queue and the map secret (whether to plan map jobs) over ./aws-ports.ts, and the planner's
 * runtime (./planner-runtime.ts). Nothing of the poll, OAuth or webhook side is imported, so its
 * bundle carries none of it.
 */
import { type AwsPortsOptions, awsPorts, runtimeSettingsOf } from './aws-ports';
import type { RuntimeConfig } from './config';
import { createPlannerRuntime } from './planner-runtime';
import type { Runtime } from './runtime';

export interface AwsPlanner {
  readonly config: RuntimeConfig;
  readonly runtime: Pick<Runtime, 'plannerDeps'>;
}

export function createAwsPlanner(options: AwsPortsOptions & { readonly now?: () => number }): AwsPlanner {
  const { config, stores, rateBudget, secrets, pollQueue } = awsPorts(options);
  const runtime = createPlannerRuntime(runtimeSettingsOf(config), {
    stores,
    rateBudget,
    ...(pollQueue ? { pollQueue } : {}),
    mapEnabled: async () => (await secrets.mapApi()) !== undefined,
    now: options.now ?? Date.now,
  });
  return { config, runtime };
}
