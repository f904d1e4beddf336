/**
 * `carhook dev --api-base-url … --auth-base-url …`: no simulator is started, the API client's
 * credentials come from `CARHOOK_API_CLIENT` (or a file) and a missing one is a start-up message.
 * A separately started simulator plays the real API here.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { banner, type LocalRuntime, startLocalRuntime } from '../../functions/local/runtime';
import { loadOrCreateState, STATE_FILE } from '../../functions/local/state';
import { type RunningSimulator, startSimulator } from '../../sim';

describe('the local runtime against a real API', () => {
  let sim: RunningSimulator;
  let rt: LocalRuntime | undefined;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, vehicles: 2 });
  });
  afterAll(async () => {
    await rt?.close();
    await sim?.close();
  });

  it('refuses to start without API credentials, saying how to give them', async () => {
    await expect(
      startLocalRuntime({
        port: 0,
        api: { baseUrl: sim.url, authUrl: sim.url, brands: ['cielo'] },
        env: {},
        out: null,
        err: null,
      }),
    ).rejects.toMatchObject({
      kind: 'Config',
      message: expect.stringMatching(/^API credentials: .*CARHOOK_API_CLIENT.*--api-credentials <file>/),
    });
  });

  it('refuses a poll concurrency outside 1 to 64 before starting anything, naming it', async () => {
    await expect(
      startLocalRuntime({ port: 0, simPort: 0, pollConcurrency: 0, out: null, err: null }),
    ).rejects.toMatchObject({ kind: 'InvalidOption', field: 'pollConcurrency' });
  });

  it('runs without a simulator, with the credentials from CARHOOK_API_CLIENT', {
    timeout: 60_000,
  }, async () => {
    rt = await startLocalRuntime({
      port: 0,
      api: { baseUrl: sim.url, authUrl: sim.url, brands: ['cielo', 'pavo'] },
      env: { CARHOOK_API_CLIENT: JSON.stringify({ clientId: sim.clientId, clientSecret: sim.clientSecret }) },
      adminToken: 'real-api-test-token-0123456789',
      out: null,
      err: null,
    });
    expect(rt.sim).toBeUndefined();
    expect(rt.enrolled).toEqual([]);
    expect(rt.quota).toBe(120);
    const health = (await (await fetch(`${rt.apiUrl}/health`)).json()) as { checks: Record<string, string> };
    expect(health.checks).toEqual({ store: 'ok', apiCredentials: 'ok' });
    // OAuth goes to the given auth URL.
    const authorize = await fetch(`${rt.apiUrl}/oauth/cielo/authorize`, { redirect: 'manual' });
    expect(authorize.status).toBe(302);
    expect(authorize.headers.get('location')).toMatch(
      new RegExp(`^${sim.url}/accounts/signin/v1/cielo/oauth2/authorize\\?`),
    );
    // No map credentials: map updates are not polled, and the banner says how to give them.
    expect(await rt.runtime.mapEnabled()).toBe(false);
    expect(banner(rt, { generatedToken: false })).toContain(
      `  map API         ${sim.url}/applications/map/v1   not polled: no credentials (--map-credentials <file> or CARHOOK_MAP_API)`,
    );
  });

  it('polls the map API with its own credentials from --map-credentials or CARHOOK_MAP_API', {
    timeout: 60_000,
  }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'carhook-map-'));
    const file = join(dir, 'map.json');
    await writeFile(file, JSON.stringify({ username: 'map-user', password: 'map-pass' }));
    const client = JSON.stringify({ clientId: sim.clientId, clientSecret: sim.clientSecret });
    const fromFile = await startLocalRuntime({
      port: 0,
      api: { baseUrl: sim.url, authUrl: sim.url, brands: ['cielo'], mapCredentialsFile: file },
      env: { CARHOOK_API_CLIENT: client },
      adminToken: 'real-api-test-token-0123456789',
      out: null,
      err: null,
    });
    try {
      expect(await fromFile.runtime.mapEnabled()).toBe(true);
      expect(fromFile.mapApi).toBe(`credentials from ${file}`);
      expect(banner(fromFile, { generatedToken: false })).toContain(
        `/applications/map/v1   credentials from ${file}`,
      );
    } finally {
      await fromFile.close();
    }
    const fromEnv = await startLocalRuntime({
      port: 0,
      api: { baseUrl: sim.url, authUrl: sim.url, brands: ['cielo'] },
      env: { CARHOOK_API_CLIENT: client, CARHOOK_MAP_API: '{"username":"u","password":"p"}' },
      adminToken: 'real-api-test-token-0123456789',
      out: null,
      err: null,
    });
    try {
      expect(await fromEnv.runtime.mapEnabled()).toBe(true);
      expect(fromEnv.mapApi).toBe('credentials from CARHOOK_MAP_API');
    } finally {
      await fromEnv.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('local state in --data-dir', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'carhook-state-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is created once (mode 0600) and read back unchanged on restart', async () => {
    const first = await loadOrCreateState(dir, Date.UTC(2026, 10, 22, 3, 0, 0, 123));
    expect(first.created).toBe(true);
    expect(first.state.simStartTime).toBe(Date.UTC(2026, 10, 22, 3, 0, 0));
    expect((await stat(join(dir, STATE_FILE))).mode & 0o777).toBe(0o600);
    const second = await loadOrCreateState(dir, Date.now());
    expect(second).toEqual({ state: first.state, created: false });
    expect(JSON.parse(first.state.keyRingJson)).toEqual({ current: 'k1', k1: expect.any(String) });
  });

  it('without a data dir every run gets fresh keys', async () => {
    const a = await loadOrCreateState(undefined, 0);
    const b = await loadOrCreateState(undefined, 0);
    expect(a.state.keyRingJson).not.toBe(b.state.keyRingJson);
    expect(a.state.adminToken).not.toBe(b.state.adminToken);
  });

  it('names a broken state file rather than replacing it (that would lose every stored token)', async () => {
    const broken = await mkdtemp(join(dir, 'broken-'));
    await writeFile(join(broken, STATE_FILE), '{"keyRingJson": 1}');
    await expect(loadOrCreateState(broken, 0)).rejects.toMatchObject({
      kind: 'Config',
      field: 'dataDir',
      message: expect.stringContaining('"keyRingJson"'),
    });
    await writeFile(join(broken, STATE_FILE), 'not json');
    await expect(loadOrCreateState(broken, 0)).rejects.toMatchObject({
      message: expect.stringContaining('is not valid JSON'),
    });
    expect(await readFile(join(broken, STATE_FILE), 'utf8')).toBe('not json');
  });

  it('refuses to restart a data dir with another simulator world (it would not match the stored enrollments)', async () => {
    const world = await mkdtemp(join(dir, 'world-'));
    await loadOrCreateState(world, 0, { seed: 3, vehicles: 4 });
    await expect(
      startLocalRuntime({ port: 0, simPort: 0, dataDir: world, seed: 3, vehicles: 5, out: null, err: null }),
    ).rejects.toMatchObject({
      kind: 'InvalidOption',
      field: '--data-dir',
      message: `--data-dir ${world} holds a simulator world of --vehicles 4 --seed 3: start with those, or use another --data-dir`,
    });
    expect((await loadOrCreateState(world, 0)).state.simWorld).toEqual({ seed: 3, vehicles: 4 });
  });

  it('names a data dir it cannot write', async () => {
    // A regular file where a directory should be: fails for every user, root included.
    const file = join(dir, 'a-file');
    await writeFile(file, '');
    await expect(loadOrCreateState(join(file, 'sub'), 0)).rejects.toMatchObject({
      kind: 'Config',
      message: expect.stringMatching(/^--data-dir .*: cannot (read|write) local\.json \(ENOTDIR\)/),
    });
  });
});
