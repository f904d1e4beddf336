import { describe, expect, it } from 'vitest';
import { diff } from '../../functions/core/detection/diff';
import { latestView } from '../../functions/core/detection/latest';
import { at, baselined, context, obs, trip, vehicleEvent } from './fixtures';

const position = (lat: number, minute: number) => ({ lat, lon: 2.35, collectedAt: at(minute) });

describe('the latest known state, kept from what polls told', () => {
  it('keeps the last trip, its stop position, and the fuel level of the last refuel, each with when it was read', () => {
    const start = baselined();
    const first = diff(
      start,
      [obs('v2.trips', [trip('t1', 5, { stopPosition: position(48.8, 5) })], 6)],
      context(6, { ecoDrivingWaitMs: 0 }),
    );
    const t1 = first.events.find((e) => e.type === 'vehicle.trip.completed');
    expect(t1).toBeDefined();
    const refuel = diff(
      first.state,
      [
        obs(
          'v2.events',
          [
            vehicleEvent('e1', 'REFUEL', 9, {
              record: { fuelLevel: 87, liters: 30, position: { geometry: { coordinates: [2.35, 48.9] } } },
            }),
          ],
          10,
        ),
      ],
      context(10),
    );
    const r = refuel.events.find((e) => e.type === 'vehicle.refuel.detected');
    expect(r).toBeDefined();
    const view = latestView(refuel.state);
    expect(view.lastTrip).toEqual({
      eventId: t1?.id,
      occurredAt: at(5),
      readAt: at(6),
      data: t1?.data,
    });
    expect(view.fuel).toEqual({ level: 87, at: at(9), readAt: at(10), from: 'vehicle.refuel.detected' });
    // The refuel's position (minute 9) is newer than the trip's stop (minute 5).
    expect(view.position).toEqual({
      lat: 48.9,
      lon: 2.35,
      at: at(9),
      readAt: at(10),
      from: 'vehicle.refuel.detected',
    });
    expect(view.sequence).toBe(refuel.state.sequence);
    expect(view.lastCollision).toBeUndefined();
  });

  it('never replaces a newer record with an older one told later', () => {
    const start = baselined();
    const newer = diff(
      start,
      [obs('v2.trips', [trip('t2', 30, { stopPosition: position(50, 30) })], 31)],
      context(31, { ecoDrivingWaitMs: 0 }),
    );
    const older = diff(
      newer.state,
      [obs('v2.trips', [trip('t1', 20, { stopPosition: position(49, 20) })], 32)],
      context(32, { ecoDrivingWaitMs: 0 }),
    );
    expect(older.events.map((e) => e.type)).toContain('vehicle.trip.completed');
    expect(latestView(older.state).lastTrip?.data.tripId).toBe('t2');
    expect(latestView(older.state).position?.lat).toBe(50);
  });

  it('writes nothing on a quiet poll (the snapshot moves only with events)', () => {
    const read = diff(baselined(), [obs('v2.trips', [], 5)], context(5));
    const quiet = diff(read.state, [obs('v2.trips', [], 6)], context(6));
    expect(quiet.events).toEqual([]);
    expect(quiet.state.latest).toBeUndefined();
    expect(quiet.changed).not.toBe('state');
  });
});
