import * as z from 'zod';
import { defineEvent, isoDate } from '../common';

export const vehicleMapUpdateAvailable = defineEvent({
  type: 'vehicle.map_update.available',
  version: 1,
  producer: 'diff engine',
  audience: 'all',
  description:
    'A new navigation map version is available for the vehicle and differs from the installed one.',
  data: () =>
    z.object({
      vin: z.string(),
      availableVersion: z.string().min(1),
      installedVersion: z.string().optional(),
      previousAvailableVersion: z.string().optional(),
      releasedAt: isoDate.optional(),
      initial: z.boolean().describe('true when the update was already available at enrollment (first poll)'),
    }),
});
