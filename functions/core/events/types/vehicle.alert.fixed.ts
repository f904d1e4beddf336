import * as z from 'zod';
import { defineEvent, isoDate } from '../common';
import { alertFields } from './vehicle.alert.raised';

export const vehicleAlertFixed = defineEvent({
  type: 'vehicle.alert.fixed',
  version: 1,
  producer: 'diff engine',
  audience: 'all',
  description:
    'An active alert was fixed: the API reported it inactive, or it is missing from complete alert lists (an absence is confirmed before it is told).',
  data: () =>
    z.object({
      ...alertFields(),
      endedAt: isoDate
        .optional()
        .describe(
          'end of the alert: from the API when it says (endedAtSource api), else the first read that showed it fixed or missing (observed), never the read that confirmed it',
        ),
      endedAtSource: z
        .enum(['api', 'observed'])
        .optional()
        .describe(
          'api: endedAt is the end (or last update) the API gave; observed: the API gave none, endedAt is when Carhook first saw the alert fixed or missing (an upper bound)',
        ),
      reason: z
        .enum(['inactive', 'absent'])
        .describe(
          'inactive: the API reported it fixed (in its list, or in its own record read to confirm an absence); absent: complete alert lists read a cycle apart no longer have it',
        ),
      durationS: z
        .number()
        .nonnegative()
        .optional()
        .describe('seconds between startedAt and endedAt when both are known'),
    }),
});
