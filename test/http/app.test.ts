import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemorySubscriptionStores } from '../../functions/adapters/memory/subscriptions';
import type { DeliveryJob } from '../../functions/core/delivery/engine';
import { signState, verifyState } from '../../functions/core/enrollment';
import { createHttpApp } from '../../functions/http/app';
import { stateKeyFromKeyRing } from '../../functions/runtime/runtime';
import { createWebhooks } from '../../functions/runtime/webhooks';
import { BRANDS } from '../../sim';
import type { SimUser } from '../../sim/world/types';
import { MemoryQueue } from '../polling/support';
import { type SimRuntime, startSimRuntime } from '../runtime/support';
import { loopbackAllowList } from '../webhooks/receiver';

const TOKEN = 'admin-token-0123456789abcdef';
const CALLBACK = 'http://127.0.0.1:9/oauth/callback';
const auth = { authorization: `Bearer ${TOKEN}` };

// biome-ignore lint/suspicious/noExplicitAny: JSON responses, read freely by tests.
type Json = any;

describe('HTTP API', () => {
  let s: SimRuntime;
  let app: ReturnType<typeof createHttpApp>;
  let errors: unknown[];

  beforeEach(async () => {
    s = await startSimRuntime();
    errors = [];
    app = createHttpApp(
      { runtime: s.runtime, onError: (e) => errors.push(e) },
      { auth: { kind: 'admin-token', token: TOKEN }, oauthRedirectOrigins: [new URL(CALLBACK).origin] },
    );
  });
  afterEach(() => s.close());

  const get = async (path: string, headers: Record<string, string> = auth) => {
    const res = await app.request(path, { headers });
    return { status: res.status, body: (await res.json()) as Json, res };
  };
  const send = async (
    method: string,
    path: string,
    body: string | undefined,
    headers: Record<string, string> = auth,
  ) => {
    const res = await app.request(path, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      ...(body !== undefined ? { body } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Json };
  };

  /** Browser steps of the authorization-code flow: our authorize route, the simulator's login page, its redirect back. */
  async function authorize(user: SimUser): Promise<{ code: string; state: string }> {
    const brand = BRANDS[user.brand].authSegment;
    const start = await app.request(`/oauth/${brand}/authorize?redirect=${encodeURIComponent(CALLBACK)}`);
    expect(start.status).toBe(302);
    const url = start.headers.get('location') ?? '';
    expect(url.startsWith(s.sim.authUrl)).toBe(true);
    expect(new URL(url).searchParams.get('code_challenge_method')).toBe('S256');
    const login = await fetch(url, {
      method: 'POST',
      body: new URLSearchParams({ user: user.id }),
      redirect: 'manual',
    });
    expect(login.status).toBe(302);
    const back = new URL(login.headers.get('location') ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
    return { code: back.searchParams.get('code') ?? '', state: back.searchParams.get('state') ?? '' };
  }

  const callback = (q: { code: string; state: string }, accept = 'application/json') =>
    app.request(`/oauth/callback?code=${encodeURIComponent(q.code)}&state=${encodeURIComponent(q.state)}`, {
      headers: { accept },
    });

  async function nothingStored(): Promise<void> {
    expect((await s.stores.enrollments.list()).items).toEqual([]);
    expect(s.bus.received).toEqual([]);
  }

  const userWithVehicles = () => {
    const user = s.sim.world.users().find((u) => u.vehicleIds.length > 0);
    if (!user) throw new Error('no user with vehicles');
    return user;
  };

  it('reports health with version and checks', async () => {
    const { status, body } = await get('/health', {});
    expect(status).toBe(200);
    expect(body).toEqual({ status: 'ok', version: 'test', checks: { store: 'ok', apiCredentials: 'ok' } });
  });

  it('enrolls a user through authorize → simulator login → callback, and lists the vehicles', async () => {
    const user = userWithVehicles();
    const res = await callback(await authorize(user));
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.enrollmentId).toMatch(/^enr_/);
    expect(body.vehicles.map((v: Json) => v.apiVehicleId).sort()).toEqual([...user.vehicleIds].sort());
    const stored = await get(`/enrollments/${body.enrollmentId}`);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ kind: 'oauth-user', status: 'active', userId: user.id });
    expect(stored.body.tokenCiphertext).toBeUndefined();
    expect(stored.body.vehicles).toHaveLength(user.vehicleIds.length);
    expect(s.bus.ids('enrollment.vehicle.added')).toHaveLength(user.vehicleIds.length);
    expect(s.metrics.total('EventsPublished')).toBe(user.vehicleIds.length);
    expect(s.metrics.total('ApiRequests')).toBeGreaterThanOrEqual(3); // token, user, vehicles
  });

  it("sends a browser to the console's enrollment page for the new enrollment, which lists its vehicles", async () => {
    const user = userWithVehicles();
    const res = await callback(await authorize(user), 'text/html');
    expect(res.status).toBe(303);
    const location = res.headers.get('location') ?? '';
    const enrolled = /^\/#\/enrollments\?enrolled=(enr_[^&]+)$/.exec(location);
    expect(enrolled, location).not.toBeNull();
    const enrollmentId = decodeURIComponent(enrolled?.[1] ?? '');
    // What the console's page then reads: this enrollment with the user's vehicles.
    const shown = await get(`/enrollments/${encodeURIComponent(enrollmentId)}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ id: enrollmentId, kind: 'oauth-user', userId: user.id });
    expect(shown.body.vehicles.map((v: Json) => v.apiVehicleId).sort()).toEqual([...user.vehicleIds].sort());
    // The page the address leads to is the console.
    const page = await app.request('/', { headers: { accept: 'text/html' } });
    expect(await page.text()).toContain('<title>Carhook console</title>');
  });

  it('refuses a replayed callback with 400 and keeps the first enrollment only', async () => {
    const q = await authorize(userWithVehicles());
    expect((await callback(q)).status).toBe(200);
    const before = (await s.stores.enrollments.list()).items.length;
    const replay = await callback(q);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({
      error: { code: 'InvalidState', reason: 'replayed', field: 'state' },
    });
    expect((await s.stores.enrollments.list()).items.length).toBe(before);
  });

  it('refuses a forged state with 400 (JSON and HTML) and stores nothing', async () => {
    const q = await authorize(userWithVehicles());
    const forged = signState(Buffer.from('another-key-another-key-another-key!!'), {
      nonce: 'n',
      brand: 'cielo',
      redirectUri: CALLBACK,
      expiresAt: s.runtime.now() + 60_000,
    });
    for (const state of [forged, `${q.state}x`, 'garbage']) {
      const res = await callback({ code: q.code, state });
      expect(res.status).toBe(400);
      const body = (await res.json()) as Json;
      expect(body.error.code).toBe('InvalidState');
      expect(body.error.message).toMatch(/^state: /);
    }
    const html = await callback({ code: q.code, state: forged }, 'text/html');
    expect(html.status).toBe(400);
    expect(await html.text()).toContain('Enrollment failed');
    const missing = await app.request('/oauth/callback');
    expect(missing.status).toBe(400);
    await nothingStored();
  });

  it('refuses an expired state with 400 and stores nothing', async () => {
    const q = await authorize(userWithVehicles());
    const r = await fetch(`${s.sim.url}/_sim/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ seconds: 11 * 60 }),
    });
    expect(r.status).toBe(200);
    const res = await callback(q);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'InvalidState', reason: 'expired' } });
    await nothingStored();
  });

  it('derives the state key from the token key ring (no further secret)', async () => {
    const ring = await s.runtime.ports.secrets.keyRing.load();
    const q = await authorize(userWithVehicles());
    expect(verifyState(stateKeyFromKeyRing(ring), q.state, s.runtime.now()).ok).toBe(true);
    expect(
      verifyState(Buffer.from('another-key-another-key-another-key!!'), q.state, s.runtime.now()).ok,
    ).toBe(false);
  });

  it('names the field of a bad authorize request', async () => {
    const brand = await get('/oauth/Not%20A%20Brand/authorize', {});
    expect(brand.status).toBe(400);
    expect(brand.body.error).toMatchObject({ code: 'InvalidInput', field: 'brand' });
    const other = await get('/oauth/otherbrand/authorize', {});
    expect(other.body.error.message).toMatch(/cielo, pavo/);
    const redirect = await get('/oauth/cielo/authorize?redirect=javascript:alert(1)', {});
    expect(redirect.status).toBe(400);
    expect(redirect.body.error.field).toBe('redirect');
  });

  it('sends the user back only to its own origin by default, or to the origins it was given', async () => {
    const byDefault = createHttpApp({ runtime: s.runtime }, { auth: { kind: 'admin-token', token: TOKEN } });
    const elsewhere = `/oauth/cielo/authorize?redirect=${encodeURIComponent('https://attacker.example/cb')}`;
    const refused = await byDefault.request(elsewhere);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as Json).error).toMatchObject({ code: 'InvalidInput', field: 'redirect' });
    const own = await byDefault.request(
      `/oauth/cielo/authorize?redirect=${encodeURIComponent('http://localhost/oauth/callback')}`,
    );
    expect(own.status).toBe(302);
    const configured = createHttpApp(
      { runtime: s.runtime },
      { auth: { kind: 'admin-token', token: TOKEN }, oauthRedirectOrigins: ['https://attacker.example'] },
    );
    const allowed = await configured.request(elsewhere);
    expect(allowed.status).toBe(302);
    expect(new URL(allowed.headers.get('location') ?? '').searchParams.get('redirect_uri')).toBe(
      'https://attacker.example/cb',
    );
  });

  it('refuses management routes without the admin token, or with a wrong one (401 JSON)', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token-wrong-token' },
      { authorization: TOKEN },
    ];
    for (const headers of attempts) {
      for (const path of ['/enrollments', '/enrollments/x', '/events']) {
        const r = await get(path, headers);
        expect(r.status).toBe(401);
        expect(r.body.error.code).toBe('Unauthorized');
        expect(r.res.headers.get('www-authenticate')).toMatch(/Bearer/);
      }
      const post = await send('POST', '/enrollments/contracts', '{}', headers);
      expect(post.status).toBe(401);
    }
    expect(() =>
      createHttpApp({ runtime: s.runtime }, { auth: { kind: 'admin-token', token: 'short' } }),
    ).toThrow(/auth.token/);
  });

  it('leaves authorization to API Gateway with auth iam', async () => {
    const iam = createHttpApp({ runtime: s.runtime }, { auth: { kind: 'iam' } });
    expect((await iam.request('/enrollments')).status).toBe(200);
  });

  it('enrolls a fleet contract, names bad fields, and answers 409 for a duplicate VIN', async () => {
    const [car, other] = s.sim.world.vehicles();
    if (!car || !other) throw new Error('the simulator has vehicles');
    const vin = car.vin;
    const ok = await send(
      'POST',
      '/enrollments/contracts',
      JSON.stringify({ vin, contract: car.contract, brand: car.brand }),
    );
    expect(ok.status).toBe(201);
    expect(ok.body.vehicleId).toBe(`${ok.body.enrollmentId}:${vin}`);
    // enrollment.vehicle.added, in the log and published.
    const added = await get(
      `/events?type=enrollment.vehicle.added&vehicleId=${encodeURIComponent(ok.body.vehicleId)}`,
    );
    expect(added.body.events).toHaveLength(1);
    expect(added.body.events[0]).toMatchObject({
      type: 'enrollment.vehicle.added',
      enrollment: { id: ok.body.enrollmentId, kind: 'fleet-contract' },
      data: { vehicleId: ok.body.vehicleId, vin },
      published: true,
    });
    const dup = await send(
      'POST',
      '/enrollments/contracts',
      JSON.stringify({ vin, contract: 'C-43', brand: 'P' }),
    );
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({
      code: 'Conflict',
      field: 'vin',
      existingEnrollmentId: ok.body.enrollmentId,
    });
    for (const [body, field] of [
      [{ vin: 'short', contract: 'C', brand: 'C' }, 'vin'],
      [{ vin: 'VF1AB000000000002', contract: 'has space', brand: 'C' }, 'contract'],
      [{ vin: 'VF1AB000000000002', contract: 'C', brand: 'X' }, 'brand'],
      [[1, 2], 'body'],
    ] as const) {
      const r = await send('POST', '/enrollments/contracts', JSON.stringify(body));
      expect(r.status).toBe(400);
      expect(r.body.error.field).toBe(field);
    }
    const malformed = await send('POST', '/enrollments/contracts', '{"vin":');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 'Malformed', field: 'body' });
    const empty = await send('POST', '/enrollments/contracts', undefined);
    expect(empty.status).toBe(400);
    const huge = await send('POST', '/enrollments/contracts', JSON.stringify({ pad: 'x'.repeat(70_000) }));
    expect(huge.status).toBe(413);
  });

  it('lists enrollments page by page, gets one with its vehicles, and unenrolls it', async () => {
    const ids: string[] = [];
    const cars = s.sim.world.vehicles().slice(0, 3);
    for (const car of cars) {
      const r = await send(
        'POST',
        '/enrollments/contracts',
        JSON.stringify({ vin: car.vin, contract: car.contract, brand: car.brand }),
      );
      ids.push(r.body.enrollmentId);
    }
    const first = await get('/enrollments?limit=2');
    expect(first.body.enrollments).toHaveLength(2);
    expect(first.body.cursor).toBeDefined();
    const second = await get(`/enrollments?limit=2&cursor=${encodeURIComponent(first.body.cursor)}`);
    expect([...first.body.enrollments, ...second.body.enrollments].map((e: Json) => e.id).sort()).toEqual(
      ids.sort(),
    );
    expect((await get('/enrollments?limit=0')).body.error.field).toBe('limit');
    expect((await get('/enrollments?status=gone')).body.error.field).toBe('status');
    expect((await get('/enrollments?cursor=forged')).status).toBe(400);

    const one = await get(`/enrollments/${ids[0]}`);
    const car = cars.find((c) => c.vin === one.body.vin);
    expect(one.body).toMatchObject({ kind: 'fleet-contract', contract: car?.contract });
    expect(one.body.vehicles).toHaveLength(1);
    const del = await send('DELETE', `/enrollments/${ids[0]}`, undefined);
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ status: 'unenrolled', transitioned: true, vehiclesPaused: 1 });
    // One enrollment.vehicle.removed for its vehicle; a second DELETE emits nothing new.
    const removedOf = async () =>
      (
        await get(
          `/events?type=enrollment.vehicle.removed&vehicleId=${encodeURIComponent(one.body.vehicles[0].id)}`,
        )
      ).body.events;
    expect(await removedOf()).toMatchObject([
      { data: { vehicleId: one.body.vehicles[0].id, vin: car?.vin }, published: true },
    ]);
    expect((await send('DELETE', `/enrollments/${ids[0]}`, undefined)).status).toBe(200);
    expect(await removedOf()).toHaveLength(1);
    expect((await get(`/enrollments/${ids[0]}`)).body.status).toBe('unenrolled');
    expect((await send('DELETE', '/enrollments/enr_missing', undefined)).status).toBe(404);
    expect((await get('/enrollments/enr_missing')).status).toBe(404);
  });

  it('refuses a fleet contract the API does not know, naming the field, and stores nothing', async () => {
    const [car] = s.sim.world.vehicles();
    if (!car) throw new Error('the simulator has vehicles');
    const unknownVin = await send(
      'POST',
      '/enrollments/contracts',
      JSON.stringify({ vin: 'VF1AB000000000999', contract: car.contract, brand: car.brand }),
    );
    expect(unknownVin.status).toBe(404);
    expect(unknownVin.body.error).toMatchObject({ code: 'UnknownVin', field: 'vin' });
    const unknownContract = await send(
      'POST',
      '/enrollments/contracts',
      JSON.stringify({ vin: car.vin, contract: 'NO-SUCH-CONTRACT', brand: car.brand }),
    );
    expect(unknownContract.status).toBe(422);
    expect(unknownContract.body.error).toMatchObject({ code: 'UnknownContract', field: 'contract' });
    expect(unknownContract.body.error.message).toContain('NO-SUCH-CONTRACT');
    expect((await s.stores.enrollments.list()).items).toEqual([]);
    expect(await s.stores.enrollments.findByFleetVin(car.vin)).toBeUndefined();
    expect((await get('/events')).body.events).toEqual([]);
  });

  it('queries the event log by vehicle, type and time, and validates each parameter', async () => {
    const user = userWithVehicles();
    const enrolled = (await (await callback(await authorize(user))).json()) as Json;
    const vehicleId: string = enrolled.vehicles[0].id;
    const all = await get('/events');
    expect(all.status).toBe(200);
    expect(all.body.events.length).toBe(user.vehicleIds.length);
    expect(all.body.events[0]).toMatchObject({ type: 'enrollment.vehicle.added', published: true });
    const typed = await get('/events?type=vehicle.alert.raised');
    expect(typed.body.events).toEqual([]);
    const byType = await get('/events?type=enrollment.vehicle.added,vehicle.alert.raised&limit=1');
    expect(byType.body.events).toHaveLength(1);
    expect(byType.body.cursor !== undefined).toBe(user.vehicleIds.length > 1);
    const future = await get(
      `/events?since=${new Date(s.runtime.now() + 3_600_000).toISOString()}&until=${new Date(s.runtime.now() + 7_200_000).toISOString()}`,
    );
    expect(future.body.events).toEqual([]);
    const byVehicle = await get(`/events?vehicleId=${encodeURIComponent(vehicleId)}`);
    expect(byVehicle.status).toBe(200);
    for (const [query, field] of [
      ['since=yesterday', 'since'],
      ['until=2026-13-45T00:00:00Z', 'until'],
      ['limit=1000', 'limit'],
      ['type=DROP TABLE', 'type'],
      ['since=2030-01-01T00:00:00Z&until=2020-01-01T00:00:00Z', 'since'],
      ['cursor=', 'cursor'],
    ] as const) {
      const r = await get(`/events?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body.error.field, query).toBe(field);
    }
  });

  it('mounts the webhook subscription routes behind the admin token', async () => {
    const webhooks = await createWebhooks(s.runtime, {
      ...createMemorySubscriptionStores(),
      deliveryQueue: new MemoryQueue<DeliveryJob>(),
      senderOptions: { allowInsecureLoopback: true, allowList: loopbackAllowList() },
    });
    const withHooks = createHttpApp(
      { runtime: s.runtime, subscriptions: webhooks.service },
      { auth: { kind: 'admin-token', token: TOKEN } },
    );
    const body = JSON.stringify({ url: 'http://127.0.0.1:8999/hooks' });
    const anonymous = await withHooks.request('/subscriptions', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(anonymous.status).toBe(401);
    const created = await withHooks.request('/subscriptions', {
      method: 'POST',
      body,
      headers: { ...auth, 'content-type': 'application/json' },
    });
    expect(created.status).toBe(201);
    const listed = await withHooks.request('/subscriptions', { headers: auth });
    expect(((await listed.json()) as Json).items).toHaveLength(1);
    expect((await app.request('/subscriptions', { headers: auth })).status).toBe(404);
  });

  it('answers 404 JSON for an unknown route', async () => {
    const r = await get('/nope', {});
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('NotFound');
  });

  it('never answers 5xx to random input on any management route', async () => {
    const webhooks = await createWebhooks(s.runtime, {
      ...createMemorySubscriptionStores(),
      deliveryQueue: new MemoryQueue<DeliveryJob>(),
      // No test reaches the internet: every hostname "resolves" to a documentation address.
      senderOptions: { resolve: async () => [{ address: '192.0.2.1', family: 4 }] },
    });
    const full = createHttpApp(
      { runtime: s.runtime, subscriptions: webhooks.service, onError: (e) => errors.push(e) },
      { auth: { kind: 'admin-token', token: TOKEN } },
    );
    const paths = fc.oneof(
      fc.constant('/subscriptions'),
      fc
        .tuple(
          fc.string({ maxLength: 60 }),
          fc.constantFrom(
            '',
            '/rotate-secret',
            '/test',
            '/enable',
            '/deliveries',
            '/dead-letters',
            '/replay',
          ),
        )
        .map(([id, tail]) => `/subscriptions/${encodeURIComponent(id)}${tail}`),
      fc.constant('/enrollments/contracts'),
      fc.constant('/enrollments'),
      fc.string({ maxLength: 300 }).map((s) => `/enrollments/${encodeURIComponent(s)}`),
      fc.constant('/events'),
    );
    const bodies = fc.oneof(
      fc.json(),
      fc.string(),
      fc
        .record({ vin: fc.string(), contract: fc.string(), brand: fc.string() })
        .map((b) => JSON.stringify(b)),
      fc.constant(''),
    );
    const query = fc.dictionary(
      fc.constantFrom('limit', 'cursor', 'since', 'until', 'type', 'vehicleId', 'status'),
      fc.string({ maxLength: 40 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH'),
        paths,
        bodies,
        query,
        async (method, path, body, q) => {
          const qs = new URLSearchParams(q).toString();
          const res = await full.request(`${path}${qs ? `?${qs}` : ''}`, {
            method,
            headers: { ...auth, 'content-type': 'application/json' },
            ...(method === 'GET' || method === 'DELETE' ? {} : { body }),
          });
          expect(res.status, `${method} ${path}?${qs} ${body.slice(0, 80)}`).toBeLessThan(500);
          // One error shape on every route: { error: { code, message, field? } }.
          if (res.status >= 400) {
            const error = ((await res.json()) as Json).error;
            expect(error.code).toEqual(expect.any(String));
            expect(error.message).toEqual(expect.any(String));
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(errors).toEqual([]);
  });
});
