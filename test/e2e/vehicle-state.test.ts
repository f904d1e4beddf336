/**
 * `GET /vehicles/{id}/state` end to end in the local runtime (DynamoDB Local) on the simulator's
 * clock: changes made through the simulator's control API are polled, told, and then answered from
 * what Carhook stores, without a request to the API. Then the same vehicle falls silent (the
 * simulator's world has no background activity: records stop advancing unless the test makes one)
 * and comes back: `vehicle.reporting.stopped` once, `vehicle.reporting.resumed` once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vehicleStateText } from '../../bin/cli/vehicle-commands';
import { type LocalRuntime, startLocalRuntime } from '../../functions/local/runtime';
import type { SimUser, SimVehicle } from '../../sim/world/types';

const STEP_MS = 1000;
/** Event log queries reach back before the world's start (the default is one day back). */
const SINCE = '2020-01-01T00:00:00.000Z';

describe('the latest known state of a vehicle, without an API call, and its silences', {
  timeout: 240_000,
}, () => {
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
    ((await api(`/events?vehicleId=${encodeURIComponent(vehicleId)}&type=${type}&since=${SINCE}`)).body
      .events as {
      id: string;
      sequence: number;
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
      // Two hours until a vehicle without a history of its own is told silent (then learned: ½ h to 14 h).
      silenceAfterMs: 2 * 3_600_000,
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

  it('emits vehicle.reporting.stopped once when its records stop advancing, and resumed once when they move again', async () => {
    const TEN_MINUTES = 600_000;
    // Each step: ten simulated minutes, then a planner cycle and its polls.
    let stopped = await eventsOf('vehicle.reporting.stopped');
    for (let step = 0; stopped.length === 0 && step < 100; step++) {
      await rt.advance(TEN_MINUTES);
      stopped = await eventsOf('vehicle.reporting.stopped');
    }
    expect(stopped).toHaveLength(1);
    const told = stopped[0] as (typeof stopped)[number];
    expect(told.data).toMatchObject({ basis: expect.stringMatching(/^(default|learned)$/) });
    expect(Date.parse(told.detectedAt) - Date.parse(String(told.data.silentSince))).toBeGreaterThanOrEqual(
      Number(told.data.thresholdS) * 1000,
    );
    // Still silent: told once.
    for (let i = 0; i < 6; i++) await rt.advance(TEN_MINUTES);
    expect(await eventsOf('vehicle.reporting.stopped')).toHaveLength(1);
    expect((await api(`/vehicles/${encodeURIComponent(vehicleId)}/state`)).body.sequence).toBe(
      (await eventsOf('vehicle.reporting.stopped'))[0]?.sequence ?? -1,
    );

    await control('POST', `/vehicles/${car.id}/trips`, { durationS: 300, distanceKm: 3 });
    const resumed = await stepUntilEvent('vehicle.reporting.resumed');
    expect(resumed).toHaveLength(1);
    expect(resumed[0]?.data).toMatchObject({ silentSince: told.data.silentSince });
    for (let i = 0; i < 3; i++) await rt.advance(TEN_MINUTES);
    expect(await eventsOf('vehicle.reporting.resumed')).toHaveLength(1);
    expect(await eventsOf('vehicle.reporting.stopped')).toHaveLength(1);
    // In the vehicle's one sequence, without gap or repeat.
    const all = (await api(`/events?vehicleId=${encodeURIComponent(vehicleId)}&limit=100&since=${SINCE}`))
      .body.events as {
      sequence: number;
    }[];
    const numbers = all.map((e) => e.sequence).sort((a, b) => a - b);
    expect(numbers).toEqual(numbers.map((_, i) => (numbers[0] ?? 0) + i));
  });
});
