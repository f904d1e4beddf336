/**
 * Webhook delivery benchmark, end to end: the real path LocalBus → `fanOutSubscriber(engine)`
 * → sender → a local receiver, with the in-memory subscription stores and with the DynamoDB stores on
 * DynamoDB Local, side by side in one run. Every figure is compared with a bare `http.request` to the
 * same receiver measured in the same phase, so "Carhook overhead" = Carhook − bare.
 *
 * Latency is measured from the call to `bus.publish` (bare: the call to `http.request`) to the moment
 * the receiver has read the whole request body. Phases, per store:
 *
 *   idle        one at a time, Carhook and bare interleaved
 *   fixed rate  open loop at `offeredRate` per second (the throughput target, 500/s) for `fixedSeconds`;
 *               the offer pauses while `backlogCap` deliveries are outstanding, so a store that cannot
 *               keep up is offered less (the achieved offered rate is reported) and the run stays bounded
 *   saturation  closed loop: as fast as possible with at most `window` deliveries outstanding
 *
 * With DynamoDB Local, its own conditional-write rate is measured in the same run: it is the ceiling.
 *
 *   npx tsx bench/delivery.ts            (prints JSON, then the markdown section on stderr)
 *   import { run, toMarkdown } from './delivery'
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import {
  createDynamoSubscriptionStores,
  documentClient,
  WRITE_OPERATIONS,
} from '../functions/adapters/dynamodb';
import { LocalBus } from '../functions/adapters/local/bus';
import { dynamoDbLocalClient, startDynamoDbLocal } from '../functions/adapters/local/dynamodb-local';
import { createMemoryStores } from '../functions/adapters/memory/stores';
import { createMemorySubscriptionStores } from '../functions/adapters/memory/subscriptions';
import { createSender } from '../functions/adapters/webhooks/sender';
import { createKeyRing, createTokenCipher } from '../functions/core/crypto/token-cipher';
import {
  createDeliveryEngine,
  type DeliveryEngine,
  type DeliveryJob,
  fanOutSubscriber,
} from '../functions/core/delivery/engine';
import { createSecretBox, fixedCipher } from '../functions/core/delivery/secrets';
import type { EventEnvelope } from '../functions/core/events/envelope';
import type { JobQueue } from '../functions/core/queue/ports';
import type { DeliveryStore, SubscriptionStore } from '../functions/core/subscriptions/ports';
import { createSubscriptionService } from '../functions/core/subscriptions/service';
import { compileAllowList } from '../functions/core/webhooks/ssrf';
import { countRequests, createSimulatedClockTable } from './support/dynamo';
import { percentile, round } from './support/stats';

export type DeliveryStoreKind = 'memory' | 'dynamodb';

export interface DeliveryBenchOptions {
  /** Which subscription stores to measure (default both). */
  readonly stores?: readonly DeliveryStoreKind[];
  /** One-at-a-time samples per client in the idle phase (default 300). */
  readonly idleSamples?: number;
  /** Offered deliveries per second in the fixed-rate phase (default 500: the throughput target). */
  readonly offeredRate?: number;
  readonly fixedSeconds?: number;
  /** Outstanding deliveries at which the fixed-rate offer pauses (default 500: one second's worth). */
  readonly backlogCap?: number;
  readonly saturationSeconds?: number;
  /** Outstanding deliveries in the saturation phase (default 256, under the engine's 2,000 waiting). */
  readonly window?: number;
  /** How long a phase may wait for its outstanding deliveries after the offer stops (default 20 s). */
  readonly drainSeconds?: number;
  /** Length of each DynamoDB Local write-rate probe (default 2 s). */
  readonly ceilingSeconds?: number;
  /** An endpoint reuses a running DynamoDB Local (tests); otherwise one is started and stopped. */
  readonly dynamodb?: { readonly endpoint?: string };
  readonly log?: (line: string) => void;
}

export interface LoadFigures {
  readonly offered: number;
  readonly offeredPerSecond: number;
  readonly delivered: number;
  /** Delivered ÷ (last arrival − start of the phase). */
  readonly deliveredPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface StoreFigures {
  readonly store: DeliveryStoreKind;
  readonly idle: {
    readonly samples: number;
    readonly missed: number;
    readonly p50Ms: number;
    readonly p99Ms: number;
    readonly bareP50Ms: number;
    readonly bareP99Ms: number;
    readonly addedP50Ms: number;
    readonly addedP99Ms: number;
  };
  readonly fixed: {
    readonly seconds: number;
    readonly carhook: LoadFigures;
    readonly bare: LoadFigures;
    readonly addedP50Ms: number;
    readonly addedP99Ms: number;
  };
  readonly saturation: {
    readonly seconds: number;
    readonly window: number;
    readonly carhook: LoadFigures;
    readonly bare: LoadFigures;
  };
  /** Deliveries that went through the (in-process) retry queue: 0 when every first attempt succeeds. */
  readonly queued: number;
  /** Failures reported by the engine or the bus (store, queue, publish). */
  readonly problems: number;
  /** DynamoDB only: requests the stores sent during the run, by command, and write requests per delivery. */
  readonly dynamoRequests?: Readonly<Record<string, number>>;
  readonly writeRequestsPerDelivery?: number;
  readonly firstProblem?: string;
}

export interface DynamoCeiling {
  readonly parallel: number;
  /** Conditional PutItem (attribute_not_exists), the shape of a write-first claimed record. */
  readonly conditionalPutsPerSecond: number;
  /** Conditional Update + Put in one TransactWriteItems, the shape of `finish` (retries). */
  readonly transactionsPerSecond: number;
  /** BatchWriteItem of 24 puts (12 recorded first attempts: delivery + attempt line each). */
  readonly batchWritesPerSecond: number;
  /** The old pattern, one of each per delivery: 1 / (1/puts + 1/transactions). */
  readonly writeFirstDeliveriesPerSecond: number;
  /** The direct pattern at full batches: 12 deliveries per BatchWriteItem. */
  readonly deliveriesPerSecond: number;
}

export interface DeliveryBenchResult {
  readonly node: string;
  readonly offeredRate: number;
  readonly target: { readonly deliveriesPerSecond: number; readonly addedP99Ms: number };
  readonly stores: readonly StoreFigures[];
  readonly dynamoCeiling?: DynamoCeiling;
}

export const TARGET_DELIVERIES_PER_SECOND = 500;
export const TARGET_ADDED_P99_MS = 50;

class BenchError extends Error {
  override readonly name = 'BenchError';
  constructor(
    readonly kind: 'InvalidOption' | 'SetupFailed',
    message: string,
  ) {
    super(message);
  }
}

function positive(name: string, value: number, integer: boolean): number {
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new BenchError('InvalidOption', `${name}: must be a positive ${integer ? 'integer' : 'number'}`);
  }
  return value;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function envelope(id: string, i: number): EventEnvelope {
  const at = new Date().toISOString();
  return {
    id,
    type: 'vehicle.alert.raised',
    schemaVersion: 1,
    occurredAt: at,
    detectedAt: at,
    sequence: i,
    vehicle: { id: `veh_${i % 50}`, vin: 'VF1AAAAA555555555', brand: 'renault' },
    enrollment: { id: 'enr_1', kind: 'fleet-contract' },
    source: { api: 'v2', operation: 'getVehicleAlerts' },
    data: { alertId: `al_${i}`, message: 'LOW_TYRE_PRESSURE', severity: 'medium', active: true },
  };
}

/** The receiver records when each request (by `webhook-id`) has been read in full. */
async function startReceiver() {
  let listener: (id: string, at: number) => void = () => undefined;
  const server = http.createServer((req, res) => {
    const id = req.headers['webhook-id'];
    req.resume();
    req.on('end', () => {
      if (typeof id === 'string') listener(id, performance.now());
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/hooks`,
    onArrival(fn: (id: string, at: number) => void) {
      listener = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A bare keep-alive client: the ceiling any sender could reach to this receiver. */
function bareClient(port: number) {
  const agent = new http.Agent({ keepAlive: true });
  const body = JSON.stringify({
    type: 'vehicle.alert.raised',
    timestamp: new Date().toISOString(),
    data: {},
  });
  const post = (id: string) =>
    new Promise<void>((resolve) => {
      const req = http.request(
        {
          method: 'POST',
          hostname: '127.0.0.1',
          port,
          path: '/hooks',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'webhook-id': id,
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve());
        },
      );
      // A failed bare request is simply never seen by the receiver: counted as not delivered.
      req.on('error', () => resolve());
      req.end(body);
    });
  return { post, close: () => agent.destroy() };
}

/** Tracks one phase's deliveries: start times, arrivals, outstanding count, a wake-up on arrival. */
function tracker(receiver: Receiver) {
  const started = new Map<string, number>();
  const latencies: number[] = [];
  let lastArrival = 0;
  let wake: (() => void) | undefined;
  receiver.onArrival((id, at) => {
    const t = started.get(id);
    if (t === undefined) return;
    started.delete(id);
    latencies.push(at - t);
    lastArrival = Math.max(lastArrival, at);
    const w = wake;
    wake = undefined;
    w?.();
  });
  let offered = 0;
  return {
    start(id: string) {
      offered++;
      started.set(id, performance.now());
    },
    get offered() {
      return offered;
    },
    get outstanding() {
      return started.size;
    },
    get lastArrival() {
      return lastArrival;
    },
    latencies,
    /** Resolves at the next arrival or after `ms`, whichever first. */
    next(ms: number) {
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
  };
}

type Offer = (id: string, i: number) => void;

async function drain(t: ReturnType<typeof tracker>, drainMs: number): Promise<void> {
  const until = performance.now() + drainMs;
  while (t.outstanding > 0 && performance.now() < until) await t.next(50);
}

function figures(t: ReturnType<typeof tracker>, t0: number, offerSeconds: number): LoadFigures {
  const sorted = [...t.latencies].sort((a, b) => a - b);
  const delivered = sorted.length;
  const seconds = Math.max(t.lastArrival - t0, 1) / 1000;
  return {
    offered: t.offered,
    offeredPerSecond: Math.round(t.offered / offerSeconds),
    delivered,
    deliveredPerSecond: delivered === 0 ? 0 : Math.round(delivered / seconds),
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
  };
}

/** Open loop at `rate` per second, pausing while `cap` deliveries are outstanding. */
async function paced(
  receiver: Receiver,
  prefix: string,
  offer: Offer,
  o: { rate: number; seconds: number; cap: number; drainMs: number },
): Promise<LoadFigures> {
  const t = tracker(receiver);
  const t0 = performance.now();
  const end = t0 + o.seconds * 1000;
  let i = 0;
  for (let now = t0; now < end; now = performance.now()) {
    const due = Math.floor(((now - t0) / 1000) * o.rate);
    // Behind schedule because of the cap: the missed offers are dropped, not burst later.
    while (i < due && t.outstanding < o.cap) {
      const id = `${prefix}_${i}`;
      t.start(id);
      offer(id, i);
      i++;
    }
    if (i < due) i = due;
    await sleep(2);
  }
  const offerSeconds = (performance.now() - t0) / 1000;
  await drain(t, o.drainMs);
  return figures(t, t0, offerSeconds);
}

/** Closed loop: as fast as possible with at most `window` outstanding. */
async function saturate(
  receiver: Receiver,
  prefix: string,
  offer: Offer,
  o: { window: number; seconds: number; drainMs: number },
): Promise<LoadFigures> {
  const t = tracker(receiver);
  const t0 = performance.now();
  const end = t0 + o.seconds * 1000;
  let i = 0;
  while (performance.now() < end) {
    while (t.outstanding < o.window) {
      const id = `${prefix}_${i}`;
      t.start(id);
      offer(id, i);
      i++;
    }
    await t.next(Math.max(1, end - performance.now()));
  }
  const offerSeconds = (performance.now() - t0) / 1000;
  await drain(t, o.drainMs);
  return figures(t, t0, offerSeconds);
}

interface Stores {
  readonly subscriptions: SubscriptionStore;
  readonly deliveries: DeliveryStore;
}

async function measureStore(
  kind: DeliveryStoreKind,
  stores: Stores,
  receiver: Receiver,
  o: Required<Omit<DeliveryBenchOptions, 'stores' | 'dynamodb' | 'log'>> & { log: (line: string) => void },
  /** Filled by a middleware on the DynamoDB client (command name → requests); absent for memory. */
  requests?: Record<string, number>,
): Promise<StoreFigures> {
  const allowList = compileAllowList({ cidrs: ['127.0.0.1/32'] });
  if (!allowList.ok) throw new BenchError('SetupFailed', allowList.error.message);
  const sender = createSender({ allowInsecureLoopback: true, allowList: allowList.value });
  const secrets = createSecretBox(
    fixedCipher(createTokenCipher(createKeyRing('bench', new Map([['bench', randomBytes(32)]])))),
  );
  const bus = new LocalBus({ out: null });
  const bare = bareClient(receiver.port);
  let problems = 0;
  let firstProblem: string | undefined;
  const problem = (message: string) => {
    problems++;
    firstProblem ??= message;
  };

  // An in-process queue for retries: jobs run after their delay until the store is done with.
  let queued = 0;
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  let engine: DeliveryEngine | undefined;
  const schedule = (job: DeliveryJob, delayMs: number) => {
    if (stopped) return;
    const timer = setTimeout(async () => {
      timers.delete(timer);
      if (stopped || !engine) return;
      try {
        const out = await engine.handleJob(job);
        if (out) schedule(job, out.retryInSeconds * 1000);
      } catch (error) {
        problem(`handleJob: ${error instanceof Error ? error.message : String(error)}`);
      }
    }, delayMs);
    timers.add(timer);
  };
  const queue: JobQueue<DeliveryJob> = {
    send: async (messages) => {
      queued += messages.length;
      for (const m of messages) schedule(m.body, (m.delaySeconds ?? 0) * 1000);
    },
  };
  engine = createDeliveryEngine({
    ...stores,
    queue,
    bus,
    sender,
    secrets,
    onProblem: (p) => problem(`${p.kind}: ${p.message}`),
  });
  const service = createSubscriptionService({
    ...stores,
    events: createMemoryStores().events,
    engine,
    secrets,
    urlPolicy: { allowInsecureLoopback: true, allowList: allowList.value },
  });
  const created = await service.create({ url: receiver.url });
  if (!created.ok) throw new BenchError('SetupFailed', `subscription: ${created.error.message}`);
  bus.subscribe(fanOutSubscriber(engine), { name: 'webhooks' });

  const publishes = new Set<Promise<unknown>>();
  let published = 0;
  const publish: Offer = (id, i) => {
    published++;
    const p = bus.publish([envelope(id, i)]).then(
      (r) => {
        for (const f of r.failed) problem(`publish ${f.code}: ${f.message}`);
      },
      (error: unknown) => problem(`publish: ${String(error)}`),
    );
    publishes.add(p);
    void p.finally(() => publishes.delete(p));
  };
  const barePost: Offer = (id) => {
    void bare.post(id);
  };
  const tag = `${kind}_${randomBytes(3).toString('hex')}`;
  const drainMs = o.drainSeconds * 1000;

  try {
    // Warm-up (JIT, connection pools, the subscription cache).
    await saturate(receiver, `evt_${tag}_warm`, publish, { window: 32, seconds: 0.5, drainMs });
    await saturate(receiver, `bare_${tag}_warm`, barePost, { window: 32, seconds: 0.5, drainMs });

    o.log(`delivery: ${kind}: idle latency, ${o.idleSamples} samples each`);
    const carhookIdle: number[] = [];
    const bareIdle: number[] = [];
    let missed = 0;
    const one = async (id: string, send: () => void, into: number[]) => {
      const t = tracker(receiver);
      t.start(id);
      send();
      await drain(t, 5_000);
      if (t.latencies[0] === undefined) missed++;
      else into.push(t.latencies[0]);
    };
    for (let i = 0; i < o.idleSamples; i++) {
      const id = `evt_${tag}_idle_${i}`;
      await one(id, () => publish(id, i), carhookIdle);
      const bid = `bare_${tag}_idle_${i}`;
      await one(bid, () => barePost(bid, i), bareIdle);
    }
    carhookIdle.sort((a, b) => a - b);
    bareIdle.sort((a, b) => a - b);
    const idleP50 = percentile(carhookIdle, 50);
    const idleP99 = percentile(carhookIdle, 99);
    const bareP50 = percentile(bareIdle, 50);
    const bareP99 = percentile(bareIdle, 99);

    o.log(`delivery: ${kind}: ${o.offeredRate}/s offered for ${o.fixedSeconds} s`);
    const fixedOptions = { rate: o.offeredRate, seconds: o.fixedSeconds, cap: o.backlogCap, drainMs };
    const fixedCarhook = await paced(receiver, `evt_${tag}_fixed`, publish, fixedOptions);
    const fixedBare = await paced(receiver, `bare_${tag}_fixed`, barePost, fixedOptions);

    o.log(`delivery: ${kind}: saturation, ${o.window} outstanding, ${o.saturationSeconds} s`);
    const satOptions = { window: o.window, seconds: o.saturationSeconds, drainMs };
    const satCarhook = await saturate(receiver, `evt_${tag}_sat`, publish, satOptions);
    const satBare = await saturate(receiver, `bare_${tag}_sat`, barePost, satOptions);

    const counted = requests ? { ...requests } : undefined;
    const writes = counted
      ? [...WRITE_OPERATIONS].reduce((sum, name) => sum + (counted[name] ?? 0), 0)
      : undefined;
    return {
      store: kind,
      idle: {
        samples: o.idleSamples,
        missed,
        p50Ms: round(idleP50),
        p99Ms: round(idleP99),
        bareP50Ms: round(bareP50),
        bareP99Ms: round(bareP99),
        addedP50Ms: round(idleP50 - bareP50),
        addedP99Ms: round(idleP99 - bareP99),
      },
      fixed: {
        seconds: o.fixedSeconds,
        carhook: fixedCarhook,
        bare: fixedBare,
        addedP50Ms: round(fixedCarhook.p50Ms - fixedBare.p50Ms),
        addedP99Ms: round(fixedCarhook.p99Ms - fixedBare.p99Ms),
      },
      saturation: { seconds: o.saturationSeconds, window: o.window, carhook: satCarhook, bare: satBare },
      queued,
      problems,
      ...(firstProblem === undefined ? {} : { firstProblem }),
      ...(counted && writes !== undefined
        ? { dynamoRequests: counted, writeRequestsPerDelivery: round(writes / Math.max(1, published)) }
        : {}),
    };
  } finally {
    // Let what is still in flight finish (bounded) before the sender and the store go away.
    const until = performance.now() + drainMs;
    while (performance.now() < until) {
      const s = engine.limiter.stats();
      if (publishes.size === 0 && s.inFlight === 0 && s.queued === 0) break;
      await sleep(20);
    }
    stopped = true;
    for (const timer of timers) clearTimeout(timer);
    sender.close();
    bare.close();
  }
}

/** DynamoDB Local's own write rate, with the shapes a delivery writes, at `parallel` in flight. */
async function dynamoCeiling(
  client: DynamoDBClient,
  tableName: string,
  seconds: number,
  // The client's default socket pool (50): the most requests the stores have in flight.
  parallel = 50,
): Promise<DynamoCeiling> {
  const doc = documentClient(client);
  const body = 'x'.repeat(900); // about a delivery record with its envelope
  const rate = async (write: (i: number) => Promise<unknown>) => {
    let next = 0;
    let done = 0;
    const t0 = performance.now();
    const end = t0 + seconds * 1000;
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (performance.now() < end) {
          await write(next++);
          done++;
        }
      }),
    );
    return done / ((performance.now() - t0) / 1000);
  };
  const tag = randomBytes(3).toString('hex');
  const puts = await rate((i) =>
    doc.send(
      new PutCommand({
        TableName: tableName,
        Item: { pk: `CEIL#${tag}#${i}`, sk: 'D', status: 'pending', body },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
  const transactions = await rate((i) =>
    doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName,
              Key: { pk: `CEILT#${tag}#${i}`, sk: 'D' },
              UpdateExpression: 'SET #s = :done',
              // The item may not exist (fewer puts than transactions): the condition is evaluated all the same.
              ConditionExpression: 'attribute_not_exists(#s) OR #s = :pending',
              ExpressionAttributeNames: { '#s': 'status' },
              ExpressionAttributeValues: { ':done': 'succeeded', ':pending': 'pending' },
            },
          },
          { Put: { TableName: tableName, Item: { pk: `CEILT#${tag}#${i}`, sk: 'A#1', body } } },
        ],
      }),
    ),
  );
  const batches = await rate((i) =>
    doc.send(
      new BatchWriteCommand({
        RequestItems: {
          [tableName]: Array.from({ length: 24 }, (_, j) => ({
            PutRequest: { Item: { pk: `CEILB#${tag}#${i}#${j >> 1}`, sk: j % 2 ? 'A#1' : 'D', body } },
          })),
        },
      }),
    ),
  );
  return {
    parallel,
    conditionalPutsPerSecond: Math.round(puts),
    transactionsPerSecond: Math.round(transactions),
    batchWritesPerSecond: Math.round(batches),
    writeFirstDeliveriesPerSecond: Math.round(1 / (1 / puts + 1 / transactions)),
    deliveriesPerSecond: Math.round(batches) * 12,
  };
}

export async function run(options: DeliveryBenchOptions = {}): Promise<DeliveryBenchResult> {
  const kinds = options.stores ?? ['memory', 'dynamodb'];
  if (kinds.length === 0 || kinds.some((k) => k !== 'memory' && k !== 'dynamodb')) {
    throw new BenchError(
      'InvalidOption',
      `stores: give 'memory' and/or 'dynamodb' (got ${kinds.join(', ')})`,
    );
  }
  const o = {
    idleSamples: positive('idleSamples', options.idleSamples ?? 300, true),
    offeredRate: positive('offeredRate', options.offeredRate ?? TARGET_DELIVERIES_PER_SECOND, false),
    fixedSeconds: positive('fixedSeconds', options.fixedSeconds ?? 4, false),
    backlogCap: positive('backlogCap', options.backlogCap ?? 500, true),
    saturationSeconds: positive('saturationSeconds', options.saturationSeconds ?? 3, false),
    window: positive('window', options.window ?? 256, true),
    drainSeconds: positive('drainSeconds', options.drainSeconds ?? 20, false),
    ceilingSeconds: positive('ceilingSeconds', options.ceilingSeconds ?? 2, false),
    log: options.log ?? (() => undefined),
  };
  const receiver = await startReceiver();
  const results: StoreFigures[] = [];
  let ceiling: DynamoCeiling | undefined;
  try {
    for (const kind of kinds) {
      if (kind === 'memory') {
        results.push(await measureStore(kind, createMemorySubscriptionStores(), receiver, o));
        continue;
      }
      const local = options.dynamodb?.endpoint === undefined ? await startDynamoDbLocal() : undefined;
      try {
        const endpoint = options.dynamodb?.endpoint ?? (local?.endpoint as string);
        o.log(`delivery: DynamoDB Local at ${endpoint}`);
        const client = dynamoDbLocalClient(endpoint);
        const tableName = `carhook-bench-delivery-${randomBytes(4).toString('hex')}`;
        await createSimulatedClockTable(client, tableName);
        const stores = createDynamoSubscriptionStores({ client, tableName });
        const requests = countRequests(client);
        results.push(await measureStore(kind, stores, receiver, o, requests));
        o.log(`delivery: DynamoDB Local write rate, ${o.ceilingSeconds} s per shape`);
        ceiling = await dynamoCeiling(client, tableName, o.ceilingSeconds);
        client.destroy();
      } finally {
        await local?.stop();
      }
    }
  } finally {
    await receiver.close();
  }
  return {
    node: process.version,
    offeredRate: o.offeredRate,
    target: { deliveriesPerSecond: TARGET_DELIVERIES_PER_SECOND, addedP99Ms: TARGET_ADDED_P99_MS },
    stores: results,
    ...(ceiling ? { dynamoCeiling: ceiling } : {}),
  };
}

/** The throughput target holds when the fixed-rate phase kept up with 500/s and saturation reached it. */
export function meetsThroughput(s: StoreFigures): boolean {
  const f = s.fixed.carhook;
  return (
    s.saturation.carhook.deliveredPerSecond >= TARGET_DELIVERIES_PER_SECOND &&
    f.offeredPerSecond >= TARGET_DELIVERIES_PER_SECOND * 0.95 &&
    f.delivered === f.offered
  );
}

/** The latency target is judged under the 500/s load (stricter than idle). */
export function meetsLatency(s: StoreFigures): boolean {
  return s.fixed.carhook.delivered > 0 && s.fixed.addedP99Ms < TARGET_ADDED_P99_MS;
}

const STORE_NAMES: Record<DeliveryStoreKind, string> = {
  memory: 'memory stores',
  dynamodb: 'DynamoDB stores on DynamoDB Local',
};
const met = (ok: boolean): string => (ok ? '**met**' : '**not met**');
const n = (x: number): string => x.toLocaleString('en-US');
const ms = (a: number, b: number) => `${a} / ${b} ms`;
// A negative overhead is noise (the bare client's tail hit a scheduling hiccup Carhook's missed): flagged.
const added = (a: number, b: number) => `${a} / ${b} ms${a < 0 || b < 0 ? ' †' : ''}`;

export function toMarkdown(r: DeliveryBenchResult): string {
  const first = r.stores[0];
  const lines: string[] = [
    'LocalBus → `fanOutSubscriber(engine)` → sender → a local receiver on 127.0.0.1, one subscription; latency from `bus.publish` to the receiver having read the body. **bare** = a keep-alive `http.request` to the same receiver, measured in the same phase; overhead = Carhook − bare.',
    '',
    `| latency, p50 / p99 | idle: Carhook | idle: bare | idle: overhead | at ${n(r.offeredRate)}/s: Carhook | at ${n(r.offeredRate)}/s: bare | at ${n(r.offeredRate)}/s: overhead |`,
    '|---|---|---|---|---|---|---|',
    ...r.stores.map(
      (s) =>
        `| ${STORE_NAMES[s.store]} | ${ms(s.idle.p50Ms, s.idle.p99Ms)} | ${ms(s.idle.bareP50Ms, s.idle.bareP99Ms)} | ${added(s.idle.addedP50Ms, s.idle.addedP99Ms)} | ${ms(s.fixed.carhook.p50Ms, s.fixed.carhook.p99Ms)} | ${ms(s.fixed.bare.p50Ms, s.fixed.bare.p99Ms)} | ${added(s.fixed.addedP50Ms, s.fixed.addedP99Ms)} |`,
    ),
    '',
    '| throughput | offered → delivered at fixed rate | saturation: Carhook | saturation: bare | via retry queue | problems |',
    '|---|---|---|---|---|---|',
    ...r.stores.map((s) => {
      const f = s.fixed.carhook;
      return `| ${STORE_NAMES[s.store]} | ${n(f.offeredPerSecond)}/s → ${n(f.deliveredPerSecond)}/s (${n(f.delivered)} of ${n(f.offered)}) | ${n(s.saturation.carhook.deliveredPerSecond)}/s | ${n(s.saturation.bare.deliveredPerSecond)}/s | ${n(s.queued)} | ${n(s.problems)} |`;
    }),
    '',
  ];
  const noisy = r.stores.some((s) =>
    [s.idle.addedP50Ms, s.idle.addedP99Ms, s.fixed.addedP50Ms, s.fixed.addedP99Ms].some((x) => x < 0),
  );
  if (noisy) {
    lines.push(
      "† negative: the bare client's tail was hit by the shared machine's noise more than Carhook's in that phase (a p99 of a few hundred samples is a handful of requests); read it as ≈ 0.",
      '',
    );
  }
  if (first) {
    lines.push(
      `Idle: ${n(first.idle.samples)} deliveries one at a time per client. Fixed rate: ${n(r.offeredRate)}/s offered for ${first.fixed.seconds} s, the offer pausing while 500 deliveries are outstanding (a store that cannot keep up is offered less). Saturation: ${first.saturation.seconds} s with ${first.saturation.window} deliveries outstanding.`,
      '',
    );
  }
  for (const s of r.stores) {
    lines.push(
      `Targets, ${STORE_NAMES[s.store]}: ≥ ${n(r.target.deliveriesPerSecond)} deliveries/s: ${met(meetsThroughput(s))} (saturation ${n(s.saturation.carhook.deliveredPerSecond)}/s; ${n(s.fixed.carhook.delivered)} of ${n(s.fixed.carhook.offered)} delivered at ${n(s.fixed.carhook.offeredPerSecond)}/s offered); p99 overhead < ${r.target.addedP99Ms} ms under ${n(r.offeredRate)}/s: ${met(meetsLatency(s))} (${s.fixed.addedP99Ms} ms; idle ${s.idle.addedP99Ms} ms).${s.firstProblem ? ` First problem: ${s.firstProblem}` : ''}`,
    );
  }
  const c = r.dynamoCeiling;
  const counted = r.stores.find((s) => s.writeRequestsPerDelivery !== undefined);
  if (counted?.dynamoRequests) {
    const parts = Object.entries(counted.dynamoRequests)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, count]) => `${name} ${n(count)}`);
    lines.push(
      '',
      `DynamoDB requests over the whole DynamoDB run (every phase): ${parts.join(', ')}; **${counted.writeRequestsPerDelivery} write requests per delivery**. A first attempt that ends within the hold is recorded afterwards with BatchWriteItem, many deliveries per request (delivery + attempt line each); only an attempt whose endpoint keeps it past the hold (1 s), or that waited 10 holds for a slot, is written claimed (conditional PutItem, then \`finish\`).`,
    );
  }
  if (c) {
    lines.push(
      '',
      `What limits the DynamoDB Local figure: DynamoDB Local itself, measured in this run at ${c.parallel} requests in flight (the DynamoDB client's socket pool, as the stores use it): ${n(c.conditionalPutsPerSecond)} conditional PutItem/s, ${n(c.transactionsPerSecond)} two-item TransactWriteItems/s, ${n(c.batchWritesPerSecond)} BatchWriteItem/s of 24 items. Recorded in full batches (12 deliveries per BatchWriteItem) that is ≈ ${n(c.deliveriesPerSecond)} deliveries/s; the write-first pattern (one conditional put and one \`finish\` per delivery) would cap at ≈ ${n(c.writeFirstDeliveriesPerSecond)}/s. DynamoDB proper scales these writes out; the memory row is Carhook's own overhead.`,
    );
  }
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run({ log: (line) => console.error(line) }).then(
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
