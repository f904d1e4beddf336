/**
 * The maintenance read after a trip: an answer whose reading is older than the trip's end (a cached
 * copy, or a countdown not yet recomputed) is not that read, so maintenance is asked for again and
 * the change the trip made is told at the next read, not a day later at the daily read.
 */
import { describe, expect, it } from 'vitest';
import type { V1Maintenance } from '../../functions/core/api/model';
import { diff } from '../../functions/core/detection/diff';
import type { VehicleState } from '../../functions/core/detection/state';
import { idOf } from './behaviour';
import { at, baselined, context, obs, trip } from './fixtures';

const MINUTE = 60_000;

/** A vehicle whose countdown (200 days, 9,000 km, read at minute 1) is known, then a trip ending at minute 4. */
const afterTrip = (): VehicleState => {
  const read = diff(
    baselined(),
    [obs('v2.maintenance', [{ days: 200, mileage: 9000, updatedAt: at(1) }], 1)],
    context(1),
  ).state;
  return diff(read, [obs('v2.trips', [trip('t1', 4)], 5)], context(5)).state;
};

const v1Reading = (days: number, mileage: number, lastUpdate: string): V1Maintenance => ({
  vin: 'VF3ABCDEFGH123456',
  contract: 'C-1',
  days,
  mileage,
  lastUpdate,
});

describe('maintenance read after a trip', () => {
  it('v2: an answer from before the trip leaves maintenance asked for; the next read tells due then overdue', () => {
    const stale = diff(
      afterTrip(),
      [obs('v2.maintenance', [{ days: 200, mileage: 9000, updatedAt: at(1) }], 5)],
      context(5),
    );
    expect(stale.events).toEqual([]);
    expect(stale.next.maintenance).toBe('now');
    expect(stale.state.cursors.fetched['v2.maintenance']).toBe(at(1));

    const fresh = diff(
      stale.state,
      [obs('v2.maintenance', [{ days: -2, mileage: -150, updatedAt: at(4) }], 7)],
      context(7),
    );
    expect(fresh.events.map((e) => [e.type, e.id])).toEqual([
      ['vehicle.maintenance.due', idOf('vehicle.maintenance.due', 'cycle:0', 'due')],
      ['vehicle.maintenance.overdue', idOf('vehicle.maintenance.overdue', 'cycle:0', 'overdue')],
    ]);
    expect(fresh.next.maintenance).toBe('daily');
    expect(fresh.state.cursors.fetched['v2.maintenance']).toBe(at(7));
  });

  it('v2: an unchanged reading that reflects the trip is the read after it', () => {
    const r = diff(
      afterTrip(),
      [obs('v2.maintenance', [{ days: 200, mileage: 9000, updatedAt: at(4) }], 5)],
      context(5),
    );
    expect(r.events).toEqual([]);
    expect(r.next.maintenance).toBe('daily');
  });

  it('a reading from before the trip fetched maintenanceSettleMs after its end counts: the API may not move the time', () => {
    const config = { maintenanceSettleMs: 10 * MINUTE };
    const within = diff(
      afterTrip(),
      [obs('v2.maintenance', [{ days: 200, mileage: 9000, updatedAt: at(1) }], 13)],
      context(13, config),
    );
    expect(within.next.maintenance).toBe('now');
    const after = diff(
      afterTrip(),
      [obs('v2.maintenance', [{ days: 200, mileage: 9000, updatedAt: at(1) }], 14)],
      context(14, config),
    );
    expect(after.next.maintenance).toBe('daily');
    expect(after.state.cursors.fetched['v2.maintenance']).toBe(at(14));
  });

  it('v2: a reading without a time counts as the read after the trip (nothing to compare)', () => {
    const r = diff(afterTrip(), [obs('v2.maintenance', [{ days: 200, mileage: 9000 }], 5)], context(5));
    expect(r.next.maintenance).toBe('daily');
  });

  it('v1: a reading whose lastUpdate is older than the trip is asked for again; the fresh one tells overdue', () => {
    const stale = diff(afterTrip(), [obs('v1.maintenance', [v1Reading(200, 9000, at(1))], 5)], context(5));
    expect(stale.events).toEqual([]);
    expect(stale.next.maintenance).toBe('now');
    const fresh = diff(stale.state, [obs('v1.maintenance', [v1Reading(-2, -150, at(4))], 6)], context(6));
    expect(fresh.events.map((e) => e.type)).toEqual([
      'vehicle.maintenance.due',
      'vehicle.maintenance.overdue',
    ]);
    expect(fresh.next.maintenance).toBe('daily');
  });

  it('refuses a negative maintenanceSettleMs, naming the field', async () => {
    const { parseDiffConfig } = await import('../../functions/core/detection/config');
    const r = parseDiffConfig({ maintenanceSettleMs: -1 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]?.field).toBe('config.maintenanceSettleMs');
  });
});
