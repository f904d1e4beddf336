/**
 * The runtime configuration, read from the environment variables the CDK stack sets
 * (lib/config.ts `CARHOOK_ENV`, lib/carhook.ts `carhookRuntimeEnvironment`) and, for queue URLs,
 * from the variables each handler's `bindQueue` sets (`CARHOOK_POLL_QUEUE_URL`…).
 *
 * Every variable is validated with zod; a wrong or missing one is reported by name, all at once,
 * so a broken deployment says exactly what to fix on its first invocation. Each entry point asks
 * only for the parts it uses (`needs`): the planner never needs the API's secrets, for instance.
 */

import * as z from 'zod';
import type { RetryScheduleName } from '../core/delivery/retry-schedule';
import type { PollStrategy } from '../core/polling/config';
import { FRESHNESS_TARGETS_SETTING, type FreshnessTargets, parseFreshnessTargets } from './freshness-targets';
import { CHOICE_SETTINGS, DEFAULT_EVENT_SOURCE, envChoice, envInteger, INTEGER_SETTINGS } from './settings';

/** Every variable the runtime reads. */
export const RUNTIME_ENV = {
  tableName: 'CARHOOK_TABLE_NAME',
  eventBusName: 'CARHOOK_EVENT_BUS_NAME',
  eventSource: 'CARHOOK_EVENT_SOURCE',
  apiClientSecretArn: 'CARHOOK_API_CLIENT_SECRET_ARN',
  tokenKeyRingSecretArn: 'CARHOOK_TOKEN_KEY_RING_SECRET_ARN',
  mapApiSecretArn: 'CARHOOK_MAP_API_SECRET_ARN',
  apiBaseUrl: 'CARHOOK_API_BASE_URL',
  authUrl: 'CARHOOK_AUTH_URL',
  brands: 'CARHOOK_BRANDS',
  // The tunable settings: named, bounded and defaulted in ./settings.ts.
  quotaRequests: INTEGER_SETTINGS.quotaRequests.names.env,
  quotaWindowSeconds: INTEGER_SETTINGS.quotaWindowSeconds.names.env,
  quotaMaxRequests: INTEGER_SETTINGS.quotaMaxRequests.names.env,
  pollIntervalSeconds: INTEGER_SETTINGS.pollIntervalSeconds.names.env,
  maintenanceDueDays: INTEGER_SETTINGS.maintenanceDueDays.names.env,
  maintenanceDueKm: INTEGER_SETTINGS.maintenanceDueKm.names.env,
  eventLogRetentionDays: INTEGER_SETTINGS.eventLogRetentionDays.names.env,
  pollStrategy: CHOICE_SETTINGS.pollStrategy.names.env,
  servicesIntervalSeconds: INTEGER_SETTINGS.servicesIntervalSeconds.names.env,
  mapIntervalSeconds: INTEGER_SETTINGS.mapIntervalSeconds.names.env,
  silenceAfterSeconds: INTEGER_SETTINGS.silenceAfterSeconds.names.env,
  freshnessTargets: FRESHNESS_TARGETS_SETTING.names.env,
  retrySchedule: CHOICE_SETTINGS.retrySchedule.names.env,
  pollQueueUrl: 'CARHOOK_POLL_QUEUE_URL',
  fanOutQueueUrl: 'CARHOOK_FANOUT_QUEUE_URL',
  deliveryQueueUrl: 'CARHOOK_DELIVERY_QUEUE_URL',
  version: 'CARHOOK_VERSION',
  /** Comma-separated allow-list of webhook hosts besides the public internet (IP, CIDR, name, *.suffix). */
  webhookAllowHosts: 'CARHOOK_WEBHOOK_ALLOW_HOSTS',
  /** Comma-separated origins the OAuth authorize route may redirect to besides the API's own. */
  oauthRedirectOrigins: 'CARHOOK_OAUTH_REDIRECT_ORIGINS',
  /** Where users reach Carhook's HTTP API: the re-authorization event links to its authorize route. */
  publicUrl: 'CARHOOK_PUBLIC_URL',
  /** The console authorizer's admin token (a Secrets Manager ARN). */
  consoleTokenSecretArn: 'CARHOOK_CONSOLE_TOKEN_SECRET_ARN',
} as const;

export type RuntimeEnvName = (typeof RUNTIME_ENV)[keyof typeof RUNTIME_ENV];

/** The parts of the configuration an entry point may require. */
export type ConfigNeed =
  | 'table'
  | 'bus'
  | 'api'
  /** The API client credentials and the token key ring (poll worker, HTTP API). */
  | 'secrets'
  /** The token key ring only (webhook functions: subscription secrets are sealed with it). */
  | 'keyRing'
  /** The console authorizer's admin-token secret. */
  | 'consoleToken'
  | 'pollQueue'
  | 'fanOutQueue'
  | 'deliveryQueue';

const NEEDED_VARIABLES: Readonly<Record<ConfigNeed, readonly RuntimeEnvName[]>> = {
  table: [RUNTIME_ENV.tableName],
  bus: [RUNTIME_ENV.eventBusName],
  api: [RUNTIME_ENV.apiBaseUrl, RUNTIME_ENV.authUrl, RUNTIME_ENV.brands],
  secrets: [RUNTIME_ENV.apiClientSecretArn, RUNTIME_ENV.tokenKeyRingSecretArn],
  keyRing: [RUNTIME_ENV.tokenKeyRingSecretArn],
  consoleToken: [RUNTIME_ENV.consoleTokenSecretArn],
  pollQueue: [RUNTIME_ENV.pollQueueUrl],
  fanOutQueue: [RUNTIME_ENV.fanOutQueueUrl],
  deliveryQueue: [RUNTIME_ENV.deliveryQueueUrl],
};

export interface RuntimeConfig {
  readonly tableName?: string;
  readonly eventBus?: { readonly name: string; readonly source: string };
  readonly api?: { readonly baseUrl: string; readonly authUrl: string; readonly brands: readonly string[] };
  /** The API's rate limit: requests per window per client_id; `maxRequests` the ceiling followed (0: `requests`). */
  readonly quota: {
    readonly requests: number;
    readonly windowSeconds: number;
    readonly maxRequests: number;
  };
  readonly pollIntervalSeconds: number;
  readonly pollStrategy: PollStrategy;
  readonly servicesIntervalSeconds: number;
  readonly mapIntervalSeconds: number;
  /** Records not advancing this long: `vehicle.reporting.stopped` (until learned from the vehicle's own). */
  readonly silenceAfterSeconds: number;
  /** The p95 lag each kind should stay within (ms); empty: no target. */
  readonly freshnessTargets: FreshnessTargets;
  readonly retrySchedule: RetryScheduleName;
  readonly maintenanceDue: { readonly days: number; readonly distanceKm: number };
  readonly eventLogRetentionDays: number;
  readonly secrets: {
    readonly apiClientArn?: string;
    readonly tokenKeyRingArn?: string;
    /** Absent: map update polling is skipped. */
    readonly mapApiArn?: string;
    readonly consoleTokenArn?: string;
  };
  readonly queues: { readonly pollJobs?: string; readonly fanOut?: string; readonly deliveries?: string };
  /** Reported by GET /health. */
  readonly version: string;
  /** `CARHOOK_PUBLIC_URL`: the base of the authorize link in `enrollment.reauthorization_required`. */
  readonly publicUrl?: string;
  /** Where webhooks may go besides the public internet (IP, CIDR, name, `*.suffix`); checked here. */
  readonly webhookAllowHosts: readonly string[];
  /** Origins besides the API's own that the OAuth authorize route may send users back to. */
  readonly oauthRedirectOrigins: readonly string[];
}

export interface ConfigIssue {
  readonly variable: string;
  readonly message: string;
}

/** The environment is wrong: every problem, each naming its variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly kind = 'InvalidConfig';
  constructor(readonly issues: readonly ConfigIssue[]) {
    super(`invalid Carhook configuration: ${issues.map((i) => `${i.variable}: ${i.message}`).join('; ')}`);
  }
}

const blankToUndefined = (v: unknown): unknown => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an absolute http(s) URL' });

// Secrets Manager ARN (aws-facts: arn:<partition>:secretsmanager:<region>:<account>:secret:<name>-<6 chars>).
const secretArn = z
  .string()
  .regex(/^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+$/, {
    message: 'must be a Secrets Manager secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>)',
  });

const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema.optional());

/** A comma-separated list (blank entries dropped; unset: none), each entry checked by `entry`. */
const commaList = (entry: z.ZodType<string>) =>
  z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .split(',')
            .map((e) => e.trim())
            .filter((e) => e !== '')
        : [],
    z.array(entry).max(256),
  );

// Entries are parsed where webhooks are sent (runtime/webhooks.ts `allowListOptions`), with the
// allow-list code of `carhook dev --allow-webhook-host`; the CDK prop `webhookAllowHosts` checked
// them at synth. Only their count and length are bounded here.
const allowEntry = z.string().max(255);

const origin = z
  .url({ protocol: /^https?$/, message: 'each origin must be an absolute http(s) URL' })
  .transform((u) => new URL(u).origin);

// The `<brand_path_segment>` of the OAuth authorize and token addresses.
const BRAND = /^[a-z0-9][a-z0-9-]{0,63}$/;

const envSchema = z.object({
  [RUNTIME_ENV.tableName]: optional(
    z.string().regex(/^[A-Za-z0-9_.-]{3,255}$/, {
      message: 'must be a DynamoDB table name (3-255 of A-Z a-z 0-9 _ . -)',
    }),
  ),
  [RUNTIME_ENV.eventBusName]: optional(
    z
      .string()
      .regex(
        /^([A-Za-z0-9/_.-]{1,256}|arn:aws[a-z-]*:events:[a-z0-9-]+:\d{12}:event-bus\/[A-Za-z0-9/_.-]+)$/,
        {
          message: 'must be an EventBridge bus name or ARN',
        },
      ),
  ),
  [RUNTIME_ENV.eventSource]: optional(
    z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,256}$/, { message: 'must be 1-256 of A-Z a-z 0-9 . _ -' })
      .refine((s) => !s.startsWith('aws.'), { message: 'must not start with "aws." (reserved by AWS)' }),
  ),
  [RUNTIME_ENV.apiClientSecretArn]: optional(secretArn),
  [RUNTIME_ENV.tokenKeyRingSecretArn]: optional(secretArn),
  [RUNTIME_ENV.mapApiSecretArn]: optional(secretArn),
  [RUNTIME_ENV.apiBaseUrl]: optional(httpUrl),
  [RUNTIME_ENV.authUrl]: optional(httpUrl),
  [RUNTIME_ENV.publicUrl]: optional(httpUrl),
  [RUNTIME_ENV.brands]: optional(
    z
      .string()
      .transform((s) => s.split(',').map((b) => b.trim()))
      .pipe(
        z
          .array(
            z.string().regex(BRAND, { message: 'each brand must be a brand path segment such as "cielo"' }),
          )
          .min(1),
      ),
  ),
  [RUNTIME_ENV.quotaRequests]: envInteger('quotaRequests'),
  [RUNTIME_ENV.quotaWindowSeconds]: envInteger('quotaWindowSeconds'),
  [RUNTIME_ENV.quotaMaxRequests]: envInteger('quotaMaxRequests'),
  [RUNTIME_ENV.pollIntervalSeconds]: envInteger('pollIntervalSeconds'),
  [RUNTIME_ENV.servicesIntervalSeconds]: envInteger('servicesIntervalSeconds'),
  [RUNTIME_ENV.mapIntervalSeconds]: envInteger('mapIntervalSeconds'),
  [RUNTIME_ENV.silenceAfterSeconds]: envInteger('silenceAfterSeconds'),
  [RUNTIME_ENV.freshnessTargets]: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const parsed = parseFreshnessTargets(raw);
      if (parsed.ok) return parsed.value;
      ctx.addIssue({ code: 'custom', message: `${parsed.field}: ${parsed.message}` });
      return z.NEVER;
    }),
  [RUNTIME_ENV.retrySchedule]: envChoice('retrySchedule'),
  [RUNTIME_ENV.maintenanceDueDays]: envInteger('maintenanceDueDays'),
  [RUNTIME_ENV.maintenanceDueKm]: envInteger('maintenanceDueKm'),
  [RUNTIME_ENV.eventLogRetentionDays]: envInteger('eventLogRetentionDays'),
  [RUNTIME_ENV.pollStrategy]: envChoice('pollStrategy'),
  [RUNTIME_ENV.pollQueueUrl]: optional(httpUrl),
  [RUNTIME_ENV.fanOutQueueUrl]: optional(httpUrl),
  [RUNTIME_ENV.deliveryQueueUrl]: optional(httpUrl),
  [RUNTIME_ENV.version]: optional(z.string().max(64)),
  [RUNTIME_ENV.webhookAllowHosts]: commaList(allowEntry),
  [RUNTIME_ENV.oauthRedirectOrigins]: commaList(origin),
  [RUNTIME_ENV.consoleTokenSecretArn]: optional(secretArn),
});

/**
 * Validates the environment for an entry point that needs `needs`. Never throws: the caller
 * decides (the Lambda handlers throw `ConfigError` on their first invocation).
 */
export function parseRuntimeConfig(
  env: Readonly<Record<string, string | undefined>>,
  needs: readonly ConfigNeed[] = [],
): { ok: true; config: RuntimeConfig } | { ok: false; issues: readonly ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  for (const need of needs) {
    for (const variable of NEEDED_VARIABLES[need]) {
      if ((env[variable] ?? '').trim() === '') issues.push({ variable, message: 'is required but not set' });
    }
  }
  const input: Record<string, string | undefined> = {};
  for (const name of Object.values(RUNTIME_ENV)) input[name] = env[name];
  const parsed = envSchema.safeParse(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const variable = String(issue.path[0] ?? '(environment)');
      if (!issues.some((i) => i.variable === variable)) issues.push({ variable, message: issue.message });
    }
  }
  if (issues.length > 0 || !parsed.success) return { ok: false, issues };
  const e = parsed.data;
  const baseUrl = e[RUNTIME_ENV.apiBaseUrl];
  const authUrl = e[RUNTIME_ENV.authUrl];
  const brands = e[RUNTIME_ENV.brands];
  const busName = e[RUNTIME_ENV.eventBusName];
  const version = e[RUNTIME_ENV.version];
  // An unset variable is an undefined property: each consumer reads its own.
  const config: RuntimeConfig = {
    tableName: e[RUNTIME_ENV.tableName],
    eventBus: busName
      ? { name: busName, source: e[RUNTIME_ENV.eventSource] ?? DEFAULT_EVENT_SOURCE }
      : undefined,
    api: baseUrl && authUrl && brands ? { baseUrl, authUrl, brands } : undefined,
    quota: {
      requests: e[RUNTIME_ENV.quotaRequests],
      windowSeconds: e[RUNTIME_ENV.quotaWindowSeconds],
      maxRequests: e[RUNTIME_ENV.quotaMaxRequests],
    },
    pollIntervalSeconds: e[RUNTIME_ENV.pollIntervalSeconds],
    pollStrategy: e[RUNTIME_ENV.pollStrategy],
    servicesIntervalSeconds: e[RUNTIME_ENV.servicesIntervalSeconds],
    mapIntervalSeconds: e[RUNTIME_ENV.mapIntervalSeconds],
    silenceAfterSeconds: e[RUNTIME_ENV.silenceAfterSeconds],
    freshnessTargets: e[RUNTIME_ENV.freshnessTargets],
    retrySchedule: e[RUNTIME_ENV.retrySchedule],
    maintenanceDue: { days: e[RUNTIME_ENV.maintenanceDueDays], distanceKm: e[RUNTIME_ENV.maintenanceDueKm] },
    eventLogRetentionDays: e[RUNTIME_ENV.eventLogRetentionDays],
    secrets: {
      apiClientArn: e[RUNTIME_ENV.apiClientSecretArn],
      tokenKeyRingArn: e[RUNTIME_ENV.tokenKeyRingSecretArn],
      mapApiArn: e[RUNTIME_ENV.mapApiSecretArn],
      consoleTokenArn: e[RUNTIME_ENV.consoleTokenSecretArn],
    },
    queues: {
      pollJobs: e[RUNTIME_ENV.pollQueueUrl],
      fanOut: e[RUNTIME_ENV.fanOutQueueUrl],
      deliveries: e[RUNTIME_ENV.deliveryQueueUrl],
    },
    version: version ?? '0.1.0',
    publicUrl: e[RUNTIME_ENV.publicUrl],
    webhookAllowHosts: e[RUNTIME_ENV.webhookAllowHosts],
    oauthRedirectOrigins: e[RUNTIME_ENV.oauthRedirectOrigins],
  };
  return { ok: true, config };
}

/** `parseRuntimeConfig` that throws `ConfigError` (entry points: fail fast, naming every variable). */
export function loadRuntimeConfig(
  env: Readonly<Record<string, string | undefined>>,
  needs: readonly ConfigNeed[] = [],
): RuntimeConfig {
  const r = parseRuntimeConfig(env, needs);
  if (!r.ok) throw new ConfigError(r.issues);
  return r.config;
}

/** A value the config guarantees once `needs` included it (keeps the handlers free of `!`). */
export function required<T>(value: T | undefined, variable: RuntimeEnvName): T {
  if (value === undefined) throw new ConfigError([{ variable, message: 'is required but not set' }]);
  return value;
}
