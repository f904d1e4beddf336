import { Duration } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { devSettings } from '../../bin/cli/dev';
import { LocalRuntimeError } from '../../functions/local/errors';
import { runtimeSettingsOf } from '../../functions/runtime/aws-ports';
import { parseRuntimeConfig, RUNTIME_ENV } from '../../functions/runtime/config';
import {
  FRESHNESS_TARGETS_SETTING,
  formatFreshnessTargets,
  parseFreshnessTargets,
} from '../../functions/runtime/freshness-targets';
import { carhookRuntimeEnvironment, resolveCarhookConfig } from '../../lib/carhook';
import { CarhookConfigError } from '../../lib/validation';

const base = {
  CARHOOK_TABLE_NAME: 'carhook-table',
  CARHOOK_API_BASE_URL: 'https://api.example.com',
  CARHOOK_AUTH_URL: 'https://auth.example.com',
  CARHOOK_BRANDS: 'cielo',
};
const required = {
  apiBaseUrl: 'https://api.example.com',
  authUrl: 'https://auth.example.com',
  brands: ['cielo'],
};

describe('freshness targets: one setting, read at each edge', () => {
  it('is named at the three edges, with no target by default', () => {
    expect(FRESHNESS_TARGETS_SETTING.names).toEqual({
      env: 'CARHOOK_FRESHNESS_TARGETS',
      flag: '--freshness-targets',
      prop: 'freshnessTargets',
    });
    expect(parseFreshnessTargets(undefined)).toEqual({ ok: true, value: {} });
    expect(parseFreshnessTargets('  ')).toEqual({ ok: true, value: {} });
    const config = parseRuntimeConfig(base);
    expect(config.ok && config.config.freshnessTargets).toEqual({});
  });

  it('reads kind=duration pairs in s, m, h or d', () => {
    expect(parseFreshnessTargets('alerts=5m, maintenance=1h,trips=90s,map=2d')).toEqual({
      ok: true,
      value: { alerts: 300_000, maintenance: 3_600_000, trips: 90_000, map: 172_800_000 },
    });
  });

  it.each([
    [
      'speed=5m',
      'speed',
      '"speed" is not a kind of change (one of alerts, trips, collisions, fuel, maintenance, services, map)',
    ],
    ['alerts=5', 'alerts', 'must be alerts=<whole number><s|m|h|d>, such as alerts=5m'],
    ['alerts=five minutes', 'alerts', 'must be alerts=<whole number><s|m|h|d>'],
    ['alerts=0s', 'alerts', 'must be from 1 s to 30 days'],
    ['maintenance=31d', 'maintenance', 'must be from 1 s to 30 days'],
    ['alerts=5m,alerts=1h', 'alerts', 'alerts is given twice'],
  ])('refuses %s, naming the field %s', (raw, field, message) => {
    const parsed = parseFreshnessTargets(raw);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.field).toBe(field);
    expect(parsed.message).toContain(message);
  });

  it('from the environment: the value, or an issue naming the variable and the kind', () => {
    const ok = parseRuntimeConfig({ ...base, CARHOOK_FRESHNESS_TARGETS: 'alerts=5m,maintenance=1h' });
    expect(ok.ok && ok.config.freshnessTargets).toEqual({ alerts: 300_000, maintenance: 3_600_000 });
    // What the runtime's settings.freshnessTargets (GET /capacity) is fed with on AWS; none: absent.
    if (!ok.ok) throw new Error('unreachable');
    expect(runtimeSettingsOf(ok.config).freshnessTargets).toEqual({
      alerts: 300_000,
      maintenance: 3_600_000,
    });
    const none = parseRuntimeConfig(base);
    if (!none.ok) throw new Error('unreachable');
    expect(runtimeSettingsOf(none.config).freshnessTargets).toBeUndefined();
    const bad = parseRuntimeConfig({ ...base, CARHOOK_FRESHNESS_TARGETS: 'alerts=5m,fuel=soon' });
    expect(bad).toEqual({
      ok: false,
      issues: [
        {
          variable: RUNTIME_ENV.freshnessTargets,
          message: 'fuel: "fuel=soon": must be fuel=<whole number><s|m|h|d>, such as fuel=5m',
        },
      ],
    });
  });

  it('from `carhook dev --freshness-targets`, or a usage error naming the flag and the kind', () => {
    expect(
      devSettings({ freshnessTargets: 'trips=2m' }, { CARHOOK_FRESHNESS_TARGETS: 'map=1d' }).runtime
        .freshnessTargets,
    ).toEqual({
      trips: 120_000,
    });
    expect(devSettings({}, {}).runtime.freshnessTargets).toEqual({});
    expect(devSettings({}, { CARHOOK_FRESHNESS_TARGETS: 'map=1d' }).runtime.freshnessTargets).toEqual({
      map: 86_400_000,
    });
    let error: unknown;
    try {
      devSettings({ freshnessTargets: 'trip=2m' }, {});
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(LocalRuntimeError);
    expect((error as LocalRuntimeError).message).toMatch(
      /^--freshness-targets: trip: "trip=2m": "trip" is not a kind/,
    );
  });

  it('from the CDK prop: checked, then written into the variable the runtime reads back', () => {
    const config = resolveCarhookConfig({
      ...required,
      freshnessTargets: { alerts: Duration.minutes(5), maintenance: Duration.hours(1) },
    });
    const env = carhookRuntimeEnvironment(config);
    expect(env[RUNTIME_ENV.freshnessTargets]).toBe('alerts=300s,maintenance=3600s');
    const back = parseRuntimeConfig({ ...base, ...env });
    expect(back.ok && back.config.freshnessTargets).toEqual({ alerts: 300_000, maintenance: 3_600_000 });
    expect(
      carhookRuntimeEnvironment(resolveCarhookConfig(required))[RUNTIME_ENV.freshnessTargets],
    ).toBeUndefined();
    expect(() =>
      resolveCarhookConfig({ ...required, freshnessTargets: { alerts: Duration.millis(500) } }),
    ).toThrow(CarhookConfigError);
    expect(() =>
      resolveCarhookConfig({ ...required, freshnessTargets: { speed: Duration.minutes(1) } as never }),
    ).toThrow(/freshnessTargets\.speed/);
    expect(formatFreshnessTargets({ trips: 90_000 })).toBe('trips=90s');
  });
});
