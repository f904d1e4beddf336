import { describe, expect, it } from 'vitest';
import { diff } from '../../functions/core/detection/diff';
import type { Observation } from '../../functions/core/detection/observations';
import type { VehicleState } from '../../functions/core/detection/state';
import { idOf, typesOf } from './behaviour';
import { alert, at, baselined, collision, context, obs, trip, vehicleEvent } from './fixtures';

const RAISED = 'vehicle.alert.raised';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** `minutes` after T0 minus the events overlap (10 minutes by default). */
const cursorFor = (minutes: number) => at(minutes - 10);

describe('the events cursor', () => {
  const events = (prior: VehicleState | undefined, minute: number, created: readonly number[]) =>
    diff(
      prior,
      [
        obs(
          'v2.events',
          created.map((c, i) => vehicleEvent(`e${minute}-${i}`, 'TRIP', c)),
          minute,
        ),
      ],
      context(minute),
    );

  it('the first read sets it to the newest event minus the overlap', () => {
    const r = events(undefined, 5, [2, 4, 3]);
    expect(r.state.cursors.eventsSince).toBe(cursorFor(4));
    expect(r.next.eventsSince).toBe(cursorFor(4));
  });

  it('moves forward after the first poll, and only forward', () => {
    const first = events(undefined, 5, [4]).state;
    const later = events(first, 20, [18, 12]);
    expect(later.state.cursors.eventsSince).toBe(cursorFor(18));
    expect(later.changed).not.toBe('none');
    const older = events(later.state, 25, [15]);
    expect(older.state.cursors.eventsSince).toBe(cursorFor(18));
    const same = events(later.state, 26, [18]);
    expect(same.state.cursors.eventsSince).toBe(cursorFor(18));
  });

  it('a future-dated event is applied but kept out of the cursor; an event at now counts', () => {
    const future = events(undefined, 5, [3, 9]);
    expect(future.state.cursors.eventsSince).toBe(cursorFor(3));
    const atNow = events(undefined, 5, [3, 5]);
    expect(atNow.state.cursors.eventsSince).toBe(cursorFor(5));
    const onlyFuture = events(undefined, 5, [9]);
    expect(onlyFuture.state.cursors.eventsSince).toBeUndefined();
  });

  it('an event whose creation time is not an ISO timestamp is kept out of the cursor', () => {
    const r = diff(
      undefined,
      [
        obs(
          'v2.events',
          [
            vehicleEvent('e1', 'TRIP', 3),
            { ...vehicleEvent('e2', 'TRIP', 4), createdAt: '2026-11-01 08:04' },
          ],
          5,
        ),
      ],
      context(5),
    );
    expect(r.state.cursors.eventsSince).toBe(cursorFor(3));
  });

  it('the overlap is configurable', () => {
    const r = diff(
      undefined,
      [obs('v2.events', [vehicleEvent('e1', 'TRIP', 30)], 31)],
      context(31, { eventsOverlapMs: 5 * MINUTE }),
    );
    expect(r.state.cursors.eventsSince).toBe(at(25));
  });

  it('events without id or type are refused by index; the others still apply', () => {
    const r = diff(
      baselined(),
      [
        obs(
          'v2.events',
          [
            { type: 'TRIP', createdAt: at(1) } as never,
            vehicleEvent('ok', 'ALERT', 2, {
              alert: alert('a1', true, { startedAt: at(2), updatedAt: at(2) }),
            }),
            { id: 'x', createdAt: at(1) } as never,
          ],
          3,
        ),
      ],
      context(3),
    );
    expect(r.rejected).toEqual([
      {
        kind: 'Malformed',
        observation: 0,
        source: 'v2.events',
        field: 'items[0].id',
        reason: 'event without id or type',
      },
      {
        kind: 'Malformed',
        observation: 0,
        source: 'v2.events',
        field: 'items[2].id',
        reason: 'event without id or type',
      },
    ]);
    expect(typesOf(r.events)).toEqual([RAISED]);
  });

  it('events are applied oldest first, then by id, whatever the page order', () => {
    const ev = (id: string, minute: number, alertId: string) =>
      vehicleEvent(id, 'ALERT', minute, {
        alert: alert(alertId, true, { startedAt: at(minute), updatedAt: at(minute) }),
      });
    const r = diff(
      baselined(),
      [obs('v2.events', [ev('e3', 3, 'c'), ev('e2', 2, 'b2'), ev('e1', 2, 'b1'), ev('e0', 1, 'a')], 4)],
      context(4),
    );
    expect(r.events.map((e) => (e.data as { alertId: string }).alertId)).toEqual(['a', 'b1', 'b2', 'c']);
    expect(r.events.map((e) => e.sequence)).toEqual([1, 2, 3, 4]);
  });
});

describe('alert lists: refused items and canonical order', () => {
  it('v2 items without id or message are refused by field; the rest apply', () => {
    const r = diff(
      baselined(),
      [
        obs(
          'v2.alerts',
          [
            null as never,
            alert('', true),
            alert('m', true, { message: 7 as never }),
            alert('ok', true, { startedAt: at(1) }),
          ],
          2,
        ),
      ],
      context(2),
    );
    expect(r.rejected.map((x) => [x.field, x.reason])).toEqual([
      ['items[0].id', 'alert without id'],
      ['items[1].id', 'alert without id'],
      ['items[2].message', 'must be a string'],
    ]);
    expect(r.events.map((e) => e.id)).toEqual([idOf(RAISED, `ok@${at(1)}`, 'raised')]);
  });

  it('v1 items name their own fields', () => {
    const r = diff(
      baselined(),
      [
        obs(
          'v1.alerts',
          [
            { idAlert: '', alert: 'x', alertState: 1 } as never,
            { idAlert: 'b', alert: 3, alertState: 1 } as never,
          ],
          2,
        ),
      ],
      context(2),
    );
    expect(r.rejected.map((x) => [x.source, x.field, x.reason])).toEqual([
      ['v1.alerts', 'items[0].idAlert', 'alert without id'],
      ['v1.alerts', 'items[1].alert', 'must be a string'],
    ]);
  });

  it('records are applied older versions first, then by id, whatever the page order', () => {
    const r = diff(
      baselined(),
      [
        obs(
          'v2.alerts',
          [
            alert('z', true, { startedAt: at(1), updatedAt: at(3) }),
            alert('y', true, { startedAt: at(1), updatedAt: at(1) }),
            alert('x', true, { startedAt: at(2) }),
            alert('w', true, { startedAt: at(1), updatedAt: at(1) }),
          ],
          4,
        ),
      ],
      context(4),
    );
    expect(r.events.map((e) => (e.data as { alertId: string }).alertId)).toEqual(['w', 'y', 'x', 'z']);
  });

  it('of two versions of one alert in a list, the newer wins whatever the order', () => {
    const versions = [
      alert('a1', false, { startedAt: at(1), endedAt: at(3), updatedAt: at(3) }),
      alert('a1', true, { startedAt: at(1), updatedAt: at(1) }),
    ];
    const r = diff(baselined(), [obs('v2.alerts', versions, 4)], context(4));
    expect(r.state.alerts['v2:a1']).toMatchObject({ active: false, endedAt: at(3) });
  });
});

describe('record lists: refused items', () => {
  it('collisions and trips without an id are refused; v1 trips need a finite number', () => {
    const r = diff(
      baselined(),
      [
        obs('v2.collisions', [collision('', {}), { ...collision('c'), id: 5 } as never, collision('ok')], 2),
        obs('v2.trips', [trip('', 1), { ...trip('n', 1), id: 7 } as never, trip('t', 1)], 2),
        obs('v1.trips', [{ tripId: Number.NaN } as never, { tripId: '3' } as never], 2),
      ],
      context(2),
    );
    expect(r.rejected.map((x) => [x.observation, x.source, x.field, x.reason])).toEqual([
      [0, 'v2.collisions', 'items[0].id', 'collision without id'],
      [0, 'v2.collisions', 'items[1].id', 'collision without id'],
      [1, 'v2.trips', 'items[0].id', 'trip without id'],
      [1, 'v2.trips', 'items[1].id', 'trip without id'],
      [2, 'v1.trips', 'items[0].tripId', 'must be a number'],
      [2, 'v1.trips', 'items[1].tripId', 'must be a number'],
    ]);
    expect(typesOf(r.events)).toEqual(['vehicle.collision.detected']);
    expect(Object.keys(r.state.trips.ids)).toEqual(['t']);
  });

  it.each([
    [
      { days: Number.POSITIVE_INFINITY, mileage: 1 },
      'items[0].days',
      'must be a finite number of days within ±2^53',
    ],
    [{ days: 1, mileage: Number.NaN }, 'items[0].mileage', 'must be a finite number of km within ±2^53'],
    [
      { days: Number.MAX_SAFE_INTEGER + 2, mileage: 1 },
      'items[0].days',
      'must be a finite number of days within ±2^53',
    ],
    [
      { days: 1, mileage: -(Number.MAX_SAFE_INTEGER + 2) },
      'items[0].mileage',
      'must be a finite number of km within ±2^53',
    ],
    [{ days: 1, mileage: '5' }, 'items[0].mileage', 'must be a finite number of km within ±2^53'],
  ])('maintenance %j is refused: %s', (item, field, reason) => {
    for (const source of ['v2.maintenance', 'v1.maintenance'] as const) {
      const r = diff(baselined(), [obs(source, [item as never], 2) as Observation], context(2));
      expect(r.rejected).toEqual([{ kind: 'Malformed', observation: 0, source, field, reason }]);
      expect(r.state.maintenance).toBeUndefined();
    }
  });

  it('maintenance at ±2^53 is usable', () => {
    const r = diff(
      baselined(),
      [obs('v2.maintenance', [{ days: Number.MAX_SAFE_INTEGER, mileage: -Number.MAX_SAFE_INTEGER }], 2)],
      context(2),
    );
    expect(r.rejected).toEqual([]);
    expect(r.state.maintenance).toMatchObject({
      days: Number.MAX_SAFE_INTEGER,
      mileageKm: -Number.MAX_SAFE_INTEGER,
    });
  });

  it('items that are not objects are skipped without a crash', () => {
    const r = diff(
      baselined(),
      [
        obs('v2.maintenance', [null as never, 3 as never], 2),
        obs('v1.maintenance', [null as never], 2),
        obs('v1.crash', [null as never, { raw: null } as never], 2),
        obs('services', [null as never, { code: 'A', eligible: true }], 2),
        obs('map', [null as never, { vin: 'VF3ABCDEFGH123456', availableVersion: 3 } as never], 2),
        obs('v2.ecodriving', [null as never, { tripId: 't', global: null, detailed: {} } as never], 2),
      ],
      context(2),
    );
    expect(r.rejected).toEqual([]);
    expect(r.events).toEqual([]);
    expect(r.state.maintenance).toBeUndefined();
    expect(r.state.services?.eligible).toEqual(['A']);
    expect(r.state.map).toBeUndefined();
  });

  it('an observation with a bad envelope is refused by index; the next one applies', () => {
    const r = diff(
      baselined(),
      [
        { source: 'v2.alerts', fetchedAt: 'yesterday', complete: true, items: [] } as unknown as Observation,
        obs('v2.alerts', [alert('a1', true, { startedAt: at(1) })], 2),
      ],
      context(2),
    );
    expect(r.rejected).toEqual([
      {
        kind: 'Malformed',
        observation: 0,
        source: 'v2.alerts',
        field: 'fetchedAt',
        reason: 'must be an ISO 8601 UTC timestamp',
      },
    ]);
    expect(typesOf(r.events)).toEqual([RAISED]);
    expect(r.state.cursors.fetched).toEqual({ 'v2.alerts': at(2) });
    expect(r.state.sources).toEqual(['v2.alerts']);
  });

  it('a state of another vehicle is refused whole: nothing applied, nothing written', () => {
    const other = diff(undefined, [], { ...context(0), vehicle: { id: 'veh-2', vin: 'X' } }).state;
    const r = diff(other, [obs('v2.alerts', [alert('a1', true, { startedAt: at(1) })], 2)], context(2));
    expect(r.state).toBe(other);
    expect(r.events).toEqual([]);
    expect(r.next).toMatchObject({ alerts: 'reconcile', maintenance: 'now', activeAlerts: 0 });
    expect(r.changed).toBe('none');
    expect(r.rejected).toEqual([
      {
        kind: 'Malformed',
        observation: -1,
        source: 'state',
        field: 'state.vehicleId',
        reason: 'state of vehicle veh-2 given for vehicle veh-1; nothing applied',
      },
    ]);
  });
});

describe('what changed, and the state returned', () => {
  it('a quiet poll returns the very state given and writes nothing', () => {
    const prior = diff(baselined(), [obs('v2.alerts', [], 1)], context(1)).state;
    const r = diff(prior, [], context(2));
    expect(r.changed).toBe('none');
    expect(r.state).toBe(prior);
  });

  it('a re-read with nothing new moves only the cursors; news moves the state', () => {
    const prior = diff(baselined(), [obs('v2.alerts', [], 1)], context(1)).state;
    const quiet = diff(prior, [obs('v2.alerts', [], 2)], context(2));
    expect(quiet.changed).toBe('cursors');
    expect(quiet.state.cursors.fetched['v2.alerts']).toBe(at(2));
    const news = diff(prior, [obs('v2.alerts', [alert('a1', true, { startedAt: at(2) })], 2)], context(2));
    expect(news.changed).toBe('state');
  });

  it('the first poll is written even when empty', () => {
    expect(diff(undefined, [], context(0)).changed).toBe('state');
  });
});

describe('poll hints', () => {
  const hintsAfter = (prior: VehicleState | undefined, observations: readonly Observation[], nowMs: number) =>
    diff(prior, observations, context(nowMs / MINUTE)).next;

  it('a fresh vehicle: everything is worth reading now, alerts via a reconciliation; no cursor, no activity', () => {
    expect(hintsAfter(undefined, [], 0)).toStrictEqual({
      alerts: 'reconcile',
      collisions: 'skip',
      trips: 'skip',
      ecodrivingFor: [],
      maintenance: 'now',
      services: 'now',
      map: 'now',
      hasActiveAlerts: false,
      activeAlerts: 0,
      alertsUnconfirmed: [],
      servicesUnconfirmed: false,
    });
  });

  it('active alerts: alerts now, counted', () => {
    const next = hintsAfter(
      baselined(),
      [
        obs(
          'v2.alerts',
          [alert('a', true, { startedAt: at(1) }), alert('b', true, { startedAt: at(1) }), alert('c', false)],
          2,
        ),
      ],
      2 * MINUTE,
    );
    expect(next).toMatchObject({
      alerts: 'now',
      hasActiveAlerts: true,
      activeAlerts: 2,
      lastActivityAt: at(1),
    });
  });

  it('alerts: reconciled less than the period ago → skip; exactly the period → reconcile', () => {
    const reconciled = diff(baselined(), [obs('v2.alerts', [], 0)], context(0)).state;
    expect(hintsAfter(reconciled, [], 6 * HOUR - MINUTE).alerts).toBe('skip');
    expect(hintsAfter(reconciled, [], 6 * HOUR).alerts).toBe('reconcile');
  });

  it('maintenance, services and map: daily once read, now again after exactly a day', () => {
    const read = diff(
      baselined(),
      [
        obs('v2.maintenance', [{ days: 200, mileage: 9000 }], 0),
        obs('services', [], 0),
        obs(
          'map',
          [
            {
              vin: 'VF3ABCDEFGH123456',
              availableVersion: 'v1',
              installedVersion: 'v1',
              updateAvailable: false,
            },
          ],
          0,
        ),
      ],
      context(0),
    ).state;
    expect(hintsAfter(read, [], DAY - MINUTE)).toMatchObject({
      maintenance: 'daily',
      services: 'daily',
      map: 'daily',
    });
    expect(hintsAfter(read, [], DAY)).toMatchObject({ maintenance: 'now', services: 'now', map: 'now' });
    const v1Read = diff(
      baselined(),
      [obs('v1.maintenance', [{ days: 200, mileage: 9000 } as never], 0)],
      context(0),
    ).state;
    expect(hintsAfter(v1Read, [], DAY - MINUTE).maintenance).toBe('daily');
  });

  it('maintenance: now after a trip that ended after the last maintenance read, not before', () => {
    const read = diff(
      baselined(),
      [obs('v2.maintenance', [{ days: 200, mileage: 9000 }], 5)],
      context(5),
    ).state;
    const tripBefore = diff(read, [obs('v2.trips', [trip('t1', 4)], 6)], context(6));
    expect(tripBefore.next.maintenance).toBe('daily');
    const tripAfter = diff(read, [obs('v2.trips', [trip('t2', 6)], 7)], context(7));
    expect(tripAfter.next.maintenance).toBe('now');
  });

  it('maintenance: each later trip asks for it again, not only the first one', () => {
    // Trip t1 ends at 4, maintenance is read at 5 (after it), trip t2 ends at 8: the newest trip
    // is the one compared with the last maintenance read.
    const firstTrip = diff(baselined(), [obs('v2.trips', [trip('t1', 4)], 4)], context(4)).state;
    const read = diff(firstTrip, [obs('v2.maintenance', [{ days: 200, mileage: 9000 }], 5)], context(5));
    expect(read.next.maintenance).toBe('daily');
    const secondTrip = diff(read.state, [obs('v2.trips', [trip('t2', 8)], 9)], context(9));
    expect(secondTrip.state.lastTripAt).toBe(at(8));
    expect(secondTrip.next.maintenance).toBe('now');
  });

  it('maintenance: a trip that ended exactly at the last maintenance read is not after it', () => {
    const read = diff(
      baselined(),
      [obs('v2.maintenance', [{ days: 200, mileage: 9000 }], 5)],
      context(5),
    ).state;
    const r = diff(read, [obs('v2.trips', [trip('t1', 5)], 6)], context(6));
    expect(r.state.lastTripAt).toBe(at(5));
    expect(r.next.maintenance).toBe('daily');
  });

  it('vehicle events without their record reveal what to read now, unless read before', () => {
    const r = diff(
      baselined(),
      [
        obs(
          'v2.events',
          [vehicleEvent('e1', 'COLLISION', 1), vehicleEvent('e2', 'TRIP', 2), vehicleEvent('e3', 'ALERT', 3)],
          4,
        ),
      ],
      context(4),
    );
    expect(r.next).toMatchObject({
      alerts: 'now',
      collisions: 'now',
      trips: 'now',
      eventsSince: cursorFor(3),
    });
    const collisionOnly = diff(
      baselined(),
      [obs('v2.events', [vehicleEvent('e1', 'collision', 1)], 4)],
      context(4),
    );
    expect(collisionOnly.next).toMatchObject({ collisions: 'now', trips: 'skip', alerts: 'reconcile' });
  });

  it('an eco-driving evaluation keyed by id (no tripId) completes its held trip', () => {
    const held = diff(baselined(), [obs('v2.trips', [trip('t1', 3)], 4)], context(4)).state;
    const eco = { id: 't1', global: { trend: { score: 7 } }, detailed: { braking: { score: 9 } } };
    const r = diff(held, [obs('v2.ecodriving', [eco as never], 5)], context(5));
    expect(typesOf(r.events)).toEqual(['vehicle.trip.completed']);
    expect(r.next.ecodrivingFor).toEqual([]);
    const noDetail = diff(held, [obs('v2.ecodriving', [{ ...eco, detailed: 'x' } as never], 5)], context(5));
    expect(noDetail.events).toEqual([]);
    expect(noDetail.next.ecodrivingFor).toEqual(['t1']);
  });

  it('trips waiting for eco-driving are listed, sorted', () => {
    const r = diff(baselined(), [obs('v2.trips', [trip('t9', 3), trip('t1', 4)], 5)], context(5));
    expect(r.next.ecodrivingFor).toEqual(['t1', 't9']);
  });
});

describe("the first poll's history", () => {
  const collisionEvent = (id: string, minute: number) => vehicleEvent(id, 'COLLISION', minute);
  it('ends when the poll began reading, so a record made while it ran is a change for the next poll', () => {
    // The first poll read its events at minute 5 and committed at minute 7.
    const first = diff(undefined, [obs('v2.events', [], 5)], {
      ...context(7),
      readsStartedAt: new Date(at(5)),
    });
    expect(first.state.createdAt).toBe(at(5));
    // A collision at minute 6: not in the first read, reported by the next one.
    const next = diff(
      first.state,
      [
        obs('v2.events', [collisionEvent('c6', 6)], 10),
        obs('v2.collisions', [collision('c6', { createdAt: at(6) })], 10),
      ],
      context(10),
    );
    expect(typesOf(next.events)).toEqual(['vehicle.collision.detected']);
  });

  it('ends at now without it, and never after now', () => {
    expect(diff(undefined, [obs('v2.events', [], 5)], context(7)).state.createdAt).toBe(at(7));
    const late = diff(undefined, [obs('v2.events', [], 5)], {
      ...context(7),
      readsStartedAt: new Date(at(9)),
    });
    expect(late.state.createdAt).toBe(at(7));
  });
});
