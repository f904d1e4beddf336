import * as z from 'zod';
import { defineEvent } from '../common';
import { maintenanceFields } from './maintenance-common';

export const vehicleMaintenanceReset = defineEvent({
  type: 'vehicle.maintenance.reset',
  version: 1,
  producer: 'diff engine',
  audience: 'all',
  description: 'The maintenance countdown jumped back up: a service was done. Starts a new cycle.',
  data: () =>
    z.object({
      ...maintenanceFields(),
      previousDays: z.number().int(),
      previousMileageKm: z.number().int(),
    }),
});
