import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseArgs } from '../../sim/cli';
import { allowedMethods, matchOperation } from '../../sim/http/operations';
import { SimulatorStartError, startSimulator } from '../../sim/index';
import { parseDate } from '../../sim/v2/query';
import type { SimUser, SimVehicle } from '../../sim/world/types';
import { startTestSim, type TestSim } from './support';

type Item = Record<string, unknown>;

interface HalList {
  total: number;
  _links: Record<string, { href: string } | undefined>;
  _embedded: { events: Item[]; trips: Item[]; telemetries: Item[] };
}

describe('v2 query semantics', () => {
  let t: TestSim;
  let user: SimUser;
  let car: SimVehicle;
  let token: string;

  beforeAll(async () => {
    t = await startTestSim({ vehicles: 10, seed: 31 });
    user = t.sim.world.users().find((u) => u.vehicleIds.length > 1) as SimUser;
    car = t.sim.world.vehicle(user.vehicleIds[0] as string) as SimVehicle;
    token = await t.tokenFor(user.id);
  });
  afterAll(() => t.close());

  const list = async (path: string, q: Record<string, string> = {}): Promise<HalList> => {
    const res = await t.v2(path, token, q);
    expect(res.status).toBe(200);
    return (await res.json()) as HalList;
  };

  it('pages with zero-based offset: offsets 0, 5, 10… return the whole set once, with first/next/prev/last', async () => {
    const all = await list(`/vehicles/${car.id}/events`, { limit: '100' });
    expect(all.total).toBeGreaterThan(10);
    const seen: unknown[] = [];
    for (let offset = 0; offset < all.total; offset += 5) {
      const page = await list(`/vehicles/${car.id}/events`, { limit: '5', offset: String(offset) });
      expect(page.total).toBe(all.total);
      seen.push(...page._embedded.events.map((e) => e.id));
      expect(page._links.first?.href).toContain('offset=0');
      expect(page._links.last?.href).toContain(`offset=${Math.floor((all.total - 1) / 5) * 5}`);
      if (offset === 0) expect(page._links.prev).toBeUndefined();
      else expect(page._links.prev?.href).toContain(`offset=${offset - 5}`);
      if (offset + 5 >= all.total) expect(page._links.next).toBeUndefined();
      else expect(page._links.next?.href).toContain(`offset=${offset + 5}`);
    }
    expect(seen).toEqual(all._embedded.events.map((e) => e.id));
  });

  it('defaults limit to 10', async () => {
    const page = await list(`/vehicles/${car.id}/trips`);
    expect(page.total).toBeGreaterThan(10);
    expect(page._embedded.trips).toHaveLength(10);
  });

  it('filters on since (inclusive) and until (exclusive), newest first', async () => {
    const all = (await list(`/vehicles/${car.id}/trips`, { limit: '100' }))._embedded.trips;
    const times = all.map((x) => Date.parse(x.createdAt as string));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const pivot = all[3]?.createdAt as string;
    const since = await list(`/vehicles/${car.id}/trips`, { limit: '100', since: pivot });
    expect(since._embedded.trips.map((x) => x.id)).toEqual(all.slice(0, 4).map((x) => x.id));
    const until = await list(`/vehicles/${car.id}/trips`, { limit: '100', until: pivot });
    expect(until._embedded.trips.map((x) => x.id)).toEqual(all.slice(4).map((x) => x.id));
    // The spec's +0000 form works as well.
    const plus = await list(`/vehicles/${car.id}/trips`, {
      limit: '100',
      since: pivot.replace('Z', '+0000'),
    });
    expect(plus.total).toBe(4);
  });

  it('answers the last 60 seconds of telemetry by default, newest first, one object per second', async () => {
    const page = await list(`/vehicles/${car.id}/telemetry`);
    expect(page.total).toBe(60);
    const items = page._embedded.telemetries;
    expect(items).toHaveLength(60);
    const times = items.map((x) => Date.parse(x.createdAt as string));
    expect(times[0]).toBe(Math.floor(t.sim.world.now() / 1000) * 1000);
    for (let i = 1; i < times.length; i++) expect((times[i - 1] as number) - (times[i] as number)).toBe(1000);
  });

  it('restricts telemetry to the property paths given in type (repeated or comma-separated)', async () => {
    const res = await t.fetch(
      `/connectedcar/v2/vehicles/${car.id}/telemetry?client_id=carhook-sim&limit=3&type=vehicle.odometer&type=environment.air.temp,vehicle.engines[].oil.temp`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    const page = (await res.json()) as HalList;
    for (const item of page._embedded.telemetries) {
      expect(Object.keys(item).sort()).toEqual([
        '_links',
        'createdAt',
        'environment',
        'id',
        'updatedAt',
        'vehicle',
      ]);
      expect(Object.keys(item.vehicle as object)).toEqual(['odometer']);
      expect(item.environment).toEqual({ air: { temp: expect.any(Number) } });
    }
  });

  it('lists the trips of all the user’s vehicles on /trips', async () => {
    const mine = new Set(user.vehicleIds.flatMap((id) => t.sim.world.trips(id).map((x) => x.id)));
    const page = await list('/trips', { limit: '100' });
    expect(page.total).toBe(mine.size);
    for (const trip of page._embedded.trips) expect(mine.has(trip.id as string)).toBe(true);
  });

  it('answers lastPosition as a GeoJSON Feature with application/geo+json', async () => {
    const v = t.sim.world.vehicles().find((x) => x.userId === user.id && x.geolocationAllowed) as SimVehicle;
    const res = await t.v2(`/vehicles/${v.id}/lastPosition`, token);
    expect(res.headers.get('content-type')).toBe('application/geo+json');
    const f = (await res.json()) as {
      geometry: { coordinates: number[] };
      properties: { createdAt: string };
    };
    expect(f.geometry.coordinates).toEqual([v.position.lon, v.position.lat, v.position.alt]);
    expect(f.properties.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$/);
  });

  it('serves the records the link shapes point at', async () => {
    const trips = await list(`/vehicles/${car.id}/trips`, { limit: '1' });
    const trip = trips._embedded.trips[0] as { _links: Record<string, { href: string }> };
    const path = await fetch(`${trip._links.path?.href}?client_id=carhook-sim`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(path.status).toBe(200);
    const eco = (await (
      await t.v2(
        new URL(trip._links.ecodriving?.href as string).pathname.replace('/connectedcar/v2', ''),
        token,
      )
    ).json()) as {
      _links: { self: { href: string } };
    };
    const self = await fetch(`${eco._links.self.href}?client_id=carhook-sim`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(self.status).toBe(200);
  });
});

describe('operation matcher', () => {
  it('prefers literal segments over parameters', () => {
    expect(matchOperation('POST', '/connectedcar/v1/dev/maintenance/list')?.op.id).toBe(
      'v1.maintenance.list',
    );
    expect(matchOperation('GET', '/connectedcar/v1/dev/maintenance/ABC')?.op.id).toBe('v1.maintenance.get');
    expect(matchOperation('GET', '/connectedcar/v2/vehicles/X/eligibilities')?.op.id).toBe(
      'v2.vehicles.eligibilities',
    );
    expect(matchOperation('GET', '/connectedcar/v2/trips/T/waypoints/')?.op.id).toBe('v2.trips.wayPoints');
    expect(matchOperation('GET', '/connectedcar/v2/nothing')).toBeUndefined();
    expect(allowedMethods('/connectedcar/v1/dev/crash/list')).toEqual(['POST']);
  });
});

describe('RFC 3339 dates', () => {
  it('accepts Z, +hh:mm and +hhmm offsets and refuses impossible dates', () => {
    expect(parseDate('2026-01-15T09:00:00.000Z')).toBe(Date.UTC(2026, 0, 15, 9));
    expect(parseDate('2026-01-15T10:00:00+01:00')).toBe(Date.UTC(2026, 0, 15, 9));
    expect(parseDate('2026-01-15T09:00:00.5+0000')).toBe(Date.UTC(2026, 0, 15, 9, 0, 0, 500));
    expect(parseDate('2026-02-29T00:00:00Z')).toBeUndefined();
    expect(parseDate('2026-01-15')).toBeUndefined();
    expect(parseDate('2026-01-15T25:00:00Z')).toBeUndefined();
  });
});

describe('command line', () => {
  it('parses the documented flags', () => {
    const r = parseArgs([
      '--port',
      '0',
      '--vehicles=5',
      '--seed',
      '9',
      '--activity',
      '--quota',
      '30',
      '--host',
      '0.0.0.0',
    ]);
    expect(r).toEqual({
      ok: true,
      value: expect.objectContaining({
        port: 0,
        vehicles: 5,
        seed: 9,
        activity: true,
        quota: 30,
        host: '0.0.0.0',
      }),
    });
  });

  it.each([
    [['--port', 'abc'], /--port must be an integer/],
    [['--port', '70000'], /--port must be between/],
    [['--vehicles'], /option '--vehicles <n>' argument missing/],
    [['--bogus'], /unknown option '--bogus'/],
    [['--clock', 'fast'], /--clock must be real or manual/],
  ])('refuses %j with one clear line', (args, message) => {
    const r = parseArgs(args);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(message);
  });

  it('reports a busy port as a SimulatorStartError', async () => {
    const first = await startSimulator({ port: 0, vehicles: 1 });
    try {
      await expect(startSimulator({ port: first.port, vehicles: 1 })).rejects.toSatisfy(
        (e: unknown) => e instanceof SimulatorStartError && /already in use/.test(e.message),
      );
    } finally {
      await first.close();
    }
  });
});

describe('cross-origin resource sharing', () => {
  it('answers preflights and exposes the rate limit headers', async () => {
    const t = await startTestSim({ vehicles: 1 });
    try {
      const pre = await t.fetch('/connectedcar/v2/user?client_id=carhook-sim', {
        method: 'OPTIONS',
        headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'GET' },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('*');
      const res = await t.fetch('/connectedcar/v2/user?client_id=carhook-sim', {
        headers: { origin: 'http://localhost:3000' },
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('access-control-expose-headers')).toMatch(/X-RateLimit-Remaining/);
    } finally {
      await t.close();
    }
  });
});
