/**
 * Kill points for the poll worker (a worker killed between any two steps must lose
 * nothing). A step is one call a worker makes through a port: a Stores method, a RateBudget
 * method, `EventBus.publish`, a lease or token write, or one HTTP request (API or token endpoint,
 * through the injected `fetch`). A `StepRecorder` numbers the steps of one worker; with a kill point
 * it makes call k throw `WorkerKilled` (before the call, or after it completed with its result
 * never used) and every later call of that worker reject too: a dead process does nothing more.
 *
 * The simulator runs in process (its Hono app behind the injected `fetch`), so a bench can reset
 * what a trial changed outside the table: the rate-limit windows, and the refresh token a killed
 * worker may have spent.
 */
import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, type DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { createDynamoStores, documentClient } from '../../functions/adapters/dynamodb';
import { createTokenEndpoint } from '../../functions/core/api';
import {
  createKeyRing,
  createTokenCipher,
  createTokenSet,
  type TokenCipher,
} from '../../functions/core/crypto/token-cipher';
import { completeAuthorization, startAuthorization } from '../../functions/core/enrollment';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import type { ApiAccess, PollDeps, PollingConfig } from '../../functions/core/polling';
import type { EventBus } from '../../functions/core/publishing/ports';
import type { RateBudget } from '../../functions/core/ratelimit/budget';
import type { Stores } from '../../functions/core/store/ports';
import { createTokenManager, DEFAULT_TOKEN_MANAGER_CONFIG } from '../../functions/core/tokens';
import { BRANDS, createSimulatorApp, type SimulatorApp } from '../../sim';
import type { SimUser } from '../../sim/world/types';
import { createSimulatedClockTable, uniqueTableName } from '../support/dynamodb';
import { MemoryBus, REDIRECT_URI, STATE_KEY } from './support';

export type KillMoment = 'before' | 'after';

export interface KillPoint {
  /** 1-based step number. */
  readonly step: number;
  /** `before`: call `step` never happens; `after`: it happened, its result was never used. */
  readonly moment: KillMoment;
}

/** What a killed worker throws (and every call it attempts afterwards). */
export class WorkerKilled extends Error {
  override readonly name = 'WorkerKilled';
  readonly kind = 'WorkerKilled';
  constructor(
    readonly step: number,
    readonly call: string,
    readonly moment: KillMoment | 'dead',
  ) {
    super(`worker killed ${moment} step ${step} (${call})`);
  }
}

/** Numbers the port calls of one worker and kills it at a given point. */
export class StepRecorder {
  readonly steps: string[] = [];
  #dead: WorkerKilled | undefined;

  constructor(readonly kill?: KillPoint) {}

  get killed(): WorkerKilled | undefined {
    return this.#dead;
  }

  async step<T>(call: string, run: () => Promise<T>): Promise<T> {
    if (this.#dead) throw new WorkerKilled(this.#dead.step, call, 'dead');
    const n = this.steps.push(call);
    if (this.kill?.step === n && this.kill.moment === 'before') {
      this.#dead = new WorkerKilled(n, call, 'before');
      throw this.#dead;
    }
    const result = await run();
    // Another call of this worker killed it while this one was in flight: its result is lost too.
    const diedMeanwhile = this.killed;
    if (diedMeanwhile) throw new WorkerKilled(diedMeanwhile.step, call, 'dead');
    if (this.kill?.step === n && this.kill.moment === 'after') {
      this.#dead = new WorkerKilled(n, call, 'after');
      throw this.#dead;
    }
    return result;
  }
}

/** The port with each of its (async) methods recorded as one step named `<name>.<method>`. */
export function recordPort<T extends object>(name: string, port: T, rec: StepRecorder): T {
  return new Proxy(port, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        rec.step(`${name}.${String(key)}`, () => Promise.resolve(value.apply(target, args)));
    },
  });
}

export function recordStores(stores: Stores, rec: StepRecorder): Stores {
  return {
    enrollments: recordPort('enrollments', stores.enrollments, rec),
    vehicles: recordPort('vehicles', stores.vehicles, rec),
    states: recordPort('states', stores.states, rec),
    events: recordPort('events', stores.events, rec),
    leases: recordPort('leases', stores.leases, rec),
  };
}

/** The bus's `publish` as a step (`entrySize` is synchronous and stays as is). */
export function recordBus(bus: EventBus, rec: StepRecorder): EventBus {
  return { publish: (events) => rec.step('bus.publish', () => bus.publish(events)) };
}

const requestLine = (input: string | URL | Request, init?: RequestInit): string => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  return `http ${method} ${url.pathname}`;
};

/** A table's items by key, to put a scenario's initial state back before each trial. */
type Items = Map<string, Record<string, unknown>>;

const itemKey = (item: Record<string, unknown>): string => `${String(item.pk)}\u0000${String(item.sk)}`;

/** JSON with sorted keys: two reads of the same item compare equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value instanceof Set) return `set(${[...value].map(canonical).sort().join(',')})`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

async function scanAll(doc: DynamoDBDocumentClient, tableName: string): Promise<Items> {
  const items: Items = new Map();
  for await (const page of paginateScan({ client: doc }, { TableName: tableName, ConsistentRead: true })) {
    for (const item of page.Items ?? []) items.set(itemKey(item), item);
  }
  return items;
}

async function batchWrite(
  doc: DynamoDBDocumentClient,
  tableName: string,
  requests: Record<string, unknown>[],
): Promise<void> {
  for (let i = 0; i < requests.length; i += 25) {
    let chunk = requests.slice(i, i + 25);
    while (chunk.length > 0) {
      const r = await doc.send(new BatchWriteCommand({ RequestItems: { [tableName]: chunk } }));
      chunk = (r.UnprocessedItems?.[tableName] ?? []) as Record<string, unknown>[];
    }
  }
}

export interface WorkerOptions {
  /**
   * SQS redelivers a job after its visibility timeout, by which time a lease the dead worker held
   * (`token-refresh:<id>`, `leaseTtlMs`) has expired. Only the lease store sees this later time, so
   * the redelivered job reads the API at the same world time as the clean run and their states
   * compare exactly.
   */
  readonly leaseClockOffsetMs?: number;
  /** Re-reads of a refresh another worker holds (token manager `leaseWaitAttempts`). */
  readonly leaseWaitAttempts?: number;
}

/** One scenario's world: the in-process simulator, one DynamoDB table, and worker factories. */
export interface KillBench {
  readonly app: SimulatorApp;
  readonly stores: Stores;
  readonly budget: RateBudget;
  readonly cipher: TokenCipher;
  readonly access: ApiAccess;
  readonly config: Partial<PollingConfig>;
  now(): number;
  /** A worker whose every port call is recorded by `rec`, publishing to `bus`. */
  worker(rec: StepRecorder, bus: EventBus, options?: WorkerOptions): PollDeps;
  /** A worker that is not recorded (scenario set-up). */
  plainWorker(bus: EventBus): PollDeps;
  // biome-ignore lint/suspicious/noExplicitAny: JSON of the simulator's control API, read freely by tests.
  control(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  advance(seconds: number): Promise<void>;
  /** Enrolls a user through the real OAuth flow (authorize page and callback in process). */
  enroll(user: SimUser): Promise<string>;
  /** Records the table as the initial state of every trial. */
  snapshot(): Promise<void>;
  /** Puts the table back as `snapshot` recorded it (only the items that differ are written). */
  restore(): Promise<void>;
  /**
   * Fresh tokens from the simulator for an enrollment, expiring in `ttlSeconds` (world time);
   * returns the refresh token.
   */
  issueTokens(enrollmentId: string, userId: string, ttlSeconds: number): Promise<string>;
  /** The most requests the simulator counted in one window since the last call, and the limit. */
  takeWindowStats(): { readonly maxInWindow: number; readonly limit: number };
}

export const LEASE_EXPIRED_OFFSET_MS = DEFAULT_TOKEN_MANAGER_CONFIG.leaseTtlMs;

export async function startKillBench(client: DynamoDBClient): Promise<KillBench> {
  const app = createSimulatorApp({ vehicles: 6, seed: 7, clock: 'manual' });
  const world = app.world;
  const now = (): number => world.now();
  const tableName = uniqueTableName('carhook-kill');
  await createSimulatedClockTable(client, tableName);
  const dynamo = createDynamoStores({ client, tableName });
  const stores: Stores = {
    enrollments: dynamo.enrollments,
    vehicles: dynamo.vehicles,
    states: dynamo.states,
    events: dynamo.events,
    leases: dynamo.leases,
  };
  const budget = dynamo.rateBudget;
  const doc = documentClient(client);
  const cipher = createTokenCipher(createKeyRing('k1', new Map([['k1', randomBytes(32)]])));
  // Every request goes to the in-process app; a loopback discard port makes any request that
  // escaped the injected fetch fail at once instead of leaving the machine.
  const base = 'http://127.0.0.1:9';
  const simFetch: typeof fetch = async (input, init) =>
    app.fetch(input instanceof Request ? input : new Request(input, init));
  const clientId = app.services.clients.all()[0]?.clientId ?? 'carhook-sim';
  const clientSecret = app.services.clients.all()[0]?.clientSecret ?? '';
  const access: ApiAccess = { baseUrl: base, authUrl: base, clientId, clientSecret, fetch: simFetch };
  const config: Partial<PollingConfig> = {};
  const publish = { sleep: async () => {}, maxAttempts: 2 };
  const fastSleep = (): Promise<void> => new Promise((r) => setImmediate(r));

  const build = (
    ports: { stores: Stores; budget: RateBudget; bus: EventBus; fetch: typeof fetch },
    options: WorkerOptions = {},
  ): PollDeps => {
    const workerAccess: ApiAccess = { ...access, fetch: ports.fetch };
    const offset = options.leaseClockOffsetMs ?? 0;
    const leases = ports.stores.leases;
    const tokenLeases = offset
      ? {
          acquire: (name: string, owner: string, ttlMs: number, at: number) =>
            leases.acquire(name, owner, ttlMs, at + offset),
          release: (name: string, owner: string) => leases.release(name, owner),
        }
      : leases;
    const tokens = createTokenManager({
      enrollments: ports.stores.enrollments,
      vehicles: ports.stores.vehicles,
      leases: tokenLeases,
      cipher,
      endpointFor: (brand) => createTokenEndpoint({ ...workerAccess, brand, now, retry: { maxAttempts: 1 } }),
      now,
      sleep: fastSleep,
      ...(options.leaseWaitAttempts !== undefined
        ? { config: { leaseWaitAttempts: options.leaseWaitAttempts } }
        : {}),
    });
    return {
      stores: ports.stores,
      budget: ports.budget,
      bus: ports.bus,
      access: workerAccess,
      tokens,
      now,
      config,
      publish,
    };
  };

  let initial: Items = new Map();

  const control: KillBench['control'] = async (method, path, body) => {
    const res = await app.request(`/_sim${path}`, {
      method,
      ...(body !== undefined
        ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
        : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  return {
    app,
    stores,
    budget,
    cipher,
    access,
    config,
    now,
    worker: (rec, bus, options) =>
      build(
        {
          stores: recordStores(stores, rec),
          budget: recordPort('budget', budget, rec),
          bus: recordBus(bus, rec),
          fetch: (input, init) => rec.step(requestLine(input, init), () => simFetch(input, init)),
        },
        options,
      ),
    plainWorker: (bus) => build({ stores, budget, bus, fetch: simFetch }),
    control,
    advance: async (seconds) => {
      world.advance(seconds * 1000);
    },
    enroll: async (user) => {
      const bus = new MemoryBus();
      const endpointFor = (brand: string) =>
        createTokenEndpoint({ ...access, brand, now, retry: { maxAttempts: 1 } });
      const deps = { stores, cipher, bus, access, endpointFor, stateKey: STATE_KEY, budget, now, publish };
      const started = startAuthorization(deps, {
        brand: BRANDS[user.brand].authSegment,
        redirectUri: REDIRECT_URI,
      });
      if (started.kind !== 'Started') throw new Error(`start authorization: ${started.kind}`);
      const post = await simFetch(started.url, {
        method: 'POST',
        body: new URLSearchParams({ user: user.id }),
        redirect: 'manual',
      });
      const location = new URL(post.headers.get('location') ?? '', REDIRECT_URI);
      const done = await completeAuthorization(deps, {
        state: location.searchParams.get('state') ?? '',
        code: location.searchParams.get('code') ?? '',
      });
      if (done.kind !== 'Enrolled') throw new Error(`enrollment: ${done.kind}`);
      return done.enrollmentId;
    },
    snapshot: async () => {
      initial = await scanAll(doc, tableName);
    },
    restore: async () => {
      const current = await scanAll(doc, tableName);
      const requests: Record<string, unknown>[] = [];
      for (const [key, item] of current) {
        if (!initial.has(key)) requests.push({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } });
      }
      for (const [key, item] of initial) {
        const now = current.get(key);
        if (now === undefined || canonical(now) !== canonical(item))
          requests.push({ PutRequest: { Item: item } });
      }
      await batchWrite(doc, tableName, requests);
    },
    issueTokens: async (enrollmentId, userId, ttlSeconds) => {
      const t = app.services.tokens.issueFor(clientId, userId, ttlSeconds);
      const tokens = createTokenSet({
        accessToken: t.access_token,
        refreshToken: t.refresh_token,
        expiresAt: new Date(now() + t.expires_in * 1000).toISOString(),
      });
      const saved = await stores.enrollments.saveTokens(
        enrollmentId,
        { tokenCiphertext: cipher.encryptTokens(tokens, enrollmentId), tokenExpiresAt: tokens.expiresAt },
        now(),
      );
      if (saved.kind !== 'Saved') throw new Error(`save tokens: ${saved.kind}`);
      return t.refresh_token;
    },
    takeWindowStats: () => {
      const limiter = app.services.limiter;
      const stats = { maxInWindow: limiter.maxInWindow(clientId), limit: limiter.quotaOf(clientId).limit };
      limiter.reset(false);
      return stats;
    },
  };
}

/**
 * Every event of the log detected in the last hour of world time (a bench's whole life: one query
 * of one day partition instead of one per day of the retention), oldest first.
 */
export async function loggedEvents(stores: Stores, now: number): Promise<EventEnvelope[]> {
  const out: EventEnvelope[] = [];
  let cursor: string | undefined;
  do {
    const page = await stores.events.listByTime({
      since: new Date(now - 3_600_000).toISOString(),
      until: new Date(now + 1).toISOString(),
      now,
      limit: 1000,
      ...(cursor ? { cursor } : {}),
    });
    out.push(...page.items.map((s) => s.envelope));
    cursor = page.cursor;
  } while (cursor);
  return out;
}
