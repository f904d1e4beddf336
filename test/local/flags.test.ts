import { describe, expect, it } from 'vitest';
import { devSettings } from '../../bin/cli/dev';
import { formatDuration, parseDuration, parseInteger } from '../../functions/local/duration';
import { LocalRuntimeError } from '../../functions/local/errors';
import { startLocalRuntime } from '../../functions/local/runtime';

/** The field a bad flag or variable is reported on; undefined when it was accepted. */
const fieldOf = (run: () => unknown): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as LocalRuntimeError).field;
  }
};

const limits = { minMs: 200, maxMs: 86_400_000 };

describe('durations on the command line', () => {
  it.each([
    ['500ms', 500],
    ['2s', 2000],
    ['1.5m', 90_000],
    ['1h', 3_600_000],
    ['3', 3000],
  ])('reads %s as %d ms', (raw, ms) => {
    expect(parseDuration('--poll-interval', raw, limits)).toEqual({ ok: true, value: ms });
  });

  it.each(['2x', '', '-1s', 's', '1 s s'])('refuses "%s" naming the flag and giving examples', (raw) => {
    const r = parseDuration('--poll-interval', raw, limits);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/^--poll-interval: .*(examples|at least)/);
  });

  it('refuses values outside the limits', () => {
    expect(parseDuration('--poll-interval', '100ms', limits)).toEqual({
      ok: false,
      message: '--poll-interval: must be at least 200ms',
    });
    expect(parseDuration('--poll-interval', '2d', limits).ok).toBe(false);
  });

  it('formats whole units', () => {
    expect([
      formatDuration(500),
      formatDuration(2000),
      formatDuration(120_000),
      formatDuration(7_200_000),
    ]).toEqual(['500ms', '2s', '2m', '2h']);
  });

  it('integers name the flag and the range', () => {
    expect(parseInteger('--port', '8080', { min: 0, max: 65535 })).toEqual({ ok: true, value: 8080 });
    expect(parseInteger('--port', '70000', { min: 0, max: 65535 })).toEqual({
      ok: false,
      message: '--port: 70000 must be from 0 to 65535',
    });
    expect(parseInteger('--port', 'abc', { min: 0, max: 65535 }).ok).toBe(false);
  });
});

describe('carhook dev flags', () => {
  const invalid = (flags: Parameters<typeof devSettings>[0], env: Record<string, string> = {}) => {
    try {
      devSettings(flags, env);
    } catch (error) {
      expect(error).toBeInstanceOf(LocalRuntimeError);
      return {
        kind: (error as LocalRuntimeError).kind,
        field: (error as LocalRuntimeError).field,
        message: (error as Error).message,
      };
    }
    throw new Error('expected a LocalRuntimeError');
  };

  it('maps every flag to the runtime options', () => {
    const s = devSettings(
      {
        port: '0',
        simPort: '4011',
        vehicles: '3',
        seed: '9',
        pollInterval: '2s',
        dataDir: '/tmp/x',
        quota: '900',
        pollConcurrency: '16',
        pollStrategy: 'round-robin',
        demo: true,
        demoEvery: '3s',
      },
      { CARHOOK_ADMIN_TOKEN: 'a-token-of-sixteen-chars' },
    );
    expect(s.runtime).toMatchObject({
      port: 0,
      simPort: 4011,
      vehicles: 3,
      seed: 9,
      pollIntervalMs: 2000,
      dataDir: '/tmp/x',
      quota: 900,
      pollConcurrency: 16,
      pollStrategy: 'round-robin',
      adminToken: 'a-token-of-sixteen-chars',
    });
    expect(s).toMatchObject({ demo: true, demoEveryMs: 3000, generatedToken: false });
  });

  it('generates the admin token when CARHOOK_ADMIN_TOKEN is unset', () => {
    const s = devSettings({}, {});
    expect(s.generatedToken).toBe(true);
    expect(s.runtime.adminToken).toBeUndefined();
  });

  it.each([
    [{ port: '70000' }, '--port'],
    [{ simPort: 'x' }, '--sim-port'],
    [{ vehicles: '0' }, '--vehicles'],
    [{ pollInterval: 'soon' }, '--poll-interval'],
    [{ quota: '-5' }, '--quota'],
    [{ pollConcurrency: '0' }, '--poll-concurrency'],
    [{ pollConcurrency: '65' }, '--poll-concurrency'],
    [{ pollStrategy: 'fastest' }, '--poll-strategy'],
    [{ apiBaseUrl: 'https://api.example.net' }, '--auth-base-url'],
    [{ apiBaseUrl: 'ftp://x', authBaseUrl: 'https://id.example.net', brands: 'cielo' }, '--api-base-url'],
    [{ apiBaseUrl: 'https://api.example.net', authBaseUrl: 'https://id.example.net' }, '--brands'],
    [
      { apiBaseUrl: 'https://api.example.net', authBaseUrl: 'https://id.example.net', brands: 'Bad Brand' },
      '--brands',
    ],
    [
      {
        apiBaseUrl: 'https://api.example.net',
        authBaseUrl: 'https://id.example.net',
        brands: 'cielo',
        demo: true,
      },
      '--demo',
    ],
  ])('%o is refused naming %s', (flags, field) => {
    const e = invalid(flags);
    expect(e.kind).toBe('InvalidOption');
    expect(e.field).toBe(field);
    expect(e.message).toContain(field);
  });

  it('refuses a short CARHOOK_ADMIN_TOKEN', () => {
    expect(invalid({}, { CARHOOK_ADMIN_TOKEN: 'short' }).field).toBe('CARHOOK_ADMIN_TOKEN');
  });

  it('a real API takes its URLs and brands instead of the simulator', () => {
    const s = devSettings(
      {
        apiBaseUrl: 'https://api.example.net/',
        authBaseUrl: 'https://id.example.net',
        brands: 'cielo, pavo',
        apiCredentials: '/etc/c.json',
        mapCredentials: '/etc/map.json',
      },
      {},
    );
    expect(s.runtime.api).toEqual({
      baseUrl: 'https://api.example.net',
      authUrl: 'https://id.example.net',
      brands: ['cielo', 'pavo'],
      credentialsFile: '/etc/c.json',
      mapCredentialsFile: '/etc/map.json',
    });
  });
});

describe('--allow-webhook-host', () => {
  it('passes the entries to the runtime, the flag winning over CARHOOK_WEBHOOK_ALLOW_HOSTS', () => {
    expect(
      devSettings({ allowWebhookHost: ['192.168.1.0/24', 'hooks.lan'] }, {}).runtime.webhookAllowHosts,
    ).toEqual(['192.168.1.0/24', 'hooks.lan']);
    expect(
      devSettings({}, { CARHOOK_WEBHOOK_ALLOW_HOSTS: 'localhost, 10.1.2.3' }).runtime.webhookAllowHosts,
    ).toEqual(['localhost', '10.1.2.3']);
    expect(devSettings({}, {}).runtime.webhookAllowHosts).toBeUndefined();
  });

  it('refuses an entry that is not an address, CIDR or name, naming the flag', () => {
    expect(() => devSettings({ allowWebhookHost: ['127.0.0.1:9000'] }, {})).toThrow(
      /--allow-webhook-host: "127.0.0.1:9000" is not an IP address, CIDR, hostname/,
    );
    const thrown = (() => {
      try {
        devSettings({}, { CARHOOK_WEBHOOK_ALLOW_HOSTS: '10.0.0.0/99' });
        return undefined;
      } catch (error) {
        return error as LocalRuntimeError;
      }
    })();
    expect(thrown?.field).toBe('CARHOOK_WEBHOOK_ALLOW_HOSTS');
  });
});

describe('--services-interval, --map-interval, --retry-schedule', () => {
  it('pass the cadences and the schedule to the runtime, a flag winning over its variable', () => {
    const s = devSettings({ servicesInterval: '30s', mapInterval: '2m', retrySchedule: 'fast' }, {});
    expect(s.runtime).toMatchObject({ servicesIntervalMs: 30_000, mapIntervalMs: 120_000 });
    expect(s.runtime.retrySchedule?.name).toBe('fast');
    const env = {
      CARHOOK_SERVICES_INTERVAL_SECONDS: '60',
      CARHOOK_MAP_INTERVAL_SECONDS: '90',
      CARHOOK_RETRY_SCHEDULE: 'fast',
    };
    const fromEnv = devSettings({}, env).runtime;
    expect(fromEnv).toMatchObject({ servicesIntervalMs: 60_000, mapIntervalMs: 90_000 });
    expect(fromEnv.retrySchedule?.name).toBe('fast');
    expect(devSettings({ mapInterval: '5s', retrySchedule: 'standard' }, env).runtime).toMatchObject({
      mapIntervalMs: 5000,
      retrySchedule: { name: 'standard' },
    });
  });

  it('default to daily cadences (left to the runtime) and the standard schedule', () => {
    const s = devSettings({}, {}).runtime;
    expect(s.servicesIntervalMs).toBeUndefined();
    expect(s.mapIntervalMs).toBeUndefined();
    expect(s.retrySchedule?.name).toBe('standard');
  });

  it('refuse bad values naming the flag or the variable', () => {
    expect(fieldOf(() => devSettings({ servicesInterval: '10x' }, {}))).toBe('--services-interval');
    expect(fieldOf(() => devSettings({ mapInterval: '100ms' }, {}))).toBe('--map-interval');
    expect(fieldOf(() => devSettings({ retrySchedule: 'slow' }, {}))).toBe('--retry-schedule');
    expect(fieldOf(() => devSettings({}, { CARHOOK_MAP_INTERVAL_SECONDS: 'soon' }))).toBe(
      'CARHOOK_MAP_INTERVAL_SECONDS',
    );
    expect(fieldOf(() => devSettings({}, { CARHOOK_RETRY_SCHEDULE: 'slow' }))).toBe('CARHOOK_RETRY_SCHEDULE');
  });
});

describe('--clock', () => {
  const realApi = {
    apiBaseUrl: 'https://api.example.net',
    authBaseUrl: 'https://id.example.net',
    brands: 'cielo',
  };

  it('simulated runs the local runtime on the simulator clock; wall (the default) leaves it on timers', () => {
    expect(devSettings({ clock: 'simulated' }, {}).runtime.clock).toBe('simulated');
    expect(devSettings({ clock: 'wall' }, {}).runtime.clock).toBeUndefined();
    expect(devSettings({}, {}).runtime.clock).toBeUndefined();
  });

  it('refuses another value, a real API and the demo with the simulated clock, naming the flag', () => {
    expect(fieldOf(() => devSettings({ clock: 'fast' }, {}))).toBe('--clock');
    expect(fieldOf(() => devSettings({ clock: 'simulated', ...realApi }, {}))).toBe('--clock');
    expect(fieldOf(() => devSettings({ clock: 'simulated', demo: true }, {}))).toBe('--demo');
  });

  it('the runtime itself refuses the simulated clock with a real API before starting anything', async () => {
    const started = startLocalRuntime({
      clock: 'simulated',
      api: { baseUrl: 'https://api.example.net', authUrl: 'https://id.example.net', brands: ['cielo'] },
      out: null,
      err: null,
    });
    await expect(started).rejects.toMatchObject({ kind: 'InvalidOption', field: 'clock' });
  });
});
