/**
 * The capacity report from the stores: every vehicle record (their learned rates), the quota the
 * budget follows, the polling configuration and the freshness targets. The clock is injected.
 */
import type { PollingConfig } from '../polling/config';
import type { RateBudgetConfig } from '../ratelimit/bucket';
import { plannedRate, type RateBudget } from '../ratelimit/budget';
import type { VehicleStore } from '../store/ports';
import type { VehicleRecord } from '../store/records';
import { type CapacityReport, capacityReport, capacityVehicles, type FreshnessTargets } from './report';

const YEAR_MS = 365 * 24 * 3_600_000;

export interface CapacityDeps {
  readonly vehicles: Pick<VehicleStore, 'listDue'>;
  readonly rateBudget: Pick<RateBudget, 'followed'>;
  readonly rateBudgetConfig: RateBudgetConfig;
  readonly pollingConfig: PollingConfig;
  readonly now: () => number;
  readonly targets?: FreshnessTargets;
}

export async function readCapacity(deps: CapacityDeps): Promise<CapacityReport> {
  const now = deps.now();
  const records: VehicleRecord[] = [];
  let cursor: string | undefined;
  do {
    // Every vehicle, due or not: a listing far past any next poll time.
    const page = await deps.vehicles.listDue({
      now: now + YEAR_MS,
      limit: 1000,
      ...(cursor ? { cursor } : {}),
    });
    records.push(...page.items);
    cursor = page.cursor;
  } while (cursor);
  const quota = plannedRate(await deps.rateBudget.followed(), deps.rateBudgetConfig);
  return capacityReport({
    now,
    vehicles: capacityVehicles(records, now, deps.pollingConfig),
    quota,
    config: deps.pollingConfig,
    ...(deps.targets ? { targets: deps.targets } : {}),
  });
}
