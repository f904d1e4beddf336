import { Duration } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { devSettings } from '../../bin/cli/dev';
import { buildProgram } from '../../bin/cli/program';
import { LocalRuntimeError } from '../../functions/local/errors';
import {
  ConfigError,
  loadRuntimeConfig,
  parseRuntimeConfig,
  RUNTIME_ENV,
} from '../../functions/runtime/config';
import {
  CHOICE_SETTINGS,
  DEFAULT_SETTINGS,
  INTEGER_SETTINGS,
  type IntegerSetting,
  settingFromEnv,
  settingsSchema,
} from '../../functions/runtime/settings';
import { allowListOptions } from '../../functions/runtime/webhooks';
import { type CarhookProps, carhookRuntimeEnvironment, resolveCarhookConfig } from '../../lib/carhook';
import { CARHOOK_DEFAULTS } from '../../lib/config';
import { CarhookConfigError } from '../../lib/validation';

const base = {
  CARHOOK_TABLE_NAME: 'carhook-table',
  CARHOOK_API_BASE_URL: 'https://api.example.com',
  CARHOOK_AUTH_URL: 'https://auth.example.com',
  CARHOOK_BRANDS: 'cielo',
};
const required: CarhookProps = {
  apiBaseUrl: 'https://api.example.com',
  authUrl: 'https://auth.example.com',
  brands: ['cielo'],
};

/** A CDK prop set to `value` of the setting, in the prop's own unit. */
function propsWith(setting: IntegerSetting, value: number): CarhookProps {
  switch (setting) {
    case 'quotaRequests':
      return { ...required, quota: { requests: value, window: Duration.seconds(60) } };
    case 'quotaMaxRequests':
      return { ...required, quota: { requests: 120, window: Duration.seconds(60), max: value } };
    case 'quotaWindowSeconds':
      return { ...required, quota: { requests: 120, window: Duration.seconds(value) } };
    case 'pollIntervalSeconds':
      return { ...required, pollInterval: Duration.seconds(value) };
    case 'servicesIntervalSeconds':
      return { ...required, servicesInterval: Duration.seconds(value) };
    case 'mapIntervalSeconds':
      return { ...required, mapInterval: Duration.seconds(value) };
    case 'silenceAfterSeconds':
      return { ...required, silenceAfter: Duration.seconds(value) };
    case 'maintenanceDueDays':
      return { ...required, maintenanceDueThreshold: { days: value } };
    case 'maintenanceDueKm':
      return { ...required, maintenanceDueThreshold: { distanceKm: value } };
    case 'eventLogRetentionDays':
      return { ...required, eventLogRetention: Duration.days(value) };
  }
}

const propError = (props: CarhookProps): string | undefined => {
  try {
    resolveCarhookConfig(props);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(CarhookConfigError);
    return (error as CarhookConfigError).prop;
  }
};

const flagError = (flags: Parameters<typeof devSettings>[0], env: Record<string, string> = {}) => {
  try {
    devSettings(flags, env);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(LocalRuntimeError);
    return { field: (error as LocalRuntimeError).field, message: (error as Error).message };
  }
};

const settings = Object.keys(INTEGER_SETTINGS) as IntegerSetting[];

describe('one table of settings for the environment, the CDK props and carhook dev', () => {
  it('an unset variable and an unset prop mean the same value', () => {
    const fromEnv = loadRuntimeConfig(base);
    const fromProps = loadRuntimeConfig({
      ...base,
      ...carhookRuntimeEnvironment(resolveCarhookConfig(required)),
    });
    for (const config of [fromEnv, fromProps]) {
      expect({
        quotaRequests: config.quota.requests,
        quotaWindowSeconds: config.quota.windowSeconds,
        quotaMaxRequests: config.quota.maxRequests,
        pollIntervalSeconds: config.pollIntervalSeconds,
        servicesIntervalSeconds: config.servicesIntervalSeconds,
        mapIntervalSeconds: config.mapIntervalSeconds,
        silenceAfterSeconds: config.silenceAfterSeconds,
        maintenanceDueDays: config.maintenanceDue.days,
        maintenanceDueKm: config.maintenanceDue.distanceKm,
        eventLogRetentionDays: config.eventLogRetentionDays,
        pollStrategy: config.pollStrategy,
        retrySchedule: config.retrySchedule,
      }).toEqual(DEFAULT_SETTINGS);
    }
    expect(fromEnv.webhookAllowHosts).toEqual([]);
    expect(fromEnv.oauthRedirectOrigins).toEqual([]);
  });

  it('the documented defaults: 120 requests per 60 s, a 1 min cycle, daily services and map, 30 days / 1,000 km', () => {
    expect(DEFAULT_SETTINGS).toEqual({
      quotaRequests: 120,
      quotaMaxRequests: 0,
      quotaWindowSeconds: 60,
      pollIntervalSeconds: 60,
      servicesIntervalSeconds: 86_400,
      mapIntervalSeconds: 86_400,
      silenceAfterSeconds: 172_800,
      maintenanceDueDays: 30,
      maintenanceDueKm: 1000,
      eventLogRetentionDays: 30,
      pollStrategy: 'carhook',
      retrySchedule: 'standard',
    });
    expect(CARHOOK_DEFAULTS.quota.window.toSeconds()).toBe(60);
    expect(CARHOOK_DEFAULTS.pollInterval.toMinutes()).toBe(1);
  });

  it('carhook dev leaves the shared settings to the same defaults and says them in its help', () => {
    const runtime = devSettings({}, {}).runtime;
    expect(runtime.servicesIntervalMs).toBeUndefined();
    expect(runtime.mapIntervalMs).toBeUndefined();
    expect(runtime.pollStrategy).toBeUndefined();
    expect(runtime.retrySchedule?.name).toBe(DEFAULT_SETTINGS.retrySchedule);
    const dev = buildProgram().commands.find((c) => c.name() === 'dev');
    const help = dev?.helpInformation() ?? '';
    expect(help).toContain(`${DEFAULT_SETTINGS.quotaRequests} with a real API`);
    expect(help).toMatch(/how often vehicle services are read.*\(default 24h;/s);
  });

  it.each(settings)(
    '%s: the same bounds at every edge, each error naming its variable, prop or flag',
    (setting) => {
      const { names, min, max } = INTEGER_SETTINGS[setting];
      // The environment.
      expect(parseRuntimeConfig({ ...base, [names.env]: String(max) }).ok).toBe(true);
      for (const value of [max + 1, min - 1]) {
        const r = parseRuntimeConfig({ ...base, [names.env]: String(value) });
        expect(r.ok ? [] : r.issues.map((i) => i.variable)).toEqual([names.env]);
      }
      // The CDK props (the poll interval takes whole minutes: its bounds in minutes).
      const step = setting === 'pollIntervalSeconds' ? 60 : 1;
      expect(propError(propsWith(setting, max))).toBeUndefined();
      expect(propError(propsWith(setting, max + step))).toBe(names.prop);
      // carhook dev, for the settings it has a flag for.
      if ('flag' in names) {
        const key =
          setting === 'quotaRequests'
            ? 'quota'
            : setting === 'quotaMaxRequests'
              ? 'quotaMax'
              : setting === 'silenceAfterSeconds'
                ? 'silenceAfter'
                : setting === 'mapIntervalSeconds'
                  ? 'mapInterval'
                  : 'servicesInterval';
        const raw = (n: number) =>
          setting === 'quotaRequests' || setting === 'quotaMaxRequests' ? String(n) : `${n}s`;
        expect(flagError({ [key]: raw(max) })).toBeUndefined();
        expect(flagError({ [key]: raw(max + 1) })?.field).toBe(names.flag);
      }
    },
  );

  it('carhook dev reads a cadence variable as the Lambda runtime does, naming it', () => {
    const { env } = INTEGER_SETTINGS.mapIntervalSeconds.names;
    expect(flagError({}, { [env]: '30m' })).toEqual({
      field: env,
      message: `${env}: must be a whole number from 1 to 2592000`,
    });
    expect(settingFromEnv('mapIntervalSeconds', { [env]: ' 90 ' })).toEqual({
      ok: true,
      value: 90,
      set: true,
    });
    expect(settingFromEnv('mapIntervalSeconds', { [env]: ' ' })).toEqual({
      ok: true,
      value: DEFAULT_SETTINGS.mapIntervalSeconds,
      set: false,
    });
    expect(settingFromEnv('pollStrategy', { CARHOOK_POLL_STRATEGY: 'fastest' })).toEqual({
      ok: false,
      message: 'must be one of "carhook", "round-robin", "naive"',
    });
  });

  it('every choice is offered by name at each edge', () => {
    expect(CHOICE_SETTINGS.pollStrategy.values).toEqual(['carhook', 'round-robin', 'naive']);
    expect(flagError({ pollStrategy: 'fastest' })?.field).toBe('--poll-strategy');
    expect(propError({ ...required, pollStrategy: 'fastest' as never })).toBe('pollStrategy');
    const r = parseRuntimeConfig({ ...base, CARHOOK_POLL_STRATEGY: 'fastest' });
    expect(r.ok ? [] : r.issues.map((i) => i.variable)).toEqual(['CARHOOK_POLL_STRATEGY']);
  });
});

describe('settings read once from the environment that the handlers used to read themselves', () => {
  it('the webhook allow-list: read as a list, each entry parsed where webhooks are sent, naming the variable', () => {
    const ok = loadRuntimeConfig({
      ...base,
      [RUNTIME_ENV.webhookAllowHosts]: ' 10.0.0.0/8, hooks.internal ,',
    });
    expect(ok.webhookAllowHosts).toEqual(['10.0.0.0/8', 'hooks.internal']);
    expect(allowListOptions(ok.webhookAllowHosts)?.allowList).toBeDefined();
    expect(allowListOptions([])).toBeUndefined();
    const bad = loadRuntimeConfig({ ...base, [RUNTIME_ENV.webhookAllowHosts]: 'hooks.internal,10.0.0.0/99' });
    const error = (() => {
      try {
        allowListOptions(bad.webhookAllowHosts);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual([
      {
        variable: 'CARHOOK_WEBHOOK_ALLOW_HOSTS',
        message: '"10.0.0.0/99" is not an IP address, CIDR, hostname or *.suffix',
      },
    ]);
  });

  it('the OAuth redirect origins: reduced to origins, a non-URL refused naming the variable', () => {
    const ok = loadRuntimeConfig({
      ...base,
      [RUNTIME_ENV.oauthRedirectOrigins]: 'https://console.example.com/app/, http://127.0.0.1:9',
    });
    expect(ok.oauthRedirectOrigins).toEqual(['https://console.example.com', 'http://127.0.0.1:9']);
    const r = parseRuntimeConfig({ ...base, [RUNTIME_ENV.oauthRedirectOrigins]: 'console.example.com' });
    expect(r.ok ? [] : r.issues.map((i) => i.variable)).toEqual(['CARHOOK_OAUTH_REDIRECT_ORIGINS']);
  });

  it("the console authorizer's secret ARN: required by its need, checked as an ARN", () => {
    const r = parseRuntimeConfig({}, ['consoleToken']);
    expect(r.ok ? [] : r.issues).toEqual([
      { variable: 'CARHOOK_CONSOLE_TOKEN_SECRET_ARN', message: 'is required but not set' },
    ]);
    const bad = parseRuntimeConfig({ CARHOOK_CONSOLE_TOKEN_SECRET_ARN: 'admin-token' }, ['consoleToken']);
    expect(bad.ok ? [] : bad.issues.map((i) => i.variable)).toEqual(['CARHOOK_CONSOLE_TOKEN_SECRET_ARN']);
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:carhook/console-AbCdEf';
    expect(
      loadRuntimeConfig({ CARHOOK_CONSOLE_TOKEN_SECRET_ARN: arn }, ['consoleToken']).secrets.consoleTokenArn,
    ).toBe(arn);
  });
});

describe('the settings schema, built on first use', () => {
  it('gives for no input exactly the defaults read from the tables, and is built once', () => {
    expect(settingsSchema().parse({})).toStrictEqual(DEFAULT_SETTINGS);
    expect(settingsSchema()).toBe(settingsSchema());
  });

  it('refuses a setting out of its bounds, naming it', () => {
    const r = settingsSchema().safeParse({ quotaRequests: 0 });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(['quotaRequests']);
  });
});
