/**
 * Chaos contract: the simulator's fault modes, each with the client's documented outcome.
 * Waits are skipped with an injected sleep; only the per-attempt timeouts are real (100 ms).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CarClient, CarClientOptions, RateSample } from '../../functions/core/api';
import { type RunningSimulator, startSimulator } from '../../sim';
import type { SimTrip, SimUser, SimVehicle } from '../../sim/world/types';
import { setChaos, simStats, userClient } from './simulator';

let sim: RunningSimulator;
let user: SimUser;
let vehicle: SimVehicle;
let trip: SimTrip;
let samples: RateSample[] = [];
let sleeps: number[] = [];

async function clientWith(options: Partial<CarClientOptions> = {}): Promise<CarClient> {
  const { client } = await userClient(sim, user, {
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    rateObserver: { observe: (s) => samples.push(s) },
    retry: { maxAttempts: 4, baseDelayMs: 10, maxDelayMs: 100, maxTotalMs: 10_000 },
    ...options,
  });
  return client;
}

beforeAll(async () => {
  sim = await startSimulator({
    port: 0,
    vehicles: 6,
    seed: 5,
    clock: 'manual',
    quota: { limit: 100_000, windowSeconds: 60 },
  });
  const world = sim.world;
  const chosen = world.vehicles().find((v) => world.trips(v.id).length > 0 && world.alerts(v.id).length > 0);
  if (!chosen) throw new Error('no vehicle with trips and alerts');
  vehicle = chosen;
  user = world.user(vehicle.userId) as SimUser;
  trip = world.trips(vehicle.id).at(-1) as SimTrip;
  const res = await fetch(`${sim.url}/_sim/vehicles/${vehicle.id}/collisions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ front: 'medium', rear: 'none', lateral: 'fixable' }),
  });
  if (res.status !== 201) throw new Error(`add collision: ${res.status}`);
});

afterEach(async () => {
  await setChaos(sim, {});
  samples = [];
  sleeps = [];
});

afterAll(async () => {
  await sim?.close();
});

describe('chaos: transient faults', () => {
  it('serverError everywhere: Upstream after maxAttempts, the simulator saw exactly that many', async () => {
    const client = await clientWith();
    const before = (await simStats(sim)).byOperation['v2.vehicles.get'] ?? 0;
    await setChaos(sim, { serverError: 1 });
    const r = await client.v2.vehicle(vehicle.id);
    expect(r).toMatchObject({ ok: false, requests: 4, error: { kind: 'Upstream', status: 500 } });
    expect(sleeps).toHaveLength(3);
    await setChaos(sim, {});
    expect((await simStats(sim)).byOperation['v2.vehicles.get']).toBe(before + 4);
  });

  it('serverError half the time: every call still succeeds, retries are counted', async () => {
    const client = await clientWith({
      retry: { maxAttempts: 8, baseDelayMs: 1, maxDelayMs: 10, maxTotalMs: 10_000 },
    });
    await setChaos(sim, { serverError: 0.5 });
    const results = await Promise.all(Array.from({ length: 10 }, () => client.v2.maintenance(vehicle.id)));
    expect(results.every((r) => r.ok)).toBe(true);
    const requests = results.reduce((n, r) => n + r.requests, 0);
    expect(requests).toBeGreaterThan(10);
    expect(client.stats().retries).toBe(requests - 10);
  });

  it('rateLimited with a reset beyond the budget: RateLimited at once with resetAt, observed', async () => {
    const client = await clientWith();
    await setChaos(sim, { rateLimited: 1 });
    const started = Date.now();
    const r = await client.v2.alerts({ vehicleId: vehicle.id });
    expect(r).toMatchObject({ ok: false, requests: 1, error: { kind: 'RateLimited', status: 429 } });
    if (!r.ok && r.error.kind === 'RateLimited') {
      // The simulator's window is 60 s: X-RateLimit-Reset = 60.
      expect(r.error.resetAt?.getTime()).toBeGreaterThanOrEqual(started + 59_000);
    }
    expect(sleeps).toEqual([]);
    expect(samples.at(-1)).toMatchObject({
      status: 429,
      operation: 'v2.vehicles.alerts',
      clientId: sim.clientId,
    });
  });

  it('rateLimited with a short window: waits X-RateLimit-Reset, then succeeds', async () => {
    const quota = await fetch(`${sim.url}/_sim/clients/${sim.clientId}/quota`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ limit: 100_000, windowSeconds: 2 }),
    });
    expect(quota.status).toBe(200);
    try {
      const client = await clientWith({
        retry: { maxAttempts: 10, baseDelayMs: 1, maxDelayMs: 10, maxTotalMs: 60_000 },
      });
      await setChaos(sim, { rateLimited: 0.5 });
      const results = await Promise.all(Array.from({ length: 6 }, () => client.v2.vehicle(vehicle.id)));
      expect(results.every((r) => r.ok)).toBe(true);
      expect(client.stats().rateLimited).toBeGreaterThan(0);
      // Each 429 wait is the reset (2 s), not a backoff.
      expect(sleeps.length).toBe(client.stats().rateLimited);
      for (const ms of sleeps) expect(ms).toBeGreaterThan(1000);
      expect(samples.every((s) => s.limit === 100_000)).toBe(true);
    } finally {
      await fetch(`${sim.url}/_sim/clients/${sim.clientId}/quota`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ limit: 100_000, windowSeconds: 60 }),
      });
    }
  });

  it('slow beyond the timeout: Timeout after the retries', async () => {
    const client = await clientWith({
      timeoutMs: 100,
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1, maxTotalMs: 10_000 },
    });
    await setChaos(sim, { slow: 1, slowMs: 2000 });
    const r = await client.v2.vehicle(vehicle.id);
    expect(r).toMatchObject({ ok: false, requests: 2, error: { kind: 'Timeout', aborted: false } });
  });

  it('slow within the timeout: succeeds', async () => {
    const client = await clientWith({ timeoutMs: 5000 });
    await setChaos(sim, { slow: 1, slowMs: 50 });
    const r = await client.v2.vehicle(vehicle.id);
    expect(r).toMatchObject({ ok: true, requests: 1, value: { id: vehicle.id } });
  });

  it('hung: Timeout, and a caller abort ends it at once', async () => {
    const client = await clientWith({
      timeoutMs: 100,
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1, maxTotalMs: 10_000 },
    });
    await setChaos(sim, { hung: 1 });
    const r = await client.v2.trip(trip.id);
    expect(r).toMatchObject({ ok: false, requests: 2, error: { kind: 'Timeout' } });
    const controller = new AbortController();
    const pending = client.v2.trip(trip.id, { signal: controller.signal, timeoutMs: 60_000 });
    setTimeout(() => controller.abort(), 30);
    expect(await pending).toMatchObject({
      ok: false,
      requests: 1,
      error: { kind: 'Timeout', aborted: true },
    });
  });

  it('tokenServerError: the refresh is retried and the call succeeds', async () => {
    const { client, provider } = await userClient(sim, user, { sleep: async () => {} });
    await setChaos(sim, { tokenServerError: 0.5 });
    const old = provider.tokens.accessToken;
    const fresh = await provider.refreshAccessToken(old);
    expect(fresh).not.toBe(old);
    expect((await client.v2.user()).ok).toBe(true);
  });
});

describe('chaos: shape drift and contradictions', () => {
  it('malformedJson: Malformed with the operation and a bounded excerpt, not retried', async () => {
    const client = await clientWith();
    await setChaos(sim, { malformedJson: 1 });
    const r = await client.v2.alerts({ vehicleId: vehicle.id });
    expect(r).toMatchObject({
      ok: false,
      requests: 1,
      error: { kind: 'Malformed', operation: 'v2.vehicles.alerts' },
    });
    if (!r.ok && r.error.kind === 'Malformed') {
      expect(r.error.excerpt.length).toBeGreaterThan(0);
      expect(r.error.excerpt.length).toBeLessThanOrEqual(200);
    }
  });

  it('notFoundForEmptyList: an empty list answered 404 is an empty complete list', async () => {
    const client = await clientWith();
    await setChaos(sim, { notFoundForEmptyList: 1 });
    const future = new Date(sim.world.now() + 86_400_000);
    const r = await client.v2.alerts({ vehicleId: vehicle.id, since: future });
    expect(r).toMatchObject({
      ok: true,
      value: { items: [], total: 0, complete: true, notFoundAsEmpty: true },
    });
    const all = await client.v2.collisions.all({ vehicleId: vehicle.id, since: future });
    expect(all).toMatchObject({ ok: true, value: { items: [], complete: true } });
    // A non-empty list is unaffected, and a missing vehicle stays NotFound.
    const some = await client.v2.alerts.all({ vehicleId: vehicle.id });
    expect(some.ok && some.value.items.length).toBe(sim.world.alerts(vehicle.id).length);
    expect(await client.v2.vehicle('no-such-vehicle')).toMatchObject({
      ok: false,
      error: { kind: 'NotFound' },
    });
  });

  it('upperCaseEnums: severities and collision levels come back lower-case, as in the world', async () => {
    const client = await clientWith();
    await setChaos(sim, { upperCaseEnums: 1 });
    const alerts = await client.v2.alerts.all({ vehicleId: vehicle.id, limit: 100 });
    const collisions = await client.v2.collisions.all({ vehicleId: vehicle.id, limit: 100 });
    expect(alerts.ok && collisions.ok).toBe(true);
    if (!alerts.ok || !collisions.ok) return;
    for (const a of sim.world.alerts(vehicle.id)) {
      expect(alerts.value.items.find((x) => x.id === a.id)?.severity).toBe(a.severity);
    }
    for (const c of sim.world.collisions(vehicle.id)) {
      expect(collisions.value.items.find((x) => x.id === c.id)).toMatchObject({
        front: c.front,
        rear: c.rear,
        lateral: c.lateral,
      });
    }
  });

  it('numbersAsStrings: durations read as numbers and decimal distances kept', async () => {
    const client = await clientWith();
    await setChaos(sim, { numbersAsStrings: 1 });
    const r = await client.v2.trip(trip.id);
    expect(r).toMatchObject({ ok: true, value: { durationS: trip.durationS, distanceKm: trip.distanceKm } });
  });

  it('alertItemShape: the alternative list items map to the same alerts', async () => {
    const client = await clientWith();
    const declared = await client.v2.alerts.all({ vehicleId: vehicle.id, limit: 100 });
    await setChaos(sim, { alertItemShape: 1 });
    const items = await client.v2.alerts.all({ vehicleId: vehicle.id, limit: 100 });
    expect(declared.ok && items.ok).toBe(true);
    if (!declared.ok || !items.ok) return;
    const key = (a: { id: string; active: boolean; message: string }) => `${a.id}:${a.active}:${a.message}`;
    expect(items.value.items.map(key).sort()).toEqual(declared.value.items.map(key).sort());
    for (const a of items.value.items) {
      const world = sim.world.alerts(vehicle.id).find((x) => x.id === a.id);
      expect(a.startedAt).toBe(new Date(Math.floor((world?.createdAt ?? 0) / 1000) * 1000).toISOString());
    }
  });
});

describe("access and grants (another user's vehicle, access revoked by the user)", () => {
  it("answers AccessDenied for another user's vehicle", async () => {
    const other = sim.world.vehicles().find((v) => v.userId !== user.id);
    if (!other) throw new Error('no vehicle of another user');
    const client = await clientWith();
    expect(await client.v2.vehicle(other.id)).toMatchObject({
      ok: false,
      error: { kind: 'AccessDenied', status: 403 },
    });
    expect(await client.v2.alerts({ vehicleId: other.id })).toMatchObject({
      ok: false,
      error: { kind: 'AccessDenied' },
    });
  });

  it('answers InvalidGrant when the user revoked access and the token must be refreshed', async () => {
    const victim = sim.world.users().find((u) => u.id !== user.id && u.vehicleIds.length > 0);
    if (!victim) throw new Error('no second user');
    const { client, provider } = await userClient(sim, victim);
    const revoke = await fetch(`${sim.url}/_sim/users/${victim.id}/revoke`, { method: 'POST' });
    expect(revoke.status).toBe(200);
    await expect(provider.refreshAccessToken(provider.tokens.accessToken)).rejects.toMatchObject({
      kind: 'InvalidGrant',
    });
    const r = await client.v2.user();
    // Revocation may also end the access token at once: then the 401 → refresh → InvalidGrant.
    if (!r.ok) expect(r.error.kind).toBe('InvalidGrant');
  });
});
