// `webhook.test` lives in webhook-test.ts: a module named `*.test.ts` would be taken for a test by
// test runners and coverage tools.
import * as z from 'zod';
import { defineEvent } from '../common';

export const webhookTest = defineEvent({
  type: 'webhook.test',
  version: 1,
  producer: 'management API (POST /subscriptions/{id}/test)',
  audience: 'all',
  description:
    'A test delivery requested by an operator, to check an endpoint and its signature verification.',
  data: () =>
    z.object({
      subscriptionId: z.string().min(1),
      message: z.string(),
    }),
});
