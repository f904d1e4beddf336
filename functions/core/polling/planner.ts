/**
 * The planner (DESIGN.md "Polling within the quota"): decides which vehicles and which resources
 * to poll this cycle, within the requests the shared budget allows, and enqueues the jobs. The
 * model behind it (learned change rates, the index, the guarantees) is told in the README,
 * "How a cycle is planned".
 *
 * Strategies:
 * - `carhook`: reads bought by index (rate × age²) over every vehicle's events and the alerts of
 *   vehicles with alerts active, on top of hard guarantees (./selection.ts); rates learned online
 *   (./rates.ts); a baseline never read and periodic reads overdue go with the events; daily
 *   reads, the alert reconciliation and map batches with the budget left.
 * - `round-robin`: the same reads in a fixed order (oldest events first, active alerts with them),
 *   nothing learned: the fair baseline.
 * - `naive` (benchmark baseline): events, alerts, collisions and maintenance for every vehicle
 *   every cycle (the worker adds the eco-driving of the trips it sees).
 * Fleet contracts (v1, vehicles without a v2 id) go in batches through the bulk POST lists.
 *
 * Each cycle leaves `followUpReserveRatio` of its budget unbooked for the follow-ups polls discover
 * (eco-driving and maintenance after a trip, announced collisions or trips).
 *
 * When each read was last made is kept in the planner's memory (`PlannerMemory`), not in the
 * store: a steady poll writes nothing. A planner without memory (a cold start) gives each vehicle
 * a phase from a hash of its id, as if it had been read in a fair round: every guarantee holds from
 * the first cycle, and the memory fills as it plans.
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
import { advance, decodeRates, type RatePrior, type RateState, ratesAt } from './rates';
import { guaranteeMs, type ReadCandidate, selectReads, stableHash } from './selection';

/** Requests one fleet batch costs: active alerts, crash, maintenance and trip lists (v1). */
export const FLEET_REQUESTS_PER_BATCH = 4;

/** When the planner last booked each read of a vehicle (epoch ms). */
export interface LastReads {
  readonly events?: number;
  readonly alerts?: number;
}

/**
 * The planner's memory between cycles: when it booked each vehicle's reads. It lives with the
 * planner process (a warm function keeps it); a lost memory costs one fair round, not a guarantee.
 */
export interface PlannerMemory {
  get(vehicleId: string): LastReads | undefined;
  set(vehicleId: string, reads: LastReads): void;
  /** Forgets every vehicle not in `keep` (paused, removed). */
  retain(keep: ReadonlySet<string>): void;
}

export function createPlannerMemory(): PlannerMemory {
  const reads = new Map<string, LastReads>();
  return {
    get: (id) => reads.get(id),
    set: (id, r) => {
      reads.set(id, r);
    },
    retain: (keep) => {
      for (const id of reads.keys()) if (!keep.has(id)) reads.delete(id);
    },
  };
}

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
  /** When each read was last booked; absent: a phase from the id's hash (see the module). */
  readonly memory?: Pick<PlannerMemory, 'get'>;
}

export interface Plan {
  /** Most urgent first: guaranteed reads, then baselines, then by index; routine reads last. */
  readonly jobs: readonly (PollVehicleJob | PollFleetJob | PollMapJob)[];
  /** Requests the planned jobs are expected to cost (follow-ups a poll reveals come on top). */
  readonly estimatedRequests: number;
  /** Vehicles whose events are not read this cycle. */
  readonly deferred: readonly string[];
  /** The events guarantee G of this cycle (ms), and the active alerts' one. */
  readonly guaranteeMs: number;
  readonly alertGuaranteeMs: number;
}

const olderThan = (at: string | undefined, ms: number, now: number): boolean =>
  at === undefined || now - Date.parse(at) >= ms;

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

/** Map update information is read every `mapIntervalMs` (daily by default), in bulk (`poll-map` jobs). */
export const mapDue = (vehicle: VehicleRecord, now: number, config: PollingConfig): boolean =>
  olderThan(vehicle.resourcePolledAt.map, config.mapIntervalMs, now);

/** A vehicle polled through v1 bulk lists: a fleet contract's vehicle has no v2 id. */
export const isFleetVehicle = (vehicle: Pick<VehicleRecord, 'apiVehicleId'>): boolean =>
  vehicle.apiVehicleId === undefined;

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

type SplitReads = { now: VehicleResource[]; periodic: VehicleResource[] };

/**
 * `splitResources` for many vehicles at one `now`: the cut-off dates are computed once and compared
 * as strings (ISO 8601 UTC with milliseconds compares lexicographically), so a 10,000-vehicle plan
 * parses no date.
 */
function resourceSplitter(now: number, config: PollingConfig): (vehicle: VehicleRecord) => SplitReads {
  const cut = (ms: number): string => new Date(now - ms).toISOString();
  const due = {
    alerts: cut(config.alertsReconcileMs),
    maintenance: cut(config.dailyMs),
    services: cut(config.servicesIntervalMs),
  };
  const overdue = {
    alerts: cut(config.alertsReconcileMs * OVERDUE_FACTOR),
    maintenance: cut(config.dailyMs * OVERDUE_FACTOR),
    services: cut(config.servicesIntervalMs * OVERDUE_FACTOR),
  };
  return (vehicle) => {
    const polled = vehicle.resourcePolledAt;
    const urgent: VehicleResource[] = ['events'];
    const periodic: VehicleResource[] = [];
    for (const r of ['alerts', 'maintenance', 'services'] as const) {
      const at = polled[r];
      if (at === undefined || at <= overdue[r]) urgent.push(r);
      else if (at <= due[r]) periodic.push(r);
    }
    return { now: urgent, periodic };
  };
}

/**
 * A v2 vehicle's reads besides the index: `now` (with its events, whatever the index: a baseline
 * never read, a periodic read overdue by half its period) and `periodic` (due, booked only with the
 * budget left at the end of the cycle).
 */
export function splitResources(vehicle: VehicleRecord, now: number, config: PollingConfig): SplitReads {
  return resourceSplitter(now, config)(vehicle);
}

/** Requests of each cycle's budget left unbooked for follow-ups. */
export function followUpReserve(budget: number, config: PollingConfig): number {
  return Math.floor(Math.max(0, budget) * config.followUpReserveRatio);
}

/**
 * The fleet's pooled rates, the prior of every vehicle's estimate: a new vehicle starts at the
 * fleet's average, and the configured priors weigh `ratePriorMs` until the fleet has history.
 */
export function fleetPrior(
  states: readonly (RateState | undefined)[],
  now: number,
  config: PollingConfig,
): RatePrior {
  const hours = config.ratePriorMs / 3_600_000;
  let events = config.priorEventsPerHour * hours;
  let eventsHours = hours;
  let fixes = config.priorFixesPerHour * hours;
  let alertHours = hours;
  for (const st of states) {
    if (!st) continue;
    const a = advance(st, now, config);
    events += a.events;
    eventsHours += a.eventsHours;
    fixes += a.fixes;
    alertHours += a.alertHours;
  }
  return { eventsPerHour: events / eventsHours, fixesPerHour: fixes / alertHours, hours };
}

/**
 * How long ago a read was made: from the memory, else a phase in `[1, K]` cycles given by a hash
 * of the id and resource, K the cycles of the guarantee (a fair round the planner assumes).
 */
function ageOf(at: number | undefined, hash: number, now: number, cycleMs: number, boundMs: number): number {
  if (at !== undefined) return Math.max(0, now - at);
  const k = Math.max(1, Math.floor(boundMs / cycleMs));
  const cycle = Math.floor(now / cycleMs);
  return (((cycle + hash) % k) + 1) * cycleMs;
}

interface Booking {
  job: PollVehicleJob | PollFleetJob | PollMapJob;
  cost: number;
}

/** Pure planning: jobs for this cycle within `budget` requests (see the module and the README). */
export function plan(input: PlanInput): Plan {
  const config: PollingConfig = { ...DEFAULT_POLLING_CONFIG, ...input.config };
  const strategy = input.strategy ?? config.strategy;
  const { now } = input;
  const plannedAt = new Date(now).toISOString();
  const budget = Math.max(0, Math.floor(input.budget));
  const fleet = input.vehicles.filter(isFleetVehicle);
  const v2 = input.vehicles.filter((v) => !isFleetVehicle(v));
  const fleetBatches = fleetBookings(fleet, config, plannedAt);
  const split = resourceSplitter(now, config);

  if (strategy === 'naive') return planNaive(v2, fleetBatches, budget, now, plannedAt);

  const reserve = followUpReserve(budget, config);
  let left = budget - reserve;
  const bookings: Booking[] = [];
  const resourcesOf = new Map<number, Set<VehicleResource>>();
  const order: number[] = [];
  const addRead = (i: number, r: VehicleResource): void => {
    let set = resourcesOf.get(i);
    if (!set) {
      set = new Set();
      resourcesOf.set(i, set);
      order.push(i);
    }
    if (!set.has(r)) {
      set.add(r);
      left -= 1;
    }
  };

  // The guarantees: G over every v2 vehicle's events, and the same over active alerts.
  const perCycle = Math.max(1, left);
  const g = guaranteeMs(config.maxStalenessMs, v2.length, perCycle, config.cycleMs);
  const alerting = v2.filter((v) => v.hints.activeAlerts).length;
  const ga = guaranteeMs(config.maxStalenessMs, alerting, perCycle, config.cycleMs);

  // Candidates, with their learned rates (decoded once) and ages.
  const states = v2.map((v) => decodeRates(v.hints.rates));
  const prior = fleetPrior(states, now, config);
  const candidates: ReadCandidate[] = v2.map((v, i) => {
    const hash = stableHash(v.id);
    const last = input.memory?.get(v.id);
    const st = states[i];
    const rates = strategy === 'carhook' ? ratesAt(st, now, prior, config) : prior;
    const active = v.hints.activeAlerts ? Math.max(1, st?.active ?? 1) : 0;
    return {
      id: v.id,
      hash,
      eventsAgeMs: ageOf(last?.events, hash, now, config.cycleMs, g),
      ...(active > 0 ? { alertsAgeMs: ageOf(last?.alerts, hash >>> 7, now, config.cycleMs, ga) } : {}),
      eventsPerHour: rates.eventsPerHour,
      fixesPerHour: rates.fixesPerHour * active,
    };
  });

  // 1. Guarantees come first (inside selectReads); baselines never read and periodic reads
  //    overdue go with the vehicle's events right after them; fleet batches next.
  const chosen = selectReads(candidates, Math.max(0, left), {
    strategy,
    cycleMs: config.cycleMs,
    guaranteeMs: g,
    alertGuaranteeMs: ga,
    alertsMinMs: config.activeAlertsEveryMs,
  });
  const forced = chosen.filter((c) => c.reason === 'guarantee');
  for (const c of forced) addRead(c.index, c.resource);
  const splits = v2.map(split);
  splits.forEach(({ now: urgent }, i) => {
    if (urgent.length <= 1) return;
    const need = urgent.filter((r) => !resourcesOf.get(i)?.has(r)).length;
    if (need > left) return;
    for (const r of urgent) addRead(i, r);
  });
  for (const b of fleetBatches) {
    if (b.cost > left) continue;
    bookings.push(b);
    left -= b.cost;
  }
  // 2. The index, with what is left (the forced reads are already booked).
  for (const c of chosen) {
    if (left < 1) break;
    if (c.reason === 'guarantee' || resourcesOf.get(c.index)?.has(c.resource)) continue;
    addRead(c.index, c.resource);
  }
  // 3. Periodic reads due, then map batches, with budget to spare (daily, never urgent).
  for (const i of order) {
    for (const r of (splits[i] as SplitReads).periodic) {
      if (left < 1) break;
      addRead(i, r);
    }
  }
  const mapCut = new Date(now - config.mapIntervalMs).toISOString();
  const mapIds = v2.filter((v) => (v.resourcePolledAt.map ?? '') <= mapCut).map((v) => v.id);
  const maps: Booking[] = [];
  for (let i = 0; i < mapIds.length && left >= 1; i += config.mapBatchSize) {
    maps.push({
      job: { kind: 'poll-map', vehicleIds: mapIds.slice(i, i + config.mapBatchSize), plannedAt },
      cost: 1,
    });
    left -= 1;
  }

  const vehicleJobs: PollVehicleJob[] = order.map((i) => ({
    kind: 'poll-vehicle',
    vehicleId: (v2[i] as VehicleRecord).id,
    resources: inResourceOrder(resourcesOf.get(i) ?? []),
    strategy,
    rotate: false,
    plannedAt,
  }));
  const deferred = [
    ...v2.filter((_, i) => !resourcesOf.get(i)?.has('events')).map((v) => v.id),
    ...fleetBatches.filter((b) => !bookings.includes(b)).flatMap((b) => (b.job as PollFleetJob).vehicleIds),
  ];
  return {
    jobs: [...vehicleJobs, ...bookings.map((b) => b.job), ...maps.map((b) => b.job)],
    estimatedRequests: budget - reserve - left,
    deferred,
    guaranteeMs: g,
    alertGuaranteeMs: ga,
  };
}

function fleetBookings(fleet: readonly VehicleRecord[], config: PollingConfig, plannedAt: string): Booking[] {
  const out: Booking[] = [];
  for (const brand of ['C', 'P'] as const) {
    // The v1 bulk lists take one brand (`C` or `P`) per request: one batch holds one brand group.
    const ids = fleet.filter((v) => (v.brand === 'P' ? 'P' : 'C') === brand).map((v) => v.id);
    for (let i = 0; i < ids.length; i += config.fleetBatchSize) {
      const vehicleIds = ids.slice(i, i + config.fleetBatchSize);
      out.push({
        job: { kind: 'poll-fleet', brand, vehicleIds, rotate: false, plannedAt },
        cost: FLEET_REQUESTS_PER_BATCH,
      });
    }
  }
  return out;
}

/**
 * The naive baseline: four reads per vehicle, the stalest first (`lastPolledAt`, else creation);
 * when the budget is short, the polled vehicles record their poll time (`rotate`), so the others
 * go first next cycle.
 */
function planNaive(
  v2: readonly VehicleRecord[],
  fleetBatches: readonly Booking[],
  budget: number,
  now: number,
  plannedAt: string,
): Plan {
  const stale = (v: VehicleRecord): number => now - Date.parse(v.lastPolledAt ?? v.createdAt);
  const ordered = [...v2].sort((a, b) => stale(b) - stale(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  let left = budget;
  const jobs: (PollVehicleJob | PollFleetJob)[] = [];
  const deferred: string[] = [];
  for (const v of ordered) {
    if (NAIVE_RESOURCES.length > left) {
      deferred.push(v.id);
      continue;
    }
    left -= NAIVE_RESOURCES.length;
    jobs.push({
      kind: 'poll-vehicle',
      vehicleId: v.id,
      resources: [...NAIVE_RESOURCES],
      strategy: 'naive',
      rotate: false,
      plannedAt,
    });
  }
  for (const b of fleetBatches) {
    if (b.cost > left) {
      deferred.push(...(b.job as PollFleetJob).vehicleIds);
      continue;
    }
    left -= b.cost;
    jobs.push(b.job as PollFleetJob);
  }
  const rotate = deferred.length > 0;
  return {
    jobs: rotate ? jobs.map((j) => ({ ...j, rotate })) : jobs,
    estimatedRequests: budget - left,
    deferred,
    guaranteeMs: Number.POSITIVE_INFINITY,
    alertGuaranteeMs: Number.POSITIVE_INFINITY,
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
  /** When each read was last booked, kept across runs (see the module); a fresh one otherwise. */
  readonly memory?: PlannerMemory;
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

/** Records the reads a plan booked, and forgets the vehicles no longer due. */
export function remember(
  memory: PlannerMemory,
  due: readonly Pick<VehicleRecord, 'id'>[],
  planned: Plan,
  now: number,
): void {
  memory.retain(new Set(due.map((v) => v.id)));
  for (const job of planned.jobs) {
    if (job.kind !== 'poll-vehicle') continue;
    const last = memory.get(job.vehicleId) ?? {};
    memory.set(job.vehicleId, {
      ...last,
      ...(job.resources.includes('events') ? { events: now } : {}),
      ...(job.resources.includes('alerts') ? { alerts: now } : {}),
    });
  }
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
  const memory = deps.memory ?? createPlannerMemory();
  const planned = plan({ vehicles: due, budget, now, config, memory });
  remember(memory, due, planned, now);
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
