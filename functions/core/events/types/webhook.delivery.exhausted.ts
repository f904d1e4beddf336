import * as z from 'zod';
import { defineEvent, isoDate } from '../common';

export const webhookDeliveryExhausted = defineEvent({
  type: 'webhook.delivery.exhausted',
  version: 1,
  producer: 'webhook delivery',
  audience: 'opt-in',
  description: 'A delivery ran out of retries and went to the dead-letter queue.',
  data: () =>
    z.object({
      subscriptionId: z.string().min(1),
      eventId: z.string().min(1),
      eventType: z.string().min(1),
      attempts: z.number().int().positive(),
      lastStatus: z.number().int().optional().describe('HTTP status of the last attempt, if a response came'),
      lastError: z.string().optional().describe('error of the last attempt when no response came'),
      firstAttemptAt: isoDate.optional(),
      lastAttemptAt: isoDate,
    }),
});
