/**
 * A whole poll pipeline on one simulator (manual clock) and in-memory stores: enrollment through
 * the real OAuth flow, planner, queue, workers, bus.
 */
import { randomBytes } from 'node:crypto';
import { createTokenEndpoint, type TokenEndpoint } from '../../functions/core/api';
import { createKeyRing, createTokenCipher } from '../../functions/core/crypto/token-cipher';
import {
  type CompleteAuthorizationResult,
  completeAuthorization,
  type OAuthEnrollmentDeps,
  startAuthorization,
} from '../../functions/core/enrollment';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import {
  type ApiAccess,
  type JobResult,
  type PollDeps,
  type PollingConfig,
  type PollJob,
  runPlanner,
  runPollJob,
} from '../../functions/core/polling';
import type { EventBus, PublishResult } from '../../functions/core/publishing/ports';
import type { JobQueue, OutgoingMessage } from '../../functions/core/queue/ports';
import { DEFAULT_RATE_BUDGET, type RateBudgetConfig } from '../../functions/core/ratelimit/bucket';
import { createMemoryRateBudget, type RateBudget } from '../../functions/core/ratelimit/budget';
import { createMemoryStores } from '../../functions/core/store/memory';
import type { Stores } from '../../functions/core/store/ports';
import { createTokenManager, type TokenManager } from '../../functions/core/tokens';
import { BRANDS, type RunningSimulator, type SimulatorOptions, startSimulator } from '../../sim';
import type { SimUser } from '../../sim/world/types';

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** An in-memory event bus: records what it accepted; `failing` makes every publish throw. */
export class MemoryBus implements EventBus {
  readonly received: EventEnvelope[] = [];
  failing = false;
  async publish(events: readonly EventEnvelope[]): Promise<PublishResult> {
    if (this.failing) throw new Error('bus unavailable (test)');
    this.received.push(...events);
    return { published: events.map((e) => e.id), failed: [] };
  }
  ids(type?: string): string[] {
    return this.received.filter((e) => type === undefined || e.type === type).map((e) => e.id);
  }
}

/** An in-memory job queue (FIFO, dedup on `dedupId` while pending). */
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

export interface SimStats {
  total: number;
  tooManyRequests: number;
  byOperation: Record<string, number>;
  clients: Record<string, { requests: number; tooManyRequests: number; maxInWindow: number; limit: number }>;
}

export interface Pipeline {
  readonly sim: RunningSimulator;
  readonly stores: Stores;
  readonly bus: MemoryBus;
  readonly queue: MemoryQueue<PollJob>;
  readonly budget: RateBudget;
  readonly tokens: TokenManager;
  readonly access: ApiAccess;
  readonly pollDeps: PollDeps;
  readonly enrollDeps: OAuthEnrollmentDeps;
  readonly config: Partial<PollingConfig>;
  now(): number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON from the control API, read freely by tests.
  control(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  advance(seconds: number): Promise<void>;
  stats(): Promise<SimStats>;
  /** Browser steps of spec 5.2 against the simulator: returns the callback's `code` and `state`. */
  authorizeInBrowser(user: SimUser): Promise<{ code: string; state: string }>;
  enroll(user: SimUser): Promise<CompleteAuthorizationResult>;
  /** One planner run and every job it enqueued. */
  cycle(): Promise<JobResult[]>;
  /** A second worker (own token manager, same stores/budget/bus): for concurrency tests. */
  worker(): PollDeps;
  close(): Promise<void>;
}

export const STATE_KEY = 'test-state-key-0123456789abcdef-0123456789';

export async function startPipeline(
  options: {
    sim?: SimulatorOptions;
    config?: Partial<PollingConfig>;
    rate?: RateBudgetConfig;
    /** Other store and budget implementations (DynamoDB Local); memory by default. */
    backend?: { stores: Stores; budget: RateBudget };
  } = {},
): Promise<Pipeline> {
  const sim = await startSimulator({ port: 0, clock: 'manual', vehicles: 6, seed: 7, ...options.sim });
  const now = (): number => sim.world.now();
  const stores = options.backend?.stores ?? createMemoryStores();
  const bus = new MemoryBus();
  const queue = new MemoryQueue<PollJob>();
  const rate = options.rate ?? DEFAULT_RATE_BUDGET;
  const budget = options.backend?.budget ?? createMemoryRateBudget(rate);
  const cipher = createTokenCipher(createKeyRing('k1', new Map([['k1', randomBytes(32)]])));
  const access: ApiAccess = {
    baseUrl: sim.baseUrl,
    authUrl: sim.authUrl,
    clientId: sim.clientId,
    clientSecret: sim.clientSecret,
  };
  const endpoints = new Map<string, TokenEndpoint>();
  const endpointFor = (brand: string): TokenEndpoint => {
    let e = endpoints.get(brand);
    if (!e) {
      e = createTokenEndpoint({ ...access, brand, now, retry: { maxAttempts: 1 } });
      endpoints.set(brand, e);
    }
    return e;
  };
  const fastSleep = (): Promise<void> => new Promise((r) => setImmediate(r));
  const config: Partial<PollingConfig> = options.config ?? {};
  const newTokens = (): TokenManager =>
    createTokenManager({ ...stores, cipher, endpointFor, now, sleep: fastSleep });
  const tokens = newTokens();
  const publish = { sleep: async () => {}, maxAttempts: 2 };
  const pollDeps: PollDeps = { stores, budget, bus, access, tokens, now, config, publish };
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

  const control: Pipeline['control'] = async (method, path, body) => {
    const res = await fetch(`${sim.url}/_sim${path}`, {
      method,
      ...(body !== undefined
        ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
        : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  const authorizeInBrowser = async (user: SimUser): Promise<{ code: string; state: string }> => {
    const started = startAuthorization(enrollDeps, {
      brand: BRANDS[user.brand].authSegment,
      redirectUri: REDIRECT_URI,
    });
    if (started.kind !== 'Started') throw new Error(`start: ${started.message}`);
    const page = await fetch(started.url);
    const html = await page.text();
    if (page.status !== 200 || !html.includes(user.id)) throw new Error(`authorize page ${page.status}`);
    const post = await fetch(started.url, {
      method: 'POST',
      body: new URLSearchParams({ user: user.id }),
      redirect: 'manual',
    });
    const location = new URL(post.headers.get('location') ?? '', REDIRECT_URI);
    if (post.status !== 302) throw new Error(`authorize POST ${post.status}`);
    return { code: location.searchParams.get('code') ?? '', state: location.searchParams.get('state') ?? '' };
  };

  const runJobs = async (deps: PollDeps): Promise<JobResult[]> => {
    const results: JobResult[] = [];
    for (const job of queue.drain()) results.push(await runPollJob(deps, job));
    return results;
  };

  return {
    sim,
    stores,
    bus,
    queue,
    budget,
    tokens,
    access,
    pollDeps,
    enrollDeps,
    config,
    now,
    control,
    advance: async (seconds) => {
      const r = await control('POST', '/clock/advance', { seconds });
      if (r.status !== 200) throw new Error(`advance: ${r.status}`);
    },
    stats: async () => (await control('GET', '/stats')).body as SimStats,
    authorizeInBrowser,
    enroll: async (user) => {
      const { code, state } = await authorizeInBrowser(user);
      return completeAuthorization(enrollDeps, { state, code });
    },
    cycle: async () => {
      await runPlanner({ ...stores, queue, now, config, rateBudget: rate });
      return runJobs(pollDeps);
    },
    worker: () => ({ ...pollDeps, tokens: newTokens() }),
    close: () => sim.close(),
  };
}

/** Users with at least `n` vehicles (the world assigns vehicles to users). */
export function userWithVehicles(sim: RunningSimulator, n = 1): SimUser {
  const user = sim.world.users().find((u) => u.vehicleIds.length >= n);
  if (!user) throw new Error(`no user with ${n} vehicles`);
  return user;
}

/** Stores whose `getVehicleWithState` holds every reader until `n` have read (forces a race). */
export function gateReads(stores: Stores, n: number): Stores {
  const states = stores.states;
  let arrived = 0;
  let release: () => void = () => {};
  const barrier = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    ...stores,
    states: {
      getState: (id) => states.getState(id),
      commitPoll: (input) => states.commitPoll(input),
      getVehicleWithState: async (id) => {
        const read = await states.getVehicleWithState(id);
        arrived++;
        if (arrived >= n) release();
        await barrier;
        return read;
      },
    },
  };
}
