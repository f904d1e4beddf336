import { describe, expect, it } from 'vitest';
import type { RateSample } from '../../functions/core/api';
import { json, testClient } from './support';

const vehicle = { id: 'v1', vin: 'VF3ABCDEF12345678' };

describe('error kinds', () => {
  it.each([
    [400, 'InvalidRequest'],
    [403, 'AccessDenied'],
    [404, 'NotFound'],
    [500, 'Upstream'],
    [503, 'Upstream'],
  ])('maps status %i to %s', async (status, kind) => {
    const { client } = testClient(() =>
      json({ error: { status, code: 'x', message: 'bad thing', field: 'id' } }, status),
    );
    const r = await client.v2.vehicle('v1');
    expect(r).toMatchObject({ ok: false, error: { kind, status, operation: 'v2.vehicles.get' } });
  });

  it('names the field of a 400 and keeps the server message', async () => {
    const { client } = testClient(() =>
      json(
        {
          error: {
            status: 400,
            code: 'invalid_request',
            message: "Invalid parameter 'limit'",
            field: 'limit',
          },
        },
        400,
      ),
    );
    const r = await client.v2.vehicles({ limit: 5 });
    expect(r).toMatchObject({ ok: false, requests: 1, error: { kind: 'InvalidRequest', field: 'limit' } });
    if (!r.ok) expect(r.error.message).toContain("Invalid parameter 'limit'");
  });

  it('reports a network failure as Network after the retries', async () => {
    const { client } = testClient(() => {
      throw new TypeError('fetch failed: ECONNREFUSED');
    });
    const r = await client.v2.vehicle('v1');
    expect(r).toMatchObject({ ok: false, requests: 4, error: { kind: 'Network' } });
  });

  it('reports an attempt that exceeds its timeout as Timeout', async () => {
    const { client } = testClient(
      // A hung server: only the client's timeout ends the attempt.
      () => new Promise<Response>(() => {}),
      { timeoutMs: 20, retry: { maxAttempts: 1 } },
    );
    const r = await client.v2.vehicle('v1');
    expect(r).toMatchObject({ ok: false, requests: 1, error: { kind: 'Timeout', aborted: false } });
  });
});

describe('retries', () => {
  it('retries 5xx with full-jitter exponential backoff, then succeeds', async () => {
    const { client, time, requests } = testClient((_req, n) =>
      n < 3 ? json({ error: {} }, 502) : json(vehicle),
    );
    const r = await client.v2.vehicle('v1');
    expect(r).toMatchObject({ ok: true, requests: 3, value: { id: 'v1' } });
    expect(requests).toHaveLength(3);
    // random() = 0.5 of min(maxDelay, base * 2^(attempt-1)) with base 200.
    expect(time.sleeps).toEqual([100, 200]);
  });

  it('never waits longer than maxDelayMs between attempts', async () => {
    const { client, time } = testClient(() => json({}, 500), {
      random: () => 0.999,
      retry: { maxAttempts: 6, baseDelayMs: 1000, maxDelayMs: 1500, maxTotalMs: 60_000 },
    });
    const r = await client.v2.vehicle('v1');
    expect(r).toMatchObject({ ok: false, requests: 6, error: { kind: 'Upstream', status: 500 } });
    expect(Math.max(...time.sleeps)).toBeLessThanOrEqual(1500);
    expect(time.sleeps).toHaveLength(5);
  });

  it('stops retrying when the next wait would exceed maxTotalMs', async () => {
    const { client, time } = testClient(() => json({}, 500), {
      random: () => 0.999,
      retry: { maxAttempts: 10, baseDelayMs: 1000, maxDelayMs: 10_000, maxTotalMs: 3500 },
    });
    const r = await client.v2.vehicle('v1');
    expect(r.ok).toBe(false);
    expect(time.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(3500);
    expect(r.requests).toBe(time.sleeps.length + 1);
  });

  it.each([400, 401, 403, 404, 422])('never retries a %i', async (status) => {
    const { client, requests } = testClient(() => json({}, status), {
      tokenProvider: { getAccessToken: async () => 't', refreshAccessToken: async () => 't' },
    });
    await client.v2.vehicle('v1');
    // A 401 is replayed once after the refresh; that is not a retry.
    expect(requests).toHaveLength(status === 401 ? 2 : 1);
  });

  it('retries POST list reads of v1 like GETs', async () => {
    const { client, requests } = testClient((_r, n) => (n === 1 ? json({}, 503) : json([])));
    const r = await client.v1.maintenanceList({
      targets: [{ vin: 'VF3ABCDEF12345678', contract: 'C1' }],
      locale: 'en',
      brand: 'C',
    });
    expect(r).toMatchObject({ ok: true, requests: 2, value: [] });
    expect(requests.map((q) => q.method)).toEqual(['POST', 'POST']);
  });

  it('sends nothing when the caller has already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const { client, requests } = testClient(() => json(vehicle));
    const r = await client.v2.vehicle('v1', { signal: controller.signal });
    expect(r).toMatchObject({ ok: false, requests: 0, error: { kind: 'Timeout', aborted: true } });
    expect(requests).toHaveLength(0);
  });

  it('stops retrying when the caller aborts during a backoff', async () => {
    const controller = new AbortController();
    const { client, requests } = testClient(() => json({}, 503), {
      sleep: async () => {
        controller.abort();
      },
    });
    const r = await client.v2.vehicle('v1', { signal: controller.signal });
    expect(r).toMatchObject({ ok: false, requests: 1, error: { kind: 'Timeout', aborted: true } });
    expect(requests).toHaveLength(1);
  });
});

describe('429 and the rate observer', () => {
  it('waits for X-RateLimit-Reset and then retries', async () => {
    const { client, time } = testClient((_r, n) =>
      n === 1
        ? json({ error: {} }, 429, {
            'X-RateLimit-Reset': '3',
            'X-RateLimit-Limit': '120',
            'X-RateLimit-Remaining': '0',
          })
        : json(vehicle, 200, { 'X-RateLimit-Limit': '120', 'X-RateLimit-Remaining': '119' }),
    );
    const r = await client.v2.vehicle('v1');
    expect(r).toMatchObject({ ok: true, requests: 2 });
    expect(time.sleeps).toEqual([3000]);
    expect(client.stats()).toMatchObject({ requests: 2, rateLimited: 1, retries: 1 });
  });

  it('returns RateLimited at once when the reset lies beyond the budget', async () => {
    const { client, time, requests } = testClient(() => json({}, 429, { 'X-RateLimit-Reset': '60' }), {
      retry: { maxTotalMs: 10_000 },
    });
    const started = time.now();
    const r = await client.v2.vehicle('v1');
    expect(requests).toHaveLength(1);
    expect(time.sleeps).toEqual([]);
    expect(r).toMatchObject({ ok: false, error: { kind: 'RateLimited', status: 429 } });
    if (!r.ok && r.error.kind === 'RateLimited') {
      expect(r.error.resetAt?.getTime()).toBe(started + 60_000);
    }
  });

  it.each([
    ['Retry-After when X-RateLimit-Reset is missing', { 'Retry-After': '2' }, 2000],
    [
      'an epoch X-RateLimit-Reset as an instant',
      { 'X-RateLimit-Reset': String(Date.UTC(2026, 10, 22, 10, 0, 5) / 1000) },
      5000,
    ],
  ])('reads %s', async (_n, headers, wait) => {
    const { client, time } = testClient((_r, n) => (n === 1 ? json({}, 429, headers) : json(vehicle)));
    const r = await client.v2.vehicle('v1');
    expect(r).toMatchObject({ ok: true, requests: 2 });
    expect(time.sleeps).toEqual([wait]);
  });

  it('reports every response to the rate observer, errors included', async () => {
    const samples: RateSample[] = [];
    const { client } = testClient(
      (_r, n) =>
        n === 1
          ? json({}, 500, { 'X-RateLimit-Limit': '120', 'X-RateLimit-Remaining': '7' })
          : json(vehicle, 200, { 'X-RateLimit-Limit': '120', 'X-RateLimit-Remaining': '6' }),
      { rateObserver: { observe: (s) => samples.push(s) } },
    );
    await client.v2.vehicle('v1');
    expect(samples).toEqual([
      { clientId: 'client-1', operation: 'v2.vehicles.get', status: 500, limit: 120, remaining: 7 },
      { clientId: 'client-1', operation: 'v2.vehicles.get', status: 200, limit: 120, remaining: 6 },
    ]);
  });

  it('counts requests per call and per operation, retries included', async () => {
    const events: number[] = [];
    const { client } = testClient((_r, n) => (n === 1 ? json({}, 500) : json(vehicle)), {
      onRequest: (e) => events.push(e.attempt),
    });
    const first = await client.v2.vehicle('v1');
    const second = await client.v2.vehicle('v1');
    expect([first.requests, second.requests]).toEqual([2, 1]);
    expect(events).toEqual([1, 2, 1]);
    expect(client.stats()).toMatchObject({
      requests: 3,
      calls: 2,
      retries: 1,
      byOperation: { 'v2.vehicles.get': 3 },
    });
  });
});
