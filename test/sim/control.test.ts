import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SimUser, SimVehicle } from '../../sim/world/types';
import { basicAuth, json, startTestSim, type TestSim } from './support';

describe('control API (/_sim)', () => {
  let t: TestSim;
  let user: SimUser;
  let car: SimVehicle;
  let token: string;

  beforeEach(async () => {
    t = await startTestSim({ vehicles: 6, seed: 12 });
    user = t.sim.world.users()[0] as SimUser;
    car = t.sim.world.vehicle(user.vehicleIds[0] as string) as SimVehicle;
    token = await t.tokenFor(user.id);
  });
  afterEach(() => t.close());

  it('GET /_sim/world returns the same world for the same seed', async () => {
    const a = await t.fetch('/_sim/world').then((r) => r.text());
    const other = await startTestSim({ vehicles: 6, seed: 12 });
    try {
      expect(await other.fetch('/_sim/world').then((r) => r.text())).toBe(a);
    } finally {
      await other.close();
    }
    const world = JSON.parse(a) as { users: unknown[]; vehicles: { vin: string }[] };
    expect(world.vehicles).toHaveLength(6);
    expect(world.vehicles[0]?.vin).toMatch(/^[A-Z0-9]{17}$/);
  });

  it('raises an alert that the v2 API shows as active, then fixes it', async () => {
    const raised = await t.control('POST', `/vehicles/${car.id}/alerts`, {
      code: 'riskOfIce',
      severity: 'high',
    });
    expect(raised.status).toBe(201);
    expect(raised.body).toMatchObject({
      code: 'riskOfIce',
      severity: 'high',
      active: true,
      vehicleId: car.id,
    });
    const list = await json(t.v2(`/vehicles/${car.id}/alerts`, token, { limit: '1' }));
    expect(list._embedded.alerts[0]).toMatchObject({
      id: raised.body.id,
      active: true,
      message: 'Risk of ice',
      severity: 'high',
    });
    const fr = await json(t.v2(`/vehicles/${car.id}/alerts`, token, { limit: '1', locale: 'fr' }));
    expect(fr._embedded.alerts[0].message).toBe('Risque de verglas');

    await t.control('POST', '/clock/advance', { seconds: 30 });
    const fixed = await t.control('POST', `/vehicles/${car.id}/alerts/${raised.body.id}/fix`);
    expect(fixed.status).toBe(200);
    expect(fixed.body.active).toBe(false);
    const after = await json(t.v2(`/vehicles/${car.id}/alerts`, token, { limit: '1' }));
    expect(after._embedded.alerts[0]).toMatchObject({ id: raised.body.id, active: false });
    expect(after._embedded.alerts[0].updatedAt).not.toBe(after._embedded.alerts[0].createdAt);
    expect((await t.control('POST', `/vehicles/${car.id}/alerts/${raised.body.id}/fix`)).status).toBe(409);
  });

  it('raises an ALERT event with the alert embedded', async () => {
    const raised = await t.control('POST', `/vehicles/${car.id}/alerts`, { code: 'engineFault' });
    const events = await json(t.v2(`/vehicles/${car.id}/events`, token, { limit: '1' }));
    expect(events._embedded.events[0]).toMatchObject({ type: 'ALERT', eventId: raised.body.id });
    expect(events._embedded.events[0]._embedded.alert.id).toBe(raised.body.id);
  });

  it('answers 404 for an unknown vehicle or alert and 400 naming the bad field', async () => {
    expect((await t.control('POST', '/vehicles/nope/alerts', {})).status).toBe(404);
    expect((await t.control('POST', `/vehicles/${car.id}/alerts/nope/fix`)).status).toBe(404);
    const badCode = await t.control('POST', `/vehicles/${car.id}/alerts`, { code: 'flyingCar' });
    expect(badCode.status).toBe(400);
    expect(badCode.body.error.field).toBe('code');
    const badSeverity = await t.control('POST', `/vehicles/${car.id}/alerts`, { severity: 'extreme' });
    expect(badSeverity.body.error.field).toBe('severity');
    const notJson = await t.control('POST', `/vehicles/${car.id}/alerts`, '{oops');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.field).toBe('body');
    expect((await t.control('GET', '/nothing-here')).status).toBe(404);
  });

  it('records a collision with a COLLISION event', async () => {
    const res = await t.control('POST', `/vehicles/${car.id}/collisions`, { front: 'high', rollOver: true });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ front: 'high', rear: 'none', rollOver: true });
    const list = await json(t.v2(`/vehicles/${car.id}/collisions`, token, { limit: '1' }));
    expect(list._embedded.collisions[0]).toMatchObject({
      id: res.body.id,
      front: { level: 'high' },
      rollOver: true,
    });
    const events = await json(t.v2(`/vehicles/${car.id}/events`, token, { limit: '1' }));
    expect(events._embedded.events[0]).toMatchObject({ type: 'COLLISION', eventId: res.body.id });
    expect(
      (await t.control('POST', `/vehicles/${car.id}/collisions`, { rear: 'total' })).body.error.field,
    ).toBe('rear');
  });

  it('sets the maintenance countdown (negative = overdue)', async () => {
    const res = await t.control('PUT', `/vehicles/${car.id}/maintenance`, { days: -4, mileage: 1200 });
    expect(res.status).toBe(200);
    const m = await json(t.v2(`/vehicles/${car.id}/maintenance`, token));
    expect(m).toMatchObject({ vin: car.vin, days: -4, mileage: 1200 });
    const missing = await t.control('PUT', `/vehicles/${car.id}/maintenance`, { days: 3 });
    expect(missing.status).toBe(400);
    expect(missing.body.error.field).toBe('mileage');
    expect(
      (await t.control('PUT', `/vehicles/${car.id}/maintenance`, { days: 1.5, mileage: 1 })).body.error.field,
    ).toBe('days');
  });

  it('creates a trip with telemetry, eco-driving, waypoints and its events', async () => {
    const res = await t.control('POST', `/vehicles/${car.id}/trips`, {
      durationS: 900,
      distanceKm: 12,
      alerts: ['fuelLevelAlarm'],
      collision: true,
      refueling: true,
      ecoScore: 90,
    });
    expect(res.status).toBe(201);
    const tripId = res.body.trip.id as string;
    expect(res.body.alerts).toHaveLength(1);
    expect(res.body.collisions).toHaveLength(1);
    expect(res.body.events.map((e: { type: string }) => e.type).sort()).toEqual([
      'ALERT',
      'COLLISION',
      'REFUEL',
      'TRIP',
    ]);
    const trip = await json(t.v2(`/trips/${tripId}`, token));
    expect(trip).toMatchObject({ id: tripId, duration: 900, distance: 12, refueling: true });
    const eco = await json(t.v2(`/trips/${tripId}/ecodriving`, token));
    expect(eco.global.style.score).toBeGreaterThan(70);
    const wps = await json(t.v2(`/trips/${tripId}/wayPoints`, token, { limit: '100' }));
    expect(wps.total).toBe(31);
    const tel = await json(t.v2(`/trips/${tripId}/telemetry`, token, { limit: '5' }));
    expect(tel.total).toBe(900);
    expect(tel._embedded.telemetries[0].vehicle.moving).toBe(true);
    expect((await json(t.v2(`/trips/${tripId}/alerts`, token))).total).toBe(1);
    expect((await json(t.v2(`/trips/${tripId}/collisions`, token))).total).toBe(1);
    const overlap = await t.control('POST', `/vehicles/${car.id}/trips`, {
      startedAt: '2020-01-01T00:00:00Z',
    });
    expect(overlap.status).toBe(400);
    expect(overlap.body.error.field).toBe('startedAt');
    expect((await t.control('POST', `/vehicles/${car.id}/trips`, { durationS: 5 })).body.error.field).toBe(
      'durationS',
    );
  });

  it('records refuel and fuel-stolen events', async () => {
    const refuel = await t.control('POST', `/vehicles/${car.id}/events`, { type: 'refuel', liters: 20 });
    expect(refuel.status).toBe(201);
    expect(refuel.body).toMatchObject({ type: 'REFUEL', liters: 20 });
    const stolen = await t.control('POST', `/vehicles/${car.id}/events`, { type: 'fuel_stolen', liters: 5 });
    expect(stolen.body.type).toBe('FUEL_STOLEN');
    const events = await json(t.v2(`/vehicles/${car.id}/events`, token, { limit: '2' }));
    expect(events._embedded.events.map((e: { type: string }) => e.type).sort()).toEqual([
      'FUEL_STOLEN',
      'REFUEL',
    ]);
    expect(
      events._embedded.events.find((e: { type: string }) => e.type === 'REFUEL')._embedded.refuel.liters,
    ).toBe(20);
    expect((await t.control('POST', `/vehicles/${car.id}/events`, { type: 'oil' })).body.error.field).toBe(
      'type',
    );
    expect((await t.control('POST', `/vehicles/${car.id}/events`, {})).body.error.field).toBe('type');
  });

  it('releases a new map version for a VIN', async () => {
    const res = await t.control('POST', `/map/${car.vin}/release`, { version: '2026.01' });
    expect(res.status).toBe(200);
    const info = await json(
      t.fetch(`/applications/map/v1/mapway/${car.vin}?client_id=carhook-sim`, {
        headers: { authorization: basicAuth('carhook-sim', 'carhook-sim-secret') },
      }),
    );
    expect(info).toMatchObject({ vin: car.vin, availableVersion: '2026.01', updateAvailable: true });
    expect(info.releaseDate).toBe(new Date(t.sim.world.now()).toISOString());
    expect((await t.control('POST', '/map/NOSUCHVIN00000000/release')).status).toBe(404);
  });

  it('changes service eligibility', async () => {
    const res = await t.control('PUT', `/vehicles/${car.id}/services`, {
      services: [{ code: 'ECALL', eligible: false }],
    });
    expect(res.status).toBe(200);
    const list = await json(
      t.fetch(`/connectedcar/v2/services/vehicles/${car.vin}?client_id=carhook-sim&services=ECALL`),
    );
    expect(list).toEqual([{ code: 'ECALL', shortLabel: 'Emergency call', eligible: false }]);
    const unknown = await t.control('PUT', `/vehicles/${car.id}/services`, { TELEPORT: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.field).toBe('services');
  });

  it("takes a vehicle out of its user's list and puts it back", async () => {
    const listed = async () =>
      (
        (await (await t.v2('/vehicles', token)).json()) as { _embedded?: { vehicles?: { id: string }[] } }
      )._embedded?.vehicles?.map((v) => v.id) ?? [];
    expect(await listed()).toContain(car.id);
    const removed = await t.control('DELETE', `/users/${user.id}/vehicles/${car.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body.vehicleIds).not.toContain(car.id);
    expect(await listed()).not.toContain(car.id);
    expect((await t.control('PUT', `/users/${user.id}/vehicles/${car.id}`)).status).toBe(200);
    expect(await listed()).toContain(car.id);
    expect((await t.control('DELETE', `/users/nope/vehicles/${car.id}`)).status).toBe(404);
    expect((await t.control('DELETE', `/users/${user.id}/vehicles/nope`)).status).toBe(404);
  });

  it('takes a VIN off the v1 API (single reads 404, bulk lists omit it) and back', async () => {
    const v1 = '/connectedcar/v1/dev';
    const q = `client_id=${t.sim.clientId}`;
    const info = () => t.fetch(`${v1}/vehicle/information/${car.vin}?contract=${car.contract}&${q}`);
    const bulk = async () =>
      (await (
        await t.fetch(`${v1}/maintenance/list?locale=en_GB&brand=${car.brand}&${q}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ listvin: [car.vin], listcontract: [car.contract] }),
        })
      ).json()) as { vin: string }[];
    expect((await info()).status).toBe(200);
    expect((await bulk()).map((r) => r.vin)).toEqual([car.vin]);
    const off = await t.control('DELETE', `/v1/vehicles/${car.vin}`);
    expect(off).toMatchObject({ status: 200, body: { vin: car.vin, v1Known: false } });
    expect((await info()).status).toBe(404);
    expect(await bulk()).toEqual([]);
    expect((await t.control('PUT', `/v1/vehicles/${car.vin}`)).body).toEqual({ vin: car.vin, v1Known: true });
    expect((await info()).status).toBe(200);
    expect((await t.control('DELETE', '/v1/vehicles/VF3NOSUCHVIN00000')).status).toBe(404);
  });

  it('revokes a user: access tokens stop working', async () => {
    const res = await t.control('POST', `/users/${user.id}/revoke`);
    expect(res.status).toBe(200);
    expect((await t.v2('/user', token)).status).toBe(401);
    expect((await t.control('POST', '/users/nope/revoke')).status).toBe(404);
  });

  it('sets a client quota, and answers 404 for an unknown client and 400 for a bad limit', async () => {
    expect(
      (await t.control('PUT', '/clients/carhook-sim/quota', { limit: 7, windowSeconds: 30 })).body,
    ).toEqual({
      clientId: 'carhook-sim',
      limit: 7,
      windowSeconds: 30,
    });
    expect((await t.v2('/user', token)).headers.get('x-ratelimit-limit')).toBe('7');
    expect((await t.control('PUT', '/clients/nobody/quota', { limit: 7 })).status).toBe(404);
    expect((await t.control('PUT', '/clients/carhook-sim/quota', { limit: 0 })).body.error.field).toBe(
      'limit',
    );
  });

  it('counts requests per operation id and client in GET /_sim/stats', async () => {
    await t.v2('/user', token);
    await t.v2('/vehicles', token);
    await t.v2('/vehicles', token);
    await t.v2('/nowhere', token);
    const stats = (await t.control('GET', '/stats')).body;
    expect(stats.byOperation).toMatchObject({ 'v2.user': 1, 'v2.vehicles.list': 2, unknown: 1 });
    expect(stats.byClient['carhook-sim']).toBe(4);
    expect(stats.clients['carhook-sim']).toMatchObject({
      requests: 4,
      maxInWindow: 4,
      limit: 120,
      tooManyRequests: 0,
    });
    expect(stats.byStatus).toMatchObject({ 200: 3, 404: 1 });
    expect(stats.byUser).toEqual({ [user.id]: 4 });
  });

  it('counts requests per user even with a revoked token (byUser), so a caller that stops can be told', async () => {
    await t.control('POST', '/stats/reset');
    await t.v2('/user', token);
    await t.control('POST', `/users/${user.id}/revoke`);
    expect((await t.v2('/user', token)).status).toBe(401);
    const stats = (await t.control('GET', '/stats')).body;
    expect(stats.byUser[user.id]).toBe(2);
  });

  it('advances the clock by ms or seconds and rejects bad bodies', async () => {
    const before = t.sim.world.now();
    expect((await t.control('POST', '/clock/advance', { ms: 1500 })).status).toBe(200);
    expect((await t.control('POST', '/clock/advance', { seconds: 2 })).body.advancedMs).toBe(2000);
    expect(t.sim.world.now()).toBe(before + 3500);
    expect((await t.control('POST', '/clock/advance', {})).status).toBe(400);
    expect((await t.control('POST', '/clock/advance', { ms: -1 })).body.error.field).toBe('ms');
    expect((await t.control('GET', '/clock')).body.now).toBe(new Date(before + 3500).toISOString());
  });

  it('resets the world, the clock, stats and chaos', async () => {
    const initial = await t.fetch('/_sim/world').then((r) => r.text());
    await t.control('POST', `/vehicles/${car.id}/alerts`, {});
    await t.control('POST', '/clock/advance', { seconds: 100 });
    await t.control('PUT', '/chaos', { serverError: 1 });
    await t.v2('/user', token);
    const res = await t.control('POST', '/reset');
    expect(res.status).toBe(200);
    expect(await t.fetch('/_sim/world').then((r) => r.text())).toBe(initial);
    expect((await t.control('GET', '/stats')).body.total).toBe(0);
    expect((await t.control('GET', '/chaos')).body.serverError).toBe(0);
    expect((await t.v2('/user', token)).status).toBe(200);
  });
});
