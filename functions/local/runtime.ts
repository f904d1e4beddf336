/**
 * The one-machine runtime (`carhook dev`, issue 8; DESIGN.md ports table, local adapters): DynamoDB
 * Local (in memory, or persisted in `--data-dir`), the simulator (unless a real API is given), the
 * planner timer, poll workers, the local bus (compact lines + JSONL), the fan-out and delivery
 * workers, the sweeper and the HTTP API, all over the same composition root as Lambda
 * (functions/runtime/runtime.ts, webhooks.ts). Clean shutdown: timers stop, in-flight polls and
 * deliveries finish (or go back to their durable queue), servers close, DynamoDB Local stops.
 */

import { mkdir } from 'node:fs/promises';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import { BRANDS, type RunningSimulator, SimulatorStartError, startSimulator } from '../../sim';
import { createDynamoStores, createDynamoSubscriptionStores, createTable } from '../adapters/dynamodb';
import { LocalBus } from '../adapters/local/bus';
import {
  type DynamoDbLocal,
  dynamoDbLocalClient,
  JavaMissingError,
  startDynamoDbLocal,
} from '../adapters/local/dynamodb-local';
import { createQueueTable, LocalQueue } from '../adapters/local/queue';
import { createLocalSecrets, LOCAL_SECRET_ENV, type LocalSecretSource } from '../adapters/secrets/local';
import { parseKeyRing } from '../adapters/secrets/secrets-manager';
import { type CarhookSecrets, SecretError } from '../adapters/secrets/types';
import { type DeliveryJob, deliveryJobHandler, parseDeliveryJob } from '../core/delivery/engine';
import type { RetrySchedule } from '../core/delivery/retry-schedule';
import { republishPending } from '../core/polling/commit';
import type { PollingConfig, PollStrategy } from '../core/polling/config';
import type { PollJob } from '../core/polling/jobs';
import { runPlanner } from '../core/polling/planner';
import { runPollJob } from '../core/polling/worker';
import { QUEUE_NAMES } from '../core/queue/ports';
import { runConsumer } from '../core/queue/process';
import { compileAllowList, parseAllowEntries, type ReservedPort } from '../core/webhooks/ssrf';
import { createHttpApp } from '../http/app';
import { createMetricsWindow } from '../runtime/metrics-window';
import { recordJobResult } from '../runtime/observability';
import { createRuntime, type Runtime } from '../runtime/runtime';
import { createWebhooks, type Webhooks } from '../runtime/webhooks';
import { lockDataDir } from './data-dir';
import { formatDuration } from './duration';
import { LocalRuntimeError } from './errors';
import { loadOrCreateState } from './state';

export const TABLE_NAME = 'carhook';
export const QUEUE_TABLE_NAME = 'carhook-queues';
export const DEFAULT_PORT = 8080;
export const DEFAULT_SIM_PORT = 4010;
export const DEFAULT_VEHICLES = 10;
/** Loopback receivers (the demo's, a developer's): allowed unless `--allow-webhook-host` says otherwise. */
export const DEFAULT_WEBHOOK_ALLOW_HOSTS: readonly string[] = ['localhost', '127.0.0.0/8', '::1'];

export interface RealApiOptions {
  readonly baseUrl: string;
  readonly authUrl: string;
  readonly brands: readonly string[];
  /** `{"clientId","clientSecret"}` JSON file; default: the `CARHOOK_API_CLIENT` variable. */
  readonly credentialsFile?: string;
  /**
   * `{"username","password"}` JSON file of the map API (basic credentials of its own); default: the
   * `CARHOOK_MAP_API` variable when set. Without either, map updates are not polled.
   */
  readonly mapCredentialsFile?: string;
}

export interface LocalRuntimeOptions {
  /** HTTP API port (default 8080; 0 = any free port). */
  readonly port?: number;
  readonly host?: string;
  /** Simulator port (default 4010; 0 = any). Ignored with `api`. */
  readonly simPort?: number;
  readonly vehicles?: number;
  readonly seed?: number;
  /** Planner cadence (default 5 s). */
  readonly pollIntervalMs?: number;
  /** Persist DynamoDB Local, keys and the event log here; in memory otherwise. */
  readonly dataDir?: string;
  /** Requests per 60 s (default 600 with the simulator, which gets the same quota; 120 otherwise). */
  readonly quota?: number;
  /** Poll jobs run at once (default 4, 1 to 64): more drains a large fleet's cycle faster. */
  readonly pollConcurrency?: number;
  /** How the planner spends the quota (default `carhook`). */
  readonly pollStrategy?: PollStrategy;
  /** How often services are read (default daily): `vehicle.services.changed` within this period. */
  readonly servicesIntervalMs?: number;
  /** How often map updates are read (default daily): `vehicle.map_update.available` within this period. */
  readonly mapIntervalMs?: number;
  /** Webhook retry schedule (default `standard`; `fast` shows exhaustion and disabling in minutes). */
  readonly retrySchedule?: RetrySchedule;
  /** Further planner settings (tests: a short discovery or maintenance period); applied last. */
  readonly polling?: Partial<PollingConfig>;
  /** A real API instead of the simulator. */
  readonly api?: RealApiOptions;
  /** `CARHOOK_ADMIN_TOKEN`; generated (and persisted in dataDir) when absent. */
  readonly adminToken?: string;
  /** Where events go as JSONL (default `<dataDir>/events.jsonl` or a temp file). */
  readonly jsonlPath?: string;
  /** Compact event lines and notices; default stdout. `null` = silent. */
  readonly out?: { write(chunk: string): unknown } | null;
  /** Problems (failed jobs…); default stderr. */
  readonly err?: { write(chunk: string): unknown } | null;
  /** DynamoDB Local port (default any free one). */
  readonly dynamoPort?: number;
  /**
   * Where webhooks may go besides the public internet (`--allow-webhook-host`): IP addresses,
   * CIDRs, hostnames or `*.suffix`. Default DEFAULT_WEBHOOK_ALLOW_HOSTS (this machine's loopback).
   * Carhook's own ports (API, simulator, DynamoDB Local) stay refused whatever is allowed.
   */
  readonly webhookAllowHosts?: readonly string[];
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly version?: string;
}

export interface LocalRuntime {
  readonly apiUrl: string;
  readonly port: number;
  readonly adminToken: string;
  readonly dynamoEndpoint: string;
  readonly jsonlPath: string;
  /** Poll jobs run at once. */
  readonly pollConcurrency: number;
  readonly dataDir?: string;
  readonly sim?: RunningSimulator;
  readonly runtime: Runtime;
  readonly webhooks: Webhooks;
  readonly bus: LocalBus;
  readonly pollIntervalMs: number;
  readonly quota: number;
  /** The webhook retry schedule's name (`standard`, `fast`). */
  readonly retrySchedule: string;
  /** Where the map API's credentials come from (the simulator's, a file, the environment) or why it is not polled. */
  readonly mapApi: string;
  /** Enrollment ids created or refreshed at start (simulator users). */
  readonly enrolled: readonly { userId: string; enrollmentId: string }[];
  close(): Promise<void>;
}

type Writer = { write(chunk: string): unknown };

/** Fails fast with one sentence when a port is taken (before DynamoDB Local spends seconds starting). */
async function ensurePortFree(port: number, host: string, flag: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new LocalRuntimeError(
              'PortInUse',
              `port ${port} on ${host} is already in use: stop what uses it or choose another with ${flag}`,
              flag,
            )
          : new LocalRuntimeError(
              'StartFailed',
              `cannot listen on ${host}:${port} (${flag}): ${error.message}`,
              flag,
            ),
      ),
    );
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

async function ensureTable(make: () => Promise<void>): Promise<void> {
  try {
    await make();
  } catch (error) {
    // A persisted --data-dir already has its tables (and their data).
    if ((error as Error).name !== 'ResourceInUseException') throw error;
  }
}

async function enrollSimulatorUsers(
  apiUrl: string,
  sim: RunningSimulator,
  err: Writer | null,
): Promise<{ userId: string; enrollmentId: string }[]> {
  const enrolled: { userId: string; enrollmentId: string }[] = [];
  for (const user of sim.world.users()) {
    const segment = BRANDS[user.brand].authSegment;
    // The real OAuth code flow (spec 5.2): our authorize route → the simulator's sign-in page →
    // approve as the user → our callback with code and state.
    try {
      const authorize = await fetch(`${apiUrl}/oauth/${segment}/authorize`, { redirect: 'manual' });
      const signIn = authorize.headers.get('location');
      if (authorize.status !== 302 || !signIn) throw new Error(`authorize answered ${authorize.status}`);
      const approve = await fetch(signIn, {
        method: 'POST',
        body: new URLSearchParams({ user: user.id }),
        redirect: 'manual',
      });
      const callback = approve.headers.get('location');
      if (approve.status !== 302 || !callback) throw new Error(`sign-in answered ${approve.status}`);
      const done = await fetch(new URL(callback, apiUrl), { headers: { accept: 'application/json' } });
      const body = (await done.json()) as { enrollmentId?: string; error?: { message?: string } };
      if (done.status !== 200 || !body.enrollmentId)
        throw new Error(`callback answered ${done.status}: ${body.error?.message ?? ''}`);
      enrolled.push({ userId: user.id, enrollmentId: body.enrollmentId });
    } catch (error) {
      err?.write(`carhook: enrolling simulator user ${user.id} failed: ${(error as Error).message}\n`);
    }
  }
  return enrolled;
}

function apiCredentialsSource(api: RealApiOptions): LocalSecretSource {
  return api.credentialsFile
    ? { kind: 'file', path: api.credentialsFile }
    : { kind: 'env', variable: LOCAL_SECRET_ENV.apiClient };
}

/** Where the real map API's credentials come from, or undefined: map updates are then not polled. */
function mapCredentialsSource(
  api: RealApiOptions,
  env: Readonly<Record<string, string | undefined>>,
): LocalSecretSource | undefined {
  if (api.mapCredentialsFile) return { kind: 'file', path: api.mapCredentialsFile };
  const value = env[LOCAL_SECRET_ENV.mapApi];
  return value !== undefined && value.trim() !== ''
    ? { kind: 'env', variable: LOCAL_SECRET_ENV.mapApi }
    : undefined;
}

/** What the banner says of the map API. */
function describeMapSource(source: LocalSecretSource | undefined): string {
  if (!source) return `not polled: no credentials (--map-credentials <file> or ${LOCAL_SECRET_ENV.mapApi})`;
  return source.kind === 'file'
    ? `credentials from ${source.path}`
    : `credentials from ${LOCAL_SECRET_ENV.mapApi}`;
}

export async function startLocalRuntime(options: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  const env = options.env ?? process.env;
  const out: Writer | null = options.out === undefined ? process.stdout : options.out;
  const err: Writer | null = options.err === undefined ? process.stderr : options.err;
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? DEFAULT_PORT;
  const simPort = options.simPort ?? DEFAULT_SIM_PORT;
  const pollIntervalMs = options.pollIntervalMs ?? 5000;
  const quota = options.quota ?? (options.api ? 120 : 600);
  const pollConcurrency = options.pollConcurrency ?? 4;
  if (!Number.isInteger(pollConcurrency) || pollConcurrency < 1 || pollConcurrency > 64) {
    throw new LocalRuntimeError(
      'InvalidOption',
      `pollConcurrency: ${String(options.pollConcurrency)} must be a whole number from 1 to 64`,
      'pollConcurrency',
    );
  }
  const cleanups: (() => Promise<void>)[] = [];
  const unwind = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };

  await ensurePortFree(port, host, '--port');
  if (!options.api) await ensurePortFree(simPort, host, '--sim-port');
  if (options.api) {
    // Read now: a missing credential is a start-up message, not a failure on every poll.
    const source = apiCredentialsSource(options.api);
    await createLocalSecrets({ env, apiClient: source, keyRing: { kind: 'value', json: '{}' } })
      .apiClient()
      .catch((error: unknown) => {
        throw new LocalRuntimeError(
          'Config',
          `API credentials: ${(error as Error).message} (set ${LOCAL_SECRET_ENV.apiClient}='{"clientId":"…","clientSecret":"…"}' or pass --api-credentials <file>)`,
          'apiCredentials',
        );
      });
  }

  const simWorld = options.api
    ? undefined
    : { seed: options.seed ?? 1, vehicles: options.vehicles ?? DEFAULT_VEHICLES };
  // One runtime per data directory (two DynamoDB Local JVMs on one file would corrupt it); taken
  // before anything in it is read or written, released last.
  const lock = options.dataDir ? await lockDataDir(options.dataDir) : undefined;
  if (lock) cleanups.push(() => lock.release());
  const { state } = await loadOrCreateState(options.dataDir, Date.now(), simWorld).catch(
    async (error: unknown) => {
      await unwind();
      throw error;
    },
  );
  if (
    simWorld &&
    state.simWorld &&
    (state.simWorld.seed !== simWorld.seed || state.simWorld.vehicles !== simWorld.vehicles)
  ) {
    // Another world would not match the enrollments and states stored in this data dir.
    await unwind();
    throw new LocalRuntimeError(
      'InvalidOption',
      `--data-dir ${options.dataDir} holds a simulator world of --vehicles ${state.simWorld.vehicles} --seed ${state.simWorld.seed}: start with those, or use another --data-dir`,
      '--data-dir',
    );
  }
  const adminToken = options.adminToken ?? state.adminToken;

  let dynamo: DynamoDbLocal;
  try {
    if (options.dataDir) await mkdir(join(options.dataDir, 'dynamodb'), { recursive: true, mode: 0o700 });
    dynamo = await startDynamoDbLocal({
      ...(options.dynamoPort !== undefined ? { port: options.dynamoPort } : {}),
      ...(options.dataDir ? { dataDir: join(options.dataDir, 'dynamodb') } : {}),
    });
  } catch (error) {
    await unwind();
    if (error instanceof JavaMissingError) throw new LocalRuntimeError('JavaMissing', error.message);
    throw new LocalRuntimeError('StartFailed', `DynamoDB Local did not start: ${(error as Error).message}`);
  }
  cleanups.push(() => dynamo.stop());

  try {
    const client = dynamoDbLocalClient(dynamo.endpoint);
    cleanups.push(async () => client.destroy());
    await ensureTable(() => createTable(client, TABLE_NAME));
    await ensureTable(() => createQueueTable(client, QUEUE_TABLE_NAME));

    const rateBudgetConfig = { limit: quota, windowMs: 60_000, safetyMargin: 0.1 };
    const { rateBudget, ...stores } = createDynamoStores({
      client,
      tableName: TABLE_NAME,
      rateBudget: rateBudgetConfig,
    });
    const pollQueue = new LocalQueue<PollJob>({
      client,
      tableName: QUEUE_TABLE_NAME,
      queueName: QUEUE_NAMES.pollJobs,
    });
    const deliveryQueue = new LocalQueue<DeliveryJob>({
      client,
      tableName: QUEUE_TABLE_NAME,
      queueName: QUEUE_NAMES.deliveries,
    });
    const jsonlPath =
      options.jsonlPath ?? join(options.dataDir ?? join(tmpdir(), `carhook-${process.pid}`), 'events.jsonl');
    const bus = new LocalBus({ out, jsonlPath });

    let sim: RunningSimulator | undefined;
    if (!options.api) {
      try {
        sim = await startSimulator({
          port: simPort,
          host,
          clock: 'real',
          startTime: state.simStartTime,
          vehicles: simWorld?.vehicles ?? DEFAULT_VEHICLES,
          seed: simWorld?.seed ?? 1,
          quota: { limit: quota, windowSeconds: 60 },
        });
      } catch (error) {
        if (error instanceof SimulatorStartError && error.code === 'EADDRINUSE') {
          throw new LocalRuntimeError(
            'PortInUse',
            `simulator port ${simPort} is already in use: choose another with --sim-port`,
            '--sim-port',
          );
        }
        throw new LocalRuntimeError(
          'StartFailed',
          `the simulator did not start: ${(error as Error).message}`,
        );
      }
      const started = sim;
      cleanups.push(() => started.close());
      // Same seed and world start as the first run: the same world (ids included), now at wall time.
      const behind = Date.now() - sim.world.now();
      if (behind > 0) await fetch(`${sim.url}/_sim/clock/advance`, jsonPost({ ms: behind }));
    }

    const keyRing = parseKeyRing('local key ring', state.keyRingJson);
    const mapSource = options.api ? mapCredentialsSource(options.api, env) : undefined;
    const localSecrets = sim
      ? createLocalSecrets({
          apiClient: {
            kind: 'value',
            name: 'simulator client',
            json: JSON.stringify({ clientId: sim.clientId, clientSecret: sim.clientSecret }),
          },
          keyRing: { kind: 'value', json: state.keyRingJson },
          // The simulator's map API takes its client's credentials.
          mapApi: {
            kind: 'value',
            name: 'simulator map client',
            json: JSON.stringify({ username: sim.clientId, password: sim.clientSecret }),
          },
        })
      : createLocalSecrets({
          env,
          apiClient: apiCredentialsSource(options.api as RealApiOptions),
          keyRing: { kind: 'value', json: state.keyRingJson },
          ...(mapSource ? { mapApi: mapSource } : {}),
        });
    const secrets: CarhookSecrets = {
      apiClient: localSecrets.apiClient,
      mapApi: localSecrets.mapApi,
      // One ring object for the life of the process: the runtime's cipher is built once.
      keyRing: { load: async () => keyRing },
    };

    const api = sim
      ? {
          baseUrl: sim.baseUrl,
          authUrl: sim.authUrl,
          brands: Object.values(BRANDS).map((b) => b.authSegment),
        }
      : (options.api as RealApiOptions);
    // Every request, poll and delivery of this runtime happens in this process: the console's
    // quota and lag page reads them from here.
    const recent = createMetricsWindow({ now: () => Date.now(), quota: { limit: quota, windowSeconds: 60 } });
    const runtime = createRuntime(
      {
        api: { baseUrl: api.baseUrl, authUrl: api.authUrl, brands: api.brands },
        quota: { requests: quota, windowSeconds: 60 },
        pollIntervalSeconds: pollIntervalMs / 1000,
        ...(options.pollStrategy ? { pollStrategy: options.pollStrategy } : {}),
        // Locally the cadence is the point: alerts known active are followed every cycle, so a fix
        // shows within seconds (the quota still bounds it).
        polling: {
          cycleMs: pollIntervalMs,
          activeAlertsEveryMs: pollIntervalMs,
          ...(options.servicesIntervalMs !== undefined
            ? { servicesIntervalMs: options.servicesIntervalMs }
            : {}),
          ...(options.mapIntervalMs !== undefined ? { mapIntervalMs: options.mapIntervalMs } : {}),
          ...options.polling,
        },
        stateKey: Buffer.from(state.stateKey, 'base64'),
        version: options.version ?? '0.1.0-local',
        ...(port !== 0 ? { publicUrl: `http://${host.includes(':') ? `[${host}]` : host}:${port}` } : {}),
      },
      { stores, rateBudget, bus, secrets, pollQueue, metrics: recent.sink },
    );
    // Carhook's own servers are never a webhook target: a subscription could otherwise call the
    // simulator's control routes, DynamoDB Local or this API and read the answers in its delivery
    // log. The API's port is known once it listens (it may be 0 = any), hence a function.
    let apiPort: number | undefined = port === 0 ? undefined : port;
    const reservedPorts = (): ReservedPort[] => [
      ...(apiPort !== undefined ? [{ port: apiPort, what: 'HTTP API' }] : []),
      ...(sim ? [{ port: Number(new URL(sim.url).port), what: 'simulator' }] : []),
      { port: dynamo.port, what: 'DynamoDB Local' },
    ];
    const allowList = compileAllowList({
      ...parseAllowEntries(options.webhookAllowHosts ?? DEFAULT_WEBHOOK_ALLOW_HOSTS),
      reservedPorts,
    });
    if (!allowList.ok) {
      throw new LocalRuntimeError(
        'InvalidOption',
        `--allow-webhook-host: "${allowList.error.value}" is not an IP address, CIDR or hostname`,
        '--allow-webhook-host',
      );
    }
    const webhooks = await createWebhooks(runtime, {
      ...createDynamoSubscriptionStores({ client, tableName: TABLE_NAME }),
      deliveryQueue,
      senderOptions: { allowInsecureLoopback: true, allowList: allowList.value },
      onProblem: (problem) => err?.write(`carhook: webhook ${problem.kind}: ${problem.message}\n`),
      ...(options.retrySchedule ? { retrySchedule: options.retrySchedule } : {}),
    });
    // fanOutSubscriber's contract, plus the first attempts tracked, so a shutdown lets them finish.
    const firstAttempts = new Set<Promise<void>>();
    const unsubscribe = bus.subscribe(
      async (event) => {
        const { settled } = await webhooks.engine.fanOut(event);
        const tracked = settled.catch(() => {}).finally(() => firstAttempts.delete(tracked));
        firstAttempts.add(tracked);
      },
      { name: 'webhooks' },
    );
    cleanups.push(async () => unsubscribe());

    const app = createHttpApp(
      {
        runtime,
        subscriptions: webhooks.service,
        recentMetrics: recent.snapshot,
        onError: (error, where) =>
          err?.write(
            `carhook: ${where.method} ${where.path} failed: ${(error as Error)?.message ?? String(error)}\n`,
          ),
      },
      { auth: { kind: 'admin-token', token: adminToken } },
    );
    const server = createAdaptorServer({ fetch: app.fetch });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'EADDRINUSE'
            ? new LocalRuntimeError(
                'PortInUse',
                `port ${port} on ${host} is already in use: choose another with --port`,
                '--port',
              )
            : new LocalRuntimeError(
                'StartFailed',
                `cannot listen on ${host}:${port}: ${error.message}`,
                '--port',
              ),
        ),
      );
      server.listen(port, host, () => resolve());
    });
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          if ('closeIdleConnections' in server) server.closeIdleConnections();
          setTimeout(() => {
            if ('closeAllConnections' in server) server.closeAllConnections();
          }, 200).unref();
        }),
    );
    const address = server.address();
    const boundPort = typeof address === 'object' && address ? address.port : port;
    apiPort = boundPort;
    const apiUrl = `http://${host}:${boundPort}`;

    // Enrolled before any worker runs: a job left from a previous run then uses the fresh tokens.
    const enrolled = sim ? await enrollSimulatorUsers(apiUrl, sim, err) : [];

    // ---- workers ---------------------------------------------------------------------------------
    const stop = new AbortController();
    const report = (what: string) => (e: { stage?: string; message: string }) =>
      err?.write(`carhook: ${what}${e.stage ? ` ${e.stage}` : ''}: ${e.message}\n`);

    const pollWorkers = runConsumer<unknown>(
      pollQueue,
      async (body, { signal }) => {
        const result = await runPollJob(await runtime.pollDeps({ signal }), body);
        recordJobResult(runtime.metrics, result);
      },
      {
        signal: stop.signal,
        concurrency: pollConcurrency,
        visibilityTimeoutSeconds: 60,
        onError: report('poll queue'),
        onResult: (r) => {
          if (r.status === 'failed') err?.write(`carhook: poll job failed: ${r.error ?? r.id}\n`);
        },
      },
    );
    const deliveryWorkers = runConsumer<DeliveryJob>(deliveryQueue, deliveryJobHandler(webhooks.engine), {
      signal: stop.signal,
      concurrency: 8,
      visibilityTimeoutSeconds: 60,
      parse: parseDeliveryJob,
      onError: report('delivery queue'),
      onResult: (r) => {
        if (r.status === 'failed') err?.write(`carhook: delivery job failed: ${r.error ?? r.id}\n`);
      },
    });

    const timers: NodeJS.Timeout[] = [];
    let running: Promise<unknown> = Promise.resolve();
    const every = (ms: number, name: string, work: () => Promise<unknown>) => {
      let busy = false;
      let since = 0;
      let warned = false;
      // A run that never settles would stop this loop without a word: say so once it is long overdue.
      const stuckAfterMs = Math.max(30_000, 10 * ms);
      const tick = () => {
        if (stop.signal.aborted) return;
        if (busy) {
          // A slow run is never overlapped by the next.
          if (!warned && Date.now() - since > stuckAfterMs) {
            warned = true;
            err?.write(
              `carhook: ${name} still running after ${Math.round((Date.now() - since) / 1000)} s; its next runs wait for it\n`,
            );
          }
          return;
        }
        busy = true;
        since = Date.now();
        warned = false;
        const run = work()
          .catch((error: unknown) =>
            err?.write(`carhook: ${name} failed: ${(error as Error)?.message ?? String(error)}\n`),
          )
          .finally(() => {
            busy = false;
          });
        running = Promise.all([running, run]);
      };
      tick();
      timers.push(setInterval(tick, ms));
    };
    every(pollIntervalMs, 'planner', async () => runPlanner(await runtime.plannerDeps()));
    // The sweeper: events committed but not published (crash between commit and publish) and
    // deliveries whose queue message was lost go out again, with the same ids.
    every(Math.max(10_000, pollIntervalMs), 'sweeper', async () => {
      await republishPending(runtime.republishDeps());
      await webhooks.engine.sweep();
    });

    let closing: Promise<void> | undefined;
    const close = () => {
      closing ??= (async () => {
        for (const timer of timers) clearInterval(timer);
        stop.abort();
        await running;
        await Promise.all([pollWorkers, deliveryWorkers]);
        // A first attempt still going finishes (bounded by the sender's timeout); its record stays
        // pending otherwise and the sweeper queues it again after a restart.
        await Promise.all([...firstAttempts]);
        await unwind();
      })();
      return closing;
    };

    return {
      apiUrl,
      port: boundPort,
      adminToken,
      dynamoEndpoint: dynamo.endpoint,
      jsonlPath,
      pollConcurrency,
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      ...(sim ? { sim } : {}),
      runtime,
      webhooks,
      bus,
      pollIntervalMs,
      quota,
      retrySchedule: options.retrySchedule?.name ?? 'standard',
      mapApi: sim ? "the simulator's (its client credentials)" : describeMapSource(mapSource),
      enrolled,
      close,
    };
  } catch (error) {
    await unwind();
    if (error instanceof LocalRuntimeError) throw error;
    if (error instanceof SecretError) throw new LocalRuntimeError('Config', error.message);
    throw new LocalRuntimeError(
      'StartFailed',
      `the local runtime did not start: ${(error as Error)?.message ?? String(error)}`,
    );
  }
}

const jsonPost = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** The banner `carhook dev` prints once everything runs. */
export function banner(rt: LocalRuntime, options: { generatedToken: boolean; receiverUrl?: string }): string {
  const lines = [
    '',
    'Carhook is running locally',
    `  HTTP API        ${rt.apiUrl}   (GET /health, /oauth/<brand>/authorize, /subscriptions, /events)`,
    rt.sim
      ? `  simulator       ${rt.sim.url}   control API ${rt.sim.url}/_sim   (${rt.sim.world.vehicleCount} vehicles, ${rt.sim.world.users().length} users)`
      : `  API             ${rt.runtime.settings.api.baseUrl}   auth ${rt.runtime.settings.api.authUrl}`,
    ...(rt.sim
      ? []
      : [`  map API         ${rt.runtime.settings.api.baseUrl}/applications/map/v1   ${rt.mapApi}`]),
    `  DynamoDB Local  ${rt.dynamoEndpoint}   ${rt.dataDir ? `persisted in ${rt.dataDir}` : 'in memory'}`,
    `  events (JSONL)  ${rt.jsonlPath}`,
    `  polling         every ${rt.pollIntervalMs} ms, quota ${rt.quota} requests / 60 s`,
    `  cadences        services every ${formatDuration(rt.runtime.pollingConfig.servicesIntervalMs)}, map every ${formatDuration(rt.runtime.pollingConfig.mapIntervalMs)}; webhook retries ${rt.retrySchedule}`,
    `  enrolled        ${rt.enrolled.length} user(s) through OAuth`,
    ...(options.receiverUrl
      ? [`  demo receiver   ${options.receiverUrl}   (subscribed to every event, verifies signatures)`]
      : []),
    // A token the user supplied is theirs: never echoed (terminals are logged, shared, recorded).
    options.generatedToken
      ? `  admin token     ${rt.adminToken}   (generated; set CARHOOK_ADMIN_TOKEN to choose it)`
      : '  admin token     from the environment (CARHOOK_ADMIN_TOKEN)',
    '',
    options.generatedToken
      ? `  export CARHOOK_URL=${rt.apiUrl} CARHOOK_ADMIN_TOKEN=${rt.adminToken}`
      : `  export CARHOOK_URL=${rt.apiUrl}`,
    '  npx carhook subscriptions add --url http://127.0.0.1:9000/webhooks   # then: npx carhook receiver --secret whsec_…',
    '',
    'Ready. Ctrl-C to stop.',
    '',
  ];
  return lines.join('\n');
}
