import * as z from 'zod';
import { defineEvent, isoDate } from '../common';

export const vehicleReportingStopped = defineEvent({
  type: 'vehicle.reporting.stopped',
  version: 1,
  producer: 'diff engine',
  audience: 'all',
  description:
    "The vehicle's reads succeed but its records stopped advancing: no new trip, event or other record for longer than its silence threshold.",
  data: () =>
    z.object({
      silentSince: isoDate.describe("the newest record's time (or the first poll's, when it never had one)"),
      lastRecordAt: isoDate.optional().describe('the newest record Carhook has seen, when it has seen one'),
      thresholdS: z.number().int().positive().describe('the silence after which it is told, in seconds'),
      basis: z
        .enum(['default', 'learned'])
        .describe(
          "default: --silence-after (48 h unless set); learned: three times the longest gap of the vehicle's own history, bounded",
        ),
      readAt: isoDate.describe('the successful read that found nothing newer'),
    }),
});
