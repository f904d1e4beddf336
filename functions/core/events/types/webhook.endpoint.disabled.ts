import * as z from 'zod';
import { defineEvent, isoDate } from '../common';

export const webhookEndpointDisabled = defineEvent({
  type: 'webhook.endpoint.disabled',
  version: 1,
  producer: 'webhook delivery',
  audience: 'opt-in',
  description: 'A webhook subscription was disabled (too many failed deliveries, or by an operator).',
  data: () =>
    z.object({
      subscriptionId: z.string().min(1),
      url: z.string(),
      reason: z.string().min(1),
      consecutiveFailures: z.number().int().nonnegative().optional(),
      disabledAt: isoDate,
    }),
});
