import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALERT_CODES, alertMessage } from '../../sim/world/catalog';
import type { SimTrip } from '../../sim/world/types';
import { World } from '../../sim/world/world';

const HOUR = 3_600_000;

describe('world model', () => {
  it('is the same world, byte for byte, for the same seed', () => {
    const a = JSON.stringify(new World({ vehicles: 20, seed: 42 }).snapshot());
    const b = JSON.stringify(new World({ vehicles: 20, seed: 42 }).snapshot());
    const c = JSON.stringify(new World({ vehicles: 20, seed: 43 }).snapshot());
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });

  it('does not depend on the order in which vehicles are first looked at (lazy history)', () => {
    const a = new World({ vehicles: 12, seed: 9 });
    const b = new World({ vehicles: 12, seed: 9 });
    const last = b.vehicles().at(-1)?.id as string;
    b.trips(last);
    expect(JSON.stringify(b.snapshot())).toBe(JSON.stringify(a.snapshot()));
  });

  it('gives every vehicle a unique VIN matching [A-Z0-9]{17} and a unique contract', () => {
    const w = new World({ vehicles: 1000, seed: 1 });
    const vehicles = w.vehicles();
    expect(vehicles).toHaveLength(1000);
    for (const v of vehicles) expect(v.vin).toMatch(/^[A-Z0-9]{17}$/);
    expect(new Set(vehicles.map((v) => v.vin)).size).toBe(1000);
    expect(new Set(vehicles.map((v) => v.contract)).size).toBe(1000);
    expect(new Set(vehicles.map((v) => v.id)).size).toBe(1000);
  });

  it('gives each user 1 to 3 vehicles of the user’s brand', () => {
    const w = new World({ vehicles: 50, seed: 2 });
    let total = 0;
    for (const u of w.users()) {
      expect(u.vehicleIds.length).toBeGreaterThanOrEqual(1);
      expect(u.vehicleIds.length).toBeLessThanOrEqual(3);
      for (const id of u.vehicleIds) {
        const v = w.vehicle(id);
        expect(v?.userId).toBe(u.id);
        expect(v?.brand).toBe(u.brand);
      }
      total += u.vehicleIds.length;
    }
    expect(total).toBe(50);
    expect(new Set(w.users().map((u) => u.brand))).toEqual(new Set(['C', 'P']));
  });

  it('starts with a history: past trips, ended and active alerts, collisions, maintenance, events', () => {
    const w = new World({ vehicles: 20, seed: 1 });
    let active = 0;
    let ended = 0;
    let collisions = 0;
    for (const v of w.vehicles()) {
      const trips = w.trips(v.id);
      expect(trips.length).toBeGreaterThan(3);
      for (const t of trips) expect(t.stoppedAt).toBeLessThanOrEqual(w.now());
      const alerts = w.alerts(v.id);
      active += alerts.filter((a) => a.active).length;
      ended += alerts.filter((a) => !a.active && a.endedAt !== undefined).length;
      collisions += w.collisions(v.id).length;
      const m = w.maintenance(v.id);
      expect(Number.isInteger(m?.days)).toBe(true);
      expect(Number.isInteger(m?.mileage)).toBe(true);
      const events = w.events(v.id);
      expect(events.some((e) => e.type === 'TRIP')).toBe(true);
      const times = events.map((e) => e.createdAt);
      expect([...times].sort((a, b) => a - b)).toEqual(times);
    }
    expect(active).toBeGreaterThan(0);
    expect(ended).toBeGreaterThan(0);
    expect(collisions).toBeGreaterThan(0);
  });

  it('uses only the reference alert codes, each with an English and a French text', () => {
    const shared = '/work/shared/reference/alert-messages.json';
    if (existsSync(shared)) {
      const reference = JSON.parse(readFileSync(shared, 'utf8')) as { values: string[] };
      expect([...ALERT_CODES].sort()).toEqual([...reference.values].sort());
    }
    expect(ALERT_CODES).toHaveLength(80);
    expect(alertMessage('alertOilPressure', 'en')).toBe('Alert oil pressure');
    expect(alertMessage('alertOilPressure', 'fr')).toBe("Alerte pression d'huile");
    const w = new World({ vehicles: 20, seed: 1 });
    for (const v of w.vehicles()) for (const a of w.alerts(v.id)) expect(ALERT_CODES).toContain(a.code);
  });

  it('derives telemetry from trips: moving along the route during a trip, parked after it', () => {
    const w = new World({ vehicles: 5, seed: 4 });
    const v = w.vehicles()[0];
    const trip = w.trips(v?.id as string).at(-1) as SimTrip;
    const mid = w.telemetryAt(v?.id as string, trip.startedAt + (trip.durationS / 2) * 1000);
    expect(mid?.moving).toBe(true);
    expect(mid?.running).toBe(true);
    expect(mid?.speedKmh).toBeGreaterThan(0);
    expect(mid?.tripId).toBe(trip.id);
    const later = w.telemetryAt(v?.id as string, trip.startedAt + (trip.durationS / 2) * 1000 + 10_000);
    expect(later?.position).not.toEqual(mid?.position);
    expect(later?.odometer).toBeGreaterThanOrEqual(mid?.odometer as number);
    const parked = w.telemetryAt(v?.id as string, trip.stoppedAt + 60_000);
    expect(parked?.moving).toBe(false);
    expect(parked?.position).toEqual(trip.stopPosition);
    expect(w.telemetryAt(v?.id as string, w.now() + 5000)).toBeUndefined();
    // Same second, same telemetry.
    expect(w.telemetryAt(v?.id as string, trip.startedAt + 1234)).toEqual(
      w.telemetryAt(v?.id as string, trip.startedAt + 1999),
    );
  });

  it('hides records until the world clock reaches them', () => {
    const w = new World({ vehicles: 2, seed: 1 });
    const v = w.vehicles()[0];
    const before = w.trips(v?.id as string).length;
    const r = w.addTrip(v?.id as string, { startedAt: w.now(), durationS: 600, alerts: ['engineFault'] });
    expect(r.ok).toBe(true);
    expect(w.trips(v?.id as string)).toHaveLength(before);
    expect(w.telemetryAt(v?.id as string, w.now())?.moving).toBe(true);
    w.advance(600_000);
    expect(w.trips(v?.id as string)).toHaveLength(before + 1);
    expect(w.alerts(v?.id as string).at(-1)?.code).toBe('engineFault');
  });

  it('runs a deterministic background activity on the world clock', () => {
    const a = new World({ vehicles: 5, seed: 8, activity: true });
    const b = new World({ vehicles: 5, seed: 8, activity: true });
    const tripsBefore = a.vehicles().reduce((n, v) => n + a.trips(v.id).length, 0);
    for (const w of [a, b]) for (let i = 0; i < 24; i++) w.advance(HOUR);
    const tripsAfter = a.vehicles().reduce((n, v) => n + a.trips(v.id).length, 0);
    expect(tripsAfter).toBeGreaterThan(tripsBefore);
    expect(JSON.stringify(a.snapshot())).toBe(JSON.stringify(b.snapshot()));
  });

  it('goes back to the generated world on reset', () => {
    const w = new World({ vehicles: 3, seed: 6 });
    const initial = JSON.stringify(w.snapshot());
    const v = w.vehicles()[0];
    w.raiseAlert(v?.id as string, { code: 'riskOfIce' });
    w.advance(HOUR);
    expect(JSON.stringify(w.snapshot())).not.toBe(initial);
    w.reset();
    expect(JSON.stringify(w.snapshot())).toBe(initial);
  });

  it('counts maintenance down with the clock', () => {
    const w = new World({ vehicles: 1, seed: 1 });
    const id = w.vehicles()[0]?.id as string;
    const set = w.setMaintenance(id, 10, 500);
    expect(set.ok && set.value.days).toBe(10);
    w.advance(3 * 24 * HOUR);
    expect(w.maintenance(id)?.days).toBe(7);
    w.advance(10 * 24 * HOUR);
    expect(w.maintenance(id)?.days).toBe(-3);
  });

  it('rejects invalid world options with a clear error', () => {
    expect(() => new World({ vehicles: 0 })).toThrow(/vehicles/);
  });
});
