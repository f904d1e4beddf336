/**
 * The planner's part of the composition root, on its own: the planner function builds only this
 * (functions/runtime/aws-planner.ts), so its bundle carries no token manager, OAuth client or event
 * catalogue; `createRuntime` uses the same pieces, so the planner is planned alike everywhere.
 */
import { DEFAULT_POLLING_CONFIG, type PollingConfig } from '../core/polling/config';
import type { PollJob } from '../core/polling/jobs';
import { createPlannerMemory, type PlannerDeps, type PlannerMemory } from '../core/polling/planner';
import type { JobQueue, OutgoingMessage } from '../core/queue/ports';
import type { RateBudgetConfig } from '../core/ratelimit/bucket';
import { plannedRate, type RateBudget } from '../core/ratelimit/budget';
import type { Stores } from '../core/store/ports';
import { RuntimeSetupError } from './errors';
import type { RuntimeSettings } from './runtime-settings';

type PlanningSettings = Pick<
  RuntimeSettings,
  'quota' | 'pollIntervalSeconds' | 'pollStrategy' | 'polling' | 'safetyMargin'
>;

/** The client's quota as the rate budget takes it (10 % kept back unless said otherwise). */
export function rateBudgetConfigOf(settings: PlanningSettings): RateBudgetConfig {
  return {
    limit: settings.quota.requests,
    windowMs: settings.quota.windowSeconds * 1000,
    safetyMargin: settings.safetyMargin ?? 0.1,
    ...((settings.quota.maxRequests ?? 0) > 0 ? { maxLimit: settings.quota.maxRequests } : {}),
  };
}

export function pollingConfigOf(settings: PlanningSettings): PollingConfig {
  return {
    ...DEFAULT_POLLING_CONFIG,
    cycleMs: settings.pollIntervalSeconds * 1000,
    ...(settings.pollStrategy ? { strategy: settings.pollStrategy } : {}),
    ...settings.polling,
  };
}

export interface PlannerPorts {
  readonly stores: Pick<Stores, 'vehicles' | 'enrollments'>;
  /** The budget whose followed quota (`X-RateLimit-Limit`) sizes each cycle. */
  readonly rateBudget: Pick<RateBudget, 'followed'>;
  /** Where the planner sends poll jobs. */
  readonly pollQueue?: JobQueue<PollJob>;
  /** False when the map API secret is absent or blank: no map job is planned. */
  readonly mapEnabled: () => Promise<boolean>;
  readonly now: () => number;
}

/**
 * The planner's dependencies per run, with its memory of booked reads kept as long as this (a warm
 * function) lives; `memory` is also what the management API reads for a vehicle's last booking.
 */
export function createPlannerRuntime(
  settings: PlanningSettings,
  ports: PlannerPorts,
): { plannerDeps(): Promise<PlannerDeps>; readonly memory: PlannerMemory } {
  const memory = createPlannerMemory();
  const config = pollingConfigOf(settings);
  const rateBudget = rateBudgetConfigOf(settings);
  return {
    memory,
    async plannerDeps() {
      const queue = ports.pollQueue;
      if (!queue) throw new RuntimeSetupError('pollQueue', 'the planner needs the poll jobs queue');
      // Without map credentials the map jobs are dropped here rather than sent and skipped.
      const sendMap = await ports.mapEnabled();
      const filtered: JobQueue<PollJob> = sendMap
        ? queue
        : {
            send: async (messages: readonly OutgoingMessage<PollJob>[]) => {
              const kept = messages.filter((m) => m.body.kind !== 'poll-map');
              if (kept.length > 0) await queue.send(kept);
            },
          };
      return {
        vehicles: ports.stores.vehicles,
        enrollments: ports.stores.enrollments,
        queue: filtered,
        now: ports.now,
        config,
        rateBudget,
        quota: async () => plannedRate(await ports.rateBudget.followed(), rateBudget),
        memory,
      };
    },
  };
}
