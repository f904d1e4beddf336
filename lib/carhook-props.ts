/**
 * What a Carhook deployment is configured with: the construct's props, their defaults and checks
 * (`resolveCarhookConfig`, so a wrong value stops `cdk synth` naming the prop), and the runtime
 * environment every function receives (`carhookRuntimeEnvironment`).
 */
import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { type FreshnessKind, freshnessKinds } from '../functions/core/capacity/kinds';
import { type RetryScheduleName, retryScheduleNames } from '../functions/core/delivery/retry-schedule';
import { type PollStrategy, pollStrategies } from '../functions/core/polling/config';
import { compileAllowList, parseAllowEntries } from '../functions/core/webhooks/ssrf';
import { RUNTIME_ENV } from '../functions/runtime/config';
import {
  FRESHNESS_TARGETS_SETTING,
  type FreshnessTargets,
  formatFreshnessTargets,
} from '../functions/runtime/freshness-targets';
import { DEFAULT_SETTINGS, INTEGER_SETTINGS, type IntegerSetting } from '../functions/runtime/settings';
import { CARHOOK_DEFAULTS } from './config';
import { type CarhookData, EVENT_SOURCE_PATTERN } from './constructs/carhook-data';
import type { CarhookLogLevel } from './constructs/carhook-function';
import type { CarhookAlarmThresholds } from './monitoring';
import {
  CarhookConfigError,
  requireHttpsUrl,
  requireIntegerInRange,
  requirePattern,
  requireWholeDuration,
} from './validation';

export interface CarhookProps {
  /** `{base_url}` of the connected-car API: every API address is relative to it. https only. */
  readonly apiBaseUrl: string;
  /** `{auth_url}` of the OAuth 2.0 authorize and token endpoints. https only. */
  readonly authUrl: string;
  /**
   * `<brand_path_segment>`s of the OAuth addresses users can enroll with: one per brand
   * the API client is registered for. At least one.
   */
  readonly brands: readonly string[];
  /**
   * Requests allowed per window for the API client, shared by every worker. `max`: the highest
   * `X-RateLimit-Limit` followed when the API grants a higher quota (unset: never past `requests`;
   * a lower limit is always followed).
   * @default 120 requests per 60 seconds
   */
  readonly quota?: { readonly requests: number; readonly window: Duration; readonly max?: number };
  /**
   * How often the planner runs (EventBridge Scheduler `rate(...)`, whole minutes).
   * @default 1 minute
   */
  readonly pollInterval?: Duration;
  /**
   * How the planner spends the quota: `carhook` (learned change rates under staleness guarantees),
   * `round-robin` (the fair order) or `naive` (four reads per vehicle per cycle).
   * @default 'carhook'
   */
  readonly pollStrategy?: PollStrategy;
  /**
   * How often each vehicle's services (activation status) are read: `vehicle.services.changed`
   * appears within this period. Set as `CARHOOK_SERVICES_INTERVAL_SECONDS`.
   * @default 1 day
   */
  readonly servicesInterval?: Duration;
  /**
   * How often map update information is read (in bulk): `vehicle.map_update.available` appears
   * within this period. Set as `CARHOOK_MAP_INTERVAL_SECONDS`.
   * @default 1 day
   */
  readonly mapInterval?: Duration;
  /**
   * A vehicle whose reads succeed but whose records stop advancing this long is told silent
   * (`vehicle.reporting.stopped`), until its own history gives a learned threshold. Set as
   * `CARHOOK_SILENCE_AFTER_SECONDS`.
   * @default 48 hours
   */
  readonly silenceAfter?: Duration;
  /**
   * The p95 lag each kind of change should stay within (alerts, trips, collisions, fuel,
   * maintenance, services, map), e.g. `{ alerts: Duration.minutes(5), maintenance: Duration.hours(1) }`:
   * `GET /capacity` says whether each is met. Set as `CARHOOK_FRESHNESS_TARGETS` (`alerts=300s,maintenance=3600s`).
   * @default no target
   */
  readonly freshnessTargets?: Partial<Record<FreshnessKind, Duration>>;
  /**
   * Webhook retry schedule: `standard` (retries over about 27.6 h, endpoints disabled after failing
   * for 5 days) or `fast` (retries over about 40 s, disabled after failing for 2 minutes; for trials).
   * Set as `CARHOOK_RETRY_SCHEDULE`.
   * @default 'standard'
   */
  readonly retrySchedule?: RetryScheduleName;
  /**
   * X-Ray active tracing of every function, through Powertools Tracer. Off: no traces, and the
   * bundles carry neither the Tracer nor the X-Ray SDK (smaller, faster first invocations).
   * @default true
   */
  readonly tracing?: boolean;
  /**
   * `vehicle.maintenance.due` fires when a countdown crosses one of these.
   * @default 30 days / 1,000 km
   */
  readonly maintenanceDueThreshold?: { readonly days?: number; readonly distanceKm?: number };
  /**
   * EventBridge `Source` of every event, and the prefix of the schema names.
   * @default 'carhook'
   */
  readonly eventSource?: string;
  /**
   * How long published events stay in the event log (DynamoDB TTL). Also the archive's retention
   * unless `archiveRetention` says otherwise.
   * @default 30 days
   */
  readonly eventLogRetention?: Duration;
  /**
   * Publish to an existing bus instead of creating one. Not with `data` (give it to CarhookData).
   * @default - a new bus
   */
  readonly existingEventBus?: IEventBus;
  /**
   * Retention of the bus archive (replay). Not with `data`.
   * @default `eventLogRetention`
   */
  readonly archiveRetention?: Duration;
  /** Subscribed to the alarm topic. */
  readonly alarmEmail?: string;
  /** Alarms go to this topic instead of a new one (with `alarmEmail` too, the address subscribes to it). */
  readonly existingAlarmTopic?: ITopic;
  readonly alarmThresholds?: CarhookAlarmThresholds;
  /**
   * Removal policy of the stateful resources created here (table, key, secrets). Not with `data`.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Stateful resources created elsewhere, typically `CarhookDataStack.data` in its own stack.
   * @default - created inside this construct
   */
  readonly data?: CarhookData;
  /**
   * Powertools service name (logger `service`, metric dimension `service`). Give each deployment in
   * one account its own so their alarms do not mix.
   * @default 'carhook'
   */
  readonly serviceName?: string;
  /** Log level of every function. @default 'INFO' */
  readonly logLevel?: CarhookLogLevel;
  /**
   * Where webhooks may go besides the public internet (IP addresses, CIDRs, hostnames or
   * `*.suffix`), e.g. a receiver inside your network: the same allow-list as
   * `carhook dev --allow-webhook-host`. Set as `CARHOOK_WEBHOOK_ALLOW_HOSTS`.
   * @default - none: only public addresses
   */
  readonly webhookAllowHosts?: readonly string[];
  /**
   * Origins besides the API's own that `GET /oauth/{brand}/authorize?redirect=` may send users
   * back to (`https://console.example.com`). Set as `CARHOOK_OAUTH_REDIRECT_ORIGINS`.
   * @default - none: only the API's own callback
   */
  readonly oauthRedirectOrigins?: readonly string[];
}

/** CarhookProps with every default applied and checked: what the runtime is configured from. */
export interface CarhookConfig {
  readonly apiBaseUrl: string;
  readonly authUrl: string;
  readonly brands: readonly string[];
  readonly quota: { readonly requests: number; readonly window: Duration; readonly max?: number };
  readonly pollInterval: Duration;
  readonly pollStrategy: PollStrategy;
  /** Unset: the runtime's default (1 day). */
  readonly servicesInterval?: Duration;
  readonly mapInterval?: Duration;
  readonly silenceAfter?: Duration;
  /** Checked; empty: no target. */
  readonly freshnessTargets: FreshnessTargets;
  readonly retrySchedule?: RetryScheduleName;
  readonly tracing: boolean;
  readonly maintenanceDueThreshold: { readonly days: number; readonly distanceKm: number };
  readonly eventSource: string;
  readonly eventLogRetention: Duration;
  readonly serviceName: string;
  readonly metricsNamespace: string;
  readonly logLevel: CarhookLogLevel;
  readonly webhookAllowHosts: readonly string[];
  readonly oauthRedirectOrigins: readonly string[];
}

/** A runtime setting's bounds, as the runtime checks them (functions/runtime/settings.ts). */
const bounds = (setting: IntegerSetting, per = 1): [number, number] => [
  Math.ceil(INTEGER_SETTINGS[setting].min / per),
  Math.floor(INTEGER_SETTINGS[setting].max / per),
];

const BRAND_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const SERVICE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const LOG_LEVELS: readonly CarhookLogLevel[] = ['DEBUG', 'INFO', 'WARN', 'ERROR'];

/**
 * Applies the defaults (CARHOOK_DEFAULTS) and checks every prop and prop combination, so a wrong
 * configuration stops `cdk synth` with the prop named instead of failing half-way through a deploy.
 */
export function resolveCarhookConfig(props: CarhookProps): CarhookConfig {
  requireHttpsUrl('apiBaseUrl', props.apiBaseUrl);
  requireHttpsUrl('authUrl', props.authUrl);

  if (!Array.isArray(props.brands) || props.brands.length === 0) {
    throw new CarhookConfigError('brands', 'must list at least one OAuth brand path segment');
  }
  for (const [i, brand] of props.brands.entries()) {
    requirePattern(
      `brands[${i}]`,
      brand,
      BRAND_SEGMENT,
      'a URL path segment of letters, digits, dots, dashes or underscores',
    );
  }
  const duplicate = props.brands.find((b, i) => props.brands.indexOf(b) !== i);
  if (duplicate !== undefined) throw new CarhookConfigError('brands', `lists '${duplicate}' twice`);

  const quota: CarhookConfig['quota'] = props.quota ?? CARHOOK_DEFAULTS.quota;
  requireIntegerInRange('quota.requests', quota.requests, ...bounds('quotaRequests'));
  requireWholeDuration('quota.window', quota.window, 'seconds', ...bounds('quotaWindowSeconds'));
  if (quota.max !== undefined) requireIntegerInRange('quota.max', quota.max, ...bounds('quotaMaxRequests'));

  const pollInterval = props.pollInterval ?? CARHOOK_DEFAULTS.pollInterval;
  // Whole minutes: EventBridge Scheduler's `rate(...)` has no shorter unit.
  requireWholeDuration('pollInterval', pollInterval, 'minutes', ...bounds('pollIntervalSeconds', 60));
  const pollStrategy = props.pollStrategy ?? DEFAULT_SETTINGS.pollStrategy;
  if (!(pollStrategies as readonly string[]).includes(pollStrategy)) {
    throw new CarhookConfigError('pollStrategy', `must be one of ${pollStrategies.join(', ')}`);
  }
  if (props.servicesInterval)
    requireWholeDuration(
      'servicesInterval',
      props.servicesInterval,
      'seconds',
      ...bounds('servicesIntervalSeconds'),
    );
  if (props.mapInterval)
    requireWholeDuration('mapInterval', props.mapInterval, 'seconds', ...bounds('mapIntervalSeconds'));
  if (props.silenceAfter)
    requireWholeDuration('silenceAfter', props.silenceAfter, 'seconds', ...bounds('silenceAfterSeconds'));
  const freshnessTargets: FreshnessTargets = {};
  for (const [kind, d] of Object.entries(props.freshnessTargets ?? {})) {
    if (!(freshnessKinds as readonly string[]).includes(kind)) {
      throw new CarhookConfigError(
        `freshnessTargets.${kind}`,
        `is not a kind of change (one of ${freshnessKinds.join(', ')})`,
      );
    }
    if (d === undefined) continue;
    requireWholeDuration(`freshnessTargets.${kind}`, d, 'seconds', 1, FRESHNESS_TARGETS_SETTING.maxMs / 1000);
    freshnessTargets[kind as FreshnessKind] = d.toSeconds() * 1000;
  }
  if (props.retrySchedule !== undefined && !retryScheduleNames.includes(props.retrySchedule)) {
    throw new CarhookConfigError('retrySchedule', `must be one of ${retryScheduleNames.join(', ')}`);
  }

  const maintenanceDueThreshold = {
    days: props.maintenanceDueThreshold?.days ?? CARHOOK_DEFAULTS.maintenanceDueThreshold.days,
    distanceKm:
      props.maintenanceDueThreshold?.distanceKm ?? CARHOOK_DEFAULTS.maintenanceDueThreshold.distanceKm,
  };
  requireIntegerInRange(
    'maintenanceDueThreshold.days',
    maintenanceDueThreshold.days,
    ...bounds('maintenanceDueDays'),
  );
  requireIntegerInRange(
    'maintenanceDueThreshold.distanceKm',
    maintenanceDueThreshold.distanceKm,
    ...bounds('maintenanceDueKm'),
  );

  const eventSource = props.eventSource ?? props.data?.eventSource ?? CARHOOK_DEFAULTS.eventSource;
  requirePattern(
    'eventSource',
    eventSource,
    EVENT_SOURCE_PATTERN,
    "1-256 of [A-Za-z0-9._/-], not starting with 'aws.'",
  );

  const eventLogRetention = props.eventLogRetention ?? CARHOOK_DEFAULTS.eventLogRetention;
  requireWholeDuration('eventLogRetention', eventLogRetention, 'days', ...bounds('eventLogRetentionDays'));

  const serviceName = props.serviceName ?? CARHOOK_DEFAULTS.serviceName;
  requirePattern(
    'serviceName',
    serviceName,
    SERVICE_NAME,
    '1-64 of letters, digits, dots, dashes or underscores',
  );
  const logLevel = props.logLevel ?? 'INFO';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new CarhookConfigError('logLevel', `must be one of ${LOG_LEVELS.join(', ')}, got '${logLevel}'`);
  }

  if (props.data) {
    // These configure resources CarhookData owns: silently ignoring them would deploy something else.
    const owned = ['existingEventBus', 'archiveRetention', 'removalPolicy'] as const;
    for (const prop of owned) {
      if (props[prop] !== undefined) {
        throw new CarhookConfigError(
          prop,
          'cannot be combined with `data`: set it on CarhookData (CarhookDataStack) instead',
        );
      }
    }
    if (props.eventSource !== undefined && props.eventSource !== props.data.eventSource) {
      throw new CarhookConfigError(
        'eventSource',
        `is '${props.eventSource}' but \`data\` archives and names schemas for '${props.data.eventSource}': use the same source on both`,
      );
    }
  }

  return {
    apiBaseUrl: props.apiBaseUrl,
    authUrl: props.authUrl,
    brands: [...props.brands],
    quota,
    pollInterval,
    pollStrategy,
    ...(props.servicesInterval ? { servicesInterval: props.servicesInterval } : {}),
    ...(props.mapInterval ? { mapInterval: props.mapInterval } : {}),
    ...(props.silenceAfter ? { silenceAfter: props.silenceAfter } : {}),
    freshnessTargets,
    ...(props.retrySchedule ? { retrySchedule: props.retrySchedule } : {}),
    tracing: props.tracing ?? true,
    maintenanceDueThreshold,
    eventSource,
    eventLogRetention,
    serviceName,
    metricsNamespace: CARHOOK_DEFAULTS.metricsNamespace,
    logLevel,
    webhookAllowHosts: checkedAllowHosts(props.webhookAllowHosts ?? []),
    oauthRedirectOrigins: (props.oauthRedirectOrigins ?? []).map((origin, i) => {
      requireHttpsUrl(`oauthRedirectOrigins[${i}]`, origin);
      return new URL(origin).origin;
    }),
  };
}

/** The same parser the runtime uses, so a bad entry stops `cdk synth` naming it. */
function checkedAllowHosts(entries: readonly string[]): string[] {
  const compiled = compileAllowList(parseAllowEntries(entries));
  if (!compiled.ok) {
    throw new CarhookConfigError(
      'webhookAllowHosts',
      `"${compiled.error.value}" is not an IP address, CIDR, hostname or *.suffix`,
    );
  }
  return entries.map((e) => e.trim()).filter((e) => e !== '');
}

/**
 * The configuration every Carhook function receives as environment variables. The runtime's
 * config loader reads exactly these names. (`CARHOOK_EVENT_SOURCE` comes with `bindBus`, table and
 * bus names with `bindTable`/`bindBus`, secret ARNs with `bindSecret`.)
 */
export function carhookRuntimeEnvironment(config: CarhookConfig): Record<string, string> {
  return {
    [RUNTIME_ENV.apiBaseUrl]: config.apiBaseUrl,
    [RUNTIME_ENV.authUrl]: config.authUrl,
    [RUNTIME_ENV.brands]: config.brands.join(','),
    [RUNTIME_ENV.quotaRequests]: String(config.quota.requests),
    [RUNTIME_ENV.quotaWindowSeconds]: String(config.quota.window.toSeconds()),
    ...(config.quota.max ? { [RUNTIME_ENV.quotaMaxRequests]: String(config.quota.max) } : {}),
    [RUNTIME_ENV.pollIntervalSeconds]: String(config.pollInterval.toSeconds()),
    [RUNTIME_ENV.pollStrategy]: config.pollStrategy,
    [RUNTIME_ENV.maintenanceDueDays]: String(config.maintenanceDueThreshold.days),
    [RUNTIME_ENV.maintenanceDueKm]: String(config.maintenanceDueThreshold.distanceKm),
    [RUNTIME_ENV.eventLogRetentionDays]: String(config.eventLogRetention.toDays()),
    ...(config.servicesInterval
      ? { [RUNTIME_ENV.servicesIntervalSeconds]: String(config.servicesInterval.toSeconds()) }
      : {}),
    ...(config.mapInterval
      ? { [RUNTIME_ENV.mapIntervalSeconds]: String(config.mapInterval.toSeconds()) }
      : {}),
    ...(config.silenceAfter
      ? { [RUNTIME_ENV.silenceAfterSeconds]: String(config.silenceAfter.toSeconds()) }
      : {}),
    ...(Object.keys(config.freshnessTargets).length > 0
      ? { [RUNTIME_ENV.freshnessTargets]: formatFreshnessTargets(config.freshnessTargets) }
      : {}),
    ...(config.retrySchedule ? { [RUNTIME_ENV.retrySchedule]: config.retrySchedule } : {}),
    ...(config.webhookAllowHosts.length > 0
      ? { [RUNTIME_ENV.webhookAllowHosts]: config.webhookAllowHosts.join(',') }
      : {}),
    ...(config.oauthRedirectOrigins.length > 0
      ? { [RUNTIME_ENV.oauthRedirectOrigins]: config.oauthRedirectOrigins.join(',') }
      : {}),
  };
}
