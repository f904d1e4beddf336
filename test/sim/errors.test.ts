import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimUser, SimVehicle } from '../../sim/world/types';
import { basicAuth, startTestSim, type TestSim } from './support';

async function errorOf(
  res: Response,
): Promise<{ status: number; code: string; field?: string; message: string }> {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as {
    error: { status: number; code: string; field?: string; message: string };
  };
  expect(body.error.status).toBe(res.status);
  return body.error;
}

describe('authentication, access and parameter errors per area', () => {
  let t: TestSim;
  let alice: SimUser;
  let bob: SimUser;
  let aliceCar: SimVehicle;
  let bobCar: SimVehicle;
  let token: string;

  beforeAll(async () => {
    t = await startTestSim({
      vehicles: 8,
      seed: 3,
      clients: [
        { clientId: 'carhook-sim', clientSecret: 'carhook-sim-secret' },
        { clientId: 'other-app', clientSecret: 'other-secret' },
      ],
    });
    const users = t.sim.world.users();
    alice = users[0] as SimUser;
    bob = users[1] as SimUser;
    aliceCar = t.sim.world.vehicle(alice.vehicleIds[0] as string) as SimVehicle;
    bobCar = t.sim.world.vehicle(bob.vehicleIds[0] as string) as SimVehicle;
    token = await t.tokenFor(alice.id);
  });
  afterAll(() => t.close());

  describe('area A (v2)', () => {
    it('answers 401 without a bearer token, with a JSON error and the rate limit headers', async () => {
      const res = await t.fetch(`/connectedcar/v2/user?client_id=${t.sim.clientId}`);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(res.headers.get('x-ratelimit-limit')).toBe('120');
      expect((await errorOf(res)).code).toBe('unauthorized');
    });

    it('answers 401 for an unknown token, a missing client_id and an unknown client_id', async () => {
      expect((await t.v2('/user', 'at_nope')).status).toBe(401);
      const noClient = await t.fetch('/connectedcar/v2/user', {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(noClient.status).toBe(401);
      expect((await errorOf(noClient)).field).toBe('client_id');
      const unknown = await t.v2('/user', token, { client_id: 'who' });
      expect(unknown.status).toBe(401);
    });

    it.each([
      ['no scheme', 'nothing-but-a-token'],
      ['another scheme', 'Token abc'],
      ['an empty bearer', 'Bearer '],
      ['a token with spaces', 'Bearer a b'],
    ])(
      'answers 401 with the Bearer challenge for a malformed authorization header (%s)',
      async (_, header) => {
        const res = await t.fetch(`/connectedcar/v2/user?client_id=${t.sim.clientId}`, {
          headers: { authorization: header },
        });
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe(
          'Bearer realm="connectedcar", error="invalid_token"',
        );
        expect(await errorOf(res)).toMatchObject({
          code: 'unauthorized',
          field: 'authorization',
          message: 'A bearer access token is required',
        });
      },
    );

    it('names why a well-formed token is refused: unknown', async () => {
      const res = await t.v2('/user', 'at_nope');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="connectedcar", error="invalid_token"');
      expect((await errorOf(res)).message).toBe('The access token is invalid');
    });

    it('answers 401 when the token belongs to another client', async () => {
      const res = await t.v2('/user', token, { client_id: 'other-app' });
      expect(res.status).toBe(401);
      expect((await errorOf(res)).message).toMatch(/another client/);
    });

    it('answers 401 once the access token has expired on the world clock', async () => {
      const t2 = await startTestSim({ vehicles: 2, accessTokenTtlSeconds: 30 });
      try {
        const u = t2.sim.world.users()[0] as SimUser;
        const tok = await t2.tokenFor(u.id);
        expect((await t2.v2('/user', tok)).status).toBe(200);
        await t2.control('POST', '/clock/advance', { seconds: 31 });
        const res = await t2.v2('/user', tok);
        expect(res.status).toBe(401);
        expect((await errorOf(res)).message).toMatch(/expired/);
      } finally {
        await t2.close();
      }
    });

    it("answers 403 for another user's vehicle and 404 for an unknown one", async () => {
      const forbidden = await t.v2(`/vehicles/${bobCar.id}`, token);
      expect(forbidden.status).toBe(403);
      expect((await errorOf(forbidden)).code).toBe('forbidden');
      expect((await t.v2(`/vehicles/${bobCar.id}/alerts`, token)).status).toBe(403);
      const missing = await t.v2('/vehicles/vnope/alerts', token);
      expect(missing.status).toBe(404);
      expect((await errorOf(missing)).code).toBe('not_found');
    });

    it("answers 403 for another user's trip and 404 for an unknown trip", async () => {
      const bobTrip = t.sim.world.trips(bobCar.id).at(-1);
      expect(bobTrip).toBeDefined();
      expect((await t.v2(`/trips/${bobTrip?.id}`, token)).status).toBe(403);
      expect((await t.v2(`/trips/${bobTrip?.id}/ecodriving`, token)).status).toBe(403);
      expect((await t.v2('/trips/tnope', token)).status).toBe(404);
    });

    it('answers 404 for lastPosition when the user did not allow geolocation', async () => {
      const t2 = await startTestSim({ vehicles: 60, seed: 11 });
      try {
        const hidden = t2.sim.world.vehicles().find((v) => !v.geolocationAllowed) as SimVehicle;
        expect(hidden).toBeDefined();
        const tok = await t2.tokenFor(hidden.userId);
        const res = await t2.v2(`/vehicles/${hidden.id}/lastPosition`, tok);
        expect(res.status).toBe(404);
        expect((await errorOf(res)).message).toMatch(/geolocation/);
      } finally {
        await t2.close();
      }
    });

    it.each([
      ['limit', '-1'],
      ['limit', '2.5'],
      ['limit', '101'],
      ['limit', '0'],
      ['offset', '-3'],
      ['offset', 'x'],
      ['since', 'yesterday'],
      ['until', '2026-02-30T00:00:00Z'],
      ['locale', 'de'],
    ])('answers 400 naming %s for the invalid value %s', async (field, value) => {
      const res = await t.v2(`/vehicles/${aliceCar.id}/alerts`, token, { [field]: value });
      expect(res.status).toBe(400);
      const err = await errorOf(res);
      expect(err.code).toBe('invalid_request');
      expect(err.field).toBe(field);
    });

    it('answers 400 naming since when since is after until', async () => {
      const res = await t.v2(`/vehicles/${aliceCar.id}/trips`, token, {
        since: '2026-01-10T00:00:00.000Z',
        until: '2026-01-01T00:00:00.000Z',
      });
      expect(res.status).toBe(400);
      expect((await errorOf(res)).field).toBe('since');
    });

    it('answers 400 naming type for an unknown telemetry property path', async () => {
      const res = await t.v2(`/vehicles/${aliceCar.id}/telemetry`, token, { type: 'vehicle.warpDrive' });
      expect(res.status).toBe(400);
      expect((await errorOf(res)).field).toBe('type');
    });

    it('answers 404 with a JSON body for a path no operation has, and 405 for a wrong method', async () => {
      const res = await t.v2('/spaceships', token);
      expect(res.status).toBe(404);
      expect((await errorOf(res)).message).toMatch(/No operation/);
      const wrong = await t.fetch(`/connectedcar/v2/user?client_id=${t.sim.clientId}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(wrong.status).toBe(405);
      expect(wrong.headers.get('allow')).toBe('GET');
    });
  });

  describe('area B (services and eligibilities)', () => {
    it('answers 401 without client_id, and works with client_id alone', async () => {
      expect((await t.fetch(`/connectedcar/v2/services/vehicles/${aliceCar.vin}`)).status).toBe(401);
      const ok = await t.fetch(
        `/connectedcar/v2/services/vehicles/${aliceCar.vin}?client_id=${t.sim.clientId}`,
      );
      expect(ok.status).toBe(200);
    });

    it('answers 404 for an unknown VIN and 403 with a bearer token of another user', async () => {
      const missing = await t.fetch(
        `/connectedcar/v2/vehicles/AAAAAAAAAAAAAAAAA/eligibilities?client_id=${t.sim.clientId}`,
      );
      expect(missing.status).toBe(404);
      const res = await t.fetch(
        `/connectedcar/v2/services/vehicles/${bobCar.vin}?client_id=${t.sim.clientId}`,
        {
          headers: { authorization: `Bearer ${token}` },
        },
      );
      expect(res.status).toBe(403);
    });

    it('answers 400 naming services for an unknown service code, and filters known ones', async () => {
      const bad = await t.fetch(
        `/connectedcar/v2/services/vehicles/${aliceCar.vin}?client_id=${t.sim.clientId}&services=TELEPORT`,
      );
      expect(bad.status).toBe(400);
      expect((await errorOf(bad)).field).toBe('services');
      const ok = await t.fetch(
        `/connectedcar/v2/services/vehicles/${aliceCar.vin}?client_id=${t.sim.clientId}&services=ECALL`,
      );
      expect(((await ok.json()) as { code: string }[]).map((s) => s.code)).toEqual(['ECALL']);
    });
  });

  describe('area C (map)', () => {
    const basic = (): string => basicAuth('carhook-sim', 'carhook-sim-secret');

    it('answers 401 without basic credentials, with a wrong secret, or without client_id', async () => {
      const none = await t.fetch(`/applications/map/v1/mapway/${aliceCar.vin}?client_id=carhook-sim`);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Basic/);
      const wrong = await t.fetch(`/applications/map/v1/mapway/${aliceCar.vin}?client_id=carhook-sim`, {
        headers: { authorization: basicAuth('carhook-sim', 'nope') },
      });
      expect(wrong.status).toBe(401);
      const noClient = await t.fetch(`/applications/map/v1/mapway/${aliceCar.vin}`, {
        headers: { authorization: basic() },
      });
      expect(noClient.status).toBe(401);
      expect((await errorOf(noClient)).field).toBe('client_id');
    });

    it('answers 400 for a VIN outside [A-Z0-9]{17} and 404 for an unknown VIN', async () => {
      const bad = await t.fetch('/applications/map/v1/mapway/short?client_id=carhook-sim', {
        headers: { authorization: basic() },
      });
      expect(bad.status).toBe(400);
      expect((await errorOf(bad)).field).toBe('vin');
      const lower = await t.fetch(
        `/applications/map/v1/mapway/${aliceCar.vin.toLowerCase()}?client_id=carhook-sim`,
        {
          headers: { authorization: basic() },
        },
      );
      expect(lower.status).toBe(400);
      const missing = await t.fetch('/applications/map/v1/mapway/ZZZZZZZZZZZZZZZZZ?client_id=carhook-sim', {
        headers: { authorization: basic() },
      });
      expect(missing.status).toBe(404);
    });

    it('answers 400 naming the bad entry of a bulk body, and echoes x-map-caller-id', async () => {
      const res = await t.fetch('/applications/map/v1/mapway/bulk?client_id=carhook-sim', {
        method: 'POST',
        headers: { authorization: basic(), 'content-type': 'application/json', 'x-map-caller-id': 'fleet-7' },
        body: JSON.stringify([aliceCar.vin, 'bad-vin']),
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('x-map-caller-id')).toBe('fleet-7');
      expect((await errorOf(res)).field).toBe('body[1]');
      const notArray = await t.fetch('/applications/map/v1/mapway/bulk?client_id=carhook-sim', {
        method: 'POST',
        headers: { authorization: basic(), 'content-type': 'application/json' },
        body: '{"vins": []}',
      });
      expect(notArray.status).toBe(400);
    });

    it('leaves unknown VINs out of a bulk answer', async () => {
      const res = await t.fetch('/applications/map/v1/mapway/bulk?client_id=carhook-sim', {
        method: 'POST',
        headers: { authorization: basic(), 'content-type': 'application/json' },
        body: JSON.stringify(['ZZZZZZZZZZZZZZZZZ', aliceCar.vin]),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { vin: string }[]).map((m) => m.vin)).toEqual([aliceCar.vin]);
    });
  });

  describe('area D (v1)', () => {
    it('answers 401 without client_id or with an unknown one', async () => {
      const path = `/connectedcar/v1/dev/vehicle/information/${aliceCar.vin}?contract=${aliceCar.contract}`;
      const none = await t.fetch(path);
      expect(none.status).toBe(401);
      expect((await errorOf(none)).field).toBe('client_id');
      expect((await t.fetch(`${path}&client_id=who`)).status).toBe(401);
      expect((await t.fetch(`${path}&client_id=carhook-sim`)).status).toBe(200);
    });

    it('answers a 4xx JSON error for a missing required parameter', async () => {
      const res = await t.fetch(
        `/connectedcar/v1/dev/vehicle/information/${aliceCar.vin}?client_id=carhook-sim`,
      );
      expect(res.status).toBe(400);
      expect((await errorOf(res)).field).toBe('contract');
    });
  });
});

describe('rate limit (429 with X-RateLimit-Reset once the quota is spent) in every area', () => {
  const cases: readonly [string, (t: TestSim, token: string, car: SimVehicle) => Promise<Response>][] = [
    ['A', (t, token) => t.v2('/user', token)],
    ['B', (t, _token, car) => t.fetch(`/connectedcar/v2/services/vehicles/${car.vin}?client_id=carhook-sim`)],
    [
      'C',
      (t, _token, car) =>
        t.fetch(`/applications/map/v1/mapway/${car.vin}?client_id=carhook-sim`, {
          headers: { authorization: basicAuth('carhook-sim', 'carhook-sim-secret') },
        }),
    ],
    [
      'D',
      (t, _token, car) =>
        t.fetch(
          `/connectedcar/v1/dev/vehicle/information/${car.vin}?contract=${car.contract}&client_id=carhook-sim`,
        ),
    ],
  ];

  it.each(cases)(
    'area %s: 429 with X-RateLimit-Reset past the quota, headers on every answer',
    async (_area, call) => {
      const t = await startTestSim({ vehicles: 2, quota: { limit: 5, windowSeconds: 60 } });
      try {
        const user = t.sim.world.users()[0] as SimUser;
        const car = t.sim.world.vehicle(user.vehicleIds[0] as string) as SimVehicle;
        const token = await t.tokenFor(user.id);
        for (let i = 1; i <= 5; i++) {
          const res = await call(t, token, car);
          expect(res.status).toBe(200);
          expect(res.headers.get('x-ratelimit-limit')).toBe('5');
          expect(res.headers.get('x-ratelimit-remaining')).toBe(String(5 - i));
        }
        const limited = await call(t, token, car);
        expect(limited.status).toBe(429);
        expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
        expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
        expect((await errorOf(limited)).code).toBe('rate_limited');
        // The window resets on the world clock.
        await t.control('POST', '/clock/advance', { seconds: 60 });
        expect((await call(t, token, car)).status).toBe(200);
        const stats = (await t.control('GET', '/stats')).body;
        expect(stats.tooManyRequests).toBe(1);
        expect(stats.clients['carhook-sim'].maxInWindow).toBe(6);
      } finally {
        await t.close();
      }
    },
  );

  it('does not count the token endpoint nor the control API', async () => {
    const t = await startTestSim({ vehicles: 2, quota: { limit: 2, windowSeconds: 60 } });
    try {
      for (let i = 0; i < 5; i++) expect((await t.control('GET', '/stats')).status).toBe(200);
      for (let i = 0; i < 3; i++) {
        const res = await t.fetch('/accounts/signin/v1/cielo/oauth2/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=refresh_token&refresh_token=x&client_id=carhook-sim&client_secret=carhook-sim-secret',
        });
        expect(res.status).toBe(400);
      }
      const user = t.sim.world.users()[0] as SimUser;
      const token = await t.tokenFor(user.id);
      expect((await t.v2('/user', token)).headers.get('x-ratelimit-remaining')).toBe('1');
    } finally {
      await t.close();
    }
  });

  it('applies a quota changed through PUT /_sim/clients/{clientId}/quota', async () => {
    const t = await startTestSim({ vehicles: 2 });
    try {
      const put = await t.control('PUT', '/clients/carhook-sim/quota', { limit: 1, windowSeconds: 10 });
      expect(put.status).toBe(200);
      const user = t.sim.world.users()[0] as SimUser;
      const token = await t.tokenFor(user.id);
      expect((await t.v2('/user', token)).status).toBe(200);
      const limited = await t.v2('/user', token);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(10);
    } finally {
      await t.close();
    }
  });
});
