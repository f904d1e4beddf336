import * as z from 'zod';
import { defineEvent, isoDate } from '../common';
import { alertFields } from './vehicle.alert.raised';

export const vehicleAlertFixed = defineEvent({
  type: 'vehicle.alert.fixed',
  version: 1,
  producer: 'diff engine',
  audience: 'all',
  description:
    'An active alert was fixed: the API reported it inactive, or it vanished from a complete alert list.',
  data: z.object({
    ...alertFields,
    endedAt: isoDate
      .optional()
      .describe(
        'end of the alert: from the API when it says (endedAtSource api), else the read that showed it fixed (observed)',
      ),
    endedAtSource: z
      .enum(['api', 'observed'])
      .optional()
      .describe(
        'api: endedAt is the end (or last update) the API gave; observed: the API gave none, endedAt is when Carhook saw the alert fixed (an upper bound)',
      ),
    reason: z
      .enum(['inactive', 'absent'])
      .describe('inactive: the API reported it fixed; absent: it is no longer in a complete alert list'),
    durationS: z
      .number()
      .nonnegative()
      .optional()
      .describe('seconds between startedAt and endedAt when both are known'),
  }),
});
