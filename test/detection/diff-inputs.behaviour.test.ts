import { describe, expect, it } from 'vitest';
import type { V1Trip } from '../../functions/core/api/model';
import { diff } from '../../functions/core/detection/diff';
import type { Observation } from '../../functions/core/detection/observations';
import { idOf } from './behaviour';
import { alert, at, baselined, collision, context, obs, trip, vehicleEvent } from './fixtures';

/**
 * The diff's driver (functions/core/detection/diff.ts): items it refuses before any rule reads
 * them, and the canonical order it puts a list in before applying it.
 */

const COLLISION = 'vehicle.collision.detected';
const RAISED = 'vehicle.alert.raised';
const TRIP = 'vehicle.trip.completed';

/** A state whose lists were all read (empty) at minute 1: anything new is told. */
const allRead = () =>
  diff(
    baselined(),
    [
      obs('v2.events', [], 1),
      obs('v2.alerts', [], 1),
      obs('v2.collisions', [], 1),
      obs('v2.trips', [], 1),
      obs('v1.trips', [], 1),
    ],
    context(1),
  ).state;

const v1Trip = (tripId: number): V1Trip => ({
  vin: 'VF3ABCDEFGH123456',
  contract: 'C-1',
  tripId,
  dateTripBegin: at(2),
  durationS: 600,
  raw: {},
});

describe('an item that is not a record is refused by its index, the rest applied', () => {
  it.each([
    [
      'v2.events',
      'id',
      'event without id or type',
      vehicleEvent('e1', 'COLLISION', 3, { collision: collision('c1') }),
    ],
    ['v2.collisions', 'id', 'collision without id', collision('c1')],
    ['v2.trips', 'id', 'trip without id', trip('c1', 3)],
    ['v1.trips', 'tripId', 'must be a number', v1Trip(7)],
  ] as const)('%s: a null item', (source, field, reason, good) => {
    const cfg = { ecoDrivingWaitMs: 0 };
    const r = diff(allRead(), [obs(source, [null, good] as never, 4) as Observation], context(4, cfg));
    expect(r.rejected).toEqual([
      { kind: 'Malformed', observation: 0, source, field: `items[0].${field}`, reason },
    ]);
    expect(r.events).toHaveLength(1);
  });

  it('an alert whose id is a number is refused (alert ids are strings)', () => {
    const r = diff(
      allRead(),
      [obs('v2.alerts', [alert(7 as never, true), alert('a1', true)], 4)],
      context(4),
    );
    expect(r.rejected).toEqual([
      {
        kind: 'Malformed',
        observation: 0,
        source: 'v2.alerts',
        field: 'items[0].id',
        reason: 'alert without id',
      },
    ]);
    expect(Object.keys(r.state.alerts)).toEqual(['v2:a1']);
  });

  it('a maintenance countdown given as a numeric string is refused, not read as a number', () => {
    const r = diff(
      allRead(),
      [obs('v2.maintenance', [{ days: '12' as never, mileage: 900 }], 4)],
      context(4),
    );
    expect(r.rejected).toEqual([
      {
        kind: 'Malformed',
        observation: 0,
        source: 'v2.maintenance',
        field: 'items[0].days',
        reason: 'must be a finite number of days within ±2^53',
      },
    ]);
    expect(r.state.maintenance).toBeUndefined();
  });

  it.each([
    ['NaN', Number.NaN],
    ['-Infinity', Number.NEGATIVE_INFINITY],
    ['2^53', 2 ** 53],
  ])('a countdown of %s km is refused; ±(2^53 − 1) is read', (_name, mileage) => {
    const r = diff(allRead(), [obs('v2.maintenance', [{ days: 200, mileage }], 4)], context(4));
    expect(r.rejected.map((x) => x.field)).toEqual(['items[0].mileage']);
    const edge = diff(
      allRead(),
      [obs('v2.maintenance', [{ days: 200, mileage: -(2 ** 53 - 1) }], 4)],
      context(4),
    );
    expect(edge.rejected).toEqual([]);
    expect(edge.state.maintenance).toMatchObject({ mileageKm: -(2 ** 53 - 1) });
  });
});

describe('a list is applied oldest first, then by id, whatever the order it was read in', () => {
  it('vehicle events are applied in the order of their creation, not of their ids', () => {
    const events = [
      vehicleEvent('e1', 'COLLISION', 3, { collision: collision('c3', { createdAt: at(3) }) }),
      vehicleEvent('e2', 'COLLISION', 2, { collision: collision('c2', { createdAt: at(2) }) }),
    ];
    for (const list of [events, [...events].reverse()]) {
      const r = diff(allRead(), [obs('v2.events', list, 4)], context(4));
      expect(r.events.map((e) => [e.id, e.sequence])).toEqual([
        [idOf(COLLISION, 'c2', 'detected'), 1],
        [idOf(COLLISION, 'c3', 'detected'), 2],
      ]);
    }
  });

  it('an event without a creation time comes first', () => {
    const events = [
      vehicleEvent('e1', 'COLLISION', 2, { collision: collision('c2', { createdAt: at(2) }) }),
      vehicleEvent('e9', 'COLLISION', 0, {
        createdAt: undefined,
        collision: collision('c0', { createdAt: at(3) }),
      }),
    ];
    for (const list of [events, [...events].reverse()]) {
      const r = diff(allRead(), [obs('v2.events', list, 4)], context(4));
      expect(r.events.map((e) => e.id)).toEqual([
        idOf(COLLISION, 'c0', 'detected'),
        idOf(COLLISION, 'c2', 'detected'),
      ]);
    }
  });

  it('alerts updated at the same time are applied in the order of their ids', () => {
    const list = [alert('a2', true, { updatedAt: at(2) }), alert('a1', true, { updatedAt: at(2) })];
    for (const read of [list, [...list].reverse()]) {
      const r = diff(allRead(), [obs('v2.alerts', read, 4)], context(4));
      expect(r.events.map((e) => [e.id, e.sequence])).toEqual([
        [idOf(RAISED, `a1@${at(-10)}`, 'raised'), 1],
        [idOf(RAISED, `a2@${at(-10)}`, 'raised'), 2],
      ]);
    }
  });

  it('two events created at the same time are applied in the order of their ids', () => {
    const events = [
      vehicleEvent('e2', 'COLLISION', 2, { collision: collision('c1', { createdAt: at(2) }) }),
      vehicleEvent('e1', 'COLLISION', 2, { collision: collision('c9', { createdAt: at(2) }) }),
    ];
    for (const list of [events, [...events].reverse()]) {
      const r = diff(allRead(), [obs('v2.events', list, 4)], context(4));
      expect(r.events.map((e) => e.id)).toEqual([
        idOf(COLLISION, 'c9', 'detected'),
        idOf(COLLISION, 'c1', 'detected'),
      ]);
    }
  });

  it('two completed trips read in one list are told in the order they ended', () => {
    const cfg = { ecoDrivingWaitMs: 0 };
    const r = diff(allRead(), [obs('v2.trips', [trip('t1', 3), trip('t0', 2)], 4)], context(4, cfg));
    expect(r.events.map((e) => [e.type, e.id])).toEqual([
      [TRIP, idOf(TRIP, 't0', 'completed')],
      [TRIP, idOf(TRIP, 't1', 'completed')],
    ]);
  });
});
