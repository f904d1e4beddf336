import * as z from 'zod';
import { defineEvent, isoDate } from '../common';

export const vehicleReportingResumed = defineEvent({
  type: 'vehicle.reporting.resumed',
  version: 1,
  producer: 'diff engine',
  audience: 'all',
  description: 'A vehicle told silent (vehicle.reporting.stopped) has a newer record again.',
  data: () =>
    z.object({
      silentSince: isoDate.describe('as told by vehicle.reporting.stopped'),
      resumedAt: isoDate.describe('the time of the newer record'),
      silentForS: z.number().int().nonnegative().describe('seconds between the two records'),
    }),
});
