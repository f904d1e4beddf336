/**
 * The quota followed, end to end in the local runtime on the simulator's clock: the simulator's
 * `PUT /_sim/clients/{clientId}/quota` raises and lowers the client's quota, Carhook follows it
 * (up to `--quota-max`), tells each change as `carhook.quota.changed` to a subscription that names
 * it, and its requests per window follow: a raise is used from the next cycle and never exceeded,
 * a drop is followed at once. One step is one planner cycle (a simulated minute).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { validateEvent } from '../../functions/core/events/validate';
import { type LocalRuntime, startLocalRuntime } from '../../functions/local/runtime';
import { startRecorder } from './support';

const MINUTE = 60_000;

interface ClientStats {
  readonly requests: number;
  readonly tooManyRequests: number;
  readonly maxInWindow: number;
  readonly limit: number;
}

describe('a quota raised and lowered in the simulator', { timeout: 240_000 }, () => {
  let rt: LocalRuntime;
  let recorder: Awaited<ReturnType<typeof startRecorder>>;
  const received = () => recorder.requests.map((r) => (JSON.parse(r.body) as { data: EventEnvelope }).data);
  let clientId: string;

  const sim = () => rt.sim as NonNullable<LocalRuntime['sim']>;
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${sim().url}/_sim${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    // biome-ignore lint/suspicious/noExplicitAny: JSON answers, read freely by the test.
    return { status: res.status, body: (await res.json()) as any };
  };
  const stats = async (): Promise<ClientStats> =>
    (await control('GET', '/stats')).body.clients[clientId] as ClientStats;
  /** One cycle: the clock moves a minute, the planner runs and every job settles. Returns the requests it made. */
  const minute = async (): Promise<{ requests: number; refused: number }> => {
    const before = await stats();
    await rt.advance(MINUTE);
    const after = await stats();
    return {
      requests: after.requests - before.requests,
      refused: after.tooManyRequests - before.tooManyRequests,
    };
  };
  const changes = () => received().filter((e) => e.type === 'carhook.quota.changed');

  beforeAll(async () => {
    recorder = await startRecorder(() => 204);
    rt = await startLocalRuntime({
      port: 0,
      simPort: 0,
      vehicles: 150,
      seed: 5,
      clock: 'simulated',
      pollIntervalMs: MINUTE,
      quota: 60,
      quotaMax: 200,
      out: null,
      err: null,
    });
    clientId = sim().clientId;
    const res = await fetch(`${rt.apiUrl}/subscriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rt.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        url: recorder.url,
        eventTypes: ['carhook.*'],
      }),
    });
    expect(res.status).toBe(201);
    // The fleet asks for more than 60 a minute: each cycle spends what the budget allows.
    for (let i = 0; i < 3; i++) await minute();
  }, 180_000);

  afterAll(async () => {
    await rt?.close();
    await recorder?.close();
  });

  it('spends at most the configured quota, and tells nothing while it does not change', async () => {
    const m = await minute();
    expect(m.requests).toBeGreaterThan(40);
    expect(m.requests).toBeLessThanOrEqual(60);
    expect((await stats()).maxInWindow).toBeLessThanOrEqual(60);
    expect(changes()).toEqual([]);
  });

  it('uses a raise within one window, up to the ceiling, never past it, and tells it once', async () => {
    expect(
      (await control('PUT', `/clients/${clientId}/quota`, { limit: 500, windowSeconds: 60 })).status,
    ).toBe(200);
    const first = await minute();
    const second = await minute();
    // The first response after the raise shows it; the next cycle is planned with it.
    expect(Math.max(first.requests, second.requests)).toBeGreaterThan(60);
    for (const m of [first, second, await minute()]) {
      expect(m.requests).toBeLessThanOrEqual(200);
      expect(m.refused).toBe(0);
    }
    // Counted by the simulator in its own windows: never past the ceiling in any of them.
    expect((await stats()).maxInWindow).toBeLessThanOrEqual(200);
    expect(changes().map((e) => e.data)).toEqual([
      {
        clientId,
        previousLimit: 60,
        limit: 200,
        windowSeconds: 60,
        source: 'header',
        ceiling: 200,
        changedAt: expect.any(String),
      },
    ]);
    expect(changes()[0]).toMatchObject({ sequence: 0, source: { api: 'carhook' } });
  });

  it('follows a drop at once and tells it', async () => {
    expect(
      (await control('PUT', `/clients/${clientId}/quota`, { limit: 30, windowSeconds: 60 })).status,
    ).toBe(200);
    await minute();
    // From the next window on: within the lower quota, nothing refused.
    for (let i = 0; i < 3; i++) {
      const m = await minute();
      expect(m.requests).toBeGreaterThan(0);
      expect(m.requests).toBeLessThanOrEqual(30);
      expect(m.refused).toBe(0);
    }
    expect(changes().map((e) => [e.data.previousLimit, e.data.limit, e.data.source])).toEqual([
      [60, 200, 'header'],
      [200, 30, 'header'],
    ]);
    // Each as published: the catalogue's schema accepts it.
    for (const e of changes()) expect(validateEvent(e)).toEqual({ ok: true });
  });
});
