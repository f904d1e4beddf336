/**
 * The fault-injection suite: a scripted scenario of N changes over M vehicles while the
 * simulator injects 5xx, 429 storms, hung and slow responses, malformed bodies, 404-for-empty,
 * shape drift, stale answers (an older copy) and flapping lists (one item dropped once); workers (poll, fan-out, delivery) are killed at random steps; the subscriber's
 * endpoint is down for a stretch then recovers; one user revokes Carhook's access.
 *
 * Everything runs on the simulator's manual clock (nothing waits for real time except hung and
 * slow responses, which are bounded by the client's timeout): planner every simulated minute,
 * queues with SQS's visibility semantics (bench/support/fault-queue.ts), the real poll workers,
 * delivery engine and HTTP sender, a real HTTP receiver checking every signature with the
 * `standardwebhooks` package. Stores: DynamoDB Local when `dynamo` is given, memory otherwise.
 *
 * Then it checks the guarantees below and returns the violations with a summary table:
 *   - every change arrives as exactly one event id, on the bus and at the receiver (redeliveries
 *     only with the same `webhook-id`), and no event arrives without a change;
 *   - every signature verifies; the quota is never exceeded (the simulator's own counters);
 *   - the revoked user yields one `enrollment.reauthorization_required` and no further requests;
 *   - nothing is left unpublished or undelivered once the faults stop.
 *
 * CI size (30 vehicles, 200 changes) runs in `npm test` (test/faults); the long run (200 vehicles,
 * 2,000 changes) with `npm run bench -- --faults` (there also without confirming absences, to
 * compare), or alone: `npx tsx bench/faults.ts [--long] [--no-confirm]`.
 */
import { fileURLToPath } from 'node:url';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDynamoStores, createDynamoSubscriptionStores } from '../functions/adapters/dynamodb';
import { createMemorySubscriptionStores } from '../functions/adapters/memory/subscriptions';
import { createSender } from '../functions/adapters/webhooks/sender';
import {
  createDeliveryEngine,
  type DeliveryEngine,
  type DeliveryJob,
} from '../functions/core/delivery/engine';
import { createSecretBox, fixedCipher } from '../functions/core/delivery/secrets';
import type { EventEnvelope } from '../functions/core/events/envelope';
import { type JobResult, runPollJob } from '../functions/core/jobs/worker';
import { type PollJob, runPlanner } from '../functions/core/polling';
import { republishPending } from '../functions/core/polling/commit';
import type { Stores } from '../functions/core/store/ports';
import type { DeliveryStore, SubscriptionStore } from '../functions/core/subscriptions/ports';
import { createSubscriptionService } from '../functions/core/subscriptions/service';
import { compileAllowList } from '../functions/core/webhooks/ssrf';
import type { SimVehicle } from '../sim/world/types';
import { type MadeChange, makeChange, planChanges, type ScriptState } from './support/changes';
import { createSimulatedClockTable } from './support/dynamo';
import { FaultQueue, type QueuedMessage } from './support/fault-queue';
import { startFaultReceiver } from './support/fault-receiver';
import { renderTable } from './support/fault-report';
import { killable, killableFetch, WorkerLife } from './support/kill';
import { BenchError, type BenchPipeline, startBenchPipeline } from './support/pipeline';
import { percentile, rng, round } from './support/stats';

export interface FaultOptions {
  readonly vehicles: number;
  readonly changes: number;
  readonly seed?: number;
  /** Length of the scripted phase in simulated minutes (default: one change per 12 s, at least 30 min). */
  readonly minutes?: number;
  /** Stores on DynamoDB Local (the table is created here); memory stores otherwise. */
  readonly dynamo?: { readonly client: DynamoDBClient; readonly tableName: string };
  /** Poll jobs run at the same time (default 4). */
  readonly workers?: number;
  /** Share of jobs (poll, fan-out, delivery) whose worker is killed at a random step (default 0.1). */
  readonly killRate?: number;
  /** Simulator access-token lifetime, seconds (default 3600): shorter means refreshes under faults. */
  readonly accessTokenTtlSeconds?: number;
  /** Progress lines (stderr in the bench). */
  readonly log?: (line: string) => void;
  /**
   * `false` runs Carhook without confirming absences (an alert fixed at the first list that misses
   * it, as before): only to measure, in the same scenario, what confirmation costs and saves.
   */
  readonly confirmAbsences?: boolean;
}

export interface FaultCounts {
  readonly changesPlanned: number;
  readonly changesMade: number;
  /** Changes made plus those made on the way (trips before maintenance, due before overdue). */
  readonly changesExpected: number;
  readonly changesDetected: number;
  readonly eventsPublished: number;
  readonly distinctEvents: number;
  readonly initialEvents: number;
  /** `vehicle.reporting.*`: a silent vehicle that a scripted change made report again (or, before any, silent). */
  readonly reportingEvents: number;
  readonly receptions: number;
  readonly distinctWebhookIds: number;
  readonly redeliveries: number;
  readonly badSignatures: number;
  readonly killed: { readonly poll: number; readonly fanOut: number; readonly delivery: number };
  readonly pollJobs: number;
  readonly deliveryJobs: number;
  /** Seen by Carhook's client: answers 500, 429 and 404, requests that timed out (hung). */
  readonly serverErrors: number;
  readonly tooManyRequests: number;
  readonly notFound: number;
  readonly timeouts: number;
  /** Poll results that reported a malformed body. */
  readonly malformed: number;
  readonly receiverRefused: number;
  /** Refresh requests the workers sent to the token endpoint. */
  readonly tokenRefreshes: number;
  readonly reauthorizationEvents: number;
  readonly revokedUserRequestsAfter: number;
  readonly maxInWindow: number;
  readonly quotaLimit: number;
  readonly apiRequests: number;
  readonly simulatedMinutes: number;
  readonly wallSeconds: number;
  /**
   * Events no change explains (an alert told fixed while it was not, raised again as `#1`) plus
   * the ids beyond the first for one change.
   */
  readonly falseEvents: number;
  /** Answers the simulator served stale (an older copy) or flapping (one list item dropped). */
  readonly staleServed: number;
  readonly flapServed: number;
  /** Answers Carhook's polls found stale (they fixed nothing). */
  readonly staleCounted: number;
  /** Requests made to confirm an absence or a services change. */
  readonly confirmationRequests: number;
  /** Scripted alert fixes, and their detection lag (simulated seconds, change to bus). */
  readonly fixes: number;
  readonly fixLagP50S: number;
  readonly fixLagP95S: number;
}

export interface FaultReport {
  readonly options: { readonly vehicles: number; readonly changes: number; readonly seed: number };
  readonly counts: FaultCounts;
  readonly violations: readonly string[];
  /** The summary table (markdown). */
  readonly table: string;
}

const TICK_MS = 10_000;
const SETTLE_TICK_MS = 30_000;
const CYCLE_MS = 60_000;
const MINUTE = 60_000;
/** SQS visibility timeouts of the stack's queues, as the suite models them. */
const POLL_VISIBILITY_MS = 2 * MINUTE;
const FANOUT_VISIBILITY_MS = MINUTE;
const DELIVERY_VISIBILITY_MS = MINUTE;
/** A kill is drawn at one of the first steps of a job: a steady poll takes about 8. */
const KILL_STEPS = 10;
/** Hung requests end at the client's timeout (real time; long enough for a loaded machine). */
const CLIENT_TIMEOUT_MS = 1_500;
const MAX_SETTLE_MS = 4 * 60 * MINUTE;
/** After the revoked user's event, Carhook must stay silent for at least this long. */
const SILENCE_MS = 15 * MINUTE;

const BACKGROUND_CHAOS = {
  serverError: 0.03,
  malformedJson: 0.02,
  hung: 0.01,
  slow: 0.03,
  slowMs: 40,
  notFoundForEmptyList: 0.5,
  upperCaseEnums: 0.3,
  numbersAsStrings: 0.3,
  alertItemShape: 0.3,
  // Older copies of an answer (what a cache would serve) and lists missing one item once.
  stale: 0.02,
  flap: 0.02,
  staleSeconds: 120,
} as const;

const CHAOS_SUMMARY = Object.entries(BACKGROUND_CHAOS)
  .map(([mode, value]) => `${mode} ${value}`)
  .join(', ');

/** Fault windows, as fractions of the scripted phase (start) and simulated minutes (length). */
const STORMS = [
  { at: 0.2, minutes: 3 },
  { at: 0.65, minutes: 2 },
] as const;
const RECEIVER_DOWN = { at: 0.35, minutes: 4 } as const;
const REVOKE_AT = 0.5;

interface Tally {
  tokenRequests: number;
  serverErrors: number;
  tooManyRequests: number;
  notFound: number;
  timeouts: number;
  malformed: number;
  stale: number;
  confirmations: number;
  killed: { poll: number; fanOut: number; delivery: number };
  pollJobs: number;
  deliveryJobs: number;
}

/** Counts what the API answered Carhook's workers (statuses and timeouts), around the real fetch. */
function countingFetch(tally: Tally): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url.includes('/oauth2/token')) tally.tokenRequests++;
    try {
      const res = await globalThis.fetch(input, init);
      if (res.status === 500) tally.serverErrors++;
      else if (res.status === 429) tally.tooManyRequests++;
      else if (res.status === 404) tally.notFound++;
      return res;
    } catch (error) {
      if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
        tally.timeouts++;
      }
      throw error;
    }
  };
}

function tallyResult(tally: Tally, result: JobResult): void {
  if (result.kind !== 'poll-vehicle') return;
  for (const f of result.summary.failures) if (f.kind === 'Malformed') tally.malformed++;
  tally.stale += result.summary.stale;
  tally.confirmations += result.summary.confirmations;
}

/** Runs `work` over `items` with at most `n` at a time. */
async function pool<T>(items: readonly T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) await work(items[next++] as T);
  });
  await Promise.all(lanes);
}

export async function runFaultScenario(options: FaultOptions): Promise<FaultReport> {
  const started = performance.now();
  const seed = options.seed ?? 9;
  const log = options.log ?? (() => {});
  const random = rng(seed * 7919);
  const killRate = options.killRate ?? 0.1;
  const workers = options.workers ?? 4;
  const minutes = options.minutes ?? Math.max(30, Math.ceil(options.changes / 5));
  const phaseMs = minutes * MINUTE;

  const dynamo = options.dynamo ? createDynamoStores(options.dynamo) : undefined;
  if (options.dynamo) {
    await createSimulatedClockTable(options.dynamo.client, options.dynamo.tableName);
  }
  const p: BenchPipeline = await startBenchPipeline({
    sim: {
      vehicles: options.vehicles,
      seed,
      ...(options.accessTokenTtlSeconds ? { accessTokenTtlSeconds: options.accessTokenTtlSeconds } : {}),
    },
    ...(dynamo ? { backend: { stores: dynamo, budget: dynamo.rateBudget } } : {}),
    // A first poll looking back an hour, not the default day: the simulator's generated past
    // ends before the scenario starts, so the vehicles' events lists start empty and its
    // 404-for-empty-list fault is injected (a day's look-back finds records, and every later read
    // from that cursor returns at least its last one).
    config: {
      initialEventsLookbackMs: 60 * MINUTE,
      ...(options.confirmAbsences === false ? { confirmAbsences: false } : {}),
    },
    timeoutMs: CLIENT_TIMEOUT_MS,
  });
  const receiver = await startFaultReceiver();
  const tally: Tally = {
    tokenRequests: 0,
    serverErrors: 0,
    tooManyRequests: 0,
    notFound: 0,
    timeouts: 0,
    malformed: 0,
    stale: 0,
    confirmations: 0,
    killed: { poll: 0, fanOut: 0, delivery: 0 },
    pollJobs: 0,
    deliveryJobs: 0,
  };
  const netFetch = countingFetch(tally);
  const simNow = (): number => p.now();
  const dateNow = (): Date => new Date(simNow());

  // Queues: the planner's poll jobs, the bus rule's fan-out target, the deliveries queue.
  const pollQueue = new FaultQueue<PollJob>(simNow, POLL_VISIBILITY_MS);
  const fanOutQueue = new FaultQueue<EventEnvelope>(simNow, FANOUT_VISIBILITY_MS);
  const deliveryQueue = new FaultQueue<DeliveryJob>(simNow, DELIVERY_VISIBILITY_MS);
  p.bus.subscribe((events) => {
    void fanOutQueue.send(events.map((body) => ({ body })));
  });

  const webhookStores: { subscriptions: SubscriptionStore; deliveries: DeliveryStore } = options.dynamo
    ? createDynamoSubscriptionStores(options.dynamo)
    : createMemorySubscriptionStores();
  const allowList = compileAllowList({ cidrs: ['127.0.0.1/32'] });
  if (!allowList.ok) throw new BenchError('loopback allow-list', allowList.error.message);
  const policy = { allowInsecureLoopback: true, allowList: allowList.value };
  const sender = createSender({ ...policy, now: dateNow, timeoutMs: 2_000 });
  const secrets = createSecretBox(fixedCipher(p.cipher));
  const deliveryRandom = rng(seed * 104_729);
  const engineFor = (life?: WorkerLife): DeliveryEngine =>
    createDeliveryEngine({
      subscriptions: life ? killable(webhookStores.subscriptions, life) : webhookStores.subscriptions,
      deliveries: life ? killable(webhookStores.deliveries, life) : webhookStores.deliveries,
      queue: life ? killable(deliveryQueue, life) : deliveryQueue,
      bus: life ? killable(p.bus, life) : p.bus,
      sender: life ? killable(sender, life) : sender,
      secrets,
      now: dateNow,
      random: deliveryRandom,
      subscriptionCacheMs: 0,
    });
  const sweeperEngine = engineFor();
  const service = createSubscriptionService({
    ...webhookStores,
    events: p.stores.events,
    engine: sweeperEngine,
    secrets,
    urlPolicy: policy,
    now: dateNow,
  });
  const created = await service.create({ url: receiver.url, description: 'fault suite receiver' });
  if (!created.ok) throw new BenchError('create the subscription', JSON.stringify(created.error));
  receiver.setSecret(created.value.secret);

  /** A new worker life: killed at a random step for `killRate` of the jobs. */
  const newLife = (): WorkerLife => {
    if (random() >= killRate) return new WorkerLife();
    return new WorkerLife(1 + Math.floor(random() * KILL_STEPS), random() < 0.5 ? 'before' : 'after');
  };

  /** Vehicles with a completed first poll (the warm-up waits for all of them). */
  const polled = new Set<string>();
  const runPollJobs = async (faults: boolean): Promise<void> => {
    const messages = pollQueue.receive(Number.MAX_SAFE_INTEGER);
    await pool(messages, workers, async (message: QueuedMessage<PollJob>) => {
      const life = faults ? newLife() : new WorkerLife();
      const deps = p.workerDeps({
        stores: killable(p.stores, life, 2) as Stores,
        budget: killable(p.budget, life),
        bus: killable(p.bus, life),
        fetch: killableFetch(life, netFetch),
      });
      tally.pollJobs++;
      try {
        const result = await runPollJob(deps, message.body);
        if (!life.dead) {
          tallyResult(tally, result);
          if (result.kind === 'poll-vehicle' && result.summary.outcome === 'polled') {
            if (result.summary.failures.length === 0) polled.add(result.summary.vehicleId);
          }
          pollQueue.delete(message);
        }
      } catch {
        // A job that threw stays on the queue and comes back (the handler reports a batch failure).
      }
      if (life.dead) tally.killed.poll++;
    });
  };

  const runFanOut = async (faults: boolean): Promise<void> => {
    for (const message of fanOutQueue.receive(Number.MAX_SAFE_INTEGER)) {
      const life = faults ? newLife() : new WorkerLife();
      try {
        const result = await engineFor(life).fanOut(message.body);
        await result.settled;
        if (!life.dead) fanOutQueue.delete(message);
      } catch {
        // Back on the queue after its visibility timeout.
      }
      if (life.dead) tally.killed.fanOut++;
    }
  };

  const runDeliveries = async (faults: boolean): Promise<void> => {
    const messages = deliveryQueue.receive(Number.MAX_SAFE_INTEGER);
    await pool(messages, 8, async (message: QueuedMessage<DeliveryJob>) => {
      const life = faults ? newLife() : new WorkerLife();
      tally.deliveryJobs++;
      try {
        const outcome = await engineFor(life).handleJob(message.body);
        if (!life.dead) {
          if (outcome) deliveryQueue.retryIn(message, outcome.retryInSeconds);
          else deliveryQueue.delete(message);
        }
      } catch {
        // Back on the queue after its visibility timeout.
      }
      if (life.dead) tally.killed.delivery++;
    });
  };

  /** The sweeper (every simulated minute, never killed here): republish, then resume deliveries. */
  const sweep = async (): Promise<void> => {
    await republishPending({ events: p.stores.events, bus: p.bus, now: simNow });
    await sweeperEngine.sweep();
  };

  let lastCycle = Number.NEGATIVE_INFINITY;
  const step = async (faults: boolean): Promise<void> => {
    if (simNow() - lastCycle >= CYCLE_MS) {
      lastCycle = simNow();
      await runPlanner({ ...p.stores, queue: pollQueue, now: simNow, config: p.config, rateBudget: p.rate });
      await sweep();
    }
    await runPollJobs(faults);
    // Fan-out and deliveries until this instant's work is done (a fan-out queues deliveries).
    for (let i = 0; i < 5 && (fanOutQueue.visible > 0 || deliveryQueue.visible > 0); i++) {
      await runFanOut(faults);
      await runDeliveries(faults);
    }
  };

  try {
    // Warm-up, no faults: every user enrolled through the real OAuth flow, every vehicle polled
    // (first polls tell current conditions once, `initial: true`), everything delivered.
    const enrolled = await p.enrollAll();
    log(`faults: ${enrolled} users enrolled (${options.vehicles} vehicles)`);
    // A change made before a vehicle's first poll is history to it (detection README, "First poll").
    const fleet = p.sim.world.vehicles().length;
    for (let i = 0; i < 6 || (polled.size < fleet && i < 120); i++) {
      await step(false);
      await p.advance(CYCLE_MS);
    }
    if (polled.size < fleet) {
      throw new BenchError(
        'warm-up',
        `${fleet - polled.size} of ${fleet} vehicles never polled in 120 cycles`,
      );
    }

    // The revoked user is one with a single vehicle (its vehicles get no scripted change).
    const users = p.sim.world.users();
    const revoked = users.find((u) => u.vehicleIds.length === 1) ?? users[0];
    if (!revoked) throw new BenchError('pick the user to revoke', 'the world has no user');
    const scripted: SimVehicle[] = p.sim.world
      .vehicles()
      .filter((v) => !revoked.vehicleIds.includes(v.id)) as SimVehicle[];

    const phaseStart = simNow();
    const busFrom = p.bus.received.length;
    const receivedFrom = receiver.receptions.length;
    await p.control('POST', '/stats/reset');
    const made: MadeChange[] = [];
    let scriptedMade = 0;
    const detectedAlerts = new Set<string>();
    const script: ScriptState = {
      startedAt: phaseStart,
      maintained: new Set(),
      fixable: (alertId) => detectedAlerts.has(alertId),
    };
    p.bus.subscribe((events) => {
      for (const e of events) {
        if (e.type === 'vehicle.alert.raised' && typeof e.data.alertId === 'string') {
          detectedAlerts.add(e.data.alertId);
        }
      }
    });
    const plan = planChanges(options.changes, phaseMs, scripted.length, seed);
    let nextChange = 0;
    let chaosSeed = seed * 1000;
    const chaos = async (extra: Record<string, number> = {}): Promise<void> => {
      // A new seed per phase: otherwise every phase replays the same first draws.
      const r = await p.control('PUT', '/chaos', { ...BACKGROUND_CHAOS, ...extra, seed: chaosSeed++ });
      if (r.status !== 200) throw new BenchError('configure chaos', `status ${r.status}`);
    };
    await chaos();
    let storming = false;
    let revokedAt: number | undefined;
    log(`faults: scripted phase, ${options.changes} changes over ${minutes} simulated minutes`);

    for (let t = 0; t < phaseMs; t += TICK_MS) {
      const storm = STORMS.some((s) => t >= s.at * phaseMs && t < s.at * phaseMs + s.minutes * MINUTE);
      if (storm !== storming) {
        storming = storm;
        await chaos(storm ? { rateLimited: 1 } : {});
      }
      const down =
        t >= RECEIVER_DOWN.at * phaseMs && t < RECEIVER_DOWN.at * phaseMs + RECEIVER_DOWN.minutes * MINUTE;
      receiver.setUp(!down);
      if (revokedAt === undefined && t >= REVOKE_AT * phaseMs) {
        const r = await p.control('POST', `/users/${revoked.id}/revoke`);
        if (r.status !== 200) throw new BenchError('revoke the user', `status ${r.status}`);
        revokedAt = simNow();
      }
      while (nextChange < plan.length && (plan[nextChange]?.offsetMs ?? Infinity) <= t) {
        const change = await makeChange(p, plan[nextChange++] as (typeof plan)[number], scripted, script);
        if (change) {
          scriptedMade++;
          made.push(change);
          made.push(...(change.companions ?? []));
        }
      }
      await step(true);
      await p.advance(TICK_MS);
      if (t % (10 * MINUTE) === 0 && t > 0) log(`faults: ${t / MINUTE} min, ${made.length} changes made`);
    }

    // Faults stop; Carhook catches up. Done when every change was seen, nothing is left to publish
    // or deliver, and the revoked user has been silent long enough.
    await p.control('PUT', '/chaos', {});
    receiver.setUp(true);
    const settleStart = simNow();
    let reauthSeenAt: number | undefined;
    let revokedRequestsAtReauth: number | undefined;
    const revokedRequests = async (): Promise<number> =>
      ((await p.control('GET', '/stats')).body as { byUser?: Record<string, number> }).byUser?.[revoked.id] ??
      0;
    const phaseEvents = (): EventEnvelope[] => p.bus.received.slice(busFrom).map((r) => r.envelope);
    const settled = async (): Promise<boolean> => {
      if (reauthSeenAt === undefined || simNow() - reauthSeenAt < SILENCE_MS) return false;
      if (fanOutQueue.size > 0 || deliveryQueue.size > 0) return false;
      const events = phaseEvents();
      if (!made.every((c) => events.some((e) => c.matches(e)))) return false;
      const unpublished = await p.stores.events.listUnpublished({ now: simNow(), limit: 1 });
      if (unpublished.items.length > 0) return false;
      const delivered = new Set(receiver.receptions.slice(receivedFrom).map((r) => r.webhookId));
      return events.every((e) => delivered.has(e.id));
    };
    // The snapshot is taken after the step in which the event appeared: requests made by workers
    // already running in that step are allowed, none after.
    const watchReauth = async (): Promise<void> => {
      if (reauthSeenAt !== undefined) return;
      if (phaseEvents().some((e) => e.type === 'enrollment.reauthorization_required')) {
        reauthSeenAt = simNow();
        revokedRequestsAtReauth = await revokedRequests();
      }
    };
    while (!(await settled()) && simNow() - settleStart < MAX_SETTLE_MS) {
      await step(false);
      await watchReauth();
      await p.advance(SETTLE_TICK_MS);
    }
    log(`faults: settled after ${round((simNow() - settleStart) / MINUTE, 1)} simulated minutes`);

    // Checks.
    const stats = (await p.stats()) as Awaited<ReturnType<BenchPipeline['stats']>> & {
      byUser?: Record<string, number>;
      byStatus?: Record<string, number>;
      byChaos?: Record<string, number>;
    };
    log(`faults: simulator statuses ${JSON.stringify(stats.byStatus)}`);
    const events = phaseEvents();
    const violations: string[] = [];
    const distinct = new Map<string, EventEnvelope>();
    for (const e of events) distinct.set(e.id, e);
    let detected = 0;
    let falseEvents = 0;
    const explained = new Set<string>();
    for (const c of made) {
      const ids = new Set([...distinct.values()].filter((e) => c.matches(e)).map((e) => e.id));
      for (const id of ids) explained.add(id);
      if (ids.size === 1) detected++;
      else if (ids.size === 0)
        violations.push(`${c.kind} on ${c.vin} at ${new Date(c.changedAt).toISOString()}: no event`);
      else {
        falseEvents += ids.size - 1;
        violations.push(`${c.kind} on ${c.vin}: ${ids.size} different event ids (${[...ids].join(', ')})`);
      }
    }
    // How long each scripted fix took to reach the bus (simulated time).
    const published = p.bus.received.slice(busFrom);
    const fixLags = made
      .filter((c) => c.kind === 'alert-fixed')
      .flatMap((c) => {
        const first = published.find((r) => r.at >= c.changedAt && c.matches(r.envelope));
        return first === undefined ? [] : [(first.at - c.changedAt) / 1000];
      })
      .sort((a, b) => a - b);
    const reauth = [...distinct.values()].filter((e) => e.type === 'enrollment.reauthorization_required');
    let initial = 0;
    let reporting = 0;
    for (const e of distinct.values()) {
      if (explained.has(e.id) || e.type === 'enrollment.reauthorization_required') continue;
      if (e.data.initial === true) {
        // A first read of a source (daily services or map) telling a current condition once.
        initial++;
        continue;
      }
      if (reportingExplained(e, made)) {
        reporting++;
        continue;
      }
      falseEvents++;
      violations.push(`event without a change: ${e.type} ${e.id} (${e.vehicle?.vin ?? 'no vehicle'})`);
    }
    if (reauth.length !== 1) {
      violations.push(
        `revoked user: ${reauth.length} enrollment.reauthorization_required events (expected 1)`,
      );
    }
    const finalRevoked = stats.byUser?.[revoked.id] ?? 0;
    const after = revokedRequestsAtReauth === undefined ? Number.NaN : finalRevoked - revokedRequestsAtReauth;
    if (!(after === 0))
      violations.push(`revoked user: ${after} requests after enrollment.reauthorization_required`);

    const receptions = receiver.receptions.slice(receivedFrom);
    const bad = receptions.filter((r) => !r.signatureValid).length;
    if (bad > 0) violations.push(`${bad} webhook requests whose signature does not verify`);
    const receivedIds = new Set(receptions.map((r) => r.webhookId));
    for (const id of receivedIds) {
      if (!distinct.has(id)) violations.push(`webhook ${id} received but never published on the bus`);
    }
    for (const id of distinct.keys())
      if (!receivedIds.has(id)) violations.push(`event ${id} never delivered`);
    const client = stats.clients[p.sim.clientId];
    if (!client) throw new BenchError('read the simulator stats', `no client ${p.sim.clientId}`);
    if (client.maxInWindow > client.limit) {
      violations.push(`quota exceeded: ${client.maxInWindow} requests in one window, limit ${client.limit}`);
    }
    const unpublished = await p.stores.events.listUnpublished({ now: simNow(), limit: 10 });
    if (unpublished.items.length > 0)
      violations.push(`${unpublished.items.length}+ events still unpublished`);
    if (fanOutQueue.size + deliveryQueue.size > 0) {
      violations.push(`queues not drained: fan-out ${fanOutQueue.size}, deliveries ${deliveryQueue.size}`);
    }
    const exhausted = [...distinct.values()].filter((e) => e.type.startsWith('webhook.')).length;
    if (exhausted > 0)
      violations.push(`${exhausted} webhook.* events (a delivery exhausted or an endpoint disabled)`);

    const counts: FaultCounts = {
      changesPlanned: options.changes,
      changesMade: scriptedMade,
      changesExpected: made.length,
      changesDetected: detected,
      eventsPublished: events.length,
      distinctEvents: distinct.size,
      initialEvents: initial,
      reportingEvents: reporting,
      receptions: receptions.length,
      distinctWebhookIds: receivedIds.size,
      redeliveries: receptions.length - receivedIds.size,
      badSignatures: bad,
      killed: { ...tally.killed },
      pollJobs: tally.pollJobs,
      deliveryJobs: tally.deliveryJobs,
      serverErrors: tally.serverErrors,
      tooManyRequests: tally.tooManyRequests,
      notFound: tally.notFound,
      timeouts: tally.timeouts,
      malformed: tally.malformed,
      receiverRefused: receiver.refused(),
      tokenRefreshes: tally.tokenRequests,
      reauthorizationEvents: reauth.length,
      revokedUserRequestsAfter: after,
      maxInWindow: client.maxInWindow,
      quotaLimit: client.limit,
      apiRequests: stats.total,
      simulatedMinutes: round((simNow() - phaseStart) / MINUTE, 1),
      wallSeconds: round((performance.now() - started) / 1000, 1),
      falseEvents,
      staleServed: stats.byChaos?.stale ?? 0,
      flapServed: stats.byChaos?.flap ?? 0,
      staleCounted: tally.stale,
      confirmationRequests: tally.confirmations,
      fixes: fixLags.length,
      fixLagP50S: round(percentile(fixLags, 50), 1),
      fixLagP95S: round(percentile(fixLags, 95), 1),
    };
    return {
      options: { vehicles: options.vehicles, changes: options.changes, seed },
      counts,
      violations,
      table: renderTable(counts, violations, CHAOS_SUMMARY),
    };
  } finally {
    sender.close();
    await receiver.close();
    await p.close();
  }
}

/** Access tokens live 15 simulated minutes, so refreshes happen under faults too. */
export const CI_SIZE = { vehicles: 30, changes: 200, accessTokenTtlSeconds: 900 } as const;
export const LONG_SIZE = { vehicles: 200, changes: 2000, minutes: 200, accessTokenTtlSeconds: 900 } as const;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const long = process.argv.includes('--long');
  const report = await runFaultScenario({
    ...(long ? LONG_SIZE : CI_SIZE),
    // --no-confirm: without confirming absences, to see the false events it prevents.
    ...(process.argv.includes('--no-confirm') ? { confirmAbsences: false } : {}),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`${report.table}\n`);
  process.exitCode = report.violations.length === 0 ? 0 : 1;
}

/**
 * A vehicle's reporting state is explained by the script: `resumed` by a scripted change on that
 * vehicle made before it was detected (its records moved again); `stopped` by none made before it
 * (a vehicle whose records had not moved for the silence threshold when the run began).
 */
function reportingExplained(e: EventEnvelope, made: readonly MadeChange[]): boolean {
  const vin = e.vehicle?.vin;
  if (vin === undefined) return false;
  const before = made.some((c) => c.vin === vin && c.changedAt <= Date.parse(e.detectedAt));
  if (e.type === 'vehicle.reporting.resumed') return before;
  if (e.type === 'vehicle.reporting.stopped') return !before;
  return false;
}
