/**
 * The planner (DESIGN.md "Polling within the quota"): decides which vehicles and which resources
 * to poll this cycle, within the requests the shared budget allows, and enqueues the jobs.
 *
 * Cadence per resource (strategy `carhook`):
 * - v2 events every cycle (with `since`, see poll-vehicle.ts): they reveal alerts, collisions,
 *   trips, refuels and fuel thefts;
 * - alerts only while the vehicle has alerts known active (to see them fixed), plus a complete
 *   reconciliation every `alertsReconcileMs`; alerts revealed by events are raised from the event
 *   itself, and the next cycle follows them;
 * - maintenance daily (and after a trip: a follow-up inside the poll that saw the trip), services
 *   and map daily;
 * - fleet contracts (v1, vehicles without a v2 id) in batches through the bulk POST lists.
 * Strategy `naive` (benchmark baseline): events, alerts, collisions and maintenance for every
 * vehicle every cycle.
 *
 * When the budget is short: vehicles past their maximum staleness first, then those with active
 * alerts, then recently active ones, then the stalest.
 */
import { createHash } from 'node:crypto';
import type { JobQueue, OutgoingMessage } from '../queue/ports';
import { capacityOf, DEFAULT_RATE_BUDGET, type RateBudgetConfig } from '../ratelimit/bucket';
import type { EnrollmentStore, VehicleStore } from '../store/ports';
import type { VehicleRecord } from '../store/records';
import {
  DEFAULT_POLLING_CONFIG,
  NAIVE_RESOURCES,
  type PollingConfig,
  type PollStrategy,
  type VehicleResource,
} from './config';
import type { PollFleetJob, PollJob, PollMapJob, PollVehicleJob } from './jobs';

/** Requests one fleet batch costs: active alerts, crash, maintenance and trip lists (v1). */
export const FLEET_REQUESTS_PER_BATCH = 4;

export interface PlanInput {
  /** Vehicles due now (not paused). */
  readonly vehicles: readonly VehicleRecord[];
  /** Requests the budget allows this cycle. */
  readonly budget: number;
  /** Epoch ms. */
  readonly now: number;
  readonly config?: Partial<PollingConfig>;
  /** Overrides `config.strategy`. */
  readonly strategy?: PollStrategy;
}

export interface Plan {
  readonly jobs: readonly (PollVehicleJob | PollFleetJob | PollMapJob)[];
  /** Requests the planned jobs are expected to cost (follow-ups a poll reveals come on top). */
  readonly estimatedRequests: number;
  /** Vehicles left for a later cycle because the budget was short. */
  readonly deferred: readonly string[];
}

const olderThan = (at: string | undefined, ms: number, now: number): boolean =>
  at === undefined || now - Date.parse(at) >= ms;

/** The resources a v2 vehicle needs this cycle under the `carhook` cadence. */
export function carhookResources(
  vehicle: VehicleRecord,
  now: number,
  config: PollingConfig,
): VehicleResource[] {
  const polled = vehicle.resourcePolledAt;
  const out: VehicleResource[] = ['events'];
  if (
    (vehicle.hints.activeAlerts && followsAlertsNow(vehicle.id, now, config)) ||
    olderThan(polled.alerts, config.alertsReconcileMs, now)
  ) {
    out.push('alerts');
  }
  if (olderThan(polled.maintenance, config.dailyMs, now)) out.push('maintenance');
  if (olderThan(polled.services, config.dailyMs, now)) out.push('services');
  return out;
}

/**
 * Whether this cycle is the one where a vehicle with active alerts reads them: every
 * `activeAlertsEveryMs`, staggered by a hash of its id so the reads spread over the cycles and
 * nothing needs to be written to remember the last one.
 */
export function followsAlertsNow(vehicleId: string, now: number, config: PollingConfig): boolean {
  return inCycle(vehicleId, now, config.activeAlertsEveryMs, config.cycleMs);
}

/**
 * True in one cycle out of every `periodMs / cycleMs`, at an offset given by a hash of `key`: a
 * periodic task spread over the cycles without storing when it last ran (no write).
 */
export function inCycle(key: string, now: number, periodMs: number, cycleMs: number): boolean {
  const every = Math.max(1, Math.round(periodMs / cycleMs));
  if (every === 1) return true;
  const cycle = Math.floor(now / cycleMs);
  const offset = createHash('sha256').update(key).digest().readUInt32BE(0) % every;
  return cycle % every === offset;
}

/** Map update information is read daily, in bulk (`poll-map` jobs). */
export const mapDue = (vehicle: VehicleRecord, now: number, config: PollingConfig): boolean =>
  olderThan(vehicle.resourcePolledAt.map, config.dailyMs, now);

/** A vehicle polled through v1 bulk lists: a fleet contract's vehicle has no v2 id. */
export const isFleetVehicle = (vehicle: Pick<VehicleRecord, 'apiVehicleId'>): boolean =>
  vehicle.apiVehicleId === undefined;

const stalenessOf = (v: VehicleRecord, now: number): number =>
  now - Date.parse(v.lastPolledAt ?? v.createdAt);

/** Lower tier first: 0 past max staleness, 1 active alerts, 2 recent activity, 3 the rest. */
function tierOf(v: VehicleRecord, now: number, config: PollingConfig): number {
  if (stalenessOf(v, now) >= config.maxStalenessMs) return 0;
  if (v.hints.activeAlerts) return 1;
  if (
    v.hints.lastActivityAt !== undefined &&
    now - Date.parse(v.hints.lastActivityAt) <= config.recentActivityMs
  ) {
    return 2;
  }
  return 3;
}

/** Priority order (stable and deterministic: ids break ties). */
export function byPriority(
  vehicles: readonly VehicleRecord[],
  now: number,
  config: PollingConfig,
): VehicleRecord[] {
  return [...vehicles].sort((a, b) => {
    const ta = tierOf(a, now, config);
    const tb = tierOf(b, now, config);
    if (ta !== tb) return ta - tb;
    if (a.hints.priority !== b.hints.priority) return b.hints.priority - a.hints.priority;
    const sa = stalenessOf(a, now);
    const sb = stalenessOf(b, now);
    if (sa !== sb) return sb - sa;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
}

interface Unit {
  readonly job: PollVehicleJob | PollFleetJob | PollMapJob;
  readonly cost: number;
  readonly ids: readonly string[];
  /** Index of the unit's most urgent vehicle in priority order. */
  readonly rank: number;
}

/** Pure planning: jobs for this cycle within `budget` requests. */
export function plan(input: PlanInput): Plan {
  const config: PollingConfig = { ...DEFAULT_POLLING_CONFIG, ...input.config };
  const strategy = input.strategy ?? config.strategy;
  const { now } = input;
  const plannedAt = new Date(now).toISOString();
  const ordered = byPriority(input.vehicles, now, config);
  const units: Unit[] = [];
  const fleetGroups = new Map<'C' | 'P', { ids: string[]; rank: number }[]>();
  const mapIds: string[] = [];

  ordered.forEach((v, rank) => {
    if (isFleetVehicle(v)) {
      // spec 4.4: v1 bulk lists take a brand (`C` or `P`): one batch holds one brand group.
      const brand = v.brand === 'P' ? 'P' : 'C';
      const groups = fleetGroups.get(brand) ?? [];
      let last = groups.at(-1);
      if (!last || last.ids.length >= config.fleetBatchSize) {
        last = { ids: [], rank };
        groups.push(last);
      }
      last.ids.push(v.id);
      fleetGroups.set(brand, groups);
      return;
    }
    const resources = strategy === 'naive' ? [...NAIVE_RESOURCES] : carhookResources(v, now, config);
    if (strategy === 'carhook' && mapDue(v, now, config)) mapIds.push(v.id);
    units.push({
      job: { kind: 'poll-vehicle', vehicleId: v.id, resources, strategy, rotate: false, plannedAt },
      cost: resources.length,
      ids: [v.id],
      rank,
    });
  });
  for (const [brand, groups] of fleetGroups) {
    for (const g of groups) {
      units.push({
        job: { kind: 'poll-fleet', brand, vehicleIds: g.ids, rotate: false, plannedAt },
        cost: FLEET_REQUESTS_PER_BATCH,
        ids: g.ids,
        rank: g.rank,
      });
    }
  }
  units.sort((a, b) => a.rank - b.rank);
  // Map reads are daily and never urgent: after every vehicle, one request per batch.
  for (let i = 0; i < mapIds.length; i += config.mapBatchSize) {
    const ids = mapIds.slice(i, i + config.mapBatchSize);
    units.push({
      job: { kind: 'poll-map', vehicleIds: ids, plannedAt },
      cost: 1,
      ids,
      rank: ordered.length + i,
    });
  }

  let left = Math.max(0, Math.floor(input.budget));
  const chosen: Unit[] = [];
  const deferred: string[] = [];
  for (const unit of units) {
    if (unit.cost <= left) {
      chosen.push(unit);
      left -= unit.cost;
      continue;
    }
    // Short budget: a v2 vehicle still gets its events read if one request is left.
    if (unit.job.kind === 'poll-vehicle' && strategy === 'carhook' && left >= 1) {
      chosen.push({ ...unit, job: { ...unit.job, resources: ['events'] }, cost: 1 });
      left -= 1;
      continue;
    }
    // A map batch that does not fit waits for a cycle with spare budget (its vehicles were polled).
    if (unit.job.kind === 'poll-map') continue;
    deferred.push(...unit.ids);
  }
  const rotate = deferred.length > 0;
  return {
    jobs: chosen.map((u) => (rotate && u.job.kind !== 'poll-map' ? { ...u.job, rotate } : u.job)),
    estimatedRequests: chosen.reduce((n, u) => n + u.cost, 0),
    deferred,
  };
}

export interface PlannerDeps {
  readonly vehicles: VehicleStore;
  readonly enrollments: EnrollmentStore;
  readonly queue: JobQueue<PollJob>;
  readonly now: () => number;
  readonly config?: Partial<PollingConfig>;
  /** The budget's size (the workers draw every request from the shared RateBudget). */
  readonly rateBudget?: RateBudgetConfig;
}

export interface PlannerRun {
  readonly due: number;
  readonly jobs: number;
  readonly discoveryJobs: number;
  readonly estimatedRequests: number;
  readonly deferred: number;
  readonly budget: number;
}

/** Queue dedup ids are at most 128 printable characters (SQS FIFO): long ones are hashed. */
function dedupIdOf(key: string): string {
  return /^[\x21-\x7e]{1,128}$/.test(key) ? key : `h#${createHash('sha256').update(key).digest('hex')}`;
}

/** Requests one cycle may spend: the budget's capacity per window, scaled to the cycle. */
export function cycleBudget(config: PollingConfig, rate: RateBudgetConfig = DEFAULT_RATE_BUDGET): number {
  return Math.floor((capacityOf(rate) * config.cycleMs) / rate.windowMs);
}

/**
 * One planner run: lists due vehicles, plans within the cycle's budget, enqueues the jobs, and
 * enqueues vehicle discovery for oauth-user enrollments once per `discoveryIntervalMs` (staggered
 * by enrollment, no write). The RateBudget
 * port has no read, so the cycle is sized from the budget's configuration; the workers draw every
 * request from the shared bucket, which is what keeps the quota whatever the plan says.
 */
export async function runPlanner(deps: PlannerDeps): Promise<PlannerRun> {
  const config: PollingConfig = { ...DEFAULT_POLLING_CONFIG, ...deps.config };
  const now = deps.now();
  const plannedAt = new Date(now).toISOString();
  const cycleStart = Math.floor(now / config.cycleMs) * config.cycleMs;

  const discovery: PollJob[] = [];
  let cursor: string | undefined;
  do {
    const page = await deps.enrollments.list({
      status: 'active',
      limit: 1000,
      ...(cursor ? { cursor } : {}),
    });
    for (const e of page.items) {
      if (e.kind !== 'oauth-user') continue;
      if (inCycle(`discovery:${e.id}`, now, config.discoveryIntervalMs, config.cycleMs)) {
        discovery.push({ kind: 'discover-vehicles', enrollmentId: e.id, plannedAt });
      }
    }
    cursor = page.cursor;
  } while (cursor);

  const due: VehicleRecord[] = [];
  cursor = undefined;
  do {
    const limit = Math.min(1000, config.maxVehiclesPerRun - due.length);
    const page = await deps.vehicles.listDue({ now, limit, ...(cursor ? { cursor } : {}) });
    due.push(...page.items);
    cursor = page.cursor;
  } while (cursor && due.length < config.maxVehiclesPerRun);

  // Discovery reads one page per enrollment (usually): reserve it.
  const budget = Math.max(0, cycleBudget(config, deps.rateBudget) - discovery.length);
  const planned = plan({ vehicles: due, budget, now, config });
  const messages: OutgoingMessage<PollJob>[] = [
    ...discovery.map((job) => ({
      body: job,
      dedupId: dedupIdOf(
        `discover#${job.kind === 'discover-vehicles' ? job.enrollmentId : ''}#${cycleStart}`,
      ),
    })),
    ...planned.jobs.map((job) => ({
      body: job,
      dedupId: dedupIdOf(
        job.kind === 'poll-vehicle'
          ? `poll#${job.vehicleId}#${cycleStart}`
          : `${job.kind}#${job.vehicleIds[0]}#${cycleStart}`,
      ),
    })),
  ];
  if (messages.length > 0) await deps.queue.send(messages);
  return {
    due: due.length,
    jobs: planned.jobs.length,
    discoveryJobs: discovery.length,
    estimatedRequests: planned.estimatedRequests,
    deferred: planned.deferred.length,
    budget,
  };
}
