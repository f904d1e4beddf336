import * as z from 'zod';
import { defineEvent } from '../common';
import { crossed, maintenanceFields } from './maintenance-common';

export const vehicleMaintenanceOverdue = defineEvent({
  type: 'vehicle.maintenance.overdue',
  version: 1,
  producer: 'diff engine',
  audience: 'all',
  description: 'The maintenance countdown crossed zero (days or km): maintenance is overdue.',
  data: () =>
    z.object({
      ...maintenanceFields(),
      crossed: crossed(),
      initial: z.boolean().describe('true when maintenance was already overdue at enrollment (first poll)'),
    }),
});
