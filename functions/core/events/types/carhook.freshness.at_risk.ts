import * as z from 'zod';
import { defineEvent } from '../common';
import { freshnessFields } from './freshness-common';

export const carhookFreshnessAtRisk = defineEvent({
  type: 'carhook.freshness.at_risk',
  version: 1,
  producer: 'freshness check (sweeper)',
  audience: 'opt-in',
  description:
    "A kind of change is at risk of missing its freshness target: the capacity model's p95 lag for the fleet as it is, or the p95 measured over the last hour, passed it. At most one per kind per hour.",
  data: () => z.object(freshnessFields()),
});
