/**
 * The answer of `GET /capacity`, named in the OpenAPI document like the rest of the contract
 * (./contract.ts), so the console and the CLI read it typed. Imports nothing that needs Node.
 */
import * as z from 'zod';
import { freshnessKinds } from '../core/capacity/kinds';
import { named } from './contract';

const seconds = z.number().nullable().describe('seconds; null: never (no read left for it)');

export const capacitySchema = named(
  'Capacity',
  z.object({
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
  }),
);

export type Capacity = z.output<typeof capacitySchema>;
