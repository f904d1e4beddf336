/**
 * A whole poll pipeline on one simulator (manual clock): enrollment through the real OAuth flow,
 * planner, an in-memory queue, workers and a bus. The one harness of the pipeline bench, the fault
 * suite and the poll tests (test/polling/support.ts adapts it; bench/ never imports test files).
 */
import { randomBytes } from 'node:crypto';
import { createMemoryStores } from '../../functions/adapters/memory/stores';
import { createTokenEndpoint, type TokenEndpoint } from '../../functions/core/api';
import { createKeyRing, createTokenCipher, type TokenCipher } from '../../functions/core/crypto/token-cipher';
import {
  type CompleteAuthorizationResult,
  completeAuthorization,
  type OAuthEnrollmentDeps,
  startAuthorization,
} from '../../functions/core/enrollment';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { type JobResult, runPollJob } from '../../functions/core/jobs/worker';
import {
  type ApiAccess,
  createPlannerMemory,
  type PlannerMemory,
  type PlannerRun,
  type PollDeps,
  type PollingConfig,
  type PollJob,
  runPlanner,
} from '../../functions/core/polling';
import type { EventBus, PublishResult } from '../../functions/core/publishing/ports';
import type { JobQueue, OutgoingMessage } from '../../functions/core/queue/ports';
import { DEFAULT_RATE_BUDGET, type RateBudgetConfig } from '../../functions/core/ratelimit/bucket';
import { createMemoryRateBudget, type RateBudget } from '../../functions/core/ratelimit/budget';
import type { Stores } from '../../functions/core/store/ports';
import { createTokenManager } from '../../functions/core/tokens';
import { BRANDS, type RunningSimulator, type SimulatorOptions, startSimulator } from '../../sim';
import type { SimUser } from '../../sim/world/types';

/** Where the simulated browser is sent back to (nothing listens: the harness reads the redirect). */
export const REDIRECT_URI = 'http://127.0.0.1:9/callback';
/** The key that signs OAuth `state` values (a test may sign or tamper with one itself). */
export const STATE_KEY = 'test-state-key-0123456789abcdef-0123456789';

/** A harness step that went wrong, with what a reader needs to find out why. */
export class BenchError extends Error {
  override readonly name = 'BenchError';
  readonly kind = 'BenchFailed';
  constructor(
    readonly step: string,
    why: string,
  ) {
    super(`${step}: ${why}`);
  }
}

/** One accepted event and the simulated time (epoch ms) the bus accepted it. */
export interface Published {
  readonly envelope: EventEnvelope;
  readonly at: number;
}

/**
 * An in-memory bus that stamps every accepted event with the simulator's clock. `subscribe` adds a
 * rule target (the fault suite's fan-out queue), called with every accepted batch.
 */
export class RecordingBus implements EventBus {
  readonly received: Published[] = [];
  readonly #targets: ((events: readonly EventEnvelope[]) => void)[] = [];
  constructor(private readonly now: () => number) {}
  subscribe(target: (events: readonly EventEnvelope[]) => void): void {
    this.#targets.push(target);
  }
  async publish(events: readonly EventEnvelope[]): Promise<PublishResult> {
    const at = this.now();
    for (const envelope of events) this.received.push({ envelope, at });
    for (const target of this.#targets) target(events);
    return { published: events.map((e) => e.id), failed: [] };
  }
}

/** What a worker's ports may be replaced with (the fault suite's killable wrappers). */
export interface WorkerPorts {
  readonly stores?: Stores;
  readonly budget?: RateBudget;
  readonly bus?: EventBus;
  /** Every request of the worker: API and token endpoint. */
  readonly fetch?: typeof fetch;
}

/**
 * An in-memory FIFO job queue that drops a message whose `dedupId` it has already taken, as SQS
 * FIFO does within its deduplication interval (here: the queue's life, which outlasts every run).
 * The planner's ids name the cycle, so only a second run within one cycle is deduplicated.
 */
export class MemoryQueue<T> implements JobQueue<T> {
  readonly pending: T[] = [];
  readonly #dedup = new Set<string>();
  async send(messages: readonly OutgoingMessage<T>[]): Promise<void> {
    for (const m of messages) {
      if (m.dedupId !== undefined) {
        if (this.#dedup.has(m.dedupId)) continue;
        this.#dedup.add(m.dedupId);
      }
      this.pending.push(structuredClone(m.body));
    }
  }
  drain(): T[] {
    return this.pending.splice(0, this.pending.length);
  }
}

/** The simulator's own counters (`GET /_sim/stats`). */
export interface SimStats {
  readonly total: number;
  readonly tooManyRequests: number;
  readonly byOperation: Record<string, number>;
  readonly clients: Record<
    string,
    { requests: number; tooManyRequests: number; maxInWindow: number; limit: number; windowSeconds: number }
  >;
}

export interface PollPipelineOptions {
  /** Simulator options; a manual clock, 20 vehicles and seed 1 unless given. */
  readonly sim?: SimulatorOptions;
  readonly config?: Partial<PollingConfig>;
  readonly rate?: RateBudgetConfig;
  /** Other store and budget implementations (DynamoDB Local); memory by default. */
  readonly backend?: { stores: Stores; budget: RateBudget };
  /** API and token endpoint timeout (real ms; the client's default otherwise). */
  readonly timeoutMs?: number;
  /**
   * Requests reach the simulator's handler in this process instead of over a loopback socket: the
   * same Request and Response objects, routes, quota and counters, without the HTTP/1.1 encoding,
   * parsing and socket round trip of each (most of a request's cost on a simulated clock, where
   * the wall time of a request is measured by nothing). Off by default: the clients' own HTTP
   * stack is then exercised too.
   */
  readonly inProcess?: boolean;
}

export interface PollPipeline<B extends EventBus> {
  readonly sim: RunningSimulator;
  readonly stores: Stores;
  /** The bus of every worker and of enrollment. */
  readonly bus: B;
  /** The planner's queue: `cycle` drains it, a test may too. */
  readonly queue: MemoryQueue<PollJob>;
  readonly rate: RateBudgetConfig;
  readonly budget: RateBudget;
  readonly cipher: TokenCipher;
  readonly access: ApiAccess;
  readonly config: Partial<PollingConfig>;
  /** The planner's memory across `cycle`s (as a warm planner function keeps it). */
  readonly memory: PlannerMemory;
  /** The worker `cycle` runs every job with (its own token manager). */
  readonly pollDeps: PollDeps;
  readonly enrollDeps: OAuthEnrollmentDeps;
  now(): number;
  /** A worker of its own (own token manager), over the shared ports or replacements of them. */
  workerDeps(ports?: WorkerPorts): PollDeps;
  /** The control API over HTTP: JSON in and out. */
  control(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** Moves the simulator's clock `ms` forward (nothing for ms ≤ 0). */
  advance(ms: number): Promise<void>;
  stats(): Promise<SimStats>;
  /** Browser steps of the OAuth authorization-code flow against the simulator: returns the callback's `code` and `state`. */
  authorizeInBrowser(user: SimUser): Promise<{ code: string; state: string }>;
  enroll(user: SimUser): Promise<CompleteAuthorizationResult>;
  /** Enrolls every user of the world, pacing the vehicle-list reads within the budget. */
  enrollAll(): Promise<number>;
  /** One planner run and every job it enqueued, run one after the other by `pollDeps`. */
  cycle(): Promise<{ planner: PlannerRun; results: JobResult[] }>;
  close(): Promise<void>;
}

/** The bench's pipeline: its bus stamps every event with the simulated time it was accepted. */
export type BenchPipeline = PollPipeline<RecordingBus>;

/** A pipeline whose bus `makeBus` builds on the simulator's clock. */
export async function startPollPipeline<B extends EventBus>(
  options: PollPipelineOptions,
  makeBus: (now: () => number) => B,
): Promise<PollPipeline<B>> {
  const sim = await startSimulator({ port: 0, clock: 'manual', vehicles: 20, seed: 1, ...options.sim });
  const now = (): number => sim.world.now();
  // Every request of the harness and of the clients it builds, over the socket or in process.
  const send: typeof fetch = options.inProcess
    ? async (input, init) => sim.fetch(new Request(input, init))
    : (input, init) => fetch(input, init);
  const stores = options.backend?.stores ?? createMemoryStores();
  const bus = makeBus(now);
  const queue = new MemoryQueue<PollJob>();
  const rate = options.rate ?? DEFAULT_RATE_BUDGET;
  const budget = options.backend?.budget ?? createMemoryRateBudget(rate);
  const cipher = createTokenCipher(createKeyRing('k1', new Map([['k1', randomBytes(32)]])));
  const access: ApiAccess = {
    baseUrl: sim.baseUrl,
    authUrl: sim.authUrl,
    clientId: sim.clientId,
    clientSecret: sim.clientSecret,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.inProcess ? { fetch: send } : {}),
  };
  const endpointsFor = (fetcher?: typeof fetch): ((brand: string) => TokenEndpoint) => {
    const endpoints = new Map<string, TokenEndpoint>();
    return (brand) => {
      let e = endpoints.get(brand);
      if (!e) {
        e = createTokenEndpoint({
          ...access,
          brand,
          now,
          retry: { maxAttempts: 1 },
          ...(fetcher ? { fetch: fetcher } : {}),
        });
        endpoints.set(brand, e);
      }
      return e;
    };
  };
  const endpointFor = endpointsFor(options.inProcess ? send : undefined);
  const fastSleep = (): Promise<void> => new Promise((r) => setImmediate(r));
  const config: Partial<PollingConfig> = options.config ?? {};
  const memory = createPlannerMemory();
  const publish = { sleep: async () => {}, maxAttempts: 2 };
  const workerDeps = (ports: WorkerPorts = {}): PollDeps => {
    const workerStores = ports.stores ?? stores;
    const tokens = createTokenManager({
      ...workerStores,
      cipher,
      endpointFor: ports.fetch ? endpointsFor(ports.fetch) : endpointFor,
      now,
      sleep: fastSleep,
    });
    return {
      stores: workerStores,
      budget: ports.budget ?? budget,
      bus: ports.bus ?? bus,
      access: ports.fetch ? { ...access, fetch: ports.fetch } : access,
      tokens,
      now,
      config,
      publish,
    };
  };
  const pollDeps = workerDeps();
  const enrollDeps: OAuthEnrollmentDeps = {
    stores,
    cipher,
    bus,
    access,
    endpointFor,
    stateKey: STATE_KEY,
    budget,
    now,
    publish,
  };

  const control: PollPipeline<B>['control'] = async (method, path, body) => {
    const res = await send(`${sim.url}/_sim${path}`, {
      method,
      ...(body !== undefined
        ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
        : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  };

  const advance = async (ms: number): Promise<void> => {
    if (ms <= 0) return;
    const r = await control('POST', '/clock/advance', { ms: Math.round(ms) });
    if (r.status !== 200) throw new BenchError('advance the simulator clock', `status ${r.status}`);
  };

  const authorizeInBrowser = async (user: SimUser): Promise<{ code: string; state: string }> => {
    const started = startAuthorization(enrollDeps, {
      brand: BRANDS[user.brand].authSegment,
      redirectUri: REDIRECT_URI,
    });
    if (started.kind !== 'Started') throw new BenchError('start authorization', started.message);
    const page = await send(started.url);
    const html = await page.text();
    if (page.status !== 200) throw new BenchError('authorize page', `status ${page.status}`);
    if (!html.includes(user.id)) throw new BenchError('authorize page', `user ${user.id} is not offered`);
    const post = await send(started.url, {
      method: 'POST',
      body: new URLSearchParams({ user: user.id }),
      redirect: 'manual',
    });
    await post.arrayBuffer();
    if (post.status !== 302) throw new BenchError('authorize POST', `status ${post.status}`);
    const location = new URL(post.headers.get('location') ?? '', REDIRECT_URI);
    return { code: location.searchParams.get('code') ?? '', state: location.searchParams.get('state') ?? '' };
  };

  const enroll = async (user: SimUser): Promise<CompleteAuthorizationResult> =>
    completeAuthorization(enrollDeps, await authorizeInBrowser(user));

  return {
    sim,
    stores,
    bus,
    queue,
    rate,
    budget,
    cipher,
    access,
    config,
    memory,
    pollDeps,
    enrollDeps,
    now,
    workerDeps,
    control,
    advance,
    stats: async () => (await control('GET', '/stats')).body as SimStats,
    authorizeInBrowser,
    enroll,
    enrollAll: async () => {
      // One vehicle-list read per user: at most half the window's budget per simulated minute.
      const perMinute = Math.max(1, Math.floor((rate.limit * (1 - rate.safetyMargin)) / 2));
      let enrolled = 0;
      for (const user of sim.world.users()) {
        if (enrolled > 0 && enrolled % perMinute === 0) await advance(rate.windowMs);
        const r = await enroll(user);
        if (r.kind !== 'Enrolled') {
          throw new BenchError(`enroll user ${user.id}`, `${r.kind}: ${JSON.stringify(r)}`);
        }
        enrolled++;
      }
      return enrolled;
    },
    cycle: async () => {
      const planner = await runPlanner({ ...stores, queue, now, config, rateBudget: rate, memory });
      const results: JobResult[] = [];
      for (const job of queue.drain()) results.push(await runPollJob(pollDeps, job));
      return { planner, results };
    },
    close: () => sim.close(),
  };
}

/** The bench's pipeline (20 vehicles, seed 1 unless given), on a RecordingBus. */
export function startBenchPipeline(options: PollPipelineOptions = {}): Promise<BenchPipeline> {
  return startPollPipeline(options, (now) => new RecordingBus(now));
}

/** Requests the poll jobs of one cycle sent (discovery included). */
export function requestsOf(results: readonly JobResult[]): number {
  let n = 0;
  for (const r of results) n += r.kind === 'discover-vehicles' ? r.requests : r.summary.requests;
  return n;
}
