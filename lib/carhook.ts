import { type Duration, type RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { CARHOOK_DEFAULTS } from './config';
import { CarhookData, EVENT_SOURCE_PATTERN } from './constructs/carhook-data';
import {
  CarhookFunction,
  type CarhookFunctionProps,
  type CarhookLogLevel,
} from './constructs/carhook-function';
import { type CarhookAlarmThresholds, CarhookMonitoring } from './monitoring';
import {
  CarhookConfigError,
  requireHttpsUrl,
  requireIntegerInRange,
  requirePattern,
  requireWholeDuration,
} from './validation';

export interface CarhookProps {
  /** `{base_url}` of the connected-car API (spec 4): every API address is relative to it. https only. */
  readonly apiBaseUrl: string;
  /** `{auth_url}` of the OAuth 2.0 endpoints (spec 5.2). https only. */
  readonly authUrl: string;
  /**
   * `<brand_path_segment>`s of the OAuth addresses (spec 5.2) users can enroll with: one per brand
   * the API client is registered for. At least one.
   */
  readonly brands: readonly string[];
  /**
   * Requests allowed per window for the API client, shared by every worker (spec 8).
   * @default 120 requests per 60 seconds
   */
  readonly quota?: { readonly requests: number; readonly window: Duration };
  /**
   * How often the planner runs (EventBridge Scheduler `rate(...)`, whole minutes).
   * @default 1 minute
   */
  readonly pollInterval?: Duration;
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
}

/** CarhookProps with every default applied and checked: what the runtime is configured from. */
export interface CarhookConfig {
  readonly apiBaseUrl: string;
  readonly authUrl: string;
  readonly brands: readonly string[];
  readonly quota: { readonly requests: number; readonly window: Duration };
  readonly pollInterval: Duration;
  readonly maintenanceDueThreshold: { readonly days: number; readonly distanceKm: number };
  readonly eventSource: string;
  readonly eventLogRetention: Duration;
  readonly serviceName: string;
  readonly metricsNamespace: string;
  readonly logLevel: CarhookLogLevel;
}

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
    throw new CarhookConfigError('brands', 'must list at least one brand path segment (spec 5.2)');
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

  const quota = props.quota ?? CARHOOK_DEFAULTS.quota;
  requireIntegerInRange('quota.requests', quota.requests, 1, 100_000);
  requireWholeDuration('quota.window', quota.window, 'seconds', 1, 3600);

  const pollInterval = props.pollInterval ?? CARHOOK_DEFAULTS.pollInterval;
  requireWholeDuration('pollInterval', pollInterval, 'minutes', 1, 1440);

  const maintenanceDueThreshold = {
    days: props.maintenanceDueThreshold?.days ?? CARHOOK_DEFAULTS.maintenanceDueThreshold.days,
    distanceKm:
      props.maintenanceDueThreshold?.distanceKm ?? CARHOOK_DEFAULTS.maintenanceDueThreshold.distanceKm,
  };
  requireIntegerInRange('maintenanceDueThreshold.days', maintenanceDueThreshold.days, 1, 730);
  requireIntegerInRange('maintenanceDueThreshold.distanceKm', maintenanceDueThreshold.distanceKm, 1, 100_000);

  const eventSource = props.eventSource ?? props.data?.eventSource ?? CARHOOK_DEFAULTS.eventSource;
  requirePattern(
    'eventSource',
    eventSource,
    EVENT_SOURCE_PATTERN,
    "1-256 of [A-Za-z0-9._/-], not starting with 'aws.'",
  );

  const eventLogRetention = props.eventLogRetention ?? CARHOOK_DEFAULTS.eventLogRetention;
  requireWholeDuration('eventLogRetention', eventLogRetention, 'days', 1, 3650);

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
    maintenanceDueThreshold,
    eventSource,
    eventLogRetention,
    serviceName,
    metricsNamespace: CARHOOK_DEFAULTS.metricsNamespace,
    logLevel,
  };
}

/**
 * The configuration every Carhook function receives as environment variables. The runtime's
 * config loader reads exactly these names. (`CARHOOK_EVENT_SOURCE` comes with `bindBus`, table and
 * bus names with `bindTable`/`bindBus`, secret ARNs with `bindSecret`.)
 */
export function carhookRuntimeEnvironment(config: CarhookConfig): Record<string, string> {
  return {
    CARHOOK_API_BASE_URL: config.apiBaseUrl,
    CARHOOK_AUTH_URL: config.authUrl,
    CARHOOK_BRANDS: config.brands.join(','),
    CARHOOK_QUOTA_REQUESTS: String(config.quota.requests),
    CARHOOK_QUOTA_WINDOW_SECONDS: String(config.quota.window.toSeconds()),
    CARHOOK_POLL_INTERVAL_SECONDS: String(config.pollInterval.toSeconds()),
    CARHOOK_MAINTENANCE_DUE_DAYS: String(config.maintenanceDueThreshold.days),
    CARHOOK_MAINTENANCE_DUE_KM: String(config.maintenanceDueThreshold.distanceKm),
    CARHOOK_EVENT_LOG_RETENTION_DAYS: String(config.eventLogRetention.toDays()),
  };
}

/**
 * Carhook: turns a connected-car API that can only be polled into events on EventBridge and signed
 * webhooks. Drop it into any stack; give it `data` from a CarhookDataStack to keep the stateful
 * resources in their own stack (recommended, and what bin/app.ts does).
 *
 * Composition:
 * - `data` (CarhookData): key, table, bus + archive, schema registry, secrets.
 * - `monitoring` (CarhookMonitoring): alarm topic, metric alarms, dashboard.
 * - Stateless part (functions, queues, scheduler, HTTP API): built in the constructor below, after
 *   `monitoring`, from `this.config`, `this.data` and `this.monitoring`, with `addFunction` for every
 *   Lambda and `monitoring.addDeadLetterQueue` for every DLQ. That is the one place it plugs in.
 */
export class Carhook extends Construct {
  readonly config: CarhookConfig;
  readonly data: CarhookData;
  readonly monitoring: CarhookMonitoring;
  private readonly functionsById = new Map<string, CarhookFunction>();

  constructor(scope: Construct, id: string, props: CarhookProps) {
    super(scope, id);
    this.config = resolveCarhookConfig(props);
    if (props.data) assertSameEnvironment(this, props.data);

    this.data =
      props.data ??
      new CarhookData(this, 'Data', {
        eventSource: this.config.eventSource,
        archiveRetention: props.archiveRetention ?? this.config.eventLogRetention,
        ...(props.existingEventBus ? { existingEventBus: props.existingEventBus } : {}),
        ...(props.removalPolicy === undefined ? {} : { removalPolicy: props.removalPolicy }),
      });

    this.monitoring = new CarhookMonitoring(this, 'Monitoring', {
      ...(props.alarmEmail === undefined ? {} : { alarmEmail: props.alarmEmail }),
      ...(props.existingAlarmTopic ? { existingAlarmTopic: props.existingAlarmTopic } : {}),
      ...(props.alarmThresholds ? { thresholds: props.alarmThresholds } : {}),
      metricsNamespace: this.config.metricsNamespace,
      serviceName: this.config.serviceName,
      quota: this.config.quota,
    });

    // Extension point: the stateless part (planner on a schedule, poll worker on its queue, webhook
    // fan-out and delivery, HTTP API) is composed here from this.config, this.data and
    // this.monitoring. It needs the handlers of functions/handlers, which this round does not have.
  }

  /**
   * A house function configured for this deployment: service name, metrics namespace, log level
   * and the runtime configuration (carhookRuntimeEnvironment) as environment; grants are added with
   * its `bind*` helpers.
   */
  addFunction(id: string, props: CarhookFunctionProps): CarhookFunction {
    if (this.functionsById.has(id)) throw new CarhookConfigError(`addFunction(${id})`, 'is already defined');
    const fn = new CarhookFunction(this, id, {
      serviceName: this.config.serviceName,
      metricsNamespace: this.config.metricsNamespace,
      logLevel: this.config.logLevel,
      ...props,
      environment: { ...carhookRuntimeEnvironment(this.config), ...props.environment },
    });
    this.functionsById.set(id, fn);
    return fn;
  }

  /** Every function created with `addFunction`, by id. */
  get functions(): ReadonlyMap<string, CarhookFunction> {
    return this.functionsById;
  }
}

/** Cross-region or cross-account references cannot be wired by CloudFormation exports. */
function assertSameEnvironment(scope: Construct, data: CarhookData): void {
  const here = Stack.of(scope);
  const there = Stack.of(data);
  for (const attr of ['region', 'account'] as const) {
    const a = here[attr];
    const b = there[attr];
    if (!Token.isUnresolved(a) && !Token.isUnresolved(b) && a !== b) {
      throw new CarhookConfigError(
        'data',
        `is in ${attr} ${b} but Carhook is in ${attr} ${a}: deploy both in the same one`,
      );
    }
  }
}
