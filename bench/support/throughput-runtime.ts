/**
 * Carhook's side of the throughput benchmark (bench/throughput.ts), in a process of its own so its
 * memory figures are Carhook's alone (the simulator's world and the receiver live in the bench
 * process, DynamoDB Local in its JVM). The same composition as `carhook dev`
 * (functions/local/runtime.ts): DynamoDB stores and rate budget, `LocalQueue`s over DynamoDB Local
 * for poll jobs and deliveries, the runtime's poll workers with the real client over HTTP, the
 * local bus with the webhook fan-out as subscriber, the delivery workers. Only the timers differ:
 * the bench drives planner cycles itself (`cycle`), so a cycle's polls are counted from the
 * planner run to the last job done.
 *
 * Started with `fork()` (IPC); the parent sends commands and gets one answer per command:
 *   start {config} → enroll {users} → subscribe {url} → cycle {timeoutMs} … → close
 * `process.memoryUsage()` is sampled every `memorySampleMs` from `start` on; every answer carries
 * the peaks so far.
 */
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDynamoStores, createDynamoSubscriptionStores } from '../../functions/adapters/dynamodb';
import { LocalBus } from '../../functions/adapters/local/bus';
import { dynamoDbLocalClient } from '../../functions/adapters/local/dynamodb-local';
import { createQueueTable, LocalQueue } from '../../functions/adapters/local/queue';
import { parseKeyRing } from '../../functions/adapters/secrets/secrets-manager';
import type { CarhookSecrets } from '../../functions/adapters/secrets/types';
import { createTokenSet } from '../../functions/core/crypto/token-cipher';
import { type DeliveryJob, deliveryJobHandler, parseDeliveryJob } from '../../functions/core/delivery/engine';
import { completeAuthorization, enrollmentIdOf, startAuthorization } from '../../functions/core/enrollment';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { type JobResult, runPollJob } from '../../functions/core/jobs/worker';
import type { PollJob } from '../../functions/core/polling/jobs';
import { createPlannerMemory, runPlanner } from '../../functions/core/polling/planner';
import type { EventBus, PublishResult } from '../../functions/core/publishing/ports';
import { type JobQueue, QUEUE_NAMES, type QueueConsumer } from '../../functions/core/queue/ports';
import { runConsumer } from '../../functions/core/queue/process';
import { vehicleIdOf } from '../../functions/core/store/identity';
import type { OAuthUserEnrollment } from '../../functions/core/store/records';
import { compileAllowList } from '../../functions/core/webhooks/ssrf';
import { CARHOOK_METRIC_NAMES } from '../../functions/runtime/metric-names';
import { type MetricSink, recordJobResult } from '../../functions/runtime/observability';
import { createRuntime } from '../../functions/runtime/runtime';
import { createWebhooks } from '../../functions/runtime/webhooks';
import { countRequests, createSimulatedClockTable } from './dynamo';
import type {
  CycleFigures,
  EnrollFigures,
  MemoryPeaks,
  RuntimeCommand,
  RuntimeConfig,
  RuntimeReply,
  SeedUser,
} from './throughput-protocol';
import { InProcessQueue } from './throughput-queue';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';

class RuntimeStepError extends Error {
  override readonly name = 'RuntimeStepError';
  constructor(
    readonly kind: 'NotStarted' | 'EnrollFailed' | 'SubscribeFailed' | 'InvalidCommand',
    message: string,
  ) {
    super(message);
  }
}

const send = (reply: RuntimeReply): void => {
  process.send?.(reply);
};

// ---- memory -----------------------------------------------------------------------------------

const peaks = { rss: 0, heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0 };
const sample = (): void => {
  const m = process.memoryUsage();
  peaks.rss = Math.max(peaks.rss, m.rss);
  peaks.heapUsed = Math.max(peaks.heapUsed, m.heapUsed);
  peaks.heapTotal = Math.max(peaks.heapTotal, m.heapTotal);
  peaks.external = Math.max(peaks.external, m.external);
  peaks.arrayBuffers = Math.max(peaks.arrayBuffers, m.arrayBuffers);
};
const MiB = 2 ** 20;
const memory = (): MemoryPeaks => {
  sample();
  return {
    peakRssMiB: Math.round(peaks.rss / MiB),
    peakHeapUsedMiB: Math.round(peaks.heapUsed / MiB),
    peakHeapTotalMiB: Math.round(peaks.heapTotal / MiB),
    peakExternalMiB: Math.round(peaks.external / MiB),
    maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
  };
};

// ---- the composition -------------------------------------------------------------------------

interface Counters {
  polls: number;
  /** Vehicles polled since the counter set was made (distinct ids, per cycle via `vehiclesSince`). */
  polledVehicles: Set<string>;
  firstPolls: number;
  pollRequests: number;
  discoveryRequests: number;
  jobsFinished: number;
  jobsFailed: number;
  outcomes: Record<string, number>;
  events: number;
  eventsByType: Record<string, number>;
  deliveriesCreated: number;
  deliveriesSucceeded: number;
  deliveriesFailedAttempts: number;
  lastDeliveryAt: number;
  lastJobAt: number;
  dynamoCommands: Record<string, number>;
  problems: number;
  firstProblem?: string;
}

const freshCounters = (): Counters => ({
  polls: 0,
  polledVehicles: new Set(),
  firstPolls: 0,
  pollRequests: 0,
  discoveryRequests: 0,
  jobsFinished: 0,
  jobsFailed: 0,
  outcomes: {},
  events: 0,
  eventsByType: {},
  deliveriesCreated: 0,
  deliveriesSucceeded: 0,
  deliveriesFailedAttempts: 0,
  lastDeliveryAt: 0,
  lastJobAt: 0,
  dynamoCommands: {},
  problems: 0,
});

async function compose(config: RuntimeConfig) {
  const counters = freshCounters();
  const problem = (text: string): void => {
    counters.problems++;
    counters.firstProblem ??= text.slice(0, 300);
  };
  const client = dynamoDbLocalClient(config.dynamoEndpoint);
  countRequests(client, counters.dynamoCommands);
  // The first child creates the tables; the next ones find them (and the enrolled fleet) there.
  await createSimulatedClockTable(client, config.tableName).catch((e: Error) => {
    if (e.name !== 'ResourceInUseException') throw e;
  });
  await createQueueTable(client, config.queueTableName);

  const quota = { requests: config.quota, windowSeconds: 60 };
  const { rateBudget, ...stores } = createDynamoStores({
    client,
    tableName: config.tableName,
    rateBudget: { limit: quota.requests, windowMs: 60_000, safetyMargin: 0.1 },
  });
  const inProcess = config.pollQueue === 'in-process' ? new InProcessQueue<PollJob>() : undefined;
  const pollQueue: JobQueue<PollJob> & QueueConsumer<PollJob> =
    inProcess ??
    new LocalQueue<PollJob>({ client, tableName: config.queueTableName, queueName: QUEUE_NAMES.pollJobs });
  const deliveryQueue = new LocalQueue<DeliveryJob>({
    client,
    tableName: config.queueTableName,
    queueName: QUEUE_NAMES.deliveries,
  });
  const localBus = new LocalBus({
    out: null,
    jsonlPath: join(tmpdir(), `carhook-throughput-${process.pid}-${randomBytes(3).toString('hex')}.jsonl`),
  });
  // Counts what the runtime publishes (every event accepted by the bus), then hands it on.
  const bus: EventBus = {
    publish: async (events: readonly EventEnvelope[]): Promise<PublishResult> => {
      const result = await localBus.publish(events);
      const published = new Set(result.published);
      for (const e of events) {
        if (!published.has(e.id)) continue;
        counters.events++;
        counters.eventsByType[e.type] = (counters.eventsByType[e.type] ?? 0) + 1;
      }
      return result;
    },
  };
  const metrics: MetricSink = {
    record: (name) => {
      if (name === CARHOOK_METRIC_NAMES.deliveriesSucceeded) {
        counters.deliveriesSucceeded++;
        counters.lastDeliveryAt = performance.now();
      } else if (name === CARHOOK_METRIC_NAMES.deliveriesFailed) counters.deliveriesFailedAttempts++;
    },
  };
  const keyRing = parseKeyRing('bench key ring', config.keyRingJson);
  const secrets: CarhookSecrets = {
    apiClient: async () => ({ clientId: config.clientId, clientSecret: config.clientSecret }),
    mapApi: async () => ({ username: config.clientId, password: config.clientSecret }),
    keyRing: { load: async () => keyRing },
  };
  const runtime = createRuntime(
    {
      api: { baseUrl: config.baseUrl, authUrl: config.authUrl, brands: ['cielo', 'pavo'] },
      quota,
      pollIntervalSeconds: config.cycleSeconds,
      stateKey: Buffer.from(config.stateKeyBase64, 'base64'),
      version: 'bench-throughput',
    },
    { stores, rateBudget, bus, secrets, pollQueue, metrics },
  );
  const allowList = compileAllowList({ cidrs: ['127.0.0.0/8'], hostnames: [] });
  if (!allowList.ok) throw new RuntimeStepError('InvalidCommand', allowList.error.message);
  const webhooks = await createWebhooks(runtime, {
    ...createDynamoSubscriptionStores({ client, tableName: config.tableName }),
    deliveryQueue,
    senderOptions: { allowInsecureLoopback: true, allowList: allowList.value },
    onProblem: (p) => problem(`webhook ${p.kind}: ${p.message}`),
  });
  const firstAttempts = new Set<Promise<void>>();
  let fanOutsInFlight = 0;
  localBus.subscribe(
    async (event) => {
      fanOutsInFlight++;
      try {
        const { settled, deliveryIds } = await webhooks.engine.fanOut(event);
        counters.deliveriesCreated += deliveryIds.length;
        const tracked = settled.catch(() => {}).finally(() => firstAttempts.delete(tracked));
        firstAttempts.add(tracked);
      } finally {
        fanOutsInFlight--;
      }
    },
    { name: 'webhooks' },
  );

  const stop = new AbortController();
  const pollWorkers = runConsumer<unknown>(
    pollQueue,
    async (body, { signal }) => {
      const result: JobResult = await runPollJob(await runtime.pollDeps({ signal }), body);
      recordJobResult(runtime.metrics, result);
      if (result.kind === 'poll-vehicle') {
        counters.polls++;
        counters.polledVehicles.add(result.summary.vehicleId);
        // Services are read once a day: within a bench run, only by a vehicle's first poll.
        if (result.summary.resources.includes('services')) counters.firstPolls++;
        counters.pollRequests += result.summary.requests;
        counters.outcomes[result.summary.outcome] = (counters.outcomes[result.summary.outcome] ?? 0) + 1;
      } else if (result.kind === 'discover-vehicles') counters.discoveryRequests += result.requests;
      else counters.pollRequests += result.summary.requests;
    },
    {
      signal: stop.signal,
      concurrency: config.pollConcurrency,
      visibilityTimeoutSeconds: 300,
      idleDelayMs: 50,
      onError: (e) => problem(`poll queue ${e.stage ?? ''}: ${e.message}`),
      onResult: (r) => {
        counters.lastJobAt = performance.now();
        if (r.status === 'failed') {
          counters.jobsFailed++;
          problem(`poll job failed: ${r.error ?? r.id}`);
        }
        counters.jobsFinished++;
      },
    },
  );
  const deliveryWorkers = runConsumer<DeliveryJob>(deliveryQueue, deliveryJobHandler(webhooks.engine), {
    signal: stop.signal,
    concurrency: config.deliveryConcurrency,
    visibilityTimeoutSeconds: 60,
    idleDelayMs: 100,
    parse: parseDeliveryJob,
    onError: (e) => problem(`delivery queue ${e.stage ?? ''}: ${e.message}`),
    onResult: (r) => {
      if (r.status === 'failed') problem(`delivery job failed: ${r.error ?? r.id}`);
    },
  });

  return {
    counters,
    runtime,
    stores,
    webhooks,
    firstAttempts,
    fanOutsInFlight: () => fanOutsInFlight,
    /** Poll jobs queued or running (in-process queue only; a LocalQueue cannot say cheaply). */
    queuedPollJobs: (): number | undefined => inProcess?.size,
    async close() {
      stop.abort();
      await Promise.all([pollWorkers, deliveryWorkers]);
      await Promise.all([...firstAttempts]);
      client.destroy();
    },
  };
}

type Composed = Awaited<ReturnType<typeof compose>>;

// ---- commands ---------------------------------------------------------------------------------

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `work` over `items`, `concurrency` at a time. */
async function pool<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, concurrency) }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        await work(item);
      }
    }),
  );
}

const dynamoTotal = (c: Composed, before: Record<string, number>): number =>
  Object.entries(c.counters.dynamoCommands).reduce(
    (total, [name, count]) => total + count - (before[name] ?? 0),
    0,
  );

/**
 * Enrolls users with tokens the simulator issues without the browser step
 * (`POST /_sim/users/{id}/tokens`), writing what `completeAuthorization` would: the enrollment with
 * its encrypted tokens, then each vehicle (due now). Not written: the enrollment's vehicle-list
 * state, so the planner's rare discovery job of such an enrollment announces its vehicles once.
 */
async function seed(
  c: Composed,
  config: RuntimeConfig,
  users: readonly SeedUser[],
  concurrency: number,
): Promise<EnrollFigures> {
  const t0 = performance.now();
  const commandsBefore = { ...c.counters.dynamoCommands };
  const cipher = await c.runtime.cipher();
  let vehicles = 0;
  const failures: string[] = [];
  await pool(users, concurrency, async (user) => {
    const res = await fetch(`${config.simUrl}/_sim/users/${user.id}/tokens`, { method: 'POST' });
    // parsing boundary: the simulator's OAuth token response (`access_token`, `refresh_token`, `expires_in`)
    const t = (await res.json()) as { access_token?: string; refresh_token?: string; expires_in?: number };
    if (res.status !== 201 || !t.access_token) {
      failures.push(`${user.id}: token answered ${res.status}`);
      return;
    }
    const now = Date.now();
    const id = enrollmentIdOf(user.brand, user.id);
    const tokens = createTokenSet({
      accessToken: t.access_token,
      ...(t.refresh_token ? { refreshToken: t.refresh_token } : {}),
      expiresAt: new Date(now + (t.expires_in ?? 3600) * 1000).toISOString(),
    });
    const at = new Date(now).toISOString();
    const enrollment: OAuthUserEnrollment = {
      kind: 'oauth-user',
      id,
      brand: user.brand,
      status: 'active',
      userId: user.id,
      tokenCiphertext: cipher.encryptTokens(tokens, id),
      tokenExpiresAt: tokens.expiresAt,
      createdAt: at,
      updatedAt: at,
    };
    const created = await c.stores.enrollments.create(enrollment);
    if (created.kind !== 'Created') {
      failures.push(`${user.id}: enrollment ${created.kind}`);
      return;
    }
    for (const v of user.vehicles) {
      const put = await c.stores.vehicles.put(
        {
          id: vehicleIdOf(id, v.id),
          enrollmentId: id,
          vin: v.vin,
          brand: v.brand,
          apiVehicleId: v.id,
          nextPollAt: at,
        },
        now,
      );
      if (put.created) vehicles++;
    }
  });
  if (failures.length > 0) {
    throw new RuntimeStepError(
      'EnrollFailed',
      `${failures.length} of ${users.length} users not enrolled, first: ${failures[0]}`,
    );
  }
  return {
    users: users.length,
    vehicles,
    seconds: (performance.now() - t0) / 1000,
    dynamoRequests: dynamoTotal(c, commandsBefore),
  };
}

/** Enrolls simulator users through the OAuth code flow, `concurrency` at a time. */
async function enroll(
  c: Composed,
  users: readonly { id: string; brand: string }[],
  concurrency: number,
): Promise<EnrollFigures> {
  const t0 = performance.now();
  const commandsBefore = { ...c.counters.dynamoCommands };
  // Setup, not the measure: the callback's two API reads are not drawn from the budget (the quota is
  // lifted anyway), which spares DynamoDB Local four writes per user.
  const { budget: _budget, ...deps } = await c.runtime.oauthDeps();
  let next = 0;
  let vehicles = 0;
  const failures: string[] = [];
  const one = async (user: { id: string; brand: string }) => {
    const started = startAuthorization(deps, { brand: user.brand, redirectUri: REDIRECT_URI });
    if (started.kind !== 'Started') throw new RuntimeStepError('EnrollFailed', started.message);
    // The sign-in page's POST (the browser step), then our callback.
    const approve = await fetch(started.url, {
      method: 'POST',
      body: new URLSearchParams({ user: user.id }),
      redirect: 'manual',
    });
    await approve.arrayBuffer();
    const location = approve.headers.get('location');
    if (approve.status !== 302 || !location) {
      failures.push(`${user.id}: sign-in answered ${approve.status}`);
      return;
    }
    const back = new URL(location);
    const done = await completeAuthorization(deps, {
      state: back.searchParams.get('state') ?? '',
      code: back.searchParams.get('code') ?? '',
    });
    if (done.kind !== 'Enrolled') {
      failures.push(`${user.id}: ${done.kind}`);
      return;
    }
    if (done.discovery.kind === 'Synced') vehicles += done.discovery.vehicleIds.length;
  };
  await Promise.all(
    Array.from({ length: Math.max(1, concurrency) }, async () => {
      while (next < users.length) {
        const user = users[next++];
        if (user) await one(user);
      }
    }),
  );
  if (failures.length > 0) {
    throw new RuntimeStepError(
      'EnrollFailed',
      `${failures.length} of ${users.length} users not enrolled, first: ${failures[0]}`,
    );
  }
  return {
    users: users.length,
    vehicles,
    seconds: (performance.now() - t0) / 1000,
    dynamoRequests: dynamoTotal(c, commandsBefore),
  };
}

async function subscribe(c: Composed, url: string): Promise<{ subscriptionId: string; created: boolean }> {
  const listed = await c.webhooks.service.list({});
  if (!listed.ok) throw new RuntimeStepError('SubscribeFailed', listed.error.message);
  const existing = listed.value.items.find((s) => s.url === url);
  if (existing) return { subscriptionId: existing.id, created: false };
  // Vehicle events only: the enrollment events of a growing fleet are not part of the measure.
  const created = await c.webhooks.service.create({ url, eventTypes: ['vehicle.*'] });
  if (!created.ok) throw new RuntimeStepError('SubscribeFailed', created.error.message);
  return { subscriptionId: created.value.id, created: true };
}

/**
 * One planner run, then waits until every job it enqueued has finished and every delivery the
 * cycle's events created has been attempted (or `timeoutMs` passed: the figures then cover what
 * was done, `complete: false`).
 */
async function cycle(c: Composed, timeoutMs: number): Promise<CycleFigures> {
  const k = c.counters;
  k.polledVehicles = new Set();
  const before = {
    ...k,
    outcomes: { ...k.outcomes },
    eventsByType: { ...k.eventsByType },
    dynamoCommands: { ...k.dynamoCommands },
  };
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const deadline = t0 + timeoutMs;
  // The cycles run back to back on the real clock (a planner normally runs once per cycleMs): a
  // fresh planner memory each time, so every vehicle read a moment ago is due again.
  const planned = await runPlanner({ ...(await c.runtime.plannerDeps()), memory: createPlannerMemory() });
  const plannerSeconds = (performance.now() - t0) / 1000;
  const expected = planned.jobs + planned.discoveryJobs;
  // Every planned job has a result, and (in-process queue) none is left: the planner may queue two
  // jobs for a vehicle (its events poll, then its routine reads), so a count alone could end early.
  const pollsAllDone = () =>
    k.jobsFinished - before.jobsFinished >= expected && (c.queuedPollJobs() ?? 0) === 0;
  while (!pollsAllDone() && performance.now() < deadline) await sleep(20);
  const pollsDone = pollsAllDone();
  const pollEnd = performance.now();
  const deliveriesPending = () =>
    k.deliveriesCreated - before.deliveriesCreated > k.deliveriesSucceeded - before.deliveriesSucceeded ||
    c.firstAttempts.size > 0 ||
    c.fanOutsInFlight() > 0;
  while (deliveriesPending() && performance.now() < deadline) await sleep(20);
  const end = performance.now();
  const cpu = process.cpuUsage(cpu0);
  const delta = (a: Record<string, number>, b: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(a)
        .map(([key, v]) => [key, v - (b[key] ?? 0)] as const)
        .filter(([, v]) => v !== 0),
    );
  return {
    planned: {
      due: planned.due,
      jobs: planned.jobs,
      discoveryJobs: planned.discoveryJobs,
      deferred: planned.deferred,
    },
    plannerSeconds,
    pollSeconds: (pollEnd - t0) / 1000,
    seconds: (end - t0) / 1000,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    complete: pollsDone && !deliveriesPending(),
    jobsFinished: k.jobsFinished - before.jobsFinished,
    jobsFailed: k.jobsFailed - before.jobsFailed,
    polls: k.polls - before.polls,
    vehiclesPolled: k.polledVehicles.size,
    firstPolls: k.firstPolls - before.firstPolls,
    requests: k.pollRequests - before.pollRequests + (k.discoveryRequests - before.discoveryRequests),
    outcomes: delta(k.outcomes, before.outcomes),
    events: k.events - before.events,
    eventsByType: delta(k.eventsByType, before.eventsByType),
    deliveriesCreated: k.deliveriesCreated - before.deliveriesCreated,
    deliveriesSucceeded: k.deliveriesSucceeded - before.deliveriesSucceeded,
    deliveriesFailedAttempts: k.deliveriesFailedAttempts - before.deliveriesFailedAttempts,
    deliverySeconds:
      k.deliveriesSucceeded > before.deliveriesSucceeded ? (k.lastDeliveryAt - t0) / 1000 : Number.NaN,
    dynamoCommands: delta(k.dynamoCommands, before.dynamoCommands),
    problems: k.problems - before.problems,
    ...(k.firstProblem ? { firstProblem: k.firstProblem } : {}),
  };
}

// ---- the loop ---------------------------------------------------------------------------------

let composed: Composed | undefined;
let started: RuntimeConfig | undefined;
let sampler: NodeJS.Timeout | undefined;

const need = (): Composed => {
  if (!composed) throw new RuntimeStepError('NotStarted', 'send `start` first');
  return composed;
};

async function handle(command: RuntimeCommand): Promise<unknown> {
  switch (command.cmd) {
    case 'start': {
      sample();
      sampler = setInterval(sample, Math.max(10, command.config.memorySampleMs));
      composed = await compose(command.config);
      started = command.config;
      return { pid: process.pid, node: process.version };
    }
    case 'enroll':
      return command.mode === 'tokens'
        ? seed(need(), started as RuntimeConfig, command.users, command.concurrency)
        : enroll(need(), command.users, command.concurrency);
    case 'subscribe':
      return subscribe(need(), command.url);
    case 'cycle':
      return cycle(need(), command.timeoutMs);
    case 'close': {
      await composed?.close();
      composed = undefined;
      if (sampler) clearInterval(sampler);
      return {};
    }
  }
}

process.on('message', (raw: unknown) => {
  // parsing boundary: the parent's message
  const command = raw as RuntimeCommand;
  if (typeof command !== 'object' || command === null || typeof command.id !== 'number') return;
  handle(command).then(
    (result) => {
      send({ id: command.id, ok: true, result, memory: memory() });
      if (command.cmd === 'close') process.disconnect?.();
    },
    (error: unknown) =>
      send({
        id: command.id,
        ok: false,
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        memory: memory(),
      }),
  );
});
// The parent gone (crash, Ctrl-C): nothing left to serve.
process.on('disconnect', () => {
  if (sampler) clearInterval(sampler);
  setTimeout(() => process.exit(0), 100).unref();
});
