import * as z from 'zod';

export const maintenanceFields = () => ({
  days: z
    .number()
    .int()
    .describe('days left before regular maintenance; negative = overdue by that many days'),
  mileageKm: z.number().int().describe('km left before regular maintenance; negative = overdue'),
  cycle: z.number().int().nonnegative().describe('maintenance cycle number, incremented by each reset'),
});

export const crossed = () =>
  z
    .array(z.enum(['days', 'mileage']))
    .min(1)
    .describe('which countdowns crossed the threshold');
