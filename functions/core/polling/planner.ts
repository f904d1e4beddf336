/**
 * The planner: decides which vehicles and which resources
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
 * Each cycle leaves part of its budget unbooked for the follow-ups polls discover (a trip's
 * eco-driving and maintenance, announced records): `carhook` sizes it from the learned rates and
 * reads first the vehicles whose last poll left work waiting (`workWaitingAt`). A vehicle whose
 * events read the budget refused is counted from the read made before it: the refused worker says
 * so (`eventsRefusedAt`, ./memory.ts), so a booked read is never taken for made.
 *
 * The parts: ./rates.ts (the estimator and the fleet's prior), ./selection.ts (guarantees and the
 * index), ./memory.ts (when each read was last booked, and the one before; a cold start's
 * phases), ./reads.ts (baselines, periodic reads, fleet batches, the reserve), ./naive.ts;
 * this module puts them together (`plan`) and runs a cycle (`runPlanner`).
 */
import { createHash } from 'node:crypto';
import type { JobQueue, OutgoingMessage } from '../queue/ports';
import { capacityOf, DEFAULT_RATE_BUDGET, type RateBudgetConfig } from '../ratelimit/bucket';
import type { EnrollmentStore, VehicleStore } from '../store/ports';
import type { VehicleRecord } from '../store/records';
import {
  DEFAULT_POLLING_CONFIG,
  type PollingConfig,
  type PollStrategy,
  type VehicleResource,
} from './config';
import type { Plan, PollFleetJob, PollJob, PollVehicleJob } from './jobs';
import { ageOf, createPlannerMemory, lastEventsRead, type PlannerMemory, remember } from './memory';
import { planNaive } from './naive';
import { advance, decodeRates, fleetPrior, posterior, type Rates } from './rates';
import {
  type Booking,
  fleetBookings,
  followUpReserve,
  inCycle,
  inResourceOrder,
  isFleetVehicle,
  learnedReserve,
  resourceSplitter,
  type SplitReads,
} from './reads';
import { guaranteeMs, type ReadCandidate, selectReads, stableHash } from './selection';

export type { Plan } from './jobs';
export { ageOf, createPlannerMemory, type LastReads, type PlannerMemory, remember } from './memory';
export {
  FLEET_REQUESTS_PER_BATCH,
  followUpReserve,
  inCycle,
  isFleetVehicle,
  mapDue,
  splitResources,
} from './reads';

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
  /**
   * VINs an active fleet contract polls through the v1 bulk lists. An OAuth vehicle with one of
   * them sends no request of its own (the worker links its enrollment into the shared stream):
   * none of its reads is booked; it gets a job that costs no request, to link.
   */
  readonly coveredVins?: ReadonlySet<string>;
}

/** Pure planning: jobs for this cycle within `budget` requests (see the module and the README). */
export function plan(input: PlanInput): Plan {
  const config: PollingConfig = { ...DEFAULT_POLLING_CONFIG, ...input.config };
  const strategy = input.strategy ?? config.strategy;
  const { now } = input;
  const plannedAt = new Date(now).toISOString();
  const budget = Math.max(0, Math.floor(input.budget));
  const fleet = input.vehicles.filter(isFleetVehicle);
  const covered = (v: VehicleRecord): boolean => v.vin !== '' && input.coveredVins?.has(v.vin) === true;
  const v2 = input.vehicles.filter((v) => !isFleetVehicle(v) && !covered(v));
  const links = linkJobs(
    input.vehicles.filter((v) => !isFleetVehicle(v) && covered(v)),
    strategy,
    plannedAt,
  );
  const fleetBatches = fleetBookings(fleet, config, plannedAt);
  const split = resourceSplitter(now, config);

  if (strategy === 'naive') {
    const naive = planNaive(v2, fleetBatches, budget, now, plannedAt);
    return links.length > 0 ? { ...naive, jobs: [...naive.jobs, ...links] } : naive;
  }

  // The learned rates (decoded once), before anything is booked: they size the reserve too.
  const states = v2.map((v) => {
    const st = decodeRates(v.hints.rates);
    return st && advance(st, now, config);
  });
  const prior = fleetPrior(states, config);
  const ratesOf = states.map((st) => (strategy === 'carhook' && st ? posterior(st, prior) : prior));
  const reserve =
    strategy === 'carhook' ? learnedReserve(budget, ratesOf, config) : followUpReserve(budget, config);
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

  // Candidates, with their learned rates and ages.
  const candidates: ReadCandidate[] = v2.map((v, i) => {
    const hash = stableHash(v.id);
    const last = input.memory?.get(v.id);
    const st = states[i];
    const rates = ratesOf[i] as Rates;
    const active = v.hints.activeAlerts ? Math.max(1, st?.active ?? 1) : 0;
    // Work a poll left waiting after this vehicle's events were last booked (round-robin keeps
    // its fair order: it reads no hint). A hint older than G is covered by the guarantee.
    const waitingAt = strategy === 'carhook' ? Date.parse(v.hints.workWaitingAt ?? '') : Number.NaN;
    const waiting = waitingAt > now - g && waitingAt >= (last?.events ?? Number.NEGATIVE_INFINITY);
    return {
      id: v.id,
      hash,
      // A read the budget refused was not made: the age counts from the read before (carhook).
      eventsAgeMs: ageOf(
        strategy === 'carhook' ? lastEventsRead(last, v) : last?.events,
        hash,
        now,
        config.cycleMs,
        g,
      ),
      ...(active > 0 ? { alertsAgeMs: ageOf(last?.alerts, hash >>> 7, now, config.cycleMs, ga) } : {}),
      eventsPerHour: rates.eventsPerHour,
      fixesPerHour: rates.fixesPerHour * active,
      ...(waiting ? { waiting } : {}),
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
  // A vehicle's first events read carries its baselines (alerts, maintenance, services never
  // read), or waits until they fit. A first read of a list is baseline (no event), so a countdown
  // that changed after the first events read but before the first maintenance read (the
  // follow-up after the trip that came with it) would never be told. Only the first events read
  // this planner books: a baseline that keeps failing does not ride on every read after it.
  const book = (i: number, r: VehicleResource): boolean => {
    const v = v2[i] as VehicleRecord;
    const first = r === 'events' && input.memory?.get(v.id)?.events === undefined ? baselinesOf(v) : [];
    const need = [r, ...first].filter((x) => !resourcesOf.get(i)?.has(x)).length;
    // A first read that can never fit a cycle is made in parts, events first (never starved).
    const whole = need <= perCycle;
    if ((whole ? need : 1) > left) return false;
    addRead(i, r);
    if (whole) for (const x of first) addRead(i, x);
    return true;
  };
  const forced = chosen.filter((c) => c.reason === 'guarantee');
  for (const c of forced) book(c.index, c.resource);
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
    book(c.index, c.resource);
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
    jobs: [...vehicleJobs, ...bookings.map((b) => b.job), ...maps.map((b) => b.job), ...links],
    estimatedRequests: budget - reserve - left,
    deferred,
    guaranteeMs: g,
    alertGuaranteeMs: ga,
  };
}

/** The resources of a vehicle never read (its baselines besides the events). */
const baselinesOf = (v: VehicleRecord): VehicleResource[] =>
  (['alerts', 'maintenance', 'services'] as const).filter((r) => v.resourcePolledAt[r] === undefined);

/**
 * Jobs that cost no request, for OAuth vehicles whose VIN a fleet contract polls: the worker finds
 * the covering contract before any request and links the enrollment into the shared stream (the
 * first job after the contract's first poll; later ones find the link and write nothing). One a
 * cycle, so the link follows the contract's first poll within a cycle; none is counted against
 * the budget.
 */
function linkJobs(
  covered: readonly VehicleRecord[],
  strategy: PollStrategy,
  plannedAt: string,
): PollVehicleJob[] {
  return covered.map((v) => ({
    kind: 'poll-vehicle',
    vehicleId: v.id,
    resources: ['events'],
    strategy,
    rotate: false,
    followUps: false,
    plannedAt,
  }));
}

export interface PlannerDeps {
  readonly vehicles: VehicleStore;
  readonly enrollments: EnrollmentStore;
  readonly queue: JobQueue<PollJob>;
  readonly now: () => number;
  readonly config?: Partial<PollingConfig>;
  /** The budget's size (the workers draw every request from the shared RateBudget). */
  readonly rateBudget?: RateBudgetConfig;
  /**
   * The rate settings this cycle is sized from, when they can differ from `rateBudget`: the limit
   * the budget follows from `X-RateLimit-Limit` (../ratelimit/budget.ts `plannedRate`), read each
   * run so a raised or lowered quota is planned with from the next cycle.
   */
  readonly quota?: () => Promise<RateBudgetConfig>;
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

/** Requests one cycle may spend: the budget's capacity per window, scaled to the cycle. */
export function cycleBudget(config: PollingConfig, rate: RateBudgetConfig = DEFAULT_RATE_BUDGET): number {
  return Math.floor((capacityOf(rate) * config.cycleMs) / rate.windowMs);
}

/**
 * One planner run: lists due vehicles, plans within the cycle's budget, enqueues the jobs, and
 * enqueues vehicle discovery for oauth-user enrollments once per `discoveryIntervalMs` (staggered
 * by enrollment, no write). The cycle is sized from the quota the budget follows (`deps.quota`),
 * or its configuration; the workers draw every request from the shared bucket, which is what keeps
 * the quota whatever the plan says.
 */
export async function runPlanner(deps: PlannerDeps): Promise<PlannerRun> {
  const config: PollingConfig = { ...DEFAULT_POLLING_CONFIG, ...deps.config };
  const now = deps.now();
  const plannedAt = new Date(now).toISOString();
  const cycleStart = Math.floor(now / config.cycleMs) * config.cycleMs;

  const discovery: PollJob[] = [];
  const coveredVins = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await deps.enrollments.list({
      status: 'active',
      limit: 1000,
      ...(cursor ? { cursor } : {}),
    });
    for (const e of page.items) {
      if (e.kind === 'fleet-contract') {
        if (e.vin !== '') coveredVins.add(e.vin);
        continue;
      }
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
  const rate = deps.quota ? await deps.quota() : deps.rateBudget;
  const budget = Math.max(0, cycleBudget(config, rate) - discovery.length);
  const memory = deps.memory ?? createPlannerMemory();
  const planned = plan({ vehicles: due, budget, now, config, memory, coveredVins });
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
