/**
 * The one-machine runtime (`carhook dev`): DynamoDB Local (in memory, or persisted in `--data-dir`),
 * the simulator (unless a real API is given), the planner timer, poll workers, the local bus
 * (compact lines + JSONL), the fan-out and delivery workers, the sweeper and the HTTP API, all over
 * the same composition root as Lambda (functions/runtime/runtime.ts, webhooks.ts). Clean shutdown:
 * timers stop, in-flight polls and deliveries finish (or go back to their durable queue), servers
 * close, DynamoDB Local stops. This file only orders the start; each piece lives in its own module.
 */

import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDynamoStores, createDynamoSubscriptionStores, createTable } from '../adapters/dynamodb';
import { LocalBus } from '../adapters/local/bus';
import {
  type DynamoDbLocal,
  DynamoDbLocalAborted,
  dynamoDbLocalClient,
  JavaMissingError,
  startDynamoDbLocal,
} from '../adapters/local/dynamodb-local';
import { createQueueTable, LocalQueue } from '../adapters/local/queue';
import { SecretError } from '../adapters/secrets/types';
import type { DeliveryJob } from '../core/delivery/engine';
import type { PollJob } from '../core/polling/jobs';
import { runPlanner } from '../core/polling/planner';
import { QUEUE_NAMES } from '../core/queue/ports';
import { compileAllowList, parseAllowEntries, type ReservedPort } from '../core/webhooks/ssrf';
import { createHttpApp } from '../http/app';
import { createMetricsWindow } from '../runtime/metrics-window';
import { createRuntime } from '../runtime/runtime';
import { DEFAULT_SETTINGS } from '../runtime/settings';
import { createWebhooks } from '../runtime/webhooks';
import { lockDataDir } from './data-dir';
import { LocalRuntimeError } from './errors';
import {
  DEFAULT_WEBHOOK_ALLOW_HOSTS,
  LOCAL_DEFAULTS,
  type LocalRuntime,
  type LocalRuntimeOptions,
  QUEUE_TABLE_NAME,
  TABLE_NAME,
  type Writer,
} from './options';
import { ensurePortFree, listenHttp } from './ports';
import { checkApiCredentials, describeMapSource, localSecrets, mapCredentialsSource } from './secrets';
import {
  enrollSimulatorUsers,
  type RunningSimulator,
  SIMULATOR_BRAND_SEGMENTS,
  simulatorClock,
  startLocalSimulator,
} from './simulator';
import { loadOrCreateState } from './state';
import { createTimers } from './timers';
import { drainLocalQueues, startLocalWorkers, subscribeFanOut, sweepOnce } from './workers';

export { banner } from './banner';
export * from './options';

async function ensureTable(make: () => Promise<void>): Promise<void> {
  try {
    await make();
  } catch (error) {
    // A persisted --data-dir already has its tables (and their data).
    if ((error as Error).name !== 'ResourceInUseException') throw error;
  }
}

export async function startLocalRuntime(options: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  const env = options.env ?? process.env;
  const out: Writer | null = options.out === undefined ? process.stdout : options.out;
  const err: Writer | null = options.err === undefined ? process.stderr : options.err;
  const host = options.host ?? LOCAL_DEFAULTS.host;
  const port = options.port ?? LOCAL_DEFAULTS.port;
  const simPort = options.simPort ?? LOCAL_DEFAULTS.simPort;
  const pollIntervalMs = options.pollIntervalMs ?? LOCAL_DEFAULTS.pollIntervalMs;
  const quota =
    options.quota ?? (options.api ? DEFAULT_SETTINGS.quotaRequests : LOCAL_DEFAULTS.simulatorQuota);
  const pollConcurrency = options.pollConcurrency ?? LOCAL_DEFAULTS.pollConcurrency;
  if (!Number.isInteger(pollConcurrency) || pollConcurrency < 1 || pollConcurrency > 64) {
    throw new LocalRuntimeError(
      'InvalidOption',
      `pollConcurrency: ${String(options.pollConcurrency)} must be a whole number from 1 to 64`,
      'pollConcurrency',
    );
  }
  const simulated = options.clock === 'simulated';
  if (simulated && options.api) {
    throw new LocalRuntimeError(
      'InvalidOption',
      "the simulated clock is the simulator's: it cannot be used with a real API",
      'clock',
    );
  }
  // Every part of the runtime reads time through this; on the simulated clock it becomes the
  // simulator's once that is started.
  let clockNow: () => number = Date.now;
  const now = () => clockNow();
  const cleanups: (() => Promise<void>)[] = [];
  const unwind = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  const interrupted = () =>
    new LocalRuntimeError('Interrupted', 'interrupted during start-up: everything it had started is stopped');
  /** Between two steps of the start: stop here when interrupted (the catch below unwinds). */
  const checkpoint = () => {
    if (options.signal?.aborted) throw interrupted();
  };

  await ensurePortFree(port, host, '--port');
  if (!options.api) await ensurePortFree(simPort, host, '--sim-port');
  if (options.api) await checkApiCredentials(options.api, env);

  const simWorld = options.api
    ? undefined
    : { seed: options.seed ?? LOCAL_DEFAULTS.seed, vehicles: options.vehicles ?? LOCAL_DEFAULTS.vehicles };
  // One runtime per data directory (two DynamoDB Local JVMs on one file would corrupt it); taken
  // before anything in it is read or written, released last.
  if (options.signal?.aborted) throw interrupted();
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
      port: options.dynamoPort,
      dataDir: options.dataDir ? join(options.dataDir, 'dynamodb') : undefined,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    await unwind();
    if (error instanceof DynamoDbLocalAborted) throw interrupted();
    if (error instanceof JavaMissingError) throw new LocalRuntimeError('JavaMissing', error.message);
    throw new LocalRuntimeError('StartFailed', `DynamoDB Local did not start: ${(error as Error).message}`);
  }
  cleanups.push(() => dynamo.stop());

  try {
    checkpoint();
    const client = dynamoDbLocalClient(dynamo.endpoint);
    cleanups.push(async () => client.destroy());
    await ensureTable(() => createTable(client, TABLE_NAME));
    await ensureTable(() => createQueueTable(client, QUEUE_TABLE_NAME));
    checkpoint();

    const rateBudgetConfig = {
      limit: quota,
      windowMs: 60_000,
      safetyMargin: 0.1,
      ...(options.quotaMax ? { maxLimit: options.quotaMax } : {}),
    };
    const { rateBudget, ...stores } = createDynamoStores({
      client,
      tableName: TABLE_NAME,
      rateBudget: rateBudgetConfig,
    });
    const queue = <T>(queueName: string) =>
      new LocalQueue<T>({ client, tableName: QUEUE_TABLE_NAME, queueName, now });
    const pollQueue = queue<PollJob>(QUEUE_NAMES.pollJobs);
    const deliveryQueue = queue<DeliveryJob>(QUEUE_NAMES.deliveries);
    const jsonlPath =
      options.jsonlPath ?? join(options.dataDir ?? join(tmpdir(), `carhook-${process.pid}`), 'events.jsonl');
    const bus = new LocalBus({ out, jsonlPath });

    let sim: RunningSimulator | undefined;
    if (simWorld) {
      const started = await startLocalSimulator(
        {
          port: simPort,
          host,
          startTime: state.simStartTime,
          ...simWorld,
          quota,
          clock: simulated ? 'manual' : 'real',
        },
        Date.now(),
      );
      sim = started;
      cleanups.push(() => started.close());
      if (simulated) clockNow = simulatorClock(started).now;
      checkpoint();
    }

    const secrets = localSecrets(
      sim
        ? { kind: 'simulator', clientId: sim.clientId, clientSecret: sim.clientSecret }
        : { kind: 'api', api: options.api as NonNullable<typeof options.api>, env },
      state.keyRingJson,
    );
    const api = sim
      ? { baseUrl: sim.baseUrl, authUrl: sim.authUrl, brands: SIMULATOR_BRAND_SEGMENTS }
      : (options.api as NonNullable<typeof options.api>);
    // Every request, poll and delivery of this runtime happens in this process: the console's
    // quota and lag page reads them from here.
    const recent = createMetricsWindow({ now, quota: { limit: quota, windowSeconds: 60 } });
    const runtime = createRuntime(
      {
        api: { baseUrl: api.baseUrl, authUrl: api.authUrl, brands: api.brands },
        quota: {
          requests: quota,
          windowSeconds: 60,
          ...(options.quotaMax ? { maxRequests: options.quotaMax } : {}),
        },
        pollIntervalSeconds: pollIntervalMs / 1000,
        pollStrategy: options.pollStrategy,
        // Locally the cadence is the point: alerts known active are followed every cycle, so a fix
        // shows within seconds (the quota still bounds it).
        polling: {
          cycleMs: pollIntervalMs,
          activeAlertsEveryMs: pollIntervalMs,
          ...(options.servicesIntervalMs !== undefined
            ? { servicesIntervalMs: options.servicesIntervalMs }
            : {}),
          ...(options.mapIntervalMs !== undefined ? { mapIntervalMs: options.mapIntervalMs } : {}),
          ...(options.silenceAfterMs !== undefined ? { silenceAfterMs: options.silenceAfterMs } : {}),
          ...options.polling,
        },
        ...(options.freshnessTargets && Object.keys(options.freshnessTargets).length > 0
          ? { freshnessTargets: options.freshnessTargets }
          : {}),
        stateKey: Buffer.from(state.stateKey, 'base64'),
        version: options.version ?? LOCAL_DEFAULTS.version,
        publicUrl: port !== 0 ? `http://${host.includes(':') ? `[${host}]` : host}:${port}` : undefined,
      },
      { stores, rateBudget, bus, secrets, pollQueue, metrics: recent.sink, now },
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
      retrySchedule: options.retrySchedule,
    });
    const fanOut = subscribeFanOut(bus, webhooks);
    cleanups.push(async () => fanOut.unsubscribe());

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
    const server = await listenHttp(app.fetch, port, host);
    cleanups.push(() => server.close());
    apiPort = server.port;
    const apiUrl = `http://${host}:${server.port}`;

    checkpoint();
    // Enrolled before any worker runs: a job left from a previous run then uses the fresh tokens.
    const enrolled = sim ? await enrollSimulatorUsers(apiUrl, sim, err) : [];
    checkpoint();

    const workerOptions = { runtime, webhooks, pollQueue, deliveryQueue, pollConcurrency, err, now };
    const plan = async () => {
      await runPlanner(await runtime.plannerDeps());
    };
    const sweep = () => sweepOnce(runtime, webhooks);
    // On the simulated clock nothing runs by itself: `advance` runs what is due.
    const workers = simulated ? { stop: async () => {} } : startLocalWorkers(workerOptions);
    const timers = createTimers(err);
    if (!simulated) {
      timers.every(pollIntervalMs, 'planner', plan);
      timers.every(Math.max(10_000, pollIntervalMs), 'sweeper', sweep);
    }
    // On the simulated clock, every advance of the simulator's clock (this runtime's `advance`, or
    // anyone's POST /_sim/clock/advance) runs one step before the simulator answers: a planner
    // cycle, the sweeper, then every job, fan-out and delivery due, until nothing is left.
    let stepping: Promise<void> = Promise.resolve();
    let stepError: unknown;
    const step = (): Promise<void> => {
      stepping = stepping.then(async () => {
        try {
          await plan();
          await sweep();
          // Handling a message may publish events (fan-out: first attempts) or queue more work.
          for (let pass = 0; pass < 1000; pass++) {
            const received = await drainLocalQueues(workerOptions);
            const attempts = await fanOut.drain();
            if (received === 0 && attempts === 0) return;
          }
          throw new Error('the queues did not settle after 1000 passes');
        } catch (error) {
          stepError = error;
          err?.write(`carhook: simulated clock step failed: ${(error as Error)?.message ?? String(error)}\n`);
        }
      });
      return stepping;
    };
    if (simulated && sim) {
      const stopListening = sim.onClockAdvance(step);
      cleanups.push(async () => stopListening());
    }
    const advance = async (ms: number): Promise<void> => {
      if (!simulated || !sim) {
        throw new LocalRuntimeError('InvalidOption', 'advance() needs the simulated clock', 'clock');
      }
      stepError = undefined;
      await simulatorClock(sim).advance(ms);
      if (stepError !== undefined) throw stepError;
    };

    let closing: Promise<void> | undefined;
    const close = () => {
      closing ??= (async () => {
        await timers.stop();
        await workers.stop();
        await fanOut.drain();
        await unwind();
      })();
      return closing;
    };

    return {
      apiUrl,
      port: server.port,
      adminToken,
      dynamoEndpoint: dynamo.endpoint,
      jsonlPath,
      pollConcurrency,
      dataDir: options.dataDir || undefined,
      sim,
      runtime,
      webhooks,
      bus,
      pollIntervalMs,
      quota,
      retrySchedule: options.retrySchedule?.name ?? DEFAULT_SETTINGS.retrySchedule,
      mapApi: sim
        ? "the simulator's (its client credentials)"
        : describeMapSource(mapCredentialsSource(options.api as NonNullable<typeof options.api>, env)),
      enrolled,
      clock: simulated ? 'simulated' : 'wall',
      advance,
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
