import * as z from 'zod';
import { defineEvent, isoDate } from '../common';
import { freshnessFields } from './freshness-common';

export const carhookFreshnessRestored = defineEvent({
  type: 'carhook.freshness.restored',
  version: 1,
  producer: 'freshness check (sweeper)',
  audience: 'opt-in',
  description:
    'A kind of change told at risk is back within its freshness target: both the predicted and the measured p95 lag are within it.',
  data: () =>
    z.object({
      ...freshnessFields(),
      atRiskSince: isoDate.describe('when the at-risk this ends was told'),
    }),
});
