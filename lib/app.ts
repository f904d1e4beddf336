import { Annotations, type App, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { type RetryScheduleName, retryScheduleNames } from '../functions/core/delivery/retry-schedule';
import { type PollStrategy, pollStrategies } from '../functions/core/polling/config';
import type { CarhookProps } from './carhook';
import { CarhookStack } from './carhook-stack';
import { CARHOOK_DEFAULTS } from './config';
import type { CarhookData } from './constructs/carhook-data';
import type { CarhookLogLevel } from './constructs/carhook-function';
import { CarhookDataStack } from './stateful-stack';
import { CarhookConfigError } from './validation';

/**
 * The ready app's settings, read from CDK context (`-c key=value` or cdk.json "context"). Only
 * `apiBaseUrl`, `authUrl` and `brands` have no real default: they fall back to documentation
 * placeholders so `cdk synth` works offline, and synth warns that such a stack cannot poll.
 */
export interface AppSettings {
  /** Name of the stateless stack; the stateful one is `<stackName>-Data`. */
  readonly stackName: string;
  readonly apiBaseUrl: string;
  readonly authUrl: string;
  readonly brands: readonly string[];
  readonly alarmEmail?: string;
  readonly alarmTopicArn?: string;
  readonly eventBusArn?: string;
  readonly eventBusName?: string;
  readonly eventSource: string;
  readonly eventLogRetentionDays: number;
  readonly archiveRetentionDays?: number;
  readonly pollIntervalMinutes: number;
  readonly pollStrategy: PollStrategy;
  /** Webhook retries: `standard` (about 27.6 h, the construct's default) or `fast` (about 40 s, for staging and rehearsals). */
  readonly retrySchedule?: RetryScheduleName;
  /** X-Ray tracing of every function (on by default); `false` also leaves the X-Ray SDK out of the bundles. */
  readonly tracing?: boolean;
  readonly quotaRequests: number;
  readonly quotaWindowSeconds: number;
  /** The highest `X-RateLimit-Limit` followed (unset: never past `quotaRequests`). */
  readonly quotaMaxRequests?: number;
  readonly maintenanceDueDays: number;
  readonly maintenanceDueKm: number;
  readonly removalPolicy: 'retain' | 'destroy';
  readonly logLevel: CarhookLogLevel;
  readonly serviceName: string;
  /** Deployment region/account; default: the CLI's (CDK_DEFAULT_REGION / CDK_DEFAULT_ACCOUNT). */
  readonly region?: string;
  readonly account?: string;
  /** Context keys that fell back to a documentation placeholder. */
  readonly placeholders: readonly PlaceholderKey[];
}

/** Defaults of the context keys, documented in the report/README from here. */
export const APP_CONTEXT_DEFAULTS = {
  stackName: 'Carhook',
  // RFC 2606 documentation hosts: synth works, a deploy with them polls nothing (synth warns).
  apiBaseUrl: 'https://api.example.com',
  authUrl: 'https://auth.example.com',
  // The simulator's brands (sim/world/catalog.ts).
  brands: 'cielo,pavo',
  eventSource: CARHOOK_DEFAULTS.eventSource,
  eventLogRetentionDays: CARHOOK_DEFAULTS.eventLogRetention.toDays(),
  pollIntervalMinutes: CARHOOK_DEFAULTS.pollInterval.toMinutes(),
  pollStrategy: 'carhook',
  quotaRequests: CARHOOK_DEFAULTS.quota.requests,
  quotaWindowSeconds: CARHOOK_DEFAULTS.quota.window.toSeconds(),
  maintenanceDueDays: CARHOOK_DEFAULTS.maintenanceDueThreshold.days,
  maintenanceDueKm: CARHOOK_DEFAULTS.maintenanceDueThreshold.distanceKm,
  removalPolicy: 'retain',
  logLevel: 'INFO',
  serviceName: CARHOOK_DEFAULTS.serviceName,
} as const;

const PLACEHOLDER_KEYS = ['apiBaseUrl', 'authUrl', 'brands'] as const;
type PlaceholderKey = (typeof PLACEHOLDER_KEYS)[number];

/** Reads and checks the context; every error names the context key. */
export function readAppSettings(context: (key: string) => unknown): AppSettings {
  const str = (
    key:
      | keyof typeof APP_CONTEXT_DEFAULTS
      | 'alarmEmail'
      | 'alarmTopicArn'
      | 'eventBusArn'
      | 'eventBusName'
      | 'region'
      | 'account'
      | 'retrySchedule',
  ) => {
    const value = context(key);
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') {
      throw new CarhookConfigError(`context ${key}`, `must be a string, got ${JSON.stringify(value)}`);
    }
    return value.trim();
  };
  const int = (
    key: keyof typeof APP_CONTEXT_DEFAULTS | 'archiveRetentionDays' | 'quotaMaxRequests',
  ): number | undefined => {
    const value = context(key);
    if (value === undefined || value === null || value === '') return undefined;
    // `-c key=30` arrives as a string, cdk.json can hold a number.
    const n =
      typeof value === 'number'
        ? value
        : typeof value === 'string' && /^\d+$/.test(value.trim())
          ? Number(value)
          : Number.NaN;
    if (!Number.isSafeInteger(n)) {
      throw new CarhookConfigError(`context ${key}`, `must be a whole number, got ${JSON.stringify(value)}`);
    }
    return n;
  };
  // `-c brands=a,b` or, in cdk.json, either that string or ["a", "b"].
  const list = (key: 'brands'): string[] | undefined => {
    const value = context(key);
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.map((v) => v.trim());
    return str(key)
      ?.split(',')
      .map((b) => b.trim())
      .filter((b) => b !== '');
  };
  const d = APP_CONTEXT_DEFAULTS;
  const placeholders = PLACEHOLDER_KEYS.filter((key) => context(key) === undefined || context(key) === '');

  const removalPolicy = str('removalPolicy') ?? d.removalPolicy;
  if (removalPolicy !== 'retain' && removalPolicy !== 'destroy') {
    throw new CarhookConfigError(
      'context removalPolicy',
      `must be 'retain' or 'destroy', got '${removalPolicy}'`,
    );
  }
  const pollStrategy = str('pollStrategy') ?? d.pollStrategy;
  if (!(pollStrategies as readonly string[]).includes(pollStrategy)) {
    throw new CarhookConfigError(
      'context pollStrategy',
      `must be one of ${pollStrategies.join(', ')}, got '${pollStrategy}'`,
    );
  }
  const retrySchedule = str('retrySchedule');
  if (retrySchedule !== undefined && !(retryScheduleNames as readonly string[]).includes(retrySchedule)) {
    throw new CarhookConfigError(
      'context retrySchedule',
      `must be one of ${retryScheduleNames.join(', ')}, got '${retrySchedule}'`,
    );
  }
  const tracingValue = context('tracing');
  const tracing =
    tracingValue === undefined || tracingValue === ''
      ? undefined
      : tracingValue === true || tracingValue === 'true'
        ? true
        : tracingValue === false || tracingValue === 'false'
          ? false
          : undefined;
  if (tracingValue !== undefined && tracingValue !== '' && tracing === undefined) {
    throw new CarhookConfigError(
      'context tracing',
      `must be true or false, got ${JSON.stringify(tracingValue)}`,
    );
  }
  const logLevel = (str('logLevel') ?? d.logLevel).toUpperCase();
  if (logLevel !== 'DEBUG' && logLevel !== 'INFO' && logLevel !== 'WARN' && logLevel !== 'ERROR') {
    throw new CarhookConfigError('context logLevel', `must be DEBUG, INFO, WARN or ERROR, got '${logLevel}'`);
  }
  const eventBusArn = str('eventBusArn');
  const eventBusName = str('eventBusName');
  if (eventBusArn !== undefined && eventBusName !== undefined) {
    throw new CarhookConfigError('context eventBusArn', 'and eventBusName name the same thing: give one');
  }
  const stackName = str('stackName') ?? d.stackName;
  if (!/^[A-Za-z][A-Za-z0-9-]{0,122}$/.test(stackName)) {
    throw new CarhookConfigError(
      'context stackName',
      `must be a CloudFormation stack name (letters, digits, dashes), got '${stackName}'`,
    );
  }
  const optional = <K extends string, V>(key: K, value: V | undefined) =>
    (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;

  return {
    stackName,
    apiBaseUrl: str('apiBaseUrl') ?? d.apiBaseUrl,
    authUrl: str('authUrl') ?? d.authUrl,
    brands: list('brands') ?? d.brands.split(','),
    ...optional('alarmEmail', str('alarmEmail')),
    ...optional('alarmTopicArn', str('alarmTopicArn')),
    ...optional('eventBusArn', eventBusArn),
    ...optional('eventBusName', eventBusName),
    eventSource: str('eventSource') ?? d.eventSource,
    eventLogRetentionDays: int('eventLogRetentionDays') ?? d.eventLogRetentionDays,
    ...optional('archiveRetentionDays', int('archiveRetentionDays')),
    pollIntervalMinutes: int('pollIntervalMinutes') ?? d.pollIntervalMinutes,
    pollStrategy: pollStrategy as PollStrategy,
    ...optional('retrySchedule', retrySchedule as RetryScheduleName | undefined),
    ...optional('tracing', tracing),
    quotaRequests: int('quotaRequests') ?? d.quotaRequests,
    quotaWindowSeconds: int('quotaWindowSeconds') ?? d.quotaWindowSeconds,
    ...optional('quotaMaxRequests', int('quotaMaxRequests')),
    maintenanceDueDays: int('maintenanceDueDays') ?? d.maintenanceDueDays,
    maintenanceDueKm: int('maintenanceDueKm') ?? d.maintenanceDueKm,
    removalPolicy,
    logLevel,
    serviceName: str('serviceName') ?? d.serviceName,
    ...optional('region', str('region')),
    ...optional('account', str('account')),
    placeholders,
  };
}

export interface CarhookApp {
  readonly dataStack: CarhookDataStack;
  readonly stack: CarhookStack;
}

/**
 * The ready deployment: `<stackName>-Data` (stateful) and `<stackName>` (stateless, the `Carhook`
 * construct given the data stack's resources).
 */
export function buildCarhookApp(
  app: App,
  settings: AppSettings,
  defaults: { readonly account?: string; readonly region?: string } = {
    account: process.env.CDK_DEFAULT_ACCOUNT,
    region: process.env.CDK_DEFAULT_REGION,
  },
): CarhookApp {
  const env = { account: settings.account ?? defaults.account, region: settings.region ?? defaults.region };
  const removalPolicy = settings.removalPolicy === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
  const archiveRetention = Duration.days(settings.archiveRetentionDays ?? settings.eventLogRetentionDays);

  const dataStack = new CarhookDataStack(app, `${settings.stackName}-Data`, {
    env,
    description: 'Carhook stateful resources: table, event bus and archive, schema registry, secrets, key',
    eventSource: settings.eventSource,
    archiveRetention,
    removalPolicy,
    ...(settings.eventBusArn === undefined ? {} : { existingEventBusArn: settings.eventBusArn }),
    ...(settings.eventBusName === undefined ? {} : { existingEventBusName: settings.eventBusName }),
  });
  const stack = new CarhookStack(app, settings.stackName, {
    env,
    description: 'Carhook: polls a connected-car API and publishes its changes as events and signed webhooks',
    carhook: carhookPropsFrom(settings, dataStack.data),
    ...(settings.alarmTopicArn === undefined ? {} : { existingAlarmTopicArn: settings.alarmTopicArn }),
  });
  // Deploy order for `cdk deploy --all`, even before the stateless part references the data.
  stack.addStackDependency(dataStack, 'the stateful resources are deployed first');
  for (const key of settings.placeholders) {
    Annotations.of(stack).addWarningV2(
      `carhook:placeholder:${key}`,
      `Context '${key}' is not set: using the placeholder '${APP_CONTEXT_DEFAULTS[key]}'. Fine for synth; a deployed stack will not reach the API. Pass -c ${key}=...`,
    );
  }
  return { dataStack, stack };
}

function carhookPropsFrom(settings: AppSettings, data: CarhookData): CarhookProps {
  return {
    apiBaseUrl: settings.apiBaseUrl,
    authUrl: settings.authUrl,
    brands: settings.brands,
    quota: {
      requests: settings.quotaRequests,
      window: Duration.seconds(settings.quotaWindowSeconds),
      ...(settings.quotaMaxRequests === undefined ? {} : { max: settings.quotaMaxRequests }),
    },
    pollInterval: Duration.minutes(settings.pollIntervalMinutes),
    pollStrategy: settings.pollStrategy,
    ...(settings.retrySchedule === undefined ? {} : { retrySchedule: settings.retrySchedule }),
    ...(settings.tracing === undefined ? {} : { tracing: settings.tracing }),
    maintenanceDueThreshold: { days: settings.maintenanceDueDays, distanceKm: settings.maintenanceDueKm },
    eventSource: settings.eventSource,
    eventLogRetention: Duration.days(settings.eventLogRetentionDays),
    serviceName: settings.serviceName,
    logLevel: settings.logLevel,
    ...(settings.alarmEmail === undefined ? {} : { alarmEmail: settings.alarmEmail }),
    data,
  };
}
