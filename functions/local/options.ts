/**
 * The options of the local runtime (`carhook dev`) and what a running one exposes. The defaults of
 * the local mode are here (applied once, in runtime.ts); the settings it shares with a deployment
 * (quota against a real API, cadences, retry schedule) default as the deployment's do
 * (functions/runtime/settings.ts).
 */

import type { LocalBus } from '../adapters/local/bus';
import type { RetrySchedule } from '../core/delivery/retry-schedule';
import type { PollingConfig, PollStrategy } from '../core/polling/config';
import type { FreshnessTargets } from '../runtime/freshness-targets';
import type { Runtime } from '../runtime/runtime';
import type { Webhooks } from '../runtime/webhooks';
import type { RunningSimulator } from './simulator';

export const TABLE_NAME = 'carhook';
export const QUEUE_TABLE_NAME = 'carhook-queues';
/** The local mode's own defaults (the settings it shares with a deployment: ../runtime/settings.ts). */
export const LOCAL_DEFAULTS = {
  port: 8080,
  simPort: 4010,
  vehicles: 10,
  seed: 1,
  host: '127.0.0.1',
  /** The planner's cadence locally: short, so a change made in the simulator shows within seconds. */
  pollIntervalMs: 5000,
  /** Requests per 60 s against the simulator (which is given the same quota). */
  simulatorQuota: 600,
  pollConcurrency: 4,
  version: '0.1.0-local',
} as const;
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
  /**
   * Aborted (Ctrl-C) while starting: the start stops at its next step, or at once while DynamoDB
   * Local boots, unwinds what it started, and rejects with LocalRuntimeError `Interrupted`.
   */
  readonly signal?: AbortSignal;
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
  /** The highest `X-RateLimit-Limit` followed when the API raises the quota (default: never past `quota`). */
  readonly quotaMax?: number;
  /** Poll jobs run at once (default 4, 1 to 64): more drains a large fleet's cycle faster. */
  readonly pollConcurrency?: number;
  /** How the planner spends the quota (default `carhook`). */
  readonly pollStrategy?: PollStrategy;
  /** How often services are read (default daily): `vehicle.services.changed` within this period. */
  readonly servicesIntervalMs?: number;
  /** How often map updates are read (default daily): `vehicle.map_update.available` within this period. */
  readonly mapIntervalMs?: number;
  /** Records not advancing this long: `vehicle.reporting.stopped` (default 48 h, until learned). */
  readonly silenceAfterMs?: number;
  /** The p95 lag each kind of change should stay within (ms): `GET /capacity` says whether each is met. */
  readonly freshnessTargets?: FreshnessTargets;
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
  /**
   * `wall` (default): the planner and the sweeper run on timers, workers wait for their queues.
   * `simulated` (with the simulator only): the simulator's manual clock is the runtime's clock and
   * nothing runs by itself; `advance(ms)` moves the clock and runs everything that is due, so tests
   * advance time instead of waiting for it.
   */
  readonly clock?: 'wall' | 'simulated';
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
  readonly clock: 'wall' | 'simulated';
  /**
   * On the simulated clock: moves the simulator's clock by `ms`, then runs one planner cycle and
   * the sweeper and handles every poll job, fan-out and delivery that is due, until nothing is
   * left; resolves when all of it has settled. Refused on the wall clock.
   */
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

export type { Writer } from './simulator';
