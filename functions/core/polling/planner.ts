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
 * vehicle every cycle (the worker adds the eco-driving of the trips it sees).
 *
 * Each cycle leaves `followUpReserveRatio` of its budget unbooked for the follow-ups polls
 * discover, and books every due vehicle's events before any routine read (see `plan`); in a full
 * cycle the routine reads are queued after every events poll, so follow-ups are sent before them.
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

/**
 * Every resource a v2 vehicle is due for this cycle under the `carhook` cadence (what it reads when
 * the budget allows; `plan` books them in the order described there).
 */
export function carhookResources(
  vehicle: VehicleRecord,
  now: number,
  config: PollingConfig,
): VehicleResource[] {
  const split = splitResources(vehicle, now, config);
  return inResourceOrder([
    ...split.now,
    ...(split.extras.followAlerts ? (['alerts'] as const) : []),
    ...split.extras.periodic,
  ]);
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
  /** carhook v2 vehicles: reads that wait for budget left after every vehicle's events. */
  readonly extras?: VehicleExtras;
}

/** The reads of a carhook v2 vehicle that are not urgent this cycle (see `splitResources`). */
interface VehicleExtras {
  /** Alerts of a vehicle with alerts known active, on its `activeAlertsEveryMs` turn. */
  readonly followAlerts: boolean;
  /** Alerts known active and no alert read planned otherwise: a candidate for `alertTurns`. */
  readonly alerting: boolean;
  /** Periodic reads due (reconciliation, daily), not yet overdue. */
  readonly periodic: readonly VehicleResource[];
}

const RESOURCE_ORDER: readonly VehicleResource[] = [
  'events',
  'alerts',
  'collisions',
  'trips',
  'maintenance',
  'services',
  'map',
];
const inResourceOrder = (rs: Iterable<VehicleResource>): VehicleResource[] => {
  const set = new Set(rs);
  return RESOURCE_ORDER.filter((r) => set.has(r));
};

/** A periodic read this late goes with the events, whatever the spare budget. */
const OVERDUE_FACTOR = 1.5;

/**
 * Splits a carhook v2 vehicle's reads: `now` goes with its events (the events themselves, a
 * baseline never read, a periodic read overdue by half its period); the rest are `extras`, booked
 * only with the budget left once every due vehicle has its events read.
 */
export function splitResources(
  vehicle: VehicleRecord,
  now: number,
  config: PollingConfig,
): { now: VehicleResource[]; extras: VehicleExtras } {
  const polled = vehicle.resourcePolledAt;
  const urgent: VehicleResource[] = ['events'];
  const periodic: VehicleResource[] = [];
  const periodOf = (r: 'alerts' | 'maintenance' | 'services'): number =>
    r === 'alerts' ? config.alertsReconcileMs : config.dailyMs;
  for (const r of ['alerts', 'maintenance', 'services'] as const) {
    const at = polled[r];
    if (at === undefined || olderThan(at, periodOf(r) * OVERDUE_FACTOR, now)) urgent.push(r);
    else if (olderThan(at, periodOf(r), now)) periodic.push(r);
  }
  const alerting = !urgent.includes('alerts') && !periodic.includes('alerts') && vehicle.hints.activeAlerts;
  const followAlerts = alerting && followsAlertsNow(vehicle.id, now, config);
  return { now: urgent, extras: { followAlerts, alerting, periodic } };
}

/** Requests of each cycle's budget left unbooked for follow-ups. */
export function followUpReserve(budget: number, config: PollingConfig): number {
  return Math.floor(Math.max(0, budget) * config.followUpReserveRatio);
}

const hashOf = (key: string): number => createHash('sha256').update(key).digest().readUInt32BE(0);

/**
 * Which of `candidates` get one of `slots` reads this cycle: all if they fit; else, in hash order,
 * the candidates split into `ceil(n / slots)` groups (index modulo the group count) read one group a
 * cycle, so each waits at most that many cycles while the candidates stay the same. The turn
 * depends on the cycle number and the group count only, not on the exact slots (nothing is stored).
 */
export function rotateSlots<T extends { readonly id: string }>(
  candidates: readonly T[],
  slots: number,
  now: number,
  cycleMs: number,
): T[] {
  if (slots <= 0) return [];
  if (candidates.length <= slots) return [...candidates];
  const ring = [...candidates].sort((a, b) => hashOf(a.id) - hashOf(b.id) || (a.id < b.id ? -1 : 1));
  const groups = Math.ceil(ring.length / slots);
  const turn = Math.floor(now / cycleMs) % groups;
  return ring.filter((_, i) => i % groups === turn);
}

/**
 * Which vehicles with active alerts read them this cycle, with `slots` reads to give. Each has its
 * turn once every `activeAlertsEveryMs` (staggered as `followsAlertsNow`); a turn that found no
 * slot is not lost: it waits in a queue, served before the next turns. The queue is not stored: it
 * is replayed over the last two periods with this cycle's candidates and slots (deterministic, no
 * write). With one turn per cycle, or more turns per cycle than slots, every candidate rotates
 * instead (`rotateSlots`), so none starves.
 */
export function alertTurns<T extends { readonly id: string }>(
  candidates: readonly T[],
  slots: number,
  now: number,
  config: Pick<PollingConfig, 'activeAlertsEveryMs' | 'cycleMs'>,
): T[] {
  if (slots <= 0 || candidates.length === 0) return [];
  const every = Math.max(1, Math.round(config.activeAlertsEveryMs / config.cycleMs));
  // More turns a cycle than slots: a queue would only grow (and serve the same ones): rotate.
  if (every === 1 || Math.ceil(candidates.length / every) > slots) {
    return rotateSlots(candidates, slots, now, config.cycleMs);
  }
  const ring = [...candidates]
    .map((c) => ({ c, h: hashOf(c.id) }))
    .sort((a, b) => a.h - b.h || (a.c.id < b.c.id ? -1 : 1));
  const cycle = Math.floor(now / config.cycleMs);
  let backlog: typeof ring = [];
  let chosen: typeof ring = [];
  for (let c = cycle - 2 * every + 1; c <= cycle; c++) {
    const turn = ((c % every) + every) % every;
    const waiting = new Set(backlog);
    const queue = [...backlog, ...ring.filter((x) => x.h % every === turn && !waiting.has(x))];
    chosen = queue.slice(0, slots);
    backlog = queue.slice(slots);
  }
  return chosen.map((x) => x.c);
}

/**
 * Pure planning: jobs for this cycle within `budget` requests.
 *
 * carhook, in three passes over the priority order, each within the budget less the follow-up
 * reserve (`followUpReserveRatio`): (1) every due vehicle's events (plus a baseline never read or
 * a periodic read overdue); (2) alerts of vehicles with active alerts on their turn (`alertTurns`:
 * a turn without a slot waits for the next cycle's); (3) the periodic reads due, then map batches. So routine reads never push a
 * vehicle's events out of a cycle, and follow-ups a poll discovers find budget left. In a full cycle
 * (less than the reserve left unbooked), the reads of passes 2 and 3 are routine jobs
 * (`followUps: false`) queued after every events poll: follow-ups beyond the reserve are refused
 * only after them, at the tail of the cycle.
 */
export function plan(input: PlanInput): Plan {
  const config: PollingConfig = { ...DEFAULT_POLLING_CONFIG, ...input.config };
  const strategy = input.strategy ?? config.strategy;
  const { now } = input;
  const plannedAt = new Date(now).toISOString();
  const ordered = byPriority(input.vehicles, now, config);
  const byId = new Map(ordered.map((v) => [v.id, v]));
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
    if (strategy === 'naive') {
      const resources = [...NAIVE_RESOURCES];
      units.push({
        job: { kind: 'poll-vehicle', vehicleId: v.id, resources, strategy, rotate: false, plannedAt },
        cost: resources.length,
        ids: [v.id],
        rank,
      });
      return;
    }
    if (mapDue(v, now, config)) mapIds.push(v.id);
    const split = splitResources(v, now, config);
    units.push({
      job: {
        kind: 'poll-vehicle',
        vehicleId: v.id,
        resources: split.now,
        strategy,
        rotate: false,
        plannedAt,
      },
      cost: split.now.length,
      ids: [v.id],
      rank,
      extras: split.extras,
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

  const budget = Math.max(0, Math.floor(input.budget));
  const reserve = strategy === 'carhook' ? followUpReserve(budget, config) : 0;
  let left = budget - reserve;
  const chosen: Unit[] = [];
  const deferred: string[] = [];
  // Pass 1: what each vehicle needs now.
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
    deferred.push(...unit.ids);
  }

  // Vehicles with active alerts read them at least once per `maxStalenessMs` (rounded down), even
  // when the events of the whole fleet do not fit in a cycle: vehicles planned last (not past their
  // maximum staleness, no active alert) give their events read back for that share.
  const alertingCount = chosen.filter((u) => u.extras?.alerting).length;
  const alertFloor = Math.floor((alertingCount * config.cycleMs) / config.maxStalenessMs);
  for (let i = chosen.length - 1; i >= 0 && left < alertFloor; i--) {
    const u = chosen[i] as Unit;
    if (u.job.kind !== 'poll-vehicle' || !u.extras || u.extras.alerting || u.cost !== 1) continue;
    const v = byId.get(u.job.vehicleId);
    if (!v || tierOf(v, now, config) === 0) continue;
    chosen.splice(i, 1);
    deferred.push(...u.ids);
    left += u.cost;
  }

  // Passes 2 and 3 add reads to the vehicles chosen above, with what is left.
  const added = new Map<string, VehicleResource[]>();
  const add = (id: string, r: VehicleResource): void => {
    added.set(id, [...(added.get(id) ?? []), r]);
    left -= 1;
  };
  const polled = chosen.filter(
    (u): u is Unit & { job: PollVehicleJob; extras: VehicleExtras } =>
      u.job.kind === 'poll-vehicle' && u.extras !== undefined,
  );
  const alerting = polled
    .filter((u) => u.extras.alerting && !u.job.resources.includes('alerts'))
    .map((u) => ({ id: u.job.vehicleId }));
  for (const { id } of alertTurns(alerting, left, now, config)) add(id, 'alerts');
  for (const u of polled) {
    for (const r of u.extras.periodic) {
      if (left < 1) break;
      if (!u.job.resources.includes(r)) add(u.job.vehicleId, r);
    }
  }
  // Map reads are daily and never urgent: one request per batch, with budget to spare.
  const maps: Unit[] = [];
  for (let i = 0; i < mapIds.length && left >= 1; i += config.mapBatchSize) {
    const ids = mapIds.slice(i, i + config.mapBatchSize);
    maps.push({
      job: { kind: 'poll-map', vehicleIds: ids, plannedAt },
      cost: 1,
      ids,
      rank: ordered.length + i,
    });
    left -= 1;
  }

  // A full cycle (the routine reads took what the events left, bar the reserve): the reads of passes
  // 2 and 3 go in jobs of their own, queued after every vehicle's events poll. When the follow-ups
  // those polls reveal (eco-driving and maintenance after a trip, an announced collision or trip)
  // need more than the reserve, the budget then refuses these routine reads at the end of the cycle,
  // not a follow-up in the middle (which would stop that poll and every poll after it). With budget
  // to spare, they stay in the vehicle's job (one poll per vehicle per cycle).
  const full = strategy === 'carhook' && left < Math.max(1, reserve);
  const later: PollVehicleJob[] = [];
  for (const u of full ? polled : []) {
    const more = added.get(u.job.vehicleId);
    if (!more) continue;
    later.push({
      kind: 'poll-vehicle',
      vehicleId: u.job.vehicleId,
      resources: inResourceOrder(more),
      strategy,
      rotate: false,
      followUps: false,
      plannedAt,
    });
  }
  const rotate = deferred.length > 0;
  const jobs = [
    ...chosen.map((u) => {
      let job = u.job;
      const more = full || job.kind !== 'poll-vehicle' ? undefined : added.get(job.vehicleId);
      if (more && job.kind === 'poll-vehicle') {
        job = { ...job, resources: inResourceOrder([...job.resources, ...more]) };
      }
      return rotate ? { ...job, rotate } : job;
    }),
    ...later,
    ...maps.map((u) => u.job),
  ];
  return {
    jobs,
    estimatedRequests: budget - reserve - left,
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
          ? `poll#${job.vehicleId}#${cycleStart}${job.followUps === false ? '#later' : ''}`
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
