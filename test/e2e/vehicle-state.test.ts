/**
 * `GET /vehicles/{id}/state` end to end in the local runtime (DynamoDB Local) on the simulator's
 * clock: changes made through the simulator's control API are polled, told, and then answered from
 * what Carhook stores, without a request to the API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vehicleStateText } from '../../bin/cli/vehicle-commands';
import { type LocalRuntime, startLocalRuntime } from '../../functions/local/runtime';
import type { SimUser, SimVehicle } from '../../sim/world/types';

const STEP_MS = 1000;

describe('the latest known state of a vehicle, without an API call', { timeout: 120_000 }, () => {
  let rt: LocalRuntime;
  let car: SimVehicle;
  let vehicleId: string;

  const sim = () => rt.sim as NonNullable<LocalRuntime['sim']>;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, read freely by the test.
  const api = async (path: string): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${rt.apiUrl}${path}`, { headers: { authorization: `Bearer ${rt.adminToken}` } });
    return { status: res.status, body: await res.json() };
  };
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, read freely by the test.
  const control = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${sim().url}/_sim${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return res.json();
  };
  const eventsOf = async (type: string) =>
    ((await api(`/events?vehicleId=${encodeURIComponent(vehicleId)}&type=${type}`)).body.events as {
      id: string;
      detectedAt: string;
      occurredAt: string;
      data: Record<string, unknown>;
    }[]) ?? [];
  async function stepUntilEvent(type: string) {
    for (let step = 0; step < 60; step++) {
      const found = await eventsOf(type);
      if (found.length > 0) return found;
      await rt.advance(STEP_MS);
    }
    throw new Error(`${type}: not told after 60 simulated seconds`);
  }

  beforeAll(async () => {
    rt = await startLocalRuntime({
      port: 0,
      simPort: 0,
      vehicles: 2,
      seed: 3,
      clock: 'simulated',
      pollIntervalMs: STEP_MS,
      quota: 100_000,
      out: null,
      err: null,
    });
    const user = sim()
      .world.users()
      .find((u) => u.vehicleIds.length > 0) as SimUser;
    car = sim().world.vehicle(user.vehicleIds[0] as string) as SimVehicle;
    const enrollments = (await api('/enrollments')).body.enrollments as { id: string }[];
    for (const e of enrollments) {
      const vehicles = (await api(`/enrollments/${encodeURIComponent(e.id)}`)).body.vehicles as {
        id: string;
        vin: string;
      }[];
      const mine = vehicles.find((v) => v.vin === car.vin);
      if (mine) vehicleId = mine.id;
    }
    expect(vehicleId).toBeDefined();
    // Baselines: a few cycles so every resource of the car was read once.
    for (let i = 0; i < 5; i++) await rt.advance(STEP_MS);
  }, 90_000);

  afterAll(async () => {
    await rt?.close();
  });

  it('answers 404 naming the field for a vehicle it does not know', async () => {
    const r = await api('/vehicles/nope/state');
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ code: 'NotFound', field: 'id' });
  });

  it('answers the alerts, maintenance, last trip, collision, position and fuel it was told, with no API request', async () => {
    await control('POST', `/vehicles/${car.id}/trips`, { durationS: 600, distanceKm: 12 });
    const [trip] = await stepUntilEvent('vehicle.trip.completed');
    await control('POST', `/vehicles/${car.id}/collisions`, { front: 'medium' });
    const [collision] = await stepUntilEvent('vehicle.collision.detected');
    await control('POST', `/vehicles/${car.id}/events`, { type: 'refuel', liters: 25 });
    const [refuel] = await stepUntilEvent('vehicle.refuel.detected');
    await control('POST', `/vehicles/${car.id}/alerts`, { code: 'engineFault', severity: 'high' });
    const [raised] = await stepUntilEvent('vehicle.alert.raised');

    const before = (await control('GET', '/stats')).total as number;
    const r = await api(`/vehicles/${encodeURIComponent(vehicleId)}/state`);
    expect((await control('GET', '/stats')).total).toBe(before);
    expect(r.status).toBe(200);
    const s = r.body;
    expect(s.vehicle).toMatchObject({ id: vehicleId, vin: car.vin });
    expect(s.polled).toBe(true);
    expect(s.lastTrip).toEqual({
      eventId: trip?.id,
      occurredAt: trip?.occurredAt,
      readAt: trip?.detectedAt,
      data: trip?.data,
    });
    expect(s.lastCollision).toEqual({
      eventId: collision?.id,
      occurredAt: collision?.occurredAt,
      readAt: collision?.detectedAt,
      data: collision?.data,
    });
    expect(
      s.activeAlerts.map((a: { severity: string; startedAt: string }) => [a.severity, a.startedAt]),
    ).toContainEqual(['high', raised?.data.startedAt]);
    expect(s.maintenance).toMatchObject({ days: expect.any(Number), mileageKm: expect.any(Number) });
    if (refuel?.data.fuelLevel !== undefined) {
      expect(s.fuel).toMatchObject({ level: refuel.data.fuelLevel, readAt: refuel.detectedAt });
    }
    const positioned = [trip, collision, refuel].filter((e) => e?.data.stopPosition ?? e?.data.position);
    if (positioned.length > 0) expect(s.position).toMatchObject({ readAt: expect.any(String) });
    // The last event's number: a consumer that missed events compares it with the newest it holds.
    const all = (await api(`/events?vehicleId=${encodeURIComponent(vehicleId)}&limit=100`)).body.events as {
      sequence: number;
    }[];
    expect(s.sequence).toBe(Math.max(...all.map((e) => e.sequence)));
    const text = vehicleStateText(s, Date.parse(s.lastTrip.readAt));
    expect(text).toContain(`last trip       ${String(trip?.data.tripId)}`);
    expect(text).toContain(String(s.activeAlerts[0].message));
  });
});
