/**
 * Contract: every operation of operations.json through the client against the simulator, with a
 * user token from the real authorize → code → token flow, checking the parsed result against the
 * simulator's world and the client's request count against the simulator's own count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CarClient, OPERATIONS, type Result } from '../../functions/core/api';
import { type RunningSimulator, startSimulator } from '../../sim';
import type { SimTrip, SimUser, SimVehicle } from '../../sim/world/types';
import { simStats, userClient } from './simulator';

let sim: RunningSimulator;
let client: CarClient;
let provider: Awaited<ReturnType<typeof userClient>>['provider'];
let user: SimUser;
let vehicle: SimVehicle;
let trip: SimTrip;
const counted: Record<string, number> = {};

beforeAll(async () => {
  sim = await startSimulator({
    port: 0,
    vehicles: 6,
    seed: 11,
    clock: 'manual',
    quota: { limit: 100_000, windowSeconds: 60 },
  });
  const world = sim.world;
  const candidates = world
    .vehicles()
    .filter((v) => v.geolocationAllowed && world.trips(v.id).length > 0 && world.alerts(v.id).length > 0);
  const chosen = candidates[0] ?? world.vehicles().find((v) => world.trips(v.id).length > 0);
  if (!chosen) throw new Error('the simulator world has no vehicle with trips');
  vehicle = chosen;
  user = world.user(vehicle.userId) as SimUser;
  trip = world.trips(vehicle.id).at(-1) as SimTrip;
  if (world.collisions(vehicle.id).length === 0) {
    // v1 crash data exists only after a collision: add one through the control API.
    const res = await fetch(`${sim.url}/_sim/vehicles/${vehicle.id}/collisions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ front: 'low', tripId: trip.id }),
    });
    if (res.status !== 201) throw new Error(`add collision: ${res.status} ${await res.text()}`);
  }
  ({ client, provider } = await userClient(sim, user));
});

afterAll(async () => {
  await sim?.close();
});

/** Runs one operation, counting the requests the client says it sent. */
async function run<T>(op: string, call: () => Promise<Result<T>>): Promise<T> {
  const r = await call();
  counted[op] = (counted[op] ?? 0) + r.requests;
  if (!r.ok) throw new Error(`${op}: ${r.error.kind} ${r.error.message}`);
  return r.value;
}

const target = () => ({ vin: vehicle.vin, contract: vehicle.contract });
const lb = () => ({ locale: 'en_GB', brand: vehicle.brand });
const days = (n: number) => new Date(sim.world.now() - n * 86_400_000);

type Case = () => Promise<void>;
const cases: Record<string, Case> = {
  'v2.user': async () => {
    const u = await run('v2.user', () => client.v2.user());
    expect(u).toMatchObject({ id: user.id, email: user.email, firstName: user.firstName });
  },
  'v2.vehicles.list': async () => {
    const all = await run('v2.vehicles.list', () => client.v2.vehicles.all({ limit: 1 }));
    expect(all.items.map((v) => v.id).sort()).toEqual([...user.vehicleIds].sort());
  },
  'v2.vehicles.get': async () => {
    const v = await run('v2.vehicles.get', () => client.v2.vehicle(vehicle.id));
    expect(v).toMatchObject({ id: vehicle.id, vin: vehicle.vin, model: vehicle.model });
  },
  'v2.vehicles.lastPosition': async () => {
    const p = await run('v2.vehicles.lastPosition', () => client.v2.lastPosition(vehicle.id));
    expect(p.lon).toBeCloseTo(vehicle.position.lon, 4);
    expect(p.lat).toBeCloseTo(vehicle.position.lat, 4);
  },
  'v2.vehicles.alerts': async () => {
    const all = await run('v2.vehicles.alerts', () =>
      client.v2.alerts.all({ vehicleId: vehicle.id, limit: 3 }),
    );
    const world = sim.world.alerts(vehicle.id);
    expect(all.items.map((a) => a.id).sort()).toEqual(world.map((a) => a.id).sort());
    const first = world[0];
    if (first)
      expect(all.items.find((a) => a.id === first.id)).toMatchObject({
        active: first.active,
        severity: first.severity,
      });
  },
  'v2.vehicles.collisions': async () => {
    const page = await run('v2.vehicles.collisions', () =>
      client.v2.collisions({ vehicleId: vehicle.id, limit: 100 }),
    );
    expect(page.items.map((c) => c.id).sort()).toEqual(
      sim.world
        .collisions(vehicle.id)
        .map((c) => c.id)
        .sort(),
    );
    expect(page.complete).toBe(true);
  },
  'v2.vehicles.maintenance': async () => {
    const m = await run('v2.vehicles.maintenance', () => client.v2.maintenance(vehicle.id));
    expect(m).toMatchObject({
      days: sim.world.maintenance(vehicle.id)?.days,
      mileage: sim.world.maintenance(vehicle.id)?.mileage,
    });
  },
  'v2.vehicles.events': async () => {
    const all = await run('v2.vehicles.events', () =>
      client.v2.events.all({ vehicleId: vehicle.id, limit: 50 }),
    );
    expect(all.items.length).toBe(sim.world.events(vehicle.id).length);
    for (const e of all.items) {
      if (e.type === 'ALERT') expect(e.alert?.id).toBe(e.eventId);
      if (e.type === 'TRIP') expect(e.trip?.id).toBe(e.eventId);
    }
  },
  'v2.vehicles.telemetry': async () => {
    const page = await run('v2.vehicles.telemetry', () =>
      client.v2.telemetry({ vehicleId: vehicle.id, type: ['vehicle.odometer'], limit: 5 }),
    );
    expect(page.items.length).toBeLessThanOrEqual(5);
    for (const t of page.items) expect(Object.keys(t.properties)).toEqual(['vehicle']);
  },
  'v2.vehicles.trips': async () => {
    const all = await run('v2.vehicles.trips', () =>
      client.v2.vehicleTrips.all({ vehicleId: vehicle.id, limit: 100 }),
    );
    expect(all.items.map((t) => t.id).sort()).toEqual(
      sim.world
        .trips(vehicle.id)
        .map((t) => t.id)
        .sort(),
    );
    const mine = all.items.find((t) => t.id === trip.id);
    expect(mine).toMatchObject({ durationS: trip.durationS, refueling: trip.refueling });
  },
  'v2.trips.list': async () => {
    const page = await run('v2.trips.list', () => client.v2.trips({ since: days(30), limit: 5 }));
    expect(page.items.length).toBeGreaterThan(0);
  },
  'v2.trips.get': async () => {
    const t = await run('v2.trips.get', () => client.v2.trip(trip.id));
    expect(t).toMatchObject({ id: trip.id, durationS: trip.durationS });
    expect(t.startPosition?.lon).toBeCloseTo(trip.startPosition.lon, 4);
  },
  'v2.trips.collisions': async () => {
    const page = await run('v2.trips.collisions', () => client.v2.tripCollisions({ tripId: trip.id }));
    expect(page.complete).toBe(true);
    const inTrip = sim.world.collisions(vehicle.id).filter((c) => c.tripId === trip.id);
    expect(page.items.map((c) => c.id).sort()).toEqual(inTrip.map((c) => c.id).sort());
    for (const c of page.items) expect(c.tripId).toBe(trip.id);
  },
  'v2.trips.alerts': async () => {
    const page = await run('v2.trips.alerts', () => client.v2.tripAlerts({ tripId: trip.id }));
    expect(page.items.every((a) => typeof a.id === 'string')).toBe(true);
  },
  'v2.trips.ecodriving': async () => {
    const e = await run('v2.trips.ecodriving', () => client.v2.tripEcodriving(trip.id));
    expect(Object.keys(e.global).sort()).toEqual(['road', 'style', 'trend']);
    expect(e.tripId).toBe(trip.id);
  },
  'v2.trips.telemetry': async () => {
    const page = await run('v2.trips.telemetry', () =>
      client.v2.tripTelemetry({ tripId: trip.id, limit: 3 }),
    );
    expect(page.items.length).toBeLessThanOrEqual(3);
  },
  'v2.trips.wayPoints': async () => {
    const all = await run('v2.trips.wayPoints', () =>
      client.v2.tripWaypoints.all({ tripId: trip.id, limit: 100 }),
    );
    expect(all.items.length).toBe(trip.waypoints.length);
  },
  'v2.services.vehicle': async () => {
    const s = await run('v2.services.vehicle', () => client.services.vehicle(vehicle.vin));
    expect(s.map((x) => x.code).sort()).toEqual(
      sim.world
        .services(vehicle.id)
        .map((x) => x.code)
        .sort(),
    );
  },
  'v2.vehicles.eligibilities': async () => {
    const e = await run('v2.vehicles.eligibilities', () => client.services.eligibilities(vehicle.vin));
    expect(e).toMatchObject({ vin: vehicle.vin });
  },
  'map.vin': async () => {
    const m = await run('map.vin', () => client.map.vin(vehicle.vin, { callerId: 'carhook-test' }));
    expect(m).toMatchObject({
      vin: vehicle.vin,
      availableVersion: sim.world.map(vehicle.vin)?.availableVersion,
    });
  },
  'map.bulk': async () => {
    const vins = sim.world.vehicles().map((v) => v.vin);
    const m = await run('map.bulk', () => client.map.bulk(vins));
    expect(m.map((x) => x.vin).sort()).toEqual(vins.filter((v) => sim.world.map(v)).sort());
  },
  'v1.crash.list': async () => {
    const r = await run('v1.crash.list', () =>
      client.v1.crashList({ targets: [target()], seconds: [41, 60] }),
    );
    expect(r.every((c) => c.vin === vehicle.vin)).toBe(true);
  },
  'v1.crash.get': async () => {
    const r = await run('v1.crash.get', () => client.v1.crashGet({ ...target(), seconds: [41, 60] }));
    expect(r).toMatchObject({ vin: vehicle.vin, contract: vehicle.contract });
  },
  'v1.crash.search': async () => {
    const r = await run('v1.crash.search', () =>
      client.v1.crashSearch({ ...target(), from: days(30), to: days(0) }),
    );
    expect(Array.isArray(r)).toBe(true);
  },
  'v1.ecodriving.evaluation.list': async () => {
    const r = await run('v1.ecodriving.evaluation.list', () =>
      client.v1.ecoEvaluationList({ targets: [target()], ...lb() }),
    );
    expect(r[0]).toMatchObject({ vin: vehicle.vin });
  },
  'v1.ecodriving.evaluation.tripDay.list': async () => {
    const r = await run('v1.ecodriving.evaluation.tripDay.list', () =>
      client.v1.ecoTripDayList({ targets: [target()], ...lb(), fromDay: days(14), toDay: days(0) }),
    );
    expect(r.every((e) => e.vin === vehicle.vin)).toBe(true);
  },
  'v1.ecodriving.evaluation.tripDay.get': async () => {
    const r = await run('v1.ecodriving.evaluation.tripDay.get', () =>
      client.v1.ecoTripDay({ ...target(), ...lb(), fromDay: days(14), toDay: days(0) }),
    );
    expect(Array.isArray(r)).toBe(true);
  },
  'v1.ecodriving.evaluation.perTrip': async () => {
    const r = await run('v1.ecodriving.evaluation.perTrip', () =>
      client.v1.ecoPerTrip({ ...target(), ...lb(), tripId: trip.v1Id }),
    );
    expect(r.tripId).toBe(trip.v1Id);
  },
  'v1.ecodriving.evaluation.tripMonth.list': async () => {
    const r = await run('v1.ecodriving.evaluation.tripMonth.list', () =>
      client.v1.ecoTripMonthList({ targets: [target()], ...lb(), fromMonth: days(60), toMonth: days(0) }),
    );
    expect(r.length).toBeGreaterThan(0);
  },
  'v1.ecodriving.evaluation.tripMonth.get': async () => {
    const r = await run('v1.ecodriving.evaluation.tripMonth.get', () =>
      client.v1.ecoTripMonth({ ...target(), ...lb(), fromMonth: days(60), toMonth: days(0) }),
    );
    expect(r.length).toBeGreaterThan(0);
  },
  'v1.ecodriving.evaluation.get': async () => {
    const r = await run('v1.ecodriving.evaluation.get', () =>
      client.v1.ecoEvaluation({ ...target(), ...lb() }),
    );
    expect(Object.keys(r.global).length).toBeGreaterThan(0);
  },
  'v1.ecodriving.evaluation.lastTrip': async () => {
    const r = await run('v1.ecodriving.evaluation.lastTrip', () =>
      client.v1.ecoLastTrip({ ...target(), ...lb() }),
    );
    expect(r.tripId).toBe(trip.v1Id);
  },
  'v1.ecodriving.evaluation.dayTrips': async () => {
    const r = await run('v1.ecodriving.evaluation.dayTrips', () =>
      client.v1.ecoDayTrips({ ...target(), ...lb(), day: new Date(trip.startedAt) }),
    );
    expect(r.some((e) => e.tripId === trip.v1Id)).toBe(true);
  },
  'v1.environment.list': async () => {
    const r = await run('v1.environment.list', () =>
      client.v1.environmentList({ targets: [target()], seconds: [1, 41, 60] }),
    );
    expect(r[0]?.vin).toBe(vehicle.vin);
  },
  'v1.environment.get': async () => {
    const r = await run('v1.environment.get', () => client.v1.environment({ ...target(), seconds: [41] }));
    expect(r.vin).toBe(vehicle.vin);
  },
  'v1.maintenance.get': async () => {
    const r = await run('v1.maintenance.get', () => client.v1.maintenance({ ...target(), ...lb() }));
    expect(r).toMatchObject({ vin: vehicle.vin, days: sim.world.maintenance(vehicle.id)?.days });
  },
  'v1.maintenance.list': async () => {
    const r = await run('v1.maintenance.list', () =>
      client.v1.maintenanceList({ targets: [target()], ...lb() }),
    );
    expect(r[0]?.vin).toBe(vehicle.vin);
  },
  'v1.maintenance.alert.list': async () => {
    const r = await run('v1.maintenance.alert.list', () =>
      client.v1.alertList({ targets: [target()], ...lb(), active: true }),
    );
    const active = sim.world.alerts(vehicle.id).filter((a) => a.active).length;
    expect(r.length).toBe(active);
    expect(r.every((a) => a.alertState === 1 && a.vin === vehicle.vin)).toBe(true);
  },
  'v1.maintenance.alert.get': async () => {
    const r = await run('v1.maintenance.alert.get', () =>
      client.v1.alerts({ ...target(), ...lb(), active: false }),
    );
    expect(r.every((a) => a.alertState === 0)).toBe(true);
  },
  'v1.place.lastPosition': async () => {
    const r = await run('v1.place.lastPosition', () =>
      client.v1.lastPosition({ ...target(), seconds: [6, 60], near: true }),
    );
    expect(r.vin).toBe(vehicle.vin);
  },
  'v1.place.tripPositions': async () => {
    const r = await run('v1.place.tripPositions', () =>
      client.v1.tripPositions({ ...target(), seconds: [6, 12], tripId: trip.v1Id, near: false }),
    );
    expect(r.every((p) => p.vin === vehicle.vin)).toBe(true);
  },
  'v1.referential.maintenance': async () => {
    const r = await run('v1.referential.maintenance', () =>
      client.v1.referentialMaintenance({ locale: 'fr_FR', brand: 'C' }),
    );
    expect(r[0]).toHaveProperty('indicatorCode');
  },
  'v1.referential.alert': async () => {
    const r = await run('v1.referential.alert', () => client.v1.referentialAlert());
    expect(r.length).toBeGreaterThan(0);
  },
  'v1.referential.ecodriving': async () => {
    const r = await run('v1.referential.ecodriving', () => client.v1.referentialEcodriving({ brand: 'P' }));
    expect(r[0]).toHaveProperty('edMarkType');
  },
  'v1.running.lightStatus.list': async () => {
    const r = await run('v1.running.lightStatus.list', () =>
      client.v1.lightStatusList({ targets: [target()], seconds: [30, 60] }),
    );
    expect(r[0]?.vin).toBe(vehicle.vin);
  },
  'v1.safety.drivingAssistance.get': async () => {
    const r = await run('v1.safety.drivingAssistance.get', () =>
      client.v1.drivingAssistance({ ...target(), seconds: [1] }),
    );
    expect(r.vin).toBe(vehicle.vin);
  },
  'v1.safety.drivingAssistance.day': async () => {
    const r = await run('v1.safety.drivingAssistance.day', () =>
      client.v1.drivingAssistanceDay({ ...target(), seconds: [1], day: days(1) }),
    );
    expect(r.vin).toBe(vehicle.vin);
  },
  'v1.safety.safetyAssistance.get': async () => {
    const r = await run('v1.safety.safetyAssistance.get', () =>
      client.v1.safetyAssistance({ ...target(), seconds: [1, 2] }),
    );
    expect(r.vin).toBe(vehicle.vin);
  },
  'v1.safety.safetyAssistance.day': async () => {
    const r = await run('v1.safety.safetyAssistance.day', () =>
      client.v1.safetyAssistanceDay({ ...target(), seconds: [1], day: days(1) }),
    );
    expect(r.vin).toBe(vehicle.vin);
  },
  'v1.trip.referenceTrip.update': async () => {
    const r = await run('v1.trip.referenceTrip.update', () =>
      client.v1.setReferenceTrip({ ...target(), tripId: trip.v1Id }),
    );
    expect(r.status).toBe(200);
    expect(sim.world.trip(trip.id)?.reference).toBe(true);
  },
  'v1.trip.referenceTrip.get': async () => {
    await cases['v1.trip.referenceTrip.update']?.();
    const r = await run('v1.trip.referenceTrip.get', () =>
      client.v1.referenceTrips({ ...target(), unit: 'metric' }),
    );
    expect(r.trips.some((t) => t.tripId === trip.v1Id)).toBe(true);
  },
  'v1.trip.last': async () => {
    const r = await run('v1.trip.last', () => client.v1.lastTrips({ ...target(), limit: 2, unit: 0 }));
    expect(r.totalNumberTrips).toBeGreaterThan(0);
    expect(r.trips.length).toBeLessThanOrEqual(2);
  },
  'v1.trip.list': async () => {
    const r = await run('v1.trip.list', () =>
      client.v1.tripList({ targets: [target()], from: days(30), to: days(-1), limit: 100 }),
    );
    expect(r.trips.some((t) => t.tripId === trip.v1Id)).toBe(true);
  },
  'v1.trip.period': async () => {
    const r = await run('v1.trip.period', () =>
      client.v1.tripsByPeriod({ ...target(), from: days(30), to: days(-1), limit: 100, unit: 'imperial' }),
    );
    expect(r.trips.some((t) => t.tripId === trip.v1Id)).toBe(true);
  },
  'v1.trip.get': async () => {
    const r = await run('v1.trip.get', () =>
      client.v1.trip({ ...target(), tripId: trip.v1Id, unit: 'metric' }),
    );
    expect(r).toMatchObject({ tripId: trip.v1Id, vin: vehicle.vin });
  },
  'v1.trip.fuelPrice.update': async () => {
    const r = await run('v1.trip.fuelPrice.update', () =>
      client.v1.setTripFuelPrice({ ...target(), tripId: trip.v1Id, price: 1.789 }),
    );
    expect(r.status).toBe(200);
    expect(sim.world.trip(trip.id)?.fuelPrice).toBe(1.789);
  },
  'v1.trip.referenceFuelPrice.update': async () => {
    const r = await run('v1.trip.referenceFuelPrice.update', () =>
      client.v1.setReferenceFuelPrice({ ...target(), price: 1.659 }),
    );
    expect(r.status).toBe(200);
  },
  'v1.trip.referenceFuelPrice.get': async () => {
    await cases['v1.trip.referenceFuelPrice.update']?.();
    const r = await run('v1.trip.referenceFuelPrice.get', () => client.v1.referenceFuelPrice(target()));
    expect(r.fuelPrice).toBe(1.659);
  },
  'v1.vehicle.information': async () => {
    const r = await run('v1.vehicle.information', () => client.v1.vehicleInformation(target()));
    expect(r.vin).toBe(vehicle.vin);
  },
  'v1.vehicle.picture.create': async () => {
    const r = await run('v1.vehicle.picture.create', () =>
      client.v1.createPicture({ ...target(), width: 640, format: 'png', view: 'front' }),
    );
    expect(r.status).toBe(200);
  },
  'v1.vehicle.picture.get': async () => {
    await cases['v1.vehicle.picture.create']?.();
    const r = await run('v1.vehicle.picture.get', () => client.v1.picture(target()));
    expect(r.status).toBe(200);
    expect(r.json ?? r.bytes).toBeDefined();
  },
  'auth.authorize': async () => {
    // Done in beforeAll (GET page, POST user, 302 with code): the provider holds its tokens.
    expect(provider.tokens.accessToken.length).toBeGreaterThan(0);
  },
  'auth.token': async () => {
    const before = provider.tokens;
    const fresh = await provider.refreshAccessToken(before.accessToken);
    expect(fresh).not.toBe(before.accessToken);
    const u = await run('v2.user', () => client.v2.user());
    expect(u.id).toBe(user.id);
  },
};

describe('contract: every operation against the simulator', () => {
  it('covers exactly the operations of the catalogue', () => {
    expect(Object.keys(cases).sort()).toEqual(OPERATIONS.map((o) => o.id).sort());
  });

  for (const op of OPERATIONS) {
    it(`${op.id} (${op.method} ${op.path}) parses`, async () => {
      const c = cases[op.id];
      if (!c) throw new Error(`no contract case for ${op.id}`);
      await c();
    });
  }

  it('counts exactly the requests the simulator saw, per operation', async () => {
    const stats = await simStats(sim);
    for (const [op, n] of Object.entries(counted))
      expect({ op, n: stats.byOperation[op] }).toEqual({ op, n });
  });
});
