/**
 * Every tunable setting of Carhook in one table: its bounds, its default, and its name at each of
 * the three edges that set it (the Lambda environment, a `carhook dev` flag, a CDK prop). The edges
 * parse their own input format (a string variable, a duration flag, a CDK `Duration`) and then
 * validate the value with the setting's schema from here, so a bound or a default is written once.
 *
 * Defaults the pipeline also needs come from the areas' own schemas (the poll cadence, the services
 * and map periods and the maintenance threshold from `pollingConfigSchema`), so the planner's
 * defaults and the deployment's cannot drift apart.
 */
import * as z from 'zod';
import { retryScheduleNames } from '../core/delivery/retry-schedule';
import { DEFAULT_POLLING_CONFIG, pollStrategies } from '../core/polling/config';

/** Where a setting is named: its environment variable, its `carhook dev` flag, its CDK prop. */
export interface SettingNames {
  readonly env: string;
  readonly flag?: string;
  readonly prop?: string;
}

const wholeNumber = (min: number, max: number) =>
  z
    .number({ message: `must be a whole number from ${min} to ${max}` })
    .int({ message: `must be a whole number from ${min} to ${max}` })
    .min(min, { message: `must be at least ${min}` })
    .max(max, { message: `must be at most ${max}` });

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { message: `must be one of ${values.map((s) => `"${s}"`).join(', ')}` });

const DAY_SECONDS = 86_400;

/** EventBridge `Source` of every event Carhook publishes (and the prefix of its schema names). */
export const DEFAULT_EVENT_SOURCE = 'carhook';

/** The integer settings: schema (with its bounds) and default. */
export const INTEGER_SETTINGS = {
  quotaRequests: {
    doc: "The API's rate limit: requests per window per client_id.",
    names: { env: 'CARHOOK_QUOTA_REQUESTS', flag: '--quota', prop: 'quota.requests' },
    min: 1,
    max: 1_000_000,
    default: 120,
  },
  quotaMaxRequests: {
    doc: 'The highest quota followed when the API raises `X-RateLimit-Limit` (a higher quota it granted); 0: never past the configured quota (a lower limit is always followed).',
    names: { env: 'CARHOOK_QUOTA_MAX_REQUESTS', flag: '--quota-max', prop: 'quota.max' },
    min: 0,
    max: 1_000_000,
    default: 0,
  },
  quotaWindowSeconds: {
    doc: 'The window of that rate limit, in seconds.',
    names: { env: 'CARHOOK_QUOTA_WINDOW_SECONDS', prop: 'quota.window' },
    min: 1,
    max: 3_600,
    default: 60,
  },
  pollIntervalSeconds: {
    doc: "The planner's cadence: one poll cycle (the CDK prop takes whole minutes, Scheduler's shortest rate).",
    names: { env: 'CARHOOK_POLL_INTERVAL_SECONDS', prop: 'pollInterval' },
    min: 1,
    max: DAY_SECONDS,
    default: DEFAULT_POLLING_CONFIG.cycleMs / 1000,
  },
  servicesIntervalSeconds: {
    doc: 'How often services are read: `vehicle.services.changed` appears within this period.',
    names: {
      env: 'CARHOOK_SERVICES_INTERVAL_SECONDS',
      flag: '--services-interval',
      prop: 'servicesInterval',
    },
    min: 1,
    max: 30 * DAY_SECONDS,
    default: DEFAULT_POLLING_CONFIG.servicesIntervalMs / 1000,
  },
  mapIntervalSeconds: {
    doc: 'How often map update information is read: `vehicle.map_update.available` within this period.',
    names: { env: 'CARHOOK_MAP_INTERVAL_SECONDS', flag: '--map-interval', prop: 'mapInterval' },
    min: 1,
    max: 30 * DAY_SECONDS,
    default: DEFAULT_POLLING_CONFIG.mapIntervalMs / 1000,
  },
  silenceAfterSeconds: {
    doc: "`vehicle.reporting.stopped` when a vehicle's records stop advancing this long (until it is learned from the vehicle's own gaps).",
    names: { env: 'CARHOOK_SILENCE_AFTER_SECONDS', flag: '--silence-after', prop: 'silenceAfter' },
    min: 60,
    max: 30 * DAY_SECONDS,
    default: DEFAULT_POLLING_CONFIG.silenceAfterMs / 1000,
  },
  maintenanceDueDays: {
    doc: '`vehicle.maintenance.due` fires when the days left cross this…',
    names: { env: 'CARHOOK_MAINTENANCE_DUE_DAYS', prop: 'maintenanceDueThreshold.days' },
    min: 1,
    max: 730,
    default: DEFAULT_POLLING_CONFIG.maintenanceDue.days,
  },
  maintenanceDueKm: {
    doc: '…or when the distance left crosses this many km.',
    names: { env: 'CARHOOK_MAINTENANCE_DUE_KM', prop: 'maintenanceDueThreshold.distanceKm' },
    min: 1,
    max: 100_000,
    default: DEFAULT_POLLING_CONFIG.maintenanceDue.mileageKm,
  },
  eventLogRetentionDays: {
    doc: 'How long published events stay in the event log (DynamoDB TTL): how far back replay and recovery reach.',
    names: { env: 'CARHOOK_EVENT_LOG_RETENTION_DAYS', prop: 'eventLogRetention' },
    min: 1,
    max: 3_650,
    default: 30,
  },
} as const satisfies Record<
  string,
  { doc: string; names: SettingNames; min: number; max: number; default: number }
>;

export type IntegerSetting = keyof typeof INTEGER_SETTINGS;

/** The settings that take one of a few names. */
export const CHOICE_SETTINGS = {
  pollStrategy: {
    doc: 'How the planner spends the quota: learned change rates under staleness guarantees, the fair order, or every resource every cycle.',
    names: { env: 'CARHOOK_POLL_STRATEGY', flag: '--poll-strategy', prop: 'pollStrategy' },
    values: pollStrategies,
    default: DEFAULT_POLLING_CONFIG.strategy,
  },
  retrySchedule: {
    doc: 'Webhook retries: 8 attempts over about 27.6 h, or 6 over about 40 s (demos).',
    names: { env: 'CARHOOK_RETRY_SCHEDULE', flag: '--retry-schedule', prop: 'retrySchedule' },
    values: retryScheduleNames,
    default: 'standard',
  },
} as const;

export type ChoiceSetting = keyof typeof CHOICE_SETTINGS;

/** The schema of one integer setting (its bounds, each message giving them). */
export const integerSchema = (setting: IntegerSetting) =>
  wholeNumber(INTEGER_SETTINGS[setting].min, INTEGER_SETTINGS[setting].max);

/** The schema of one choice setting. */
export const choiceSchema = <S extends ChoiceSetting>(setting: S) =>
  oneOf(CHOICE_SETTINGS[setting].values as (typeof CHOICE_SETTINGS)[S]['values']);

/**
 * The p95 lag each kind of change should stay within (`alerts=5m,maintenance=1h`; parsed by
 * ./freshness-targets.ts); no target by default.
 */
export const FRESHNESS_TARGETS_SETTING = {
  doc: 'The p95 lag each kind of change should stay within, shown by `GET /capacity`; passing one is told as `carhook.freshness.at_risk`.',
  names: { env: 'CARHOOK_FRESHNESS_TARGETS', flag: '--freshness-targets', prop: 'freshnessTargets' },
  /** Bounds of one target (ms): a second to 30 days. */
  minMs: 1000,
  maxMs: 30 * 86_400_000,
} as const;

/**
 * The typed settings, every default applied: what the edges pass down. Built when first asked for
 * (a function that only reads a setting or two builds no zod object at import).
 */
const buildSettingsSchema = () =>
  z.object({
    quotaRequests: integerSchema('quotaRequests').default(INTEGER_SETTINGS.quotaRequests.default),
    quotaMaxRequests: integerSchema('quotaMaxRequests').default(INTEGER_SETTINGS.quotaMaxRequests.default),
    quotaWindowSeconds: integerSchema('quotaWindowSeconds').default(
      INTEGER_SETTINGS.quotaWindowSeconds.default,
    ),
    pollIntervalSeconds: integerSchema('pollIntervalSeconds').default(
      INTEGER_SETTINGS.pollIntervalSeconds.default,
    ),
    servicesIntervalSeconds: integerSchema('servicesIntervalSeconds').default(
      INTEGER_SETTINGS.servicesIntervalSeconds.default,
    ),
    mapIntervalSeconds: integerSchema('mapIntervalSeconds').default(
      INTEGER_SETTINGS.mapIntervalSeconds.default,
    ),
    silenceAfterSeconds: integerSchema('silenceAfterSeconds').default(
      INTEGER_SETTINGS.silenceAfterSeconds.default,
    ),
    maintenanceDueDays: integerSchema('maintenanceDueDays').default(
      INTEGER_SETTINGS.maintenanceDueDays.default,
    ),
    maintenanceDueKm: integerSchema('maintenanceDueKm').default(INTEGER_SETTINGS.maintenanceDueKm.default),
    eventLogRetentionDays: integerSchema('eventLogRetentionDays').default(
      INTEGER_SETTINGS.eventLogRetentionDays.default,
    ),
    pollStrategy: choiceSchema('pollStrategy').default(CHOICE_SETTINGS.pollStrategy.default),
    retrySchedule: choiceSchema('retrySchedule').default(CHOICE_SETTINGS.retrySchedule.default),
  });

let built: ReturnType<typeof buildSettingsSchema> | undefined;
export const settingsSchema = (): ReturnType<typeof buildSettingsSchema> => {
  built ??= buildSettingsSchema();
  return built;
};

export type Settings = z.output<ReturnType<typeof buildSettingsSchema>>;

/**
 * Every default, typed: the CDK props' defaults, the environment's and `carhook dev`'s. Read from
 * the tables without zod (a test holds it equal to what the schema gives for `{}`).
 */
export const DEFAULT_SETTINGS: Settings = {
  ...(Object.fromEntries(Object.entries(INTEGER_SETTINGS).map(([k, v]) => [k, v.default])) as {
    [K in IntegerSetting]: number;
  }),
  pollStrategy: CHOICE_SETTINGS.pollStrategy.default,
  retrySchedule: CHOICE_SETTINGS.retrySchedule.default,
};

/**
 * Reads one integer setting from its environment variable (whole digits; blank means unset, so
 * the default applies). The message gives the bounds; the caller names the variable.
 */
export const envInteger = (setting: IntegerSetting) =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined),
    z
      .string()
      .regex(/^\d+$/, {
        message: `must be a whole number from ${INTEGER_SETTINGS[setting].min} to ${INTEGER_SETTINGS[setting].max}`,
      })
      .transform(Number)
      .pipe(integerSchema(setting))
      .default(INTEGER_SETTINGS[setting].default),
  );

/** Reads one choice setting from its environment variable (blank means unset). */
export const envChoice = <S extends ChoiceSetting>(setting: S) =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined),
    choiceSchema(setting).default(CHOICE_SETTINGS[setting].default as never),
  );

/** A setting's value from the environment, or the message that says why not (without the variable). */
export function settingFromEnv<S extends IntegerSetting | ChoiceSetting>(
  setting: S,
  env: Readonly<Record<string, string | undefined>>,
): { ok: true; value: Settings[S]; set: boolean } | { ok: false; message: string } {
  const variable =
    setting in INTEGER_SETTINGS
      ? INTEGER_SETTINGS[setting as IntegerSetting].names.env
      : CHOICE_SETTINGS[setting as ChoiceSetting].names.env;
  const raw = env[variable];
  const schema =
    setting in INTEGER_SETTINGS ? envInteger(setting as IntegerSetting) : envChoice(setting as ChoiceSetting);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { ok: false, message: parsed.error.issues[0]?.message ?? 'is invalid' };
  return { ok: true, value: parsed.data as Settings[S], set: raw !== undefined && raw.trim() !== '' };
}
