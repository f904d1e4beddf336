/**
 * The v1 routes over the real simulated world (sim/world/world.ts), not the hand-built fixture:
 * what the v1 area answers agrees with what the world holds.
 */
import { describe, expect, it } from 'vitest';
import { formatStamp } from '../../sim/v1/format';
import { createV1Routes } from '../../sim/v1/routes';
import { World } from '../../sim/world/world';

function setup() {
  const world = new World({ vehicles: 4, seed: 7 });
  const app = createV1Routes({ world });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await app.request(path, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: parsed JSON under test
    return { status: res.status, body: (await res.json()) as any };
  };
  const vehicles = world.vehicles();
  const bulk = { listvin: vehicles.map((v) => v.vin), listcontract: vehicles.map((v) => v.contract) };
  return { world, call, vehicles, bulk };
}

describe('v1 routes over the generated world', () => {
  it('lists every completed trip of every vehicle with its v1 id, newest first', async () => {
    const { world, call, vehicles } = setup();
    for (const v of vehicles) {
      const trips = world.trips(v.id);
      const r = await call('GET', `/trip/last/${v.vin}?contract=${v.contract}&limit=1000&unit=0`);
      expect(r.status).toBe(200);
      expect(r.body.totalNumberTrips).toBe(trips.length);
      expect(r.body.trips.map((t: { tripId: number }) => t.tripId)).toEqual(
        [...trips].sort((a, b) => b.startedAt - a.startedAt).map((t) => t.v1Id),
      );
      for (const t of r.body.trips) expect(t.dateTripBegin).toMatch(/^\d{14}$/);
    }
  });

  it('answers 10 trips when trip/period gets no limit, and counts them all', async () => {
    const { world, call, vehicles } = setup();
    const v = vehicles.find((x) => world.trips(x.id).length > 10);
    if (!v) throw new Error('the generated world should hold a vehicle with more than 10 trips');
    const r = await call('GET', `/trip/period/${v.vin}?contract=${v.contract}&from=20000101&to=20991231`);
    expect(r.status).toBe(200);
    expect(r.body.trips).toHaveLength(10);
    expect(r.body.totalNumberTrips).toBe(world.trips(v.id).length);
  });

  it('answers the eco-driving evaluation and positions of a generated trip', async () => {
    const { world, call, vehicles } = setup();
    const v = vehicles.find((x) => world.trips(x.id).length > 0);
    const trip = v ? world.trips(v.id).at(-1) : undefined;
    if (!v || !trip) throw new Error('the generated world should hold at least one trip');
    const eco = await call(
      'GET',
      `/ecodriving/evaluation/pertrip/${v.vin}/${trip.v1Id}?contract=${v.contract}&locale=fr_FR&brand=${v.brand}`,
    );
    expect(eco.status).toBe(200);
    expect(eco.body.globalEvaluation.drivingMark).toBe(
      Math.round(trip.ecodriving.global.trend.score * 10) / 10,
    );
    const positions = await call(
      'GET',
      `/place/positions/trip/${v.vin}?contract=${v.contract}&listsecond=6,60&near=1&tripid=${trip.v1Id}`,
    );
    if (v.geolocationAllowed) {
      expect(positions.status).toBe(200);
      expect(positions.body).toHaveLength(Math.ceil(trip.durationS / 60));
    } else {
      expect(positions.status).toBe(404);
    }
  });

  it('answers the world alerts, maintenance countdown and collisions of the whole fleet in bulk', async () => {
    const { world, call, vehicles, bulk } = setup();
    const alerts = await call('POST', '/maintenance/list/alert?locale=en_GB&brand=P&active=1', bulk);
    expect(alerts.status).toBe(200);
    const activeIds = vehicles.flatMap((v) =>
      world
        .alerts(v.id)
        .filter((a) => a.active)
        .map((a) => a.id),
    );
    expect(alerts.body.listAlert.map((a: { idAlert: string }) => a.idAlert).sort()).toEqual(activeIds.sort());

    const maintenance = await call('POST', '/maintenance/list?locale=en_GB&brand=P', bulk);
    for (const record of maintenance.body) {
      const v = vehicles.find((x) => x.vin === record.vin);
      const m = v ? world.maintenance(v.id) : undefined;
      expect(record.maintenance.dayBeforeMaint).toBe(Math.round(m?.days ?? Number.NaN));
      expect(record.maintenance.mileageBeforeMaint).toBe(Math.round(m?.mileage ?? Number.NaN));
    }

    const crashes = await call('POST', '/crash/list', bulk);
    const crashed = vehicles.filter((v) => world.collisions(v.id).length > 0).map((v) => v.vin);
    expect(crashes.body.map((c: { vin: string }) => c.vin)).toEqual(crashed);
  });

  it('reports the last minute of data with the world turn signals', async () => {
    const { world, call, vehicles, bulk } = setup();
    const seconds = Array.from({ length: 60 }, (_, i) => i + 1).join(',');
    const r = await call('POST', `/running/lightstatus/list?listsecond=${seconds}`, bulk);
    expect(r.status).toBe(200);
    for (const record of r.body) {
      const v = vehicles.find((x) => x.vin === record.vin);
      if (!v) throw new Error(`unexpected VIN ${record.vin}`);
      const end = Date.UTC(
        Number(record.lastUpdate.slice(0, 4)),
        Number(record.lastUpdate.slice(4, 6)) - 1,
        Number(record.lastUpdate.slice(6, 8)),
        Number(record.lastUpdate.slice(8, 10)),
        Number(record.lastUpdate.slice(10, 12)),
        Number(record.lastUpdate.slice(12, 14)),
      );
      expect(formatStamp(end)).toBe(record.lastUpdate);
      for (let k = 1; k <= 60; k++) {
        const t = world.telemetryAt(v.id, end - (60 - k) * 1000);
        if (t?.moving && t.turnSignal === 'left') expect(record.turnLeft[String(k)]).toBe(1);
        if (t?.moving && t.turnSignal === 'right') expect(record.turnRight[String(k)]).toBe(1);
      }
    }
  });

  it('changes the world through the PUT operations', async () => {
    const { world, call, vehicles } = setup();
    const v = vehicles.find((x) => world.trips(x.id).length > 0);
    const trip = v ? world.trips(v.id)[0] : undefined;
    if (!v || !trip) throw new Error('the generated world should hold at least one trip');
    const put = await call(
      'PUT',
      `/trip/update/referencetrip/${v.vin}?contract=${v.contract}&tripid=${trip.v1Id}`,
    );
    expect(put.status).toBe(200);
    expect(world.trip(trip.id)?.reference).toBe(true);
    await call('PUT', `/trip/update/reference/fuelprice/${v.vin}?contract=${v.contract}&price=2.019`);
    expect(world.vehicle(v.id)?.referenceFuelPrice).toBe(2.019);
  });
});
