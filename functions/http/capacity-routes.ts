/**
 * `GET /capacity`: what the quota can keep fresh, per kind of change, from the planner's model
 * (functions/core/capacity): the guarantee, the expected mean and p95 lag for the fleet as it is,
 * and for each kind with a freshness target whether it is met, how many vehicles like the current
 * ones fit, and the quota that would meet it. Read from the stores; no request to the API.
 */
import type { Hono } from 'hono';
import * as z from 'zod';
import { freshnessKinds } from '../core/capacity/model';
import { readCapacity } from '../core/capacity/read';
import type { Runtime } from '../runtime/runtime';
import type { RouteBook } from './openapi';

const seconds = z.number().nullable().describe('seconds; null: never (no read left for it)');

export const capacitySchema = z.object({
  at: z.string().describe('the time of the answer (ISO 8601)'),
  strategy: z.enum(['carhook', 'round-robin', 'naive']),
  vehicles: z
    .number()
    .int()
    .describe('vehicles the planner reads one by one (not paused, not under a fleet contract)'),
  vehiclesWithActiveAlerts: z.number().int(),
  changesPerHour: z
    .number()
    .describe("changes per hour the fleet's events feeds are expected to reveal (learned)"),
  quota: z.object({
    limit: z.number().int().describe('requests per window the budget follows'),
    windowSeconds: z.number(),
    cycleSeconds: z.number(),
    budgetPerCycle: z.number().int(),
    reservePerCycle: z.number().int().describe('kept for follow-up reads'),
    readsPerCycle: z.number().int(),
  }),
  kinds: z.array(
    z.object({
      kind: z.enum(freshnessKinds),
      eventTypes: z.array(z.string()),
      guaranteeS: seconds.describe('the longest a change of this kind waits, guaranteed'),
      meanS: seconds,
      p95S: seconds,
      target: z
        .object({
          s: z.number().describe('the p95 lag this kind should stay within'),
          met: z.boolean(),
          vehiclesThatFit: z
            .number()
            .int()
            .nullable()
            .describe('vehicles like the current ones within the target; null: not limited by the quota'),
          moreVehicles: z
            .number()
            .int()
            .nullable()
            .describe('vehiclesThatFit minus the fleet (negative: too many)'),
          quotaForTarget: z
            .number()
            .int()
            .nullable()
            .describe(
              'requests per window that would meet it for this fleet; null: no quota can, or not quota-bound',
            ),
        })
        .optional(),
    }),
  ),
});

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
