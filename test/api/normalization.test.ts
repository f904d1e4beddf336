import { describe, expect, it } from 'vitest';
import { hal, json, testClient, VIN } from './support';

const alertDeclared = {
  id: 'a1',
  active: true,
  message: 'alertOilPressure',
  severity: 'HIGH',
  createdAt: '2026-11-22T09:00:00.000+0000',
  updatedAt: '2026-11-22T09:30:00.000Z',
  extraField: { anything: 1 },
};

describe('404 (no such items) and 403 (no access to the vehicle)', () => {
  it.each([
    ['alerts', (c: ReturnType<typeof testClient>['client']) => c.v2.alerts({ vehicleId: 'v1' })],
    ['collisions', (c: ReturnType<typeof testClient>['client']) => c.v2.collisions({ vehicleId: 'v1' })],
    ['events', (c: ReturnType<typeof testClient>['client']) => c.v2.events({ vehicleId: 'v1' })],
    ['telemetry', (c: ReturnType<typeof testClient>['client']) => c.v2.telemetry({ vehicleId: 'v1' })],
    ['vehicle trips', (c: ReturnType<typeof testClient>['client']) => c.v2.vehicleTrips({ vehicleId: 'v1' })],
    ['trip alerts', (c: ReturnType<typeof testClient>['client']) => c.v2.tripAlerts({ tripId: 't1' })],
    [
      'trip collisions',
      (c: ReturnType<typeof testClient>['client']) => c.v2.tripCollisions({ tripId: 't1' }),
    ],
    ['trip telemetry', (c: ReturnType<typeof testClient>['client']) => c.v2.tripTelemetry({ tripId: 't1' })],
    ['trip waypoints', (c: ReturnType<typeof testClient>['client']) => c.v2.tripWaypoints({ tripId: 't1' })],
    ['vehicles', (c: ReturnType<typeof testClient>['client']) => c.v2.vehicles({})],
  ])('reads a 404 on the %s list as an empty complete list', async (_name, call) => {
    const { client } = testClient(() =>
      json({ error: { status: 404, code: 'not_found', message: 'none' } }, 404),
    );
    const r = await call(client);
    expect(r).toMatchObject({ ok: true, requests: 1 });
    if (r.ok) expect(r.value).toMatchObject({ items: [], total: 0, complete: true, notFoundAsEmpty: true });
  });

  it.each([
    ['vehicle', (c: ReturnType<typeof testClient>['client']) => c.v2.vehicle('v1'), 'v2.vehicles.get'],
    ['trip', (c: ReturnType<typeof testClient>['client']) => c.v2.trip('t1'), 'v2.trips.get'],
    [
      'last position',
      (c: ReturnType<typeof testClient>['client']) => c.v2.lastPosition('v1'),
      'v2.vehicles.lastPosition',
    ],
  ])('reads a 404 on a single %s as NotFound', async (_name, call, operation) => {
    const { client } = testClient(() => json({ error: { status: 404 } }, 404));
    const r = await call(client);
    expect(r).toMatchObject({ ok: false, error: { kind: 'NotFound', operation, status: 404 } });
  });

  it('reads a 403 on a list as AccessDenied, not as an empty list', async () => {
    const { client } = testClient(() => json({ error: { status: 403 } }, 403));
    const r = await client.v2.alerts({ vehicleId: 'v1' });
    expect(r).toMatchObject({ ok: false, error: { kind: 'AccessDenied', operation: 'v2.vehicles.alerts' } });
  });

  it('returns the 200 empty list of the sample as complete', async () => {
    const { client } = testClient(() => json({ total: 0, _embedded: { collisions: [] } }));
    const r = await client.v2.tripCollisions({ tripId: 't1' });
    expect(r.ok && r.value).toMatchObject({ items: [], total: 0, complete: true });
  });
});

describe('shape drift', () => {
  it("maps both alert shapes (the declared fields and the sample's v1-style item) to the same Alert", async () => {
    const item = {
      idAlert: 'a2',
      alert: 'alertCoolantTemp',
      advise: 'stop',
      category: 'engine',
      alertState: 0,
      dateAlertBegin: '20261122080000',
      dateAlertEnd: '20261122083000',
      dateUpdate: '2026-11-22T08:30:00.000+0000',
      vin: VIN,
      contract: 'C1',
    };
    const { client } = testClient(() => json(hal('alerts', [alertDeclared, item])));
    const r = await client.v2.alerts({ vehicleId: 'v1' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.items[0]).toEqual({
      id: 'a1',
      active: true,
      message: 'alertOilPressure',
      severity: 'high',
      startedAt: '2026-11-22T09:00:00.000Z',
      createdAt: '2026-11-22T09:00:00.000Z',
      updatedAt: '2026-11-22T09:30:00.000Z',
    });
    expect(r.value.items[1]).toEqual({
      id: 'a2',
      active: false,
      message: 'alertCoolantTemp',
      advice: 'stop',
      category: 'engine',
      startedAt: '2026-11-22T08:00:00.000Z',
      endedAt: '2026-11-22T08:30:00.000Z',
      createdAt: '2026-11-22T08:00:00.000Z',
      updatedAt: '2026-11-22T08:30:00.000Z',
    });
  });

  it('lower-cases upper-case collision levels and keeps unknown values', async () => {
    const collision = {
      id: 'c1',
      rollOver: false,
      pedestrian: 'true',
      front: { level: 'NONE' },
      rear: { level: 'FIXABLE' },
      lateral: { level: 'CRUMPLED' },
      createdAt: '2026-11-22T09:00:00.000Z',
      _links: { trip: { href: '/connectedcar/v2/trips/t9' } },
    };
    const { client } = testClient(() => json(hal('collisions', [collision])));
    const r = await client.v2.collisions({ vehicleId: 'v1' });
    expect(r.ok && r.value.items[0]).toEqual({
      id: 'c1',
      rollOver: false,
      pedestrian: true,
      front: 'none',
      rear: 'fixable',
      lateral: 'crumpled',
      tripId: 't9',
      createdAt: '2026-11-22T09:00:00.000Z',
    });
  });

  it('reads numbers sent as strings and decimal distances in trips', async () => {
    const trip = {
      id: 't1',
      duration: '1234',
      distance: 12.7,
      avgSpeed: '37.5',
      refueling: false,
      startedAt: '2026-11-22T09:00:00.000+0000',
      _embedded: {
        startPosition: { type: 'Feature', geometry: { type: 'Point', coordinates: [2.35, 48.85, 35] } },
      },
    };
    const { client } = testClient(() => json(trip));
    const r = await client.v2.trip('t1');
    expect(r.ok && r.value).toEqual({
      id: 't1',
      durationS: 1234,
      distanceKm: 12.7,
      avgSpeedKmh: 37.5,
      refueling: false,
      startedAt: '2026-11-22T09:00:00.000Z',
      startPosition: { lon: 2.35, lat: 48.85, alt: 35 },
    });
  });

  it('reads maintenance counters sent as strings, negative meaning overdue', async () => {
    const { client } = testClient(() => json({ vin: VIN, days: '-3', mileage: 1200, unknown: true }));
    const r = await client.v2.maintenance('v1');
    expect(r.ok && r.value).toEqual({ vin: VIN, days: -3, mileage: 1200 });
  });

  it('keeps an unknown event type and normalizes an embedded collision', async () => {
    const events = [
      {
        id: 'e1',
        type: 'collision',
        eventId: 'c1',
        _embedded: { id: 'c1', front: 'HIGH', rear: 'none', lateral: 'none' },
      },
      { id: 'e2', type: 'TELEPORT', eventId: 'x', _embedded: { liters: 3 } },
    ];
    const { client } = testClient(() => json(hal('events', events)));
    const r = await client.v2.events({ vehicleId: 'v1' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.items[0]).toMatchObject({
      id: 'e1',
      type: 'COLLISION',
      eventId: 'c1',
      collision: { id: 'c1', front: 'high' },
    });
    expect(r.value.items[1]).toMatchObject({ id: 'e2', type: 'TELEPORT', eventId: 'x' });
  });

  it('parses the geo+json last position with heading and collection date', async () => {
    const { client, requests } = testClient(() =>
      json({
        type: 'Feature',
        geometry: { type: 'Point', coordinates: ['2.1', '48.2'] },
        properties: { id: 'p', heading: 90, createdAt: '2026-11-22T10:00:00.000+0000' },
      }),
    );
    const r = await client.v2.lastPosition('v1');
    expect(r.ok && r.value).toEqual({
      lon: 2.1,
      lat: 48.2,
      heading: 90,
      collectedAt: '2026-11-22T10:00:00.000Z',
    });
    expect(requests[0]?.headers.get('accept')).toBe('application/geo+json');
  });

  it('reports a list item without an id as Malformed with a bounded excerpt', async () => {
    const big = { total: 1, _embedded: { alerts: [{ message: 'x'.repeat(1000), active: true }] } };
    const { client } = testClient(() => json(big));
    const r = await client.v2.alerts({ vehicleId: 'v1' });
    expect(r.ok).toBe(false);
    if (r.ok || r.error.kind !== 'Malformed') throw new Error('expected Malformed');
    expect(r.error.operation).toBe('v2.vehicles.alerts');
    expect(r.error.excerpt.length).toBeLessThanOrEqual(200);
    expect(r.error.issues?.[0]).toMatch(/_embedded\.alerts\.0/);
  });

  it('reports invalid JSON as Malformed, not a crash', async () => {
    const { client } = testClient(
      () => new Response('{"total": 1, "_embedded": {"alerts": [', { status: 200 }),
    );
    const r = await client.v2.alerts({ vehicleId: 'v1' });
    expect(r).toMatchObject({
      ok: false,
      error: { kind: 'Malformed', excerpt: '{"total": 1, "_embedded": {"alerts": [' },
    });
  });
});

describe('v2 requests', () => {
  it('sends bearer, client_id, the HAL Accept, dates as RFC 3339 and repeated telemetry types', async () => {
    const { client, requests } = testClient(() =>
      json(hal('telemetries', [{ id: 't', vehicle: { odometer: 3 } }])),
    );
    const r = await client.v2.telemetry({
      vehicleId: 'v 1',
      since: new Date('2026-11-22T09:00:00Z'),
      until: new Date('2026-11-22T10:00:00Z'),
      type: ['vehicle.fuel.level', 'vehicle.odometer'],
    });
    expect(r.ok && r.value.items[0]).toEqual({ id: 't', properties: { vehicle: { odometer: 3 } } });
    const req = requests[0];
    expect(req?.url.pathname).toBe('/connectedcar/v2/vehicles/v%201/telemetry');
    expect(req?.url.searchParams.get('client_id')).toBe('client-1');
    expect(req?.url.searchParams.get('since')).toBe('2026-11-22T09:00:00.000Z');
    expect(req?.url.searchParams.getAll('type')).toEqual(['vehicle.fuel.level', 'vehicle.odometer']);
    expect(req?.headers.get('authorization')).toBe('Bearer access-token-AAAA1111');
    expect(req?.headers.get('accept')).toBe('application/hal+json');
  });

  it.each([
    ['an empty vehicle id', { vehicleId: '' }, 'vehicleId'],
    ['an invalid since', { vehicleId: 'v', since: new Date('nope') }, 'since'],
    ['until before since', { vehicleId: 'v', since: new Date(2), until: new Date(1) }, 'until'],
    ['a zero limit', { vehicleId: 'v', limit: 0 }, 'limit'],
    ['a negative offset', { vehicleId: 'v', offset: -1 }, 'offset'],
    ['a bad telemetry type', { vehicleId: 'v', type: ['vehicle..x'] }, 'type'],
  ])('refuses %s before sending anything', async (_n, params, field) => {
    const { client, requests } = testClient(() => json({}));
    const r = await client.v2.telemetry(params as never);
    expect(r).toMatchObject({ ok: false, requests: 0, error: { kind: 'InvalidRequest', field } });
    expect(requests).toHaveLength(0);
  });

  it('refuses a locale outside fr/en', async () => {
    const { client } = testClient(() => json({}));
    const r = await client.v2.alerts({ vehicleId: 'v', locale: 'de' as never });
    expect(r).toMatchObject({ ok: false, error: { kind: 'InvalidRequest', field: 'locale' } });
  });
});
