import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSimulatorApp } from '../../sim/app';
import type { SimTrip, SimUser, SimVehicle } from '../../sim/world/types';
import { basicAuth, startTestSim, type TestSim } from './support';

describe('chaos modes (PUT /_sim/chaos)', () => {
  let t: TestSim;
  let user: SimUser;
  let car: SimVehicle;
  let token: string;

  beforeEach(async () => {
    t = await startTestSim({ vehicles: 6, seed: 21 });
    user = t.sim.world.users()[0] as SimUser;
    car = t.sim.world.vehicle(user.vehicleIds[0] as string) as SimVehicle;
    token = await t.tokenFor(user.id);
  });
  afterEach(() => t.close());

  const chaos = async (body: unknown): Promise<void> => {
    const res = await t.control('PUT', '/chaos', body);
    expect(res.status).toBe(200);
  };

  it('serverError answers 500 with the JSON error body', async () => {
    await chaos({ serverError: 1 });
    const res = await t.v2('/user', token);
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('server_error');
    expect(res.headers.get('x-ratelimit-limit')).toBe('120');
  });

  it('restarts the draws from the given seed: the same seed repeats, another does not', async () => {
    const run = async (seed: number): Promise<number[]> => {
      await t.control('PUT', '/chaos', { serverError: 0.5, seed });
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await t.v2('/user', token)).status);
      return statuses;
    };
    const a = await run(1);
    expect(await run(1)).toEqual(a);
    expect(await run(2)).not.toEqual(a);
    expect((await t.control('GET', '/chaos')).body.seed).toBe(2);
    expect((await t.control('PUT', '/chaos', { seed: -1 })).body.error.field).toBe('seed');
    expect((await t.control('PUT', '/chaos', { seed: 1.5 })).body.error.field).toBe('seed');
  });

  it('draws faults deterministically for a seed and request order', async () => {
    const run = async (sim: TestSim, tok: string): Promise<number[]> => {
      await sim.control('PUT', '/chaos', { serverError: 0.5 });
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await sim.v2('/user', tok)).status);
      return statuses;
    };
    const first = await run(t, token);
    const other = await startTestSim({ vehicles: 6, seed: 21 });
    try {
      const second = await run(other, await other.tokenFor(user.id));
      expect(second).toEqual(first);
    } finally {
      await other.close();
    }
    expect(first).toContain(500);
    expect(first).toContain(200);
    // Configuring again restarts the sequence.
    expect(await run(t, token)).toEqual(first);
  });

  it('rateLimited answers a 429 storm with X-RateLimit-Reset', async () => {
    await chaos({ rateLimited: 1 });
    for (let i = 0; i < 3; i++) {
      const res = await t.v2('/user', token);
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    }
    expect((await t.control('GET', '/stats')).body.tooManyRequests).toBe(3);
  });

  it('slow delays the answer (and a held answer is released on close)', async () => {
    await chaos({ slow: 1, slowMs: 5 });
    expect((await t.v2('/user', token)).status).toBe(200);
    await chaos({ slow: 1, slowMs: 120_000 });
    const held = t.v2('/user', token).then(
      (r) => r.status,
      () => 'closed',
    );
    // Let the request reach the server before closing it.
    await new Promise((r) => setTimeout(r, 50));
    await t.close();
    expect([503, 'closed']).toContain(await held);
  });

  it('hung never answers until the client gives up, and does not keep the server open', async () => {
    await chaos({ hung: 1 });
    const ac = new AbortController();
    const pending = t.v2Abortable('/user', token, ac.signal);
    setTimeout(() => ac.abort(), 100);
    await expect(pending).rejects.toThrow(/abort/i);
    const second = t.v2('/user', token).then(
      (r) => r.status,
      () => 'closed',
    );
    await new Promise((r) => setTimeout(r, 50));
    await t.close();
    expect([503, 'closed']).toContain(await second);
  });

  it('malformedJson answers 200 with a body that is not valid JSON', async () => {
    await chaos({ malformedJson: 1 });
    const res = await t.v2('/vehicles', token);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.length).toBeGreaterThan(0);
    expect(() => JSON.parse(text)).toThrow();
  });

  it('notFoundForEmptyList answers 404 where the default is 200 with total 0', async () => {
    const created = await t.control('POST', `/vehicles/${car.id}/trips`, { durationS: 300 });
    const tripId = (created.body.trip as SimTrip).id;
    const empty = await t.v2(`/trips/${tripId}/collisions`, token);
    expect(empty.status).toBe(200);
    expect(((await empty.json()) as { total: number }).total).toBe(0);
    await chaos({ notFoundForEmptyList: 1 });
    expect((await t.v2(`/trips/${tripId}/collisions`, token)).status).toBe(404);
    expect((await t.v2(`/trips/${tripId}`, token)).status).toBe(200);
  });

  it('upperCaseEnums writes collision levels and severities in upper case', async () => {
    await t.control('POST', `/vehicles/${car.id}/collisions`, { front: 'medium' });
    await t.control('POST', `/vehicles/${car.id}/alerts`, { code: 'riskOfIce', severity: 'low' });
    await chaos({ upperCaseEnums: 1 });
    const col = (await (await t.v2(`/vehicles/${car.id}/collisions`, token, { limit: '1' })).json()) as {
      _embedded: { collisions: { front: { level: string }; rear: { level: string } }[] };
    };
    expect(col._embedded.collisions[0]?.front.level).toBe('MEDIUM');
    expect(col._embedded.collisions[0]?.rear.level).toBe('NONE');
    const alerts = (await (await t.v2(`/vehicles/${car.id}/alerts`, token, { limit: '1' })).json()) as {
      _embedded: { alerts: { severity: string }[] };
    };
    expect(alerts._embedded.alerts[0]?.severity).toBe('LOW');
  });

  it('numbersAsStrings sends trip durations as numeric strings and distances as decimals', async () => {
    await t.control('POST', `/vehicles/${car.id}/trips`, { durationS: 600, distanceKm: 7.3 });
    const plain = (await (await t.v2(`/vehicles/${car.id}/trips`, token, { limit: '1' })).json()) as {
      _embedded: { trips: { duration: unknown; distance: unknown }[] };
    };
    expect(plain._embedded.trips[0]).toMatchObject({ duration: 600, distance: 7 });
    await chaos({ numbersAsStrings: 1 });
    const odd = (await (
      await t.v2(`/vehicles/${car.id}/trips`, token, { limit: '1' })
    ).json()) as typeof plain;
    expect(odd._embedded.trips[0]).toMatchObject({ duration: '600', distance: 7.3 });
  });

  it('alertItemShape switches alert items to the alternative (v1-style) shape of the sample', async () => {
    const raised = await t.control('POST', `/vehicles/${car.id}/alerts`, { code: 'riskOfIce' });
    await chaos({ alertItemShape: 1 });
    const res = (await (await t.v2(`/vehicles/${car.id}/alerts`, token, { limit: '1' })).json()) as {
      _embedded: { alerts: Record<string, unknown>[] };
    };
    expect(res._embedded.alerts[0]).toMatchObject({
      idAlert: raised.body.id,
      alert: 'Risk of ice',
      vin: car.vin,
      contract: car.contract,
      alertState: 1,
      dateAlertEnd: '',
    });
    expect(res._embedded.alerts[0]?.dateAlertBegin).toMatch(/^\d{14}$/);
  });

  it('tokenServerError fails the token endpoint only', async () => {
    await chaos({ tokenServerError: 1 });
    const res = await t.fetch('/accounts/signin/v1/cielo/oauth2/token', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth('carhook-sim', 'carhook-sim-secret'),
      },
      body: 'grant_type=refresh_token&refresh_token=x',
    });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: 'server_error' });
    expect((await t.v2('/user', token)).status).toBe(200);
  });

  it('never touches the control API, and reads back its configuration', async () => {
    await chaos({ serverError: 1, malformedJson: 1, slowMs: 10 });
    expect((await t.control('GET', '/stats')).status).toBe(200);
    expect((await t.control('GET', '/chaos')).body).toMatchObject({
      serverError: 1,
      malformedJson: 1,
      hung: 0,
      stale: 0,
      flap: 0,
      slowMs: 10,
      staleSeconds: 300,
    });
  });

  describe('stale: the answer the same request got staleSeconds ago', () => {
    const ids = async (res: Response): Promise<string[]> =>
      ((await res.json()) as { _embedded: { alerts: { id: string }[] } })._embedded.alerts.map((a) => a.id);

    it('serves the older copy when one is that old, and counts it; a request never answered before is fresh', async () => {
      await chaos({ stale: 1, staleSeconds: 60, seed: 3 });
      const before = await ids(await t.v2(`/vehicles/${car.id}/alerts`, token, { limit: '100' }));
      const raised = await t.control('POST', `/vehicles/${car.id}/alerts`, { code: 'riskOfIce' });
      expect(raised.status).toBe(201);
      const newId = raised.body.id as string;
      // Younger than 60 s: nothing that old to serve, so the fresh answer (and it is remembered).
      await t.control('POST', '/clock/advance', { seconds: 30 });
      const fresh = await ids(await t.v2(`/vehicles/${car.id}/alerts`, token, { limit: '100' }));
      expect(fresh).toContain(newId);
      await t.control('POST', '/clock/advance', { seconds: 31 });
      const stale = await ids(await t.v2(`/vehicles/${car.id}/alerts`, token, { limit: '100' }));
      expect(stale).toEqual(before);
      expect(stale).not.toContain(newId);
      // Another query is another request: no copy of it.
      const other = await ids(await t.v2(`/vehicles/${car.id}/alerts`, token, { limit: '99' }));
      expect(other).toContain(newId);
      expect((await t.control('GET', '/stats')).body.byChaos).toEqual({ stale: 1 });
    });

    it('at rate 0 remembers nothing and serves fresh answers', async () => {
      await chaos({ staleSeconds: 1 });
      await t.v2(`/vehicles/${car.id}/alerts`, token);
      const raised = await t.control('POST', `/vehicles/${car.id}/alerts`, { code: 'riskOfIce' });
      await t.control('POST', '/clock/advance', { seconds: 5 });
      await chaos({ stale: 1, staleSeconds: 1 });
      expect(await ids(await t.v2(`/vehicles/${car.id}/alerts`, token, { limit: '100' }))).toContain(
        raised.body.id,
      );
      expect((await t.control('GET', '/stats')).body.byChaos).toEqual({});
    });
  });

  describe('flap: one list item dropped, once', () => {
    it('a HAL list loses one item and its total drops by one; the next answer is whole', async () => {
      await t.control('POST', `/vehicles/${car.id}/alerts`, { code: 'riskOfIce' });
      const whole = (await (await t.v2(`/vehicles/${car.id}/alerts`, token, { limit: '100' })).json()) as {
        total: number;
        _embedded: { alerts: { id: string }[] };
      };
      await chaos({ flap: 1, seed: 5 });
      const cut = (await (
        await t.v2(`/vehicles/${car.id}/alerts`, token, { limit: '100' })
      ).json()) as typeof whole;
      expect(cut.total).toBe(whole.total - 1);
      expect(cut._embedded.alerts).toHaveLength(whole._embedded.alerts.length - 1);
      const missing = whole._embedded.alerts.filter((a) => !cut._embedded.alerts.some((b) => b.id === a.id));
      expect(missing).toHaveLength(1);
      await chaos({});
      const again = (await (
        await t.v2(`/vehicles/${car.id}/alerts`, token, { limit: '100' })
      ).json()) as typeof whole;
      expect(again).toEqual(whole);
      expect((await t.control('GET', '/stats')).body.byChaos).toEqual({ flap: 1 });
    });

    it('a plain array (services) loses one entry; a single record is left as it is', async () => {
      const whole = (await (await t.v2(`/services/vehicles/${car.vin}`, token)).json()) as unknown[];
      await chaos({ flap: 1 });
      const cut = (await (await t.v2(`/services/vehicles/${car.vin}`, token)).json()) as unknown[];
      expect(cut).toHaveLength(whole.length - 1);
      const maintenance = await t.v2(`/vehicles/${car.id}/maintenance`, token);
      expect(maintenance.status).toBe(200);
      expect((await t.control('GET', '/stats')).body.byChaos).toEqual({ flap: 1 });
    });
  });

  it('stale and flap draw from their own sequence: the other modes fault the same requests', async () => {
    const run = async (extra: Record<string, number>): Promise<number[]> => {
      await t.control('PUT', '/chaos', { serverError: 0.5, seed: 9, ...extra });
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await t.v2('/user', token)).status);
      return statuses;
    };
    expect(await run({ stale: 0.5, flap: 0.5 })).toEqual(await run({}));
  });

  it('rejects unknown modes and rates outside [0, 1], naming the field', async () => {
    const unknown = await t.control('PUT', '/chaos', { meteorStrike: 0.1 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.field).toBe('meteorStrike');
    expect((await t.control('PUT', '/chaos', { serverError: 2 })).body.error.field).toBe('serverError');
    expect((await t.control('PUT', '/chaos', [1])).body.error.field).toBe('body');
    expect((await t.control('PUT', '/chaos', { staleSeconds: 0 })).body.error.field).toBe('staleSeconds');
    expect((await t.control('PUT', '/chaos', { staleSeconds: 1.5 })).body.error.field).toBe('staleSeconds');
    expect((await t.control('PUT', '/chaos', { flap: 1.5 })).body.error.field).toBe('flap');
  });
});

describe('held requests', () => {
  it('releases a hung request as soon as its client gives up (nothing piles up until close)', async () => {
    const app = createSimulatorApp({ vehicles: 2 });
    const server = createAdaptorServer({ fetch: app.fetch });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = (server.address() as AddressInfo).port;
      app.services.chaos.configure({
        ...app.services.chaos.config,
        rates: { ...app.services.chaos.config.rates, hung: 1 },
      });
      const token = app.services.tokens.issueFor(
        'carhook-sim',
        (app.world.users()[0] as SimUser).id,
        3600,
      ).access_token;
      for (let i = 0; i < 3; i++) {
        const ac = new AbortController();
        const res = fetch(`http://127.0.0.1:${port}/connectedcar/v2/user?client_id=carhook-sim`, {
          headers: { authorization: `Bearer ${token}` },
          signal: ac.signal,
        });
        await vi.waitFor(() => expect(app.services.pending.size).toBe(1));
        ac.abort();
        await expect(res).rejects.toThrow(/abort/i);
        await vi.waitFor(() => expect(app.services.pending.size).toBe(0));
      }
    } finally {
      app.shutdown();
      (server as Server).closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
