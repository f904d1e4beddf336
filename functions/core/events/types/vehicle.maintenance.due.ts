import * as z from 'zod';
import { defineEvent } from '../common';
import { crossed, maintenanceFields } from './maintenance-common';

export const vehicleMaintenanceDue = defineEvent({
  type: 'vehicle.maintenance.due',
  version: 1,
  producer: 'diff engine',
  audience: 'all',
  description: 'The maintenance countdown crossed the due threshold (default 30 days or 1,000 km).',
  data: () =>
    z.object({
      ...maintenanceFields(),
      crossed: crossed(),
      thresholds: z.object({ days: z.number().int(), mileageKm: z.number().int() }),
      initial: z.boolean().describe('true when maintenance was already due at enrollment (first poll)'),
    }),
});
