/**
 * `GET /capacity`: what the quota can keep fresh, per kind of change, from the planner's model
 * (functions/core/capacity): the guarantee, the expected mean and p95 lag for the fleet as it is,
 * and for each kind with a freshness target whether it is met, how many vehicles like the current
 * ones fit, and the quota that would meet it. Read from the stores; no request to the API.
 */
import type { Hono } from 'hono';
import { readCapacity } from '../core/capacity/read';
import type { Runtime } from '../runtime/runtime';
import { capacitySchema } from './capacity-contract';
import type { RouteBook } from './openapi';

export function addCapacityRoutes(
  app: Hono,
  book: RouteBook,
  deps: {
    readonly runtime: Pick<Runtime, 'ports' | 'now' | 'settings' | 'rateBudgetConfig' | 'pollingConfig'>;
  },
): void {
  const { runtime } = deps;
  book.add(
    app,
    {
      method: 'get',
      path: '/capacity',
      operationId: 'getCapacity',
      summary:
        'What the quota keeps fresh: guarantee, mean and p95 lag per kind, vehicles that fit, quota for a target',
      tag: 'metrics',
      access: 'management',
      responses: {
        200: { description: 'The capacity model for the fleet as it is.', schema: capacitySchema },
      },
    },
    async (c) => {
      const targets = runtime.settings.freshnessTargets;
      const report = await readCapacity({
        vehicles: runtime.ports.stores.vehicles,
        rateBudget: runtime.ports.rateBudget,
        rateBudgetConfig: runtime.rateBudgetConfig,
        pollingConfig: runtime.pollingConfig,
        now: runtime.now,
        ...(targets ? { targets } : {}),
      });
      return c.json(report);
    },
  );
}
