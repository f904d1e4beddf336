import * as z from 'zod';
import { freshnessKinds } from '../../capacity/kinds';
import { isoDate } from '../common';

/** What `carhook.freshness.at_risk` and `.restored` both carry: a kind's target and where it stands. */
export const freshnessFields = () => ({
  kind: z.enum(freshnessKinds).describe('the kind of change whose target it is'),
  targetS: z
    .number()
    .positive()
    .describe('the freshness target: the p95 detection lag it should stay within, in seconds'),
  predictedP95S: z
    .number()
    .nonnegative()
    .nullable()
    .describe(
      "the capacity model's p95 lag for the fleet as it is, in seconds (null: no read is left for it)",
    ),
  guaranteeS: z
    .number()
    .nonnegative()
    .nullable()
    .describe('the staleness the planner guarantees for it, in seconds (null: none)'),
  measuredP95S: z
    .number()
    .nonnegative()
    .optional()
    .describe(
      "the p95 detection lag of this kind's events detected in the last hour, when there were enough of them",
    ),
  measuredEvents: z
    .number()
    .int()
    .nonnegative()
    .describe("this kind's events of the last hour the measured p95 is taken from (0: none)"),
  vehicles: z.number().int().nonnegative().describe('vehicles polled one by one (the fleet the model sizes)'),
  quotaLimit: z.number().int().positive().describe('requests per window followed now'),
  windowSeconds: z.number().int().positive().describe('the window of the quota'),
  quotaForTarget: z
    .number()
    .int()
    .positive()
    .nullable()
    .describe(
      'requests per window that would meet the target for this fleet (null: none would, or the quota is not what limits it)',
    ),
  checkedAt: isoDate.describe('the check that found it'),
});
