import { Duration } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadRuntimeConfig, parseRuntimeConfig } from '../../functions/runtime/config';
import { carhookRuntimeEnvironment, resolveCarhookConfig } from '../../lib/carhook';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:carhook/api-client-AbCdEf';

const base = {
  CARHOOK_TABLE_NAME: 'carhook-table',
  CARHOOK_API_BASE_URL: 'https://api.example.com',
  CARHOOK_AUTH_URL: 'https://auth.example.com',
  CARHOOK_BRANDS: 'cielo,pavo',
};

const issuesOf = (
  env: Record<string, string | undefined>,
  needs: Parameters<typeof parseRuntimeConfig>[1] = [],
) => {
  const r = parseRuntimeConfig(env, needs);
  if (r.ok) throw new Error('expected a configuration error');
  return r.issues;
};

describe('runtime configuration from the environment', () => {
  it('applies the documented defaults (quota 120 requests per 60 s, 1 min cycle, 30 days retention)', () => {
    const config = loadRuntimeConfig(base, ['table', 'api']);
    expect(config).toMatchObject({
      tableName: 'carhook-table',
      api: {
        baseUrl: 'https://api.example.com',
        authUrl: 'https://auth.example.com',
        brands: ['cielo', 'pavo'],
      },
      quota: { requests: 120, windowSeconds: 60 },
      pollIntervalSeconds: 60,
      pollStrategy: 'carhook',
      servicesIntervalSeconds: 86_400,
      mapIntervalSeconds: 86_400,
      retrySchedule: 'standard',
      maintenanceDue: { days: 30, distanceKm: 1000 },
      eventLogRetentionDays: 30,
    });
    expect(config.eventBus).toBeUndefined();
  });

  it('reads every variable the CDK stack sets (lib/carhook.ts carhookRuntimeEnvironment)', () => {
    const cdk = carhookRuntimeEnvironment(
      resolveCarhookConfig({
        apiBaseUrl: 'https://api.example.com',
        authUrl: 'https://auth.example.com',
        brands: ['cielo'],
      }),
    );
    const config = loadRuntimeConfig(
      {
        ...cdk,
        CARHOOK_TABLE_NAME: 'carhook-table',
        CARHOOK_EVENT_BUS_NAME: 'carhook',
        CARHOOK_EVENT_SOURCE: 'carhook',
        CARHOOK_API_CLIENT_SECRET_ARN: ARN,
        CARHOOK_TOKEN_KEY_RING_SECRET_ARN: ARN.replace('api-client', 'token-keys'),
        CARHOOK_MAP_API_SECRET_ARN: ARN.replace('api-client', 'map'),
      },
      ['table', 'api', 'bus', 'secrets'],
    );
    expect(config.api?.brands).toEqual(['cielo']);
    expect(config.eventBus).toEqual({ name: 'carhook', source: 'carhook' });
    expect(config.secrets.mapApiArn).toContain(':secret:carhook/map');
    expect(config.quota.requests).toBe(Number(cdk.CARHOOK_QUOTA_REQUESTS));
  });

  it('reads the services and map cadences and the retry schedule the CDK props set', () => {
    const cdk = carhookRuntimeEnvironment(
      resolveCarhookConfig({
        apiBaseUrl: 'https://api.example.com',
        authUrl: 'https://auth.example.com',
        brands: ['cielo'],
        servicesInterval: Duration.minutes(10),
        mapInterval: Duration.hours(1),
        retrySchedule: 'fast',
      }),
    );
    expect(loadRuntimeConfig({ ...base, ...cdk }, ['table', 'api'])).toMatchObject({
      servicesIntervalSeconds: 600,
      mapIntervalSeconds: 3600,
      retrySchedule: 'fast',
    });
  });

  it('names every missing variable an entry point needs, all at once', () => {
    const issues = issuesOf({}, ['table', 'api', 'secrets', 'pollQueue']);
    expect(issues.map((i) => i.variable).sort()).toEqual(
      [
        'CARHOOK_API_BASE_URL',
        'CARHOOK_API_CLIENT_SECRET_ARN',
        'CARHOOK_AUTH_URL',
        'CARHOOK_BRANDS',
        'CARHOOK_POLL_QUEUE_URL',
        'CARHOOK_TABLE_NAME',
        'CARHOOK_TOKEN_KEY_RING_SECRET_ARN',
      ].sort(),
    );
    for (const issue of issues) expect(issue.message).toBe('is required but not set');
  });

  it.each([
    ['CARHOOK_QUOTA_REQUESTS', 'many', /whole number/],
    ['CARHOOK_QUOTA_REQUESTS', '0', /at least 1/],
    ['CARHOOK_QUOTA_WINDOW_SECONDS', '-5', /whole number/],
    ['CARHOOK_POLL_INTERVAL_SECONDS', '1.5', /whole number/],
    ['CARHOOK_EVENT_LOG_RETENTION_DAYS', '99999', /at most 3650/],
    ['CARHOOK_API_BASE_URL', 'ftp://api.example.com', /http\(s\) URL/],
    ['CARHOOK_AUTH_URL', 'not a url', /http\(s\) URL/],
    ['CARHOOK_BRANDS', 'Cielo Brand', /brand path segment/],
    ['CARHOOK_TABLE_NAME', 'x', /table name/],
    ['CARHOOK_EVENT_SOURCE', 'aws.events', /reserved/],
    ['CARHOOK_API_CLIENT_SECRET_ARN', 'carhook/api-client', /secret ARN/],
    ['CARHOOK_POLL_STRATEGY', 'fast', /"carhook", "round-robin", "naive"/],
    ['CARHOOK_POLL_QUEUE_URL', 'queue', /http\(s\) URL/],
    ['CARHOOK_SERVICES_INTERVAL_SECONDS', '0', /at least 1/],
    ['CARHOOK_MAP_INTERVAL_SECONDS', '30m', /whole number/],
    ['CARHOOK_RETRY_SCHEDULE', 'slow', /"standard", "fast"/],
  ])('refuses %s=%s naming the variable', (variable, value, message) => {
    const issues = issuesOf({ ...base, [variable]: value });
    expect(issues).toHaveLength(1);
    expect(issues[0]?.variable).toBe(variable);
    expect(issues[0]?.message).toMatch(message);
  });

  it('throws a ConfigError whose message lists each variable', () => {
    expect(() => loadRuntimeConfig({ ...base, CARHOOK_QUOTA_REQUESTS: 'x' }, ['bus'])).toThrow(ConfigError);
    try {
      loadRuntimeConfig({ ...base, CARHOOK_QUOTA_REQUESTS: 'x' }, ['bus']);
    } catch (error) {
      expect((error as ConfigError).message).toMatch(/CARHOOK_EVENT_BUS_NAME: is required/);
      expect((error as ConfigError).message).toMatch(/CARHOOK_QUOTA_REQUESTS: must be a whole number/);
    }
  });

  it('treats blank values as unset (defaults apply; required ones are reported)', () => {
    const config = loadRuntimeConfig({
      ...base,
      CARHOOK_QUOTA_REQUESTS: ' ',
      CARHOOK_MAP_API_SECRET_ARN: '',
    });
    expect(config.quota.requests).toBe(120);
    expect(config.secrets.mapApiArn).toBeUndefined();
    expect(issuesOf({ ...base, CARHOOK_TABLE_NAME: '  ' }, ['table'])[0]?.variable).toBe(
      'CARHOOK_TABLE_NAME',
    );
  });
});
