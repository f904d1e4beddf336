import * as z from 'zod';
import { defineEvent, isoDate } from '../common';

export const carhookQuotaChanged = defineEvent({
  type: 'carhook.quota.changed',
  version: 1,
  producer: 'rate budget (poll worker)',
  audience: 'opt-in',
  description:
    "The quota Carhook spends changed: the API's X-RateLimit-Limit rose (followed up to the configured ceiling) or fell (followed at once), or a new configuration replaced it.",
  data: () =>
    z.object({
      clientId: z.string().min(1).describe('the API client whose quota it is'),
      previousLimit: z.number().int().positive().describe('requests per window followed before'),
      limit: z.number().int().positive().describe('requests per window followed from now on'),
      windowSeconds: z.number().int().positive().describe('the window of the limit (configured)'),
      source: z
        .enum(['header', 'configuration'])
        .describe("header: the API's X-RateLimit-Limit; configuration: a new --quota, window or ceiling"),
      ceiling: z
        .number()
        .int()
        .positive()
        .describe('the highest limit followed: the configured quota, or --quota-max when set higher'),
      changedAt: isoDate,
    }),
});
