/**
 * Throughput with the quota lifted: vehicle polls, API requests, events and deliveries
 * per second on this machine against DynamoDB Local, for growing fleets, and the memory peak of the
 * process running Carhook.
 *
 * Three processes: this one (the simulator with its whole world, the webhook receiver, the
 * script), DynamoDB Local (its JVM), and Carhook's runtime (./support/throughput-runtime.ts, one
 * fresh process per fleet size, so its memory figures are Carhook's alone). The runtime is the
 * `carhook dev` composition: DynamoDB stores and rate budget, LocalQueues over DynamoDB Local, the
 * poll workers with the real API client over HTTP, the local bus, the webhook fan-out and the
 * delivery workers, one subscription to a local receiver that only counts.
 *
 * Per fleet size (ascending; the fleet grows, DynamoDB Local and the simulator are kept):
 *   1. enroll the users that take the fleet to the size, through the OAuth code flow;
 *   2. a warm-up cycle: the planner once, then every job it enqueued (new vehicles read their
 *      baseline: events, alerts, maintenance, services…);
 *   3. changes on a share of the fleet (alerts raised, collisions, trips) through the control API;
 *   4. the measured cycle(s) (steady state: every vehicle has its baseline): planner run → last poll
 *      job finished → every delivery of the cycle made. Rates are over that cycle.
 *
 *   npx tsx bench/throughput.ts [--quick]     prints JSON, then the markdown section on stderr
 *   import { run, toMarkdown } from './throughput'
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startDynamoDbLocal } from '../functions/adapters/local/dynamodb-local';
import { BRANDS, type RunningSimulator, startSimulator } from '../sim/index';
import type { SimUser } from '../sim/world/types';
import { rng, round } from './support/stats';
import type {
  CycleFigures,
  EnrollFigures,
  EnrollmentMode,
  MemoryPeaks,
  PollQueueKind,
  RuntimeCommand,
  RuntimeConfig,
  RuntimeReply,
  SeedUser,
} from './support/throughput-protocol';

export const FULL_FLEETS: readonly number[] = [1000, 2000, 5000, 10_000];
export const QUICK_FLEETS: readonly number[] = [50, 100];

export interface ThroughputOptions {
  /** Quick sizes (QUICK_FLEETS, shorter limits). */
  readonly quick?: boolean;
  /** Fleet sizes, ascending (default FULL_FLEETS, or QUICK_FLEETS with `quick`). */
  readonly fleets?: readonly number[];
  /** Share of the fleet changed before each measured cycle (default 0.05). */
  readonly changeShare?: number;
  /** Measured cycles per fleet size after the warm-up (default 1). */
  readonly measuredCycles?: number;
  /** Poll-jobs consumer concurrency of the runtime (default 16; `carhook dev` defaults to 4). */
  readonly pollConcurrency?: number;
  /** Deliveries consumer concurrency (default 8, as `carhook dev`). */
  readonly deliveryConcurrency?: number;
  /** Enrollments in flight (default 16). */
  readonly enrollConcurrency?: number;
  /** The warm-up cycle's limit (default 150 s, quick 30 s); a cut warm-up leaves the size without steady figures. */
  readonly warmupTimeoutSeconds?: number;
  /** A measured cycle's limit; a cycle cut short is reported as such (default 90 s, quick 15 s). */
  readonly cycleTimeoutSeconds?: number;
  /** Poll jobs in the runtime's memory (default) or through `carhook dev`'s LocalQueue over DynamoDB Local. */
  readonly pollQueue?: PollQueueKind;
  /** Tokens from the simulator's control API written as `completeAuthorization` would (default), or the OAuth code flow. */
  readonly enrollment?: EnrollmentMode;
  /**
   * Sizes not started once the run has used this many seconds are reported as not run; a cycle's
   * limit leaves `reservePerSizeSeconds` of it to each size still to come (default 300, quick 50).
   */
  readonly budgetSeconds?: number;
  /** Seconds of the budget kept for each size still to come (default 20, quick 10). */
  readonly reservePerSizeSeconds?: number;
  /** Reuse a running DynamoDB Local (tests); one is started and stopped otherwise. */
  readonly dynamodb?: { readonly endpoint?: string };
  readonly seed?: number;
  readonly log?: (line: string) => void;
}

export interface ThroughputRow {
  /** The size asked for. */
  readonly target: number;
  readonly status: 'measured' | 'partial' | 'failed' | 'not run';
  /** Why a row is partial, failed or not run. */
  readonly note?: string;
  /** Vehicles enrolled (users own 1–3 vehicles, so a few more than `target`). */
  readonly vehicles: number;
  readonly enroll?: EnrollFigures;
  readonly warmup?: CycleFigures;
  /** Measured cycles, in order. */
  readonly cycles: readonly CycleFigures[];
  readonly changes: { readonly alerts: number; readonly collisions: number; readonly trips: number };
  /** Deliveries the receiver got during the measured cycles. */
  readonly received: number;
  readonly pollsPerSecond: number;
  readonly requestsPerSecond: number;
  readonly eventsPerSecond: number;
  readonly deliveriesPerSecond: number;
  readonly requestsPerPoll: number;
  readonly dynamoRequestsPerPoll: number;
  /** The warm-up cycle's rates (vehicles new to the fleet read their baseline first), over what it did. */
  readonly warmupPollsPerSecond: number;
  readonly warmupRequestsPerSecond: number;
  /** Seconds of the measured cycle(s). */
  readonly cycleSeconds: number;
  readonly memory?: MemoryPeaks;
  /** CPU of the runtime process over the measured cycle(s), % of one core. */
  readonly runtimeCpuPercent: number;
  /** CPU of the bench process (simulator, receiver) over the measured cycle(s), % of one core. */
  readonly simulatorCpuPercent: number;
  /** The machine's 1-minute load average when the row started (the machine is shared). */
  readonly loadAverage: number;
  /** Seconds for the whole row (runtime start, enrollment, warm-up, changes, measured cycles). */
  readonly wallSeconds: number;
}

/** `degrading`: a rate that falls as the fleet grows; `falling`: a cost (time, memory) that does. */
export type Growth = 'flat' | 'linear' | 'sub-linear' | 'super-linear' | 'degrading' | 'falling' | 'n/a';

export interface GrowthReading {
  readonly metric: string;
  readonly from: number;
  readonly to: number;
  readonly fleetFrom: number;
  readonly fleetTo: number;
  /** ln(to / from) / ln(fleetTo / fleetFrom): 0 = flat, 1 = linear, < 0 = falls as the fleet grows. */
  readonly exponent: number;
  readonly growth: Growth;
}

/** For a size without steady figures: what the measured rates say it would take. */
export interface Projection {
  readonly vehicles: number;
  /** vehicles / the steady polls/s of the largest measured size. */
  readonly steadyCycleSeconds: number;
  /** vehicles / the warm-up polls/s of the largest size whose warm-up polls were ≥ 90 % first polls. */
  readonly firstPollsSeconds: number;
  readonly steadyBasis: { readonly vehicles: number; readonly pollsPerSecond: number } | undefined;
  readonly firstPollBasis: { readonly vehicles: number; readonly pollsPerSecond: number } | undefined;
}

export interface ThroughputBenchResult {
  readonly quick: boolean;
  readonly settings: {
    readonly pollConcurrency: number;
    readonly deliveryConcurrency: number;
    readonly enrollConcurrency: number;
    readonly changeShare: number;
    readonly measuredCycles: number;
    readonly warmupTimeoutSeconds: number;
    readonly cycleTimeoutSeconds: number;
    readonly pollQueue: PollQueueKind;
    readonly budgetSeconds: number;
    readonly reservePerSizeSeconds: number;
    readonly quota: number;
    readonly enrollment: string;
    readonly dynamoSockets: number;
  };
  readonly rows: readonly ThroughputRow[];
  readonly growth: readonly GrowthReading[];
  readonly projections: readonly Projection[];
  readonly wallSeconds: number;
}

export function project(rows: readonly ThroughputRow[]): Projection[] {
  const steady = rows
    .filter((r) => r.cycles.length > 0 && r.pollsPerSecond > 0 && r.status === 'measured')
    .at(-1);
  // A warm-up whose polls were (nearly) all first polls gives their rate; a later size's warm-up
  // starts with the vehicles already known (the planner's order), so its rate is a mix.
  const warm = rows
    .filter((r) => r.warmup && r.warmupPollsPerSecond > 0 && r.warmup.firstPolls >= 0.9 * r.warmup.polls)
    .at(-1);
  if (!steady && !warm) return [];
  return rows
    .filter((r) => r.status !== 'measured')
    .map((r) => {
      const vehicles = r.status === 'not run' ? r.target : r.vehicles;
      return {
        vehicles,
        steadyCycleSeconds: steady ? round(vehicles / steady.pollsPerSecond, 0) : Number.NaN,
        firstPollsSeconds: warm ? round(vehicles / warm.warmupPollsPerSecond, 0) : Number.NaN,
        steadyBasis: steady
          ? { vehicles: steady.vehicles, pollsPerSecond: steady.pollsPerSecond }
          : undefined,
        firstPollBasis: warm
          ? { vehicles: warm.vehicles, pollsPerSecond: warm.warmupPollsPerSecond }
          : undefined,
      };
    });
}

export class ThroughputBenchError extends Error {
  override readonly name = 'ThroughputBenchError';
  constructor(
    readonly kind: 'InvalidOption' | 'RuntimeFailed' | 'Timeout' | 'SetupFailed',
    message: string,
  ) {
    super(message);
  }
}

// The quota, lifted: the simulator's and Carhook's budget alike (the control API's maximum, a million
// requests a minute: ~16,700/s, far above what one machine sends).
const LIFTED_QUOTA = 1_000_000;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNTIME_ENTRY = fileURLToPath(new URL('./support/throughput-runtime.ts', import.meta.url));

const ENROLLMENT_WORDS: Record<EnrollmentMode, string> = {
  tokens:
    'tokens from the simulator without the browser step (`POST /_sim/users/{id}/tokens`), the enrollment and its vehicles written through the stores as `completeAuthorization` does',
  oauth:
    'the OAuth code flow: startAuthorization → the simulator sign-in POST → completeAuthorization (code exchange, GET /user, GET /vehicles; the two reads not drawn from the budget)',
};

// ---- the runtime process ------------------------------------------------------------------------

type CommandBody = RuntimeCommand extends infer C
  ? C extends { id: number }
    ? Omit<C, 'id'>
    : never
  : never;

class RuntimeProcess {
  private readonly child: ChildProcess;
  private readonly pending = new Map<
    number,
    { resolve: (r: RuntimeReply) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }
  >();
  private nextId = 1;
  private stderr = '';
  private exited: string | undefined;
  private readonly gone: Promise<void>;
  memory: MemoryPeaks | undefined;

  constructor() {
    this.child = fork(RUNTIME_ENTRY, [], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-4000);
    });
    this.child.on('message', (raw: unknown) => {
      const reply = raw as RuntimeReply; // parsing boundary: our own child's message
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      clearTimeout(waiting.timer);
      this.memory = reply.memory;
      waiting.resolve(reply);
    });
    this.gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.on('exit', (code, signal) => {
      this.exited = `exited (code ${code}, signal ${signal})${this.stderr ? `: ${this.stderr.trim().slice(-800)}` : ''}`;
      for (const [, waiting] of this.pending) {
        clearTimeout(waiting.timer);
        waiting.reject(new ThroughputBenchError('RuntimeFailed', `the runtime process ${this.exited}`));
      }
      this.pending.clear();
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  async call<T>(body: CommandBody, timeoutMs: number): Promise<T> {
    if (this.exited) throw new ThroughputBenchError('RuntimeFailed', `the runtime process ${this.exited}`);
    const id = this.nextId++;
    const reply = await new Promise<RuntimeReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new ThroughputBenchError(
            'Timeout',
            `the runtime process did not answer \`${body.cmd}\` within ${Math.round(timeoutMs / 1000)} s`,
          ),
        );
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.child.send({ ...body, id } as RuntimeCommand);
    });
    if (!reply.ok) throw new ThroughputBenchError('RuntimeFailed', `${body.cmd}: ${reply.error}`);
    return reply.result as T;
  }

  /** Asks for a clean close; kills the process (by its own pid) when that does not come in time. */
  async stop(timeoutMs = 20_000): Promise<void> {
    if (!this.exited) await this.call({ cmd: 'close' }, timeoutMs).catch(() => undefined);
    // After `close` it disconnects and exits by itself; only a process that does not is killed.
    const late = setTimeout(() => this.child.kill('SIGTERM'), 5_000);
    const later = setTimeout(() => this.child.kill('SIGKILL'), 8_000);
    await this.gone;
    clearTimeout(late);
    clearTimeout(later);
  }
}

// ---- the receiver -------------------------------------------------------------------------------

interface CountingReceiver {
  readonly url: string;
  count: number;
  close(): Promise<void>;
}

/** Reads each body and answers 204: nothing expensive (no signature check), so Carhook is measured. */
async function startCountingReceiver(): Promise<CountingReceiver> {
  const receiver = { url: '', count: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    req.on('data', () => {});
    req.on('end', () => {
      receiver.count++;
      res.statusCode = 204;
      res.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  receiver.url = `http://127.0.0.1:${port}/webhooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return receiver;
}

// ---- changes ------------------------------------------------------------------------------------

const MINUTE = 60_000;

async function control(sim: RunningSimulator, method: string, path: string, body?: unknown): Promise<number> {
  const res = await fetch(`${sim.url}/_sim${path}`, {
    method,
    ...(body !== undefined
      ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
      : {}),
  });
  await res.arrayBuffer();
  return res.status;
}

/**
 * Changes `share` of the enrolled vehicles through the control API, in turn an alert raised, a
 * collision and a trip that ends now (a vehicle driven in the last 3 minutes gets a collision
 * instead: its trips may not overlap).
 */
async function makeChanges(
  sim: RunningSimulator,
  vehicleIds: readonly string[],
  share: number,
  random: () => number,
): Promise<ThroughputRow['changes']> {
  const count = Math.min(vehicleIds.length, Math.max(1, Math.round(vehicleIds.length * share)));
  const picked = new Set<string>();
  while (picked.size < count) picked.add(vehicleIds[Math.floor(random() * vehicleIds.length)] as string);
  const changes = { alerts: 0, collisions: 0, trips: 0 };
  const now = sim.world.now();
  const work = [...picked].map((id, i) => async () => {
    const kind = i % 3;
    if (kind === 0) {
      const status = await control(sim, 'POST', `/vehicles/${id}/alerts`, { severity: 'high' });
      if (status === 201 || status === 200) changes.alerts++;
      return;
    }
    const lastStop = sim.world.trips(id).at(-1)?.stoppedAt ?? 0;
    if (kind === 2 && now - lastStop > 3 * MINUTE) {
      const status = await control(sim, 'POST', `/vehicles/${id}/trips`, {
        durationS: 90,
        distanceKm: 2,
        startedAt: new Date(now - 90_000).toISOString(),
      });
      if (status === 201 || status === 200) {
        changes.trips++;
        return;
      }
    }
    const status = await control(sim, 'POST', `/vehicles/${id}/collisions`, { front: 'low' });
    if (status === 201 || status === 200) changes.collisions++;
  });
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < work.length) await work[next++]?.();
    }),
  );
  return changes;
}

// ---- figures ------------------------------------------------------------------------------------

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
const perSecond = (n: number, s: number): number => (s > 0 && Number.isFinite(s) ? round(n / s, 1) : 0);

function rates(cycles: readonly CycleFigures[]) {
  const pollSeconds = sum(cycles.map((c) => c.pollSeconds));
  const seconds = sum(cycles.map((c) => c.seconds));
  const polls = sum(cycles.map((c) => c.polls));
  const requests = sum(cycles.map((c) => c.requests));
  const dynamo = sum(cycles.map((c) => sum(Object.values(c.dynamoCommands))));
  return {
    pollsPerSecond: perSecond(polls, pollSeconds),
    requestsPerSecond: perSecond(requests, pollSeconds),
    eventsPerSecond: perSecond(sum(cycles.map((c) => c.events)), pollSeconds),
    deliveriesPerSecond: perSecond(sum(cycles.map((c) => c.deliveriesSucceeded)), seconds),
    requestsPerPoll: polls > 0 ? round(requests / polls, 2) : 0,
    dynamoRequestsPerPoll: polls > 0 ? round(dynamo / polls, 2) : 0,
    cycleSeconds: round(seconds, 1),
  };
}

/** How a metric grows with the fleet, from the first and last measured rows. */
export function readGrowth(
  metric: string,
  points: readonly { fleet: number; value: number }[],
  kind: 'rate' | 'cost' = 'rate',
): GrowthReading {
  const usable = points.filter((p) => p.fleet > 0 && p.value > 0 && Number.isFinite(p.value));
  const first = usable[0];
  const last = usable.at(-1);
  if (!first || !last || last.fleet <= first.fleet) {
    return {
      metric,
      from: first?.value ?? Number.NaN,
      to: last?.value ?? Number.NaN,
      fleetFrom: first?.fleet ?? 0,
      fleetTo: last?.fleet ?? 0,
      exponent: Number.NaN,
      growth: 'n/a',
    };
  }
  const exponent = Math.log(last.value / first.value) / Math.log(last.fleet / first.fleet);
  const growth: Growth =
    exponent <= -0.2
      ? kind === 'rate'
        ? 'degrading'
        : 'falling'
      : exponent < 0.2
        ? 'flat'
        : exponent < 0.8
          ? 'sub-linear'
          : exponent <= 1.2
            ? 'linear'
            : 'super-linear';
  return {
    metric,
    from: first.value,
    to: last.value,
    fleetFrom: first.fleet,
    fleetTo: last.fleet,
    exponent: round(exponent, 2),
    growth,
  };
}

function positiveInt(field: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new ThroughputBenchError('InvalidOption', `${field}: must be a positive integer (got ${value})`);
  }
  return value;
}

function positive(field: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new ThroughputBenchError('InvalidOption', `${field}: must be a positive number (got ${value})`);
  }
  return value;
}

/** Users in world order until their vehicles reach `target` (from `from` on). */
function usersUpTo(users: readonly SimUser[], from: number, have: number, target: number) {
  const picked: SimUser[] = [];
  let vehicles = have;
  let i = from;
  for (; i < users.length && vehicles < target; i++) {
    const u = users[i] as SimUser;
    picked.push(u);
    vehicles += u.vehicleIds.length;
  }
  return { picked, next: i, vehicles };
}

export async function run(options: ThroughputOptions = {}): Promise<ThroughputBenchResult> {
  const quick = options.quick ?? false;
  const fleets = options.fleets ?? (quick ? QUICK_FLEETS : FULL_FLEETS);
  if (fleets.length === 0) throw new ThroughputBenchError('InvalidOption', 'fleets: give at least one size');
  fleets.forEach((f, i) => {
    positiveInt(`fleets[${i}]`, f);
    if (f > 100_000)
      throw new ThroughputBenchError('InvalidOption', `fleets[${i}]: at most 100,000 (got ${f})`);
    if (i > 0 && f <= (fleets[i - 1] as number)) {
      throw new ThroughputBenchError(
        'InvalidOption',
        `fleets[${i}]: sizes must be ascending (got ${fleets.join(', ')})`,
      );
    }
  });
  const changeShare = positive('changeShare', options.changeShare ?? 0.05);
  const enrollmentMode = options.enrollment ?? 'tokens';
  if (enrollmentMode !== 'tokens' && enrollmentMode !== 'oauth') {
    throw new ThroughputBenchError(
      'InvalidOption',
      `enrollment: 'tokens' or 'oauth' (got ${String(enrollmentMode)})`,
    );
  }
  if (
    options.pollQueue !== undefined &&
    options.pollQueue !== 'in-process' &&
    options.pollQueue !== 'local-queue'
  ) {
    throw new ThroughputBenchError(
      'InvalidOption',
      `pollQueue: 'in-process' or 'local-queue' (got ${String(options.pollQueue)})`,
    );
  }
  if (changeShare > 1)
    throw new ThroughputBenchError('InvalidOption', `changeShare: at most 1 (got ${changeShare})`);
  const settings = {
    pollConcurrency: positiveInt('pollConcurrency', options.pollConcurrency ?? 16),
    deliveryConcurrency: positiveInt('deliveryConcurrency', options.deliveryConcurrency ?? 8),
    enrollConcurrency: positiveInt('enrollConcurrency', options.enrollConcurrency ?? 16),
    changeShare,
    measuredCycles: positiveInt('measuredCycles', options.measuredCycles ?? 1),
    warmupTimeoutSeconds: positive(
      'warmupTimeoutSeconds',
      options.warmupTimeoutSeconds ?? (quick ? 30 : 150),
    ),
    cycleTimeoutSeconds: positive('cycleTimeoutSeconds', options.cycleTimeoutSeconds ?? (quick ? 15 : 90)),
    pollQueue: options.pollQueue ?? 'in-process',
    budgetSeconds: positive('budgetSeconds', options.budgetSeconds ?? (quick ? 50 : 300)),
    reservePerSizeSeconds: positive(
      'reservePerSizeSeconds',
      options.reservePerSizeSeconds ?? (quick ? 10 : 20),
    ),
    quota: LIFTED_QUOTA,
    enrollment: ENROLLMENT_WORDS[enrollmentMode],
    // The SDK's default socket pool: the most DynamoDB requests the runtime has in flight.
    dynamoSockets: 50,
  };
  const log = options.log ?? (() => undefined);
  const seed = options.seed ?? 1;
  const random = rng(seed);
  const t0 = performance.now();
  const elapsed = () => (performance.now() - t0) / 1000;
  const maxFleet = fleets.at(-1) as number;

  const local = options.dynamodb?.endpoint === undefined ? await startDynamoDbLocal() : undefined;
  const dynamoEndpoint = options.dynamodb?.endpoint ?? (local?.endpoint as string);
  const cleanups: (() => Promise<unknown>)[] = [async () => local?.stop()];
  const rows: ThroughputRow[] = [];
  try {
    // A few vehicles more than the largest size: the last user taking the fleet past it fits.
    const sim = await startSimulator({
      port: 0,
      vehicles: maxFleet + 3,
      seed,
      clock: 'real',
      quota: { limit: LIFTED_QUOTA, windowSeconds: 60 },
    });
    cleanups.push(() => sim.close());
    // Said explicitly through the control API too (the quota the client is held to).
    const quotaStatus = await control(sim, 'PUT', `/clients/${sim.clientId}/quota`, {
      limit: LIFTED_QUOTA,
      windowSeconds: 60,
    });
    if (quotaStatus !== 200)
      throw new ThroughputBenchError('SetupFailed', `quota: the control API answered ${quotaStatus}`);
    const receiver = await startCountingReceiver();
    cleanups.push(() => receiver.close());
    log(
      `throughput: DynamoDB Local at ${dynamoEndpoint}, simulator ${sim.url} (${sim.world.vehicleCount} vehicles)`,
    );

    const tag = randomBytes(4).toString('hex');
    const config: RuntimeConfig = {
      dynamoEndpoint,
      simUrl: sim.url,
      pollQueue: settings.pollQueue,
      tableName: `carhook-throughput-${tag}`,
      queueTableName: `carhook-throughput-queues-${tag}`,
      baseUrl: sim.baseUrl,
      authUrl: sim.authUrl,
      clientId: sim.clientId,
      clientSecret: sim.clientSecret,
      keyRingJson: JSON.stringify({ current: 'k1', k1: randomBytes(32).toString('base64') }),
      stateKeyBase64: randomBytes(32).toString('base64'),
      quota: LIFTED_QUOTA,
      cycleSeconds: 60,
      pollConcurrency: settings.pollConcurrency,
      deliveryConcurrency: settings.deliveryConcurrency,
      memorySampleMs: 100,
    };
    const users = sim.world.users();
    const vehiclesById = new Map(sim.world.vehicles().map((v) => [v.id, v]));
    const seedOf = (u: SimUser): SeedUser => ({
      id: u.id,
      brand: BRANDS[u.brand].authSegment,
      vehicles: u.vehicleIds.map((id) => {
        const v = vehiclesById.get(id);
        return { id, vin: v?.vin ?? '', brand: v?.brand ?? u.brand };
      }),
    });
    let nextUser = 0;
    let enrolledVehicles = 0;
    const enrolledIds: string[] = [];
    // Each size after the current one keeps `reservePerSizeSeconds` of the budget, so the largest sizes
    // still get a (short, cut) warm-up: their first-poll rate, planner run and memory peak.
    let sizeIndex = -1;
    const allowMs = () =>
      Math.max(
        15_000,
        (settings.budgetSeconds - elapsed()) * 1000 -
          (fleets.length - 1 - sizeIndex) * settings.reservePerSizeSeconds * 1000,
      );

    for (const target of fleets) {
      sizeIndex++;
      const empty = {
        target,
        vehicles: enrolledVehicles,
        cycles: [],
        changes: { alerts: 0, collisions: 0, trips: 0 },
        received: 0,
        pollsPerSecond: 0,
        requestsPerSecond: 0,
        eventsPerSecond: 0,
        deliveriesPerSecond: 0,
        requestsPerPoll: 0,
        dynamoRequestsPerPoll: 0,
        warmupPollsPerSecond: 0,
        warmupRequestsPerSecond: 0,
        cycleSeconds: 0,
        loadAverage: round(loadavg()[0] ?? 0, 2),
        runtimeCpuPercent: 0,
        simulatorCpuPercent: 0,
        wallSeconds: 0,
      };
      if (elapsed() > settings.budgetSeconds) {
        rows.push({
          ...empty,
          status: 'not run',
          note: `the run had used ${Math.round(elapsed())} s of its ${settings.budgetSeconds} s budget`,
        });
        log(`throughput: ${target} vehicles: not run (time budget)`);
        continue;
      }
      const r0 = performance.now();
      const rowSeconds = () => round((performance.now() - r0) / 1000, 1);
      const runtime = new RuntimeProcess();
      let enroll: EnrollFigures | undefined;
      let warmup: CycleFigures | undefined;
      const cycles: CycleFigures[] = [];
      let changes = empty.changes;
      let received = 0;
      let benchCpuSeconds = 0;
      let note: string | undefined;
      let failed = false;
      try {
        await runtime.call({ cmd: 'start', config }, 60_000);
        // Subscribed first: the engine then knows the subscription from its first fan-out on.
        await runtime.call({ cmd: 'subscribe', url: receiver.url }, 30_000);
        const { picked, next, vehicles } = usersUpTo(users, nextUser, enrolledVehicles, target);
        log(
          `throughput: ${target} vehicles: runtime pid ${runtime.pid}, enrolling ${picked.length} more users`,
        );
        enroll = await runtime.call<EnrollFigures>(
          {
            cmd: 'enroll',
            mode: enrollmentMode,
            users: picked.map(seedOf),
            concurrency: settings.enrollConcurrency,
          },
          Math.max(120_000, picked.length * 200),
        );
        nextUser = next;
        enrolledVehicles = vehicles;
        for (const u of picked) enrolledIds.push(...u.vehicleIds);
        const warmupMs = Math.min(settings.warmupTimeoutSeconds * 1000, allowMs());
        log(
          `throughput: ${target} vehicles: enrolled in ${round(enroll.seconds, 1)} s; warm-up cycle (≤ ${Math.round(warmupMs / 1000)} s)`,
        );
        warmup = await runtime.call<CycleFigures>({ cmd: 'cycle', timeoutMs: warmupMs }, warmupMs + 60_000);
        if (!warmup.complete) {
          note = `warm-up cut at ${Math.round(warmupMs / 1000)} s (${n(warmup.vehiclesPolled)} of ${n(warmup.planned.due)} vehicles polled, ${n(warmup.deliveriesSucceeded)} of ${n(warmup.deliveriesCreated)} deliveries of their baseline events made), so no steady-state cycle`;
        } else {
          for (let i = 0; i < settings.measuredCycles; i++) {
            changes = await makeChanges(sim, enrolledIds, settings.changeShare, random);
            // The measured cycle is the headline: limited by the budget, not by the other sizes' reserve.
            const cycleMs = Math.min(
              settings.cycleTimeoutSeconds * 1000,
              Math.max(15_000, (settings.budgetSeconds - elapsed()) * 1000),
            );
            log(
              `throughput: ${target} vehicles: warm-up ${round(warmup.seconds, 1)} s; ${changes.alerts + changes.collisions + changes.trips} changes; measured cycle ${i + 1} (≤ ${Math.round(cycleMs / 1000)} s)`,
            );
            const before = receiver.count;
            const cpu0 = process.cpuUsage();
            const c = await runtime.call<CycleFigures>(
              { cmd: 'cycle', timeoutMs: cycleMs },
              cycleMs + 60_000,
            );
            const cpu = process.cpuUsage(cpu0);
            benchCpuSeconds += (cpu.user + cpu.system) / 1e6;
            received += receiver.count - before;
            cycles.push(c);
            if (!c.complete) {
              note = `measured cycle cut at ${Math.round(cycleMs / 1000)} s (${n(c.vehiclesPolled)} of ${n(c.planned.due)} vehicles polled, ${n(c.deliveriesSucceeded)} of ${n(c.deliveriesCreated)} deliveries made): rates are over what was done`;
              break;
            }
          }
        }
      } catch (error) {
        failed = true;
        note = error instanceof Error ? error.message : String(error);
        log(`throughput: ${target} vehicles: FAILED: ${note}`);
      } finally {
        await runtime.stop();
      }
      const measured = cycles.length > 0 ? rates(cycles) : undefined;
      const cycleSeconds = sum(cycles.map((c) => c.seconds));
      const cpuPercent = (cpuSeconds: number) =>
        cycleSeconds > 0 ? round((cpuSeconds / cycleSeconds) * 100, 0) : 0;
      const warm = warmup ? rates([warmup]) : undefined;
      rows.push({
        ...empty,
        ...(measured ?? {}),
        target,
        vehicles: enrolledVehicles,
        status: failed ? 'failed' : note || !measured ? 'partial' : 'measured',
        ...(note ? { note } : {}),
        ...(enroll ? { enroll } : {}),
        ...(warmup ? { warmup } : {}),
        runtimeCpuPercent: cpuPercent(sum(cycles.map((c) => c.cpuSeconds))),
        simulatorCpuPercent: cpuPercent(benchCpuSeconds),
        warmupPollsPerSecond: warm?.pollsPerSecond ?? 0,
        warmupRequestsPerSecond: warm?.requestsPerSecond ?? 0,
        cycles,
        changes,
        received,
        ...(runtime.memory ? { memory: runtime.memory } : {}),
        wallSeconds: rowSeconds(),
      });
      const row = rows.at(-1) as ThroughputRow;
      log(
        `throughput: ${target} vehicles: ${row.status}, ${row.pollsPerSecond} polls/s (warm-up ${row.warmupPollsPerSecond}), ${row.eventsPerSecond} events/s, ${row.deliveriesPerSecond} deliveries/s, peak RSS ${row.memory?.peakRssMiB ?? '?'} MiB, ${row.wallSeconds} s`,
      );
    }
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }

  const steady = rows.filter((r) => r.cycles.length > 0 && r.pollsPerSecond > 0);
  const started = rows.filter((r) => r.status !== 'not run');
  // A process cut short did not hold a whole cycle's work: its memory peak is not comparable.
  const fullCycle = rows.filter((r) => r.warmup?.complete === true);
  const points = (from: readonly ThroughputRow[], pick: (r: ThroughputRow) => number | undefined) =>
    from.map((r) => ({ fleet: r.vehicles, value: pick(r) ?? Number.NaN }));
  const growth = [
    readGrowth(
      'polls/s',
      points(steady, (r) => r.pollsPerSecond),
    ),
    readGrowth(
      'API requests/s',
      points(steady, (r) => r.requestsPerSecond),
    ),
    readGrowth(
      'events/s',
      points(steady, (r) => r.eventsPerSecond),
    ),
    readGrowth(
      'deliveries/s',
      points(steady, (r) => r.deliveriesPerSecond),
    ),
    readGrowth(
      'cycle time',
      points(steady, (r) => r.cycleSeconds),
      'cost',
    ),
    readGrowth(
      'warm-up polls/s',
      points(started, (r) => r.warmupPollsPerSecond),
    ),
    readGrowth(
      'planner run (list, plan, enqueue)',
      points(started, (r) => r.warmup?.plannerSeconds),
      'cost',
    ),
    readGrowth(
      'peak RSS (sizes whose warm-up finished)',
      points(fullCycle, (r) => r.memory?.peakRssMiB),
      'cost',
    ),
    readGrowth(
      'peak heap used (sizes whose warm-up finished)',
      points(fullCycle, (r) => r.memory?.peakHeapUsedMiB),
      'cost',
    ),
  ];
  return { quick, settings, rows, growth, projections: project(rows), wallSeconds: round(elapsed(), 1) };
}

// ---- markdown -----------------------------------------------------------------------------------

const n = (x: number): string => (Number.isFinite(x) ? x.toLocaleString('en-US') : 'n/a');
const s1 = (x: number | undefined): string =>
  x === undefined || !Number.isFinite(x) ? 'n/a' : `${round(x, 1)} s`;

const GROWTH_WORDS: Record<Growth, string> = {
  flat: 'flat',
  linear: 'linear',
  'sub-linear': 'sub-linear',
  'super-linear': 'super-linear',
  degrading: 'degrading',
  falling: 'falling',
  'n/a': 'n/a (fewer than two measured sizes)',
};

export function growthLine(g: GrowthReading): string {
  if (g.growth === 'n/a') return `${g.metric}: ${GROWTH_WORDS[g.growth]}`;
  return `${g.metric}: **${GROWTH_WORDS[g.growth]}** (${n(g.fleetFrom)} → ${n(g.fleetTo)} vehicles: ${n(g.from)} → ${n(g.to)}, ×${round(g.to / g.from, 2)} for ×${round(g.fleetTo / g.fleetFrom, 2)} vehicles, exponent ${g.exponent})`;
}

function topCommands(c: Readonly<Record<string, number>>, polls: number): string {
  return Object.entries(c)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([k, v]) => `${k} ${polls > 0 ? round(v / polls, 2) : v}`)
    .join(', ');
}

const QUEUE_WORDS: Record<PollQueueKind, string> = {
  'in-process':
    "poll jobs in the runtime's memory (SQS's place on AWS; `carhook dev`'s LocalQueue would add three DynamoDB Local requests per job)",
  'local-queue': "poll jobs through `carhook dev`'s LocalQueue over DynamoDB Local (three requests per job)",
};

export function toMarkdown(r: ThroughputBenchResult): string {
  const st = r.settings;
  const mib = (x: number | undefined) => (x === undefined ? 'n/a' : `${n(x)} MiB`);
  const steadyCell = (x: ThroughputRow, v: number) => (x.cycles.length > 0 ? n(v) : '—');
  const lines: string[] = [
    `Quota lifted (the simulator's and Carhook's rate budget at ${n(st.quota)} requests per 60 s), DynamoDB Local on this machine, Carhook in a process of its own with the \`carhook dev\` composition: DynamoDB stores and rate budget, poll workers with the real client over HTTP to the simulator, local bus, webhook fan-out, delivery workers (LocalQueue), one subscription to \`vehicle.*\` on a local receiver that only counts; ${QUEUE_WORDS[st.pollQueue]}. The simulator (its whole world) and the receiver run in the bench process, DynamoDB Local in its JVM, so the memory columns are Carhook's process alone (sampled every 100 ms from its start to its end).`,
    '',
    `The fleet grows from one size to the next (same DynamoDB Local, same simulator), each size with a fresh runtime process: the new users enrolled (${st.enrollment}), a **warm-up** cycle (the vehicles new to the fleet read their baseline: events, alerts, maintenance, services; its polls/s mixes them with the known vehicles' steady polls, which the planner puts first: the second table counts the first polls), changes on ${round(st.changeShare * 100, 1)} % of the fleet (alerts raised, collisions, trips, in turn), then ${st.measuredCycles} **measured** (steady-state) cycle(s): planner run → every poll job done → every delivery made. A poll is one poll-vehicle job (the planner may give a vehicle two in a cycle: its events poll, then its routine reads). Polls, requests and events per second are over the poll phase, deliveries per second over the whole cycle. A warm-up or cycle that does not finish within its limit is cut and the row says so; sizes not started within the run's budget are listed as not run.`,
    '',
    '| vehicles | polls/s | API requests/s | events/s | deliveries/s | cycle time | warm-up polls/s | planner run | peak RSS | peak heap used | wall time | status |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...r.rows.map(
      (x) =>
        `| ${n(x.status === 'not run' ? x.target : x.vehicles)} | ${steadyCell(x, x.pollsPerSecond)} | ${steadyCell(x, x.requestsPerSecond)} | ${steadyCell(x, x.eventsPerSecond)} | ${steadyCell(x, x.deliveriesPerSecond)} | ${x.cycles.length > 0 ? s1(x.cycleSeconds) : '—'} | ${x.warmup ? n(x.warmupPollsPerSecond) : '—'} | ${x.warmup ? s1(x.warmup.plannerSeconds) : '—'} | ${mib(x.memory?.peakRssMiB)} | ${mib(x.memory?.peakHeapUsedMiB)} | ${s1(x.wallSeconds)} | ${x.status}${x.note ? `: ${x.note.replace(/\|/g, '/')}` : ''} |`,
    ),
    '',
    'How each figure grows with the fleet, computed from the first and last sizes that have it (exponent = ln(ratio of the figure) / ln(ratio of the fleet); |e| < 0.2 flat, 0.2–0.8 sub-linear, 0.8–1.2 linear, > 1.2 super-linear, ≤ −0.2 degrading for a rate, falling for a time or memory figure):',
    '',
    ...r.growth.map((g) => `- ${growthLine(g)}`),
    '',
    ...(r.projections.length > 0
      ? [
          'Sizes without steady figures, projected from the measured rates (not measured):',
          '',
          ...r.projections.map(
            (p) =>
              `- ${n(p.vehicles)} vehicles: a steady cycle ≈ ${s1(p.steadyCycleSeconds)}${p.steadyBasis ? ` (at the ${n(p.steadyBasis.pollsPerSecond)} polls/s measured with ${n(p.steadyBasis.vehicles)})` : ' (no steady rate measured)'}; every vehicle's first poll ≈ ${s1(p.firstPollsSeconds)}${p.firstPollBasis ? ` (at the ${n(p.firstPollBasis.pollsPerSecond)} first polls/s measured with ${n(p.firstPollBasis.vehicles)})` : ''}.`,
          ),
          '',
        ]
      : []),
    '| vehicles | load average at start | CPU in the measured cycle: runtime / simulator (% of a core) | enrollment (users, s, DynamoDB requests) | warm-up (vehicles polled of due, requests, s) | measured (polls, requests / poll) | events (by type) | deliveries made / created (receiver) | DynamoDB requests / poll (top commands) | problems |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...r.rows
      .filter((x) => x.status !== 'not run')
      .map((x) => {
        const polls = sum(x.cycles.map((c) => c.polls));
        const byType: Record<string, number> = {};
        const commands: Record<string, number> = {};
        for (const c of x.cycles) {
          for (const [k, v] of Object.entries(c.eventsByType)) byType[k] = (byType[k] ?? 0) + v;
          for (const [k, v] of Object.entries(c.dynamoCommands)) commands[k] = (commands[k] ?? 0) + v;
        }
        const events = Object.entries(byType)
          .sort((a, b) => b[1] - a[1])
          .map(([k, v]) => `${k.replace(/^vehicle\./, '')} ${v}`)
          .join(', ');
        const made = sum(x.cycles.map((c) => c.deliveriesSucceeded));
        const created = sum(x.cycles.map((c) => c.deliveriesCreated));
        const problems = sum(x.cycles.map((c) => c.problems)) + (x.warmup?.problems ?? 0);
        const first = x.cycles.find((c) => c.firstProblem)?.firstProblem ?? x.warmup?.firstProblem;
        const w = x.warmup;
        return `| ${n(x.vehicles)} | ${x.loadAverage} | ${x.cycles.length > 0 ? `${x.runtimeCpuPercent} / ${x.simulatorCpuPercent}` : '—'} | ${x.enroll ? `${n(x.enroll.users)}, ${s1(x.enroll.seconds)}, ${n(x.enroll.dynamoRequests)}` : 'n/a'} | ${w ? `${n(w.vehiclesPolled)} of ${n(w.planned.due)} vehicles in ${n(w.polls)} polls (${n(w.firstPolls)} first polls), ${n(w.requests)}, ${s1(w.seconds)}, ${w.polls > 0 ? round(sum(Object.values(w.dynamoCommands)) / w.polls, 1) : 'n/a'} DynamoDB requests / poll` : 'n/a'} | ${x.cycles.length > 0 ? `${n(polls)}, ${x.requestsPerPoll}` : '—'} | ${x.cycles.length > 0 ? `${n(sum(x.cycles.map((c) => c.events)))} (${events || 'none'})` : '—'} | ${x.cycles.length > 0 ? `${n(made)} / ${n(created)} (${n(x.received)})` : '—'} | ${x.cycles.length > 0 ? `${x.dynamoRequestsPerPoll} (${topCommands(commands, polls)})` : '—'} | ${problems}${first ? `: ${first.replace(/\|/g, '/')}` : ''} |`;
      }),
    '',
    `Knobs: poll-jobs consumer concurrency ${st.pollConcurrency} (\`runConsumer\`; \`carhook dev\` defaults to 4, \`--poll-concurrency\`), deliveries consumer concurrency ${st.deliveryConcurrency} (as \`carhook dev\`), the DynamoDB client's default ${st.dynamoSockets} sockets, enrollment ${st.enrollConcurrency} users at a time; limits: warm-up ${st.warmupTimeoutSeconds} s, measured cycle ${st.cycleTimeoutSeconds} s, both within a ${st.budgetSeconds} s budget that keeps ${st.reservePerSizeSeconds} s for each size still to come; no size started after it. Whole run: ${s1(r.wallSeconds)}.`,
  ];
  return lines.join('\n');
}

/** The standalone command line: `--quick`, `--fleets 1000,2000`, `--budget <s>`, `--poll-concurrency <n>`, `--poll-queue in-process|local-queue`, `--enrollment tokens|oauth`. */
export function parseThroughputArgs(
  argv: readonly string[],
): { ok: true; options: ThroughputOptions } | { ok: false; field: string; message: string } {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        quick: { type: 'boolean' },
        fleets: { type: 'string' },
        budget: { type: 'string' },
        'poll-concurrency': { type: 'string' },
        'poll-queue': { type: 'string' },
        enrollment: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    return { ok: false, field: 'argv', message: error instanceof Error ? error.message : String(error) };
  }
  const num = (flag: string): number | undefined | { bad: string } => {
    const raw = values[flag];
    if (raw === undefined) return undefined;
    const x = Number(raw);
    return Number.isFinite(x) && x > 0
      ? x
      : { bad: `--${flag}: must be a positive number (got ${String(raw)})` };
  };
  const fleets =
    typeof values.fleets === 'string' ? values.fleets.split(',').map((f) => Number(f.trim())) : undefined;
  if (fleets?.some((f) => !Number.isInteger(f) || f < 1)) {
    return {
      ok: false,
      field: '--fleets',
      message: `--fleets: positive integers, comma-separated (got ${values.fleets})`,
    };
  }
  const budget = num('budget');
  const concurrency = num('poll-concurrency');
  for (const [field, v] of [
    ['--budget', budget],
    ['--poll-concurrency', concurrency],
  ] as const) {
    if (typeof v === 'object') return { ok: false, field, message: v.bad };
  }
  const queue = values['poll-queue'];
  if (queue !== undefined && queue !== 'in-process' && queue !== 'local-queue') {
    return {
      ok: false,
      field: '--poll-queue',
      message: `--poll-queue: in-process or local-queue (got ${String(queue)})`,
    };
  }
  const enrollment = values.enrollment;
  if (enrollment !== undefined && enrollment !== 'tokens' && enrollment !== 'oauth') {
    return {
      ok: false,
      field: '--enrollment',
      message: `--enrollment: tokens or oauth (got ${String(enrollment)})`,
    };
  }
  return {
    ok: true,
    options: {
      quick: values.quick === true,
      ...(fleets ? { fleets } : {}),
      ...(typeof budget === 'number' ? { budgetSeconds: budget } : {}),
      ...(typeof concurrency === 'number' ? { pollConcurrency: concurrency } : {}),
      ...(queue ? { pollQueue: queue } : {}),
      ...(enrollment ? { enrollment } : {}),
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const parsed = parseThroughputArgs(process.argv.slice(2));
  if (!parsed.ok) {
    console.error(`bench/throughput: ${parsed.message}`);
    process.exitCode = 2;
  } else {
    const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
    run({ ...parsed.options, log }).then(
      (result) => {
        console.log(JSON.stringify(result, null, 2));
        console.error(`\n${toMarkdown(result)}`);
      },
      (e: unknown) => {
        console.error(e);
        process.exitCode = 1;
      },
    );
  }
}
