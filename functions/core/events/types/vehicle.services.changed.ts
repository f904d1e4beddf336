import * as z from 'zod';
import { defineEvent } from '../common';

export const vehicleServicesChanged = defineEvent({
  type: 'vehicle.services.changed',
  version: 1,
  producer: 'diff engine',
  audience: 'all',
  description: 'The set of connected services the vehicle is eligible for changed.',
  data: () =>
    z.object({
      eligible: z.array(z.string()).describe('codes the vehicle is eligible for now, sorted'),
      added: z.array(z.string()).describe('codes that became eligible'),
      removed: z.array(z.string()).describe('codes that are no longer eligible'),
      services: z
        .array(z.object({ code: z.string(), shortLabel: z.string().optional(), eligible: z.boolean() }))
        .describe('the full list as the API returned it, sorted by code'),
    }),
});
