/**
 * The capacity report from the stores: every vehicle record (their learned rates), the quota the
 * budget follows, the polling configuration and the freshness targets. The clock is injected.
 */
import type { PollingConfig } from '../polling/config';
import type { RateBudgetConfig } from '../ratelimit/bucket';
import { plannedRate, type RateBudget } from '../ratelimit/budget';
import type { VehicleStore } from '../store/ports';
import type { VehicleRecord } from '../store/records';
import type { CapacityQuota, CapacityVehicle } from './model';
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

/** The fleet as the model sees it at `now`: its vehicles' learned rates and the quota followed. */
export interface FleetNow {
  readonly now: number;
  readonly vehicles: readonly CapacityVehicle[];
  readonly quota: CapacityQuota;
}

export async function readFleet(deps: Omit<CapacityDeps, 'targets'>): Promise<FleetNow> {
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
  return { now, vehicles: capacityVehicles(records, now, deps.pollingConfig), quota };
}

export async function readCapacity(deps: CapacityDeps): Promise<CapacityReport> {
  const fleet = await readFleet(deps);
  return capacityReport({
    ...fleet,
    config: deps.pollingConfig,
    ...(deps.targets ? { targets: deps.targets } : {}),
  });
}
