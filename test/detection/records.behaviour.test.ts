import { describe, expect, it } from 'vitest';
import type { EcoDriving, V1Crash, V1Trip } from '../../functions/core/api/model';
import { diff } from '../../functions/core/detection/diff';
import { idOf, typesOf } from './behaviour';
import {
  at,
  baselined,
  collision,
  context,
  expectValidEvents,
  obs,
  runPolls,
  trip,
  vehicleEvent,
} from './fixtures';

/**
 * Collisions, trips, refuels and fuel thefts: for fixed inputs, the exact events (type, id, time,
 * source, data) and the stored state a consumer or the next poll relies on.
 */

const COLLISION = 'vehicle.collision.detected';
const TRIP = 'vehicle.trip.completed';
const REFUEL = 'vehicle.refuel.detected';
const THEFT = 'vehicle.fuel_theft.detected';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

type Events = ReturnType<typeof diff>['events'];
/** What a subscriber reads of each event, source included. */
const read = (events: Events) =>
  events.map((e) => ({ type: e.type, id: e.id, occurredAt: e.occurredAt, source: e.source, data: e.data }));

const v1Crash = (lastUpdate: string | undefined, raw: Record<string, unknown>): V1Crash => ({
  vin: 'VF3ABCDEFGH123456',
  contract: 'C-1',
  ...(lastUpdate === undefined ? {} : { lastUpdate }),
  raw,
});

const v1Trip = (tripId: number, extra: Partial<V1Trip> = {}): V1Trip => ({
  vin: 'VF3ABCDEFGH123456',
  contract: 'C-1',
  tripId,
  dateTripBegin: at(2),
  durationS: 600,
  distanceKm: 8,
  avgFuelConsumption: 6.1,
  co2Emission: 140,
  refueling: false,
  siphoning: false,
  raw: {},
  ...extra,
});

const eco = (tripId: string): EcoDriving => ({
  tripId,
  global: { trend: { score: 7.5, label: 'good' } },
  detailed: { braking: { score: 9, advice: 'anticipate' } },
});

const geo = (lon: number, lat: number) => ({ geometry: { coordinates: [lon, lat] } });

describe('collisions: the exact event', () => {
  it('a listed collision: id from its collision id, time, source with record id, every field', () => {
    const c = collision('c1', {
      front: 'medium',
      rear: 'low',
      lateral: 'none',
      tripId: 't9',
      position: { lon: 2.35, lat: 48.85, heading: 90 },
      createdAt: at(3),
    });
    const r = diff(baselined(), [obs('v2.collisions', [c], 4)], context(4));
    expect(read(r.events)).toEqual([
      {
        type: COLLISION,
        id: idOf(COLLISION, 'c1', 'detected'),
        occurredAt: at(3),
        source: { api: 'v2', operation: 'v2.vehicles.collisions', recordId: 'c1' },
        data: {
          collisionId: 'c1',
          front: 'medium',
          rear: 'low',
          lateral: 'none',
          maxLevel: 'medium',
          rollOver: false,
          pedestrian: false,
          tripId: 't9',
          position: { lon: 2.35, lat: 48.85, heading: 90 },
          collidedAt: at(3),
        },
      },
    ]);
    expect(r.state.collisions.ids).toEqual({ c1: at(3) });
    expect(r.state.lastActivityAt).toBe(at(3));
    expectValidEvents(r.events);
  });

  it.each([
    [['none', 'none', 'none'], 'none'],
    [['none', 'none', 'fixable'], 'fixable'],
    [['fixable', 'low', 'none'], 'low'],
    [['low', 'none', 'fixable'], 'low'],
    [['low', 'medium', 'fixable'], 'medium'],
    [['none', 'high', 'medium'], 'high'],
    [['medium', 'fixable', 'high'], 'high'],
    [['high', 'medium', 'low'], 'high'],
    // A level the API adds ranks below every known one, and the first of several unknown ones wins.
    [['SEVERE', 'none', 'none'], 'none'],
    [['SEVERE', 'OTHER', 'NEW'], 'SEVERE'],
  ] as const)('sides %j: maxLevel %s', ([front, rear, lateral], expected) => {
    const r = diff(
      baselined(),
      [obs('v2.collisions', [collision('c1', { front, rear, lateral })], 2)],
      context(2),
    );
    expect(r.events[0]?.data).toMatchObject({ front, rear, lateral, maxLevel: expected });
  });

  it('a collision embedded in an event: the event source, the same id as from the list', () => {
    const c = collision('c1', { createdAt: at(1) });
    const r = diff(
      baselined(),
      [obs('v2.events', [vehicleEvent('e1', 'COLLISION', 2, { collision: c })], 3)],
      context(3),
    );
    expect(read(r.events)).toEqual([
      {
        type: COLLISION,
        id: idOf(COLLISION, 'c1', 'detected'),
        occurredAt: at(1),
        source: { api: 'v2', operation: 'v2.vehicles.events', recordId: 'c1' },
        data: {
          collisionId: 'c1',
          front: 'low',
          rear: 'none',
          lateral: 'none',
          maxLevel: 'low',
          rollOver: false,
          pedestrian: false,
          collidedAt: at(1),
        },
      },
    ]);
    // The event time counts as activity, newer than the collision's own time.
    expect(r.state.lastActivityAt).toBe(at(2));
  });

  it('an embedded collision with an empty id is ignored (no event, nothing remembered)', () => {
    const r = diff(
      baselined(),
      [obs('v2.events', [vehicleEvent('e1', 'COLLISION', 2, { collision: collision('') })], 3)],
      context(3),
    );
    expect(r.events).toEqual([]);
    expect(r.state.collisions.ids).toEqual({});
  });

  it('a collision older than the retention is old: no event, not remembered; one just inside is news', () => {
    const days = (d: number) => new Date(Date.parse(at(60)) - d * DAY).toISOString();
    const start = baselined({ initialPolicy: 'all' });
    const r = diff(
      start,
      [
        obs(
          'v2.collisions',
          [collision('old', { createdAt: days(30.01) }), collision('recent', { createdAt: days(29.99) })],
          60,
        ),
      ],
      context(60, { initialPolicy: 'all' }),
    );
    expect(r.events.map((e) => (e.data as { collisionId: string }).collisionId)).toEqual(['recent']);
    expect(Object.keys(r.state.collisions.ids)).toEqual(['recent']);
  });

  it('a collision dated before the state was created is history: remembered, never told', () => {
    const r = diff(
      baselined(),
      [obs('v2.collisions', [collision('c0', { createdAt: at(-1) })], 2)],
      context(2),
    );
    expect(r.events).toEqual([]);
    expect(r.state.collisions.ids).toEqual({ c0: at(-1) });
    const again = diff(
      r.state,
      [obs('v2.collisions', [collision('c0', { createdAt: at(-1) })], 3)],
      context(3),
    );
    expect(again.events).toEqual([]);
  });

  it('a collision without a time is news only once its source was read before', () => {
    const c = collision('c1', { createdAt: undefined });
    const first = diff(baselined(), [obs('v2.collisions', [c], 2)], context(2));
    expect(first.events).toEqual([]);
    expect(first.state.collisions.ids).toEqual({ c1: at(2) });
    const next = diff(
      first.state,
      [obs('v2.collisions', [c, collision('c2', { createdAt: undefined })], 3)],
      context(3),
    );
    expect(read(next.events)).toMatchObject([{ id: idOf(COLLISION, 'c2', 'detected'), occurredAt: at(3) }]);
    expect(next.events[0]?.data).not.toHaveProperty('collidedAt');
  });
});

describe('v1 crash records: each indicator and the derived levels', () => {
  const sideCases: [string, string, string][] = [
    ['highFrontCrashInfo', 'front', 'high'],
    ['avgFrontCrashInfoN1', 'front', 'medium'],
    ['avgFrontCrashInfoN2', 'front', 'medium'],
    ['lowFrontCrashInfo', 'front', 'low'],
    ['repairFrontCrashInfo', 'front', 'fixable'],
    ['highRearCrashInfo', 'rear', 'high'],
    ['avgRearCrashInfo', 'rear', 'medium'],
    ['lowRearCrashInfo', 'rear', 'low'],
    ['repairRearCrashInfo', 'rear', 'fixable'],
    ['highLatCrashInfo', 'lateral', 'high'],
    ['avgLatCrashInfo', 'lateral', 'medium'],
    ['lowLatCrashInfo', 'lateral', 'low'],
    ['repairLatCrashInfo', 'lateral', 'fixable'],
  ];

  it.each(sideCases)('%s alone sets %s to %s, and nothing else', (key, side, level) => {
    const r = diff(baselined(), [obs('v1.crash', [v1Crash(at(2), { [key]: { 41: 1 } })], 3)], context(3));
    const expected = { front: 'none', rear: 'none', lateral: 'none', [side]: level };
    expect(read(r.events)).toEqual([
      {
        type: COLLISION,
        id: idOf(COLLISION, `v1crash:${at(2)}`, 'detected'),
        occurredAt: at(2),
        source: { api: 'v1', operation: 'v1.crash.list', recordId: `v1crash:${at(2)}` },
        data: {
          collisionId: `v1crash:${at(2)}`,
          ...expected,
          maxLevel: level,
          rollOver: false,
          pedestrian: false,
          collidedAt: at(2),
        },
      },
    ]);
    expectValidEvents(r.events);
  });

  it('the highest positive indicator of a side wins, whatever the order of the keys', () => {
    const r = diff(
      baselined(),
      [
        obs(
          'v1.crash',
          [
            v1Crash(at(2), {
              repairFrontCrashInfo: 1,
              lowFrontCrashInfo: 1,
              avgFrontCrashInfoN2: 1,
              repairRearCrashInfo: 1,
              lowRearCrashInfo: 1,
              repairLatCrashInfo: 1,
              avgLatCrashInfo: 1,
              highLatCrashInfo: 1,
            }),
          ],
          3,
        ),
      ],
      context(3),
    );
    expect(r.events[0]?.data).toMatchObject({
      front: 'medium',
      rear: 'low',
      lateral: 'high',
      maxLevel: 'high',
    });
  });

  it.each(['pedestCrashInfo1_41', 'pedestCrashInfo1_60', 'pedestCrashInfo2_60', 'pedestCrashInfo3_60'])(
    '%s alone is a pedestrian collision with every side none',
    (key) => {
      const r = diff(baselined(), [obs('v1.crash', [v1Crash(at(2), { [key]: { 60: 2 } })], 3)], context(3));
      expect(r.events[0]?.data).toEqual({
        collisionId: `v1crash:${at(2)}`,
        front: 'none',
        rear: 'none',
        lateral: 'none',
        maxLevel: 'none',
        rollOver: false,
        pedestrian: true,
        collidedAt: at(2),
      });
    },
  );

  it('flipVeh alone is a roll-over', () => {
    const r = diff(baselined(), [obs('v1.crash', [v1Crash(at(2), { flipVeh: 1 })], 3)], context(3));
    expect(r.events[0]?.data).toMatchObject({ rollOver: true, pedestrian: false, maxLevel: 'none' });
  });

  it.each([
    ['a number above zero', 0.5, true],
    ['zero', 0, false],
    ['a negative number', -1, false],
    ['a numeric string above zero', '2', true],
    ['a zero string', '0', false],
    ['a non-numeric string', 'yes', false],
    ['null', null, false],
    ['true', true, false],
    ['nested per-second values, one positive', { 41: 0, 60: { a: 0, b: 3 } }, true],
    ['nested values, none positive', { 41: 0, 60: { a: '0', b: -2 } }, false],
  ] as const)('an indicator holding %s is %s', (_name, value, positive) => {
    const r = diff(
      baselined(),
      [obs('v1.crash', [v1Crash(at(2), { highRearCrashInfo: value })], 3)],
      context(3),
    );
    expect(r.events.map((e) => (e.data as { rear: string }).rear)).toEqual(positive ? ['high'] : []);
    expect(r.rejected).toEqual([]);
  });

  it('a crash record without lastUpdate is refused, naming the field and source', () => {
    const r = diff(baselined(), [obs('v1.crash', [v1Crash(undefined, { flipVeh: 1 })], 3)], context(3));
    expect(r.events).toEqual([]);
    expect(r.rejected).toEqual([
      {
        kind: 'Malformed',
        observation: -1,
        source: 'v1.crash',
        field: 'items[].lastUpdate',
        reason: 'a v1 crash record without lastUpdate cannot be told apart from the next one; skipped',
      },
    ]);
    expect(r.state.collisions.ids).toEqual({});
  });

  it('a record with no positive indicator, even without lastUpdate, is simply not a collision', () => {
    const r = diff(baselined(), [obs('v1.crash', [v1Crash(undefined, { flipVeh: 0 })], 3)], context(3));
    expect(r.events).toEqual([]);
    expect(r.rejected).toEqual([]);
  });
});

describe('v2 trips: held for eco-driving, then the exact event', () => {
  it('holds a completed trip in the state with every field, and asks for its evaluation', () => {
    const t = trip('t1', 2, {
      reference: true,
      refueling: false,
      startPosition: { lon: 1, lat: 2 },
      stopPosition: { lon: 3, lat: 4, alt: 5 },
    });
    const r = diff(baselined(), [obs('v2.trips', [t], 3)], context(3));
    expect(r.events).toEqual([]);
    expect(r.state.pendingTrips).toEqual({
      t1: {
        heldSince: at(3),
        occurredAt: at(2),
        operation: 'v2.vehicles.trips',
        data: {
          tripId: 't1',
          startedAt: at(-18),
          stoppedAt: at(2),
          durationS: 1200,
          distanceKm: 14.2,
          fuelConsumptionL: 1.1,
          avgConsumptionL100: 7.7,
          avgSpeedKmh: 42.6,
          co2Estimated: 2.5,
          refueling: false,
          reference: true,
          startPosition: { lon: 1, lat: 2 },
          stopPosition: { lon: 3, lat: 4, alt: 5 },
          ecoDrivingStatus: 'unavailable',
        },
      },
    });
    expect(r.state.trips.ids).toEqual({ t1: at(2) });
    expect(r.state.lastTripAt).toBe(at(2));
    expect(r.state.lastActivityAt).toBe(at(2));
    expect(r.next.ecodrivingFor).toEqual(['t1']);
  });

  it('released with its evaluation: id, time, source and eco-driving scores', () => {
    const first = diff(baselined(), [obs('v2.trips', [trip('t1', 2)], 3)], context(3));
    const r = diff(first.state, [obs('v2.ecodriving', [eco('t1')], 4)], context(4));
    expect(read(r.events)).toEqual([
      {
        type: TRIP,
        id: idOf(TRIP, 't1', 'completed'),
        occurredAt: at(2),
        source: { api: 'v2', operation: 'v2.vehicles.trips', recordId: 't1' },
        data: {
          tripId: 't1',
          startedAt: at(-18),
          stoppedAt: at(2),
          durationS: 1200,
          distanceKm: 14.2,
          fuelConsumptionL: 1.1,
          avgConsumptionL100: 7.7,
          avgSpeedKmh: 42.6,
          co2Estimated: 2.5,
          ecoDriving: {
            global: { trend: { score: 7.5, label: 'good' } },
            detailed: { braking: { score: 9, advice: 'anticipate' } },
          },
          ecoDrivingStatus: 'included',
        },
      },
    ]);
    expect(r.state.pendingTrips).toEqual({});
    expectValidEvents(r.events);
  });

  it('an evaluation for another trip releases nothing', () => {
    const first = diff(baselined(), [obs('v2.trips', [trip('t1', 2)], 3)], context(3));
    const r = diff(first.state, [obs('v2.ecodriving', [eco('t2')], 4)], context(4));
    expect(r.events).toEqual([]);
    expect(Object.keys(r.state.pendingTrips)).toEqual(['t1']);
  });

  it('the wait ends exactly at ecoDrivingWaitMs after the trip was first held', () => {
    const cfg = { ecoDrivingWaitMs: 5 * MINUTE };
    const first = diff(baselined(cfg), [obs('v2.trips', [trip('t1', 2)], 3)], context(3, cfg));
    const before = diff(first.state, [], {
      ...context(8, cfg),
      now: new Date(Date.parse(at(8)) - 1),
    });
    expect(before.events).toEqual([]);
    const exactly = diff(first.state, [], context(8, cfg));
    expect(read(exactly.events)).toMatchObject([
      { id: idOf(TRIP, 't1', 'completed'), occurredAt: at(2), data: { ecoDrivingStatus: 'unavailable' } },
    ]);
    expect(exactly.events[0]?.data).not.toHaveProperty('ecoDriving');
  });

  it('a trip without stoppedAt ends at its start plus its duration', () => {
    const t = trip('t1', 10, { stoppedAt: undefined, startedAt: at(1), durationS: 90 });
    const r = diff(
      baselined({ ecoDrivingWaitMs: 0 }),
      [obs('v2.trips', [t], 12)],
      context(12, { ecoDrivingWaitMs: 0 }),
    );
    const end = new Date(Date.parse(at(1)) + 90_000).toISOString();
    expect(read(r.events)).toMatchObject([{ id: idOf(TRIP, 't1', 'completed'), occurredAt: end }]);
    expect(r.events[0]?.data).toMatchObject({ startedAt: at(1), stoppedAt: end, durationS: 90 });
  });

  it('a trip whose start is not a date and has no stop is still running: nothing held', () => {
    const t = trip('t1', 10, { stoppedAt: undefined, startedAt: 'soon', durationS: 90 });
    const r = diff(baselined(), [obs('v2.trips', [t], 12)], context(12));
    expect(r.events).toEqual([]);
    expect(r.state.pendingTrips).toEqual({});
    expect(r.state.trips.ids).toEqual({});
  });

  it.each([
    ['a negative duration and distance are left out', -5, -1, undefined, undefined],
    ['zero is kept', 0, 0, 0, 0],
    ['a non-finite value is left out', Number.NaN, Number.POSITIVE_INFINITY, undefined, undefined],
  ] as const)('%s', (_name, durationS, distanceKm, d, k) => {
    const t = trip('t1', 2, { durationS, distanceKm });
    const r = diff(
      baselined({ ecoDrivingWaitMs: 0 }),
      [obs('v2.trips', [t], 3)],
      context(3, { ecoDrivingWaitMs: 0 }),
    );
    const data = r.events[0]?.data as Record<string, unknown>;
    expect([data.durationS, data.distanceKm]).toEqual([d, k]);
  });

  it('held trips are released oldest first (then by id), so sequence follows trip order', () => {
    const cfg = { ecoDrivingWaitMs: 0 };
    const r = diff(
      baselined(cfg),
      [obs('v2.trips', [trip('tc', 5), trip('tb', 2), trip('ta', 2), trip('td', 1)], 6)],
      context(6, cfg),
    );
    expect(r.events.map((e) => (e.data as { tripId: string }).tripId)).toEqual(['td', 'ta', 'tb', 'tc']);
    expect(r.events.map((e) => e.sequence)).toEqual([1, 2, 3, 4]);
  });

  it('the release order is by end time whatever the order the trips were read in, then by id', () => {
    const cfg = { ecoDrivingWaitMs: 0 };
    // A later trip with a smaller id read after an earlier one; two trips ending together read in id order.
    const r = diff(
      baselined(cfg),
      [obs('v2.trips', [trip('tx', 1), trip('ta', 2), trip('tb', 2), trip('t0', 5)], 6)],
      context(6, cfg),
    );
    expect(r.events.map((e) => (e.data as { tripId: string }).tripId)).toEqual(['tx', 'ta', 'tb', 't0']);
  });

  it('beyond maxPendingTrips the oldest go without waiting; the newest stay held', () => {
    const cfg = { maxPendingTrips: 2 };
    const r = diff(
      baselined(cfg),
      [obs('v2.trips', [trip('t3', 3), trip('t1', 1), trip('t4', 4), trip('t2', 2)], 5)],
      context(5, cfg),
    );
    expect(
      read(r.events).map((e) => [e.id, (e.data as { ecoDrivingStatus?: string }).ecoDrivingStatus]),
    ).toEqual([
      [idOf(TRIP, 't1', 'completed'), 'unavailable'],
      [idOf(TRIP, 't2', 'completed'), 'unavailable'],
    ]);
    expect(Object.keys(r.state.pendingTrips).sort()).toEqual(['t3', 't4']);
    expect(r.next.ecodrivingFor).toEqual(['t3', 't4']);
  });

  it('exactly maxPendingTrips held trips all wait', () => {
    const cfg = { maxPendingTrips: 2 };
    const r = diff(baselined(cfg), [obs('v2.trips', [trip('t1', 1), trip('t2', 2)], 5)], context(5, cfg));
    expect(r.events).toEqual([]);
    expect(r.next.ecodrivingFor).toEqual(['t1', 't2']);
  });

  it('an evaluation read releases only the trips it covers, even when others waited out', () => {
    const first = diff(baselined(), [obs('v2.trips', [trip('t1', 1), trip('t2', 2)], 3)], context(3));
    // At minute 30 both waited out; the evaluation read releases only t2, the end of the diff the rest.
    const r = diff(first.state, [obs('v2.ecodriving', [eco('t2')], 30)], context(30));
    expect(
      r.events.map((e) => [
        (e.data as { tripId: string }).tripId,
        (e.data as { ecoDrivingStatus: string }).ecoDrivingStatus,
      ]),
    ).toEqual([
      ['t2', 'included'],
      ['t1', 'unavailable'],
    ]);
  });

  it('a trip embedded in an event with an empty id is ignored', () => {
    const r = diff(
      baselined(),
      [obs('v2.events', [vehicleEvent('e1', 'TRIP', 2, { trip: trip('', 2) })], 3)],
      context(3),
    );
    expect(r.state.pendingTrips).toEqual({});
    expect(r.state.trips.ids).toEqual({});
  });

  it('a trip that ended before the state was created is history: remembered, not held', () => {
    const r = diff(baselined(), [obs('v2.trips', [trip('t0', -1)], 3)], context(3));
    expect(r.state.pendingTrips).toEqual({});
    expect(r.state.trips.ids).toEqual({ t0: at(-1) });
    expect(r.state.lastTripAt).toBe(at(-1));
  });

  it('a trip older than the retention is ignored entirely', () => {
    const old = new Date(Date.parse(at(3)) - 31 * DAY).toISOString();
    const t = trip('t0', 0, { stoppedAt: old });
    const r = diff(
      baselined({ initialPolicy: 'all' }),
      [obs('v2.trips', [t], 3)],
      context(3, { initialPolicy: 'all' }),
    );
    expect(r.state.trips.ids).toEqual({});
    expect(r.state.lastTripAt).toBeUndefined();
  });
});

describe('v1 trips, refuels and fuel thefts', () => {
  it('a v1 trip: id, end from start plus duration, source and data', () => {
    const t = v1Trip(42, { refueling: false });
    const r = diff(baselined(), [obs('v1.trips', [t], 20)], context(20));
    expect(read(r.events)).toEqual([
      {
        type: TRIP,
        id: idOf(TRIP, 'v1trip:42', 'completed'),
        occurredAt: at(12),
        source: { api: 'v1', operation: 'v1.trips.list', recordId: '42' },
        data: {
          tripId: '42',
          startedAt: at(2),
          stoppedAt: at(12),
          durationS: 600,
          distanceKm: 8,
          avgConsumptionL100: 6.1,
          co2Estimated: 140,
          refueling: false,
          ecoDrivingStatus: 'unavailable',
        },
      },
    ]);
    expect(r.state.trips.ids).toEqual({ 'v1trip:42': at(12) });
    expect(r.state.lastTripAt).toBe(at(12));
    expect(r.state.lastActivityAt).toBe(at(12));
    expectValidEvents(r.events);
  });

  it('a v1 trip without duration ends at its start; without a start it has no time', () => {
    const noDuration = diff(
      baselined(),
      [obs('v1.trips', [v1Trip(1, { durationS: undefined })], 20)],
      context(20),
    );
    expect(noDuration.events[0]).toMatchObject({ occurredAt: at(2), data: { stoppedAt: at(2) } });
    const first = diff(
      baselined(),
      [obs('v1.trips', [v1Trip(1, { dateTripBegin: undefined })], 20)],
      context(20),
    );
    // Without a time the record is told only once its source was read before.
    expect(first.events).toEqual([]);
    expect(first.state.lastTripAt).toBeUndefined();
    expect(first.state.trips.ids).toEqual({ 'v1trip:1': at(20) });
    const next = diff(
      first.state,
      [obs('v1.trips', [v1Trip(2, { dateTripBegin: undefined })], 21)],
      context(21),
    );
    expect(read(next.events)).toMatchObject([
      { id: idOf(TRIP, 'v1trip:2', 'completed'), occurredAt: at(21) },
    ]);
    expect(next.events[0]?.data).toEqual({
      tripId: '2',
      durationS: 600,
      distanceKm: 8,
      avgConsumptionL100: 6.1,
      co2Estimated: 140,
      refueling: false,
      ecoDrivingStatus: 'unavailable',
    });
    expect(next.state.lastTripAt).toBeUndefined();
  });

  it('refuel and theft flags: ids per kind and record, cost and level from the raw record', () => {
    const t = v1Trip(42, {
      refueling: true,
      siphoning: true,
      raw: { refuelingCost: 52.3, siphoningCost: 30, fuelTankLevel: 85 },
    });
    const r = diff(baselined(), [obs('v1.trips', [t], 20)], context(20));
    const src = { api: 'v1', operation: 'v1.trips.list', recordId: '42' };
    expect(read(r.events).slice(1)).toEqual([
      {
        type: REFUEL,
        id: idOf(REFUEL, 'refuel:v1:42', 'detected'),
        occurredAt: at(2),
        source: src,
        data: { recordId: '42', tripId: '42', at: at(2), cost: 52.3, fuelLevel: 85 },
      },
      {
        type: THEFT,
        id: idOf(THEFT, 'theft:v1:42', 'detected'),
        occurredAt: at(2),
        source: src,
        data: { recordId: '42', tripId: '42', at: at(2), cost: 30, fuelLevel: 85 },
      },
    ]);
    expect(r.state.fuel.ids).toEqual({ 'refuel:v1:42': at(2), 'theft:v1:42': at(2) });
    expectValidEvents(r.events);
  });

  it('a refuel is activity at its own time, even when the trip record ends before it starts', () => {
    const t = v1Trip(9, { refueling: true, durationS: -600 });
    const r = diff(baselined(), [obs('v1.trips', [t], 20)], context(20));
    // The trip's end is before the state was created (history); the refuel at its start is news.
    expect(r.events.map((e) => [e.type, e.occurredAt])).toEqual([[REFUEL, at(2)]]);
    expect(r.state.trips.ids).toEqual({ 'v1trip:9': at(-8) });
    expect(r.state.lastActivityAt).toBe(at(2));
  });

  it('raw values that are not finite numbers are left out of the refuel', () => {
    const t = v1Trip(7, { refueling: true, raw: { refuelingCost: '52', fuelTankLevel: Number.NaN } });
    const r = diff(baselined(), [obs('v1.trips', [t], 20)], context(20));
    expect(r.events[1]?.data).toEqual({ recordId: '7', tripId: '7', at: at(2) });
  });

  it('flags set to something other than true are not a refuel or a theft', () => {
    const t = v1Trip(7, { refueling: 'true' as never, siphoning: 1 as never });
    const r = diff(baselined(), [obs('v1.trips', [t], 20)], context(20));
    expect(typesOf(r.events)).toEqual([TRIP]);
  });

  it('the trip already told, a refuel flag read later is still told once', () => {
    const first = diff(baselined(), [obs('v1.trips', [v1Trip(42)], 20)], context(20));
    const later = diff(first.state, [obs('v1.trips', [v1Trip(42, { refueling: true })], 21)], context(21));
    expect(typesOf(later.events)).toEqual([REFUEL]);
    const again = diff(later.state, [obs('v1.trips', [v1Trip(42, { refueling: true })], 22)], context(22));
    expect(again.events).toEqual([]);
  });
});

describe('vehicle events: refuel and fuel stolen records', () => {
  const fuelEvent = (type: string, record: Record<string, unknown>, extra = {}) =>
    vehicleEvent('e1', type, 2, { record, ...extra });

  it('a refuel event: id from the record id, every field of the record', () => {
    const ev = fuelEvent('REFUEL', {
      liters: -32.5,
      cost: 51.2,
      fuelLevel: 90,
      tripId: 't7',
      _embedded: { position: geo(2.3, 48.8) },
    });
    const r = diff(baselined(), [obs('v2.events', [ev], 3)], context(3));
    expect(read(r.events)).toEqual([
      {
        type: REFUEL,
        id: idOf(REFUEL, 'refuel:rec-e1', 'detected'),
        occurredAt: at(2),
        source: { api: 'v2', operation: 'v2.vehicles.events', recordId: 'rec-e1' },
        data: {
          recordId: 'rec-e1',
          tripId: 't7',
          at: at(2),
          cost: 51.2,
          fuelLevel: 90,
          fuelChangeL: 32.5,
          position: { lon: 2.3, lat: 48.8 },
        },
      },
    ]);
    expect(r.state.fuel.ids).toEqual({ 'refuel:rec-e1': at(2) });
    expectValidEvents(r.events);
  });

  it.each([
    ['FUEL_STOLEN', 12],
    ['fuel-stolen', -12],
    ['FuelTheft', 12],
  ])('a %s event is a fuel theft with a negative change', (type, liters) => {
    const r = diff(baselined(), [obs('v2.events', [fuelEvent(type, { liters })], 3)], context(3));
    expect(read(r.events)).toEqual([
      {
        type: THEFT,
        id: idOf(THEFT, 'theft:rec-e1', 'detected'),
        occurredAt: at(2),
        source: { api: 'v2', operation: 'v2.vehicles.events', recordId: 'rec-e1' },
        data: { recordId: 'rec-e1', at: at(2), fuelChangeL: -12 },
      },
    ]);
    expectValidEvents(r.events);
  });

  it('the fallback field names: volume, price, level, trip and a top-level position', () => {
    const r = diff(
      baselined(),
      [
        obs(
          'v2.events',
          [fuelEvent('refuel', { volume: 20, price: 30, level: 70, trip: 't8', position: geo(1, 2) })],
          3,
        ),
      ],
      context(3),
    );
    expect(r.events[0]?.data).toEqual({
      recordId: 'rec-e1',
      tripId: 't8',
      at: at(2),
      cost: 30,
      fuelLevel: 70,
      fuelChangeL: 20,
      position: { lon: 1, lat: 2 },
    });
  });

  it('the first usable field wins; unusable values are skipped', () => {
    const r = diff(
      baselined(),
      [
        obs(
          'v2.events',
          [
            fuelEvent('REFUEL', {
              liters: Number.NaN,
              volume: 15,
              cost: '3',
              price: 4,
              fuelLevel: 60,
              level: 10,
              tripId: '',
              trip: 't2',
              _embedded: { position: { geometry: { coordinates: ['x'] } } },
            }),
          ],
          3,
        ),
      ],
      context(3),
    );
    expect(r.events[0]?.data).toEqual({
      recordId: 'rec-e1',
      tripId: 't2',
      at: at(2),
      cost: 4,
      fuelLevel: 60,
      fuelChangeL: 15,
    });
  });

  it('an embedded object without a position falls back to the top-level one; null embeds are ignored', () => {
    const withEmbedded = diff(
      baselined(),
      [obs('v2.events', [fuelEvent('REFUEL', { _embedded: { trip: {} }, position: geo(5, 6) })], 3)],
      context(3),
    );
    expect(withEmbedded.events[0]?.data).toMatchObject({ position: { lon: 5, lat: 6 } });
    const nullEmbedded = diff(
      baselined(),
      [obs('v2.events', [fuelEvent('REFUEL', { _embedded: null, position: geo(7, 8) })], 3)],
      context(3),
    );
    expect(nullEmbedded.events[0]?.data).toMatchObject({ position: { lon: 7, lat: 8 } });
  });

  it('an event without a record id is keyed by the event id; without a record no field is invented', () => {
    const r = diff(
      baselined(),
      [obs('v2.events', [vehicleEvent('e9', 'REFUEL', 2, { eventId: '' })], 3)],
      context(3),
    );
    expect(read(r.events)).toEqual([
      {
        type: REFUEL,
        id: idOf(REFUEL, 'refuel:e9', 'detected'),
        occurredAt: at(2),
        source: { api: 'v2', operation: 'v2.vehicles.events', recordId: 'e9' },
        data: { recordId: 'e9', at: at(2) },
      },
    ]);
  });

  it('a refuel from the events and the same record id from a v1 trip are different records', () => {
    const v2 = diff(
      baselined(),
      [obs('v2.events', [vehicleEvent('x', 'REFUEL', 2, { eventId: '42' })], 3)],
      context(3),
    );
    const v1 = diff(baselined(), [obs('v1.trips', [v1Trip(42, { refueling: true })], 3)], context(3));
    expect([...v2.events, ...v1.events].filter((e) => e.type === REFUEL).map((e) => e.id)).toEqual([
      idOf(REFUEL, 'refuel:42', 'detected'),
      idOf(REFUEL, 'refuel:v1:42', 'detected'),
    ]);
  });

  it('a fuel record before the state was created is remembered, not told', () => {
    const r = diff(
      baselined(),
      [obs('v2.events', [fuelEvent('REFUEL', {}, { createdAt: at(-2) })], 3)],
      context(3),
    );
    expect(r.events).toEqual([]);
    expect(r.state.fuel.ids).toEqual({ 'refuel:rec-e1': at(-2) });
  });
});

describe('vehicle events that announce a record without embedding it', () => {
  const announce = (prior = baselined(), minute = 3, created = 2) =>
    diff(
      prior,
      [
        obs(
          'v2.events',
          [
            vehicleEvent('e1', 'alert', created),
            vehicleEvent('e2', 'Collision', created),
            vehicleEvent('e3', 'TRIP', created),
          ],
          minute,
        ),
      ],
      context(minute),
    );

  it('each kind asks for its own list (case and punctuation ignored), and notes the activity', () => {
    const alertOnly = diff(baselined(), [obs('v2.events', [vehicleEvent('e1', 'ALERT', 2)], 3)], context(3));
    expect(alertOnly.next).toMatchObject({ alerts: 'now', collisions: 'skip', trips: 'skip' });
    const collisionOnly = diff(
      baselined(),
      [obs('v2.events', [vehicleEvent('e1', 'COLLISION', 2)], 3)],
      context(3),
    );
    expect(collisionOnly.next).toMatchObject({ collisions: 'now', trips: 'skip' });
    expect(collisionOnly.next.alerts).not.toBe('now');
    const tripOnly = diff(baselined(), [obs('v2.events', [vehicleEvent('e1', 'trip', 2)], 3)], context(3));
    expect(tripOnly.next).toMatchObject({ collisions: 'skip', trips: 'now' });
    expect(tripOnly.state.lastActivityAt).toBe(at(2));
    expect(tripOnly.events).toEqual([]);
  });

  it('an announcement at or before the newest event already read asks for nothing', () => {
    const first = announce(baselined(), 3, 2);
    expect(first.next).toMatchObject({ alerts: 'now', collisions: 'now', trips: 'now' });
    // The cursor trails the newest event by the overlap: re-reading e1..e3 (created at minute 2).
    const reread = announce(first.state, 4, 2);
    expect(reread.next).toMatchObject({ collisions: 'skip', trips: 'skip' });
    expect(reread.next.alerts).not.toBe('now');
    const newer = announce(first.state, 5, 3);
    expect(newer.next).toMatchObject({ alerts: 'now', collisions: 'now', trips: 'now' });
  });

  it('an announcement without a creation time always asks', () => {
    const first = announce(baselined(), 3, 2);
    const r = diff(
      first.state,
      [obs('v2.events', [{ ...vehicleEvent('e4', 'TRIP', 2), createdAt: undefined }], 4)],
      context(4),
    );
    expect(r.next.trips).toBe('now');
  });

  it('a future activity time is not noted', () => {
    const r = diff(baselined(), [obs('v2.events', [vehicleEvent('e1', 'TRIP', 9)], 3)], context(3));
    expect(r.state.lastActivityAt).toBeUndefined();
  });
});

describe('record memory across polls', () => {
  it('the same collision, trip and refuel read again are told once, and stored once', () => {
    const polls = [3, 4].map((m) => ({
      minute: m,
      observations: [
        obs('v2.collisions', [collision('c1')], m),
        obs('v2.trips', [trip('t1', 2)], m),
        obs('v2.events', [vehicleEvent('e1', 'REFUEL', 2)], m),
      ],
    }));
    const { events, last } = runPolls(baselined({ ecoDrivingWaitMs: 0 }), polls, { ecoDrivingWaitMs: 0 });
    // Held trips are released at the end of the diff, after the poll's other records.
    expect(events.map((e) => e.id)).toEqual([
      idOf(COLLISION, 'c1', 'detected'),
      idOf(REFUEL, 'refuel:rec-e1', 'detected'),
      idOf(TRIP, 't1', 'completed'),
    ]);
    expect(last.state.collisions.ids).toEqual({ c1: at(1) });
    expect(last.state.trips.ids).toEqual({ t1: at(2) });
    expect(last.state.fuel.ids).toEqual({ 'refuel:rec-e1': at(2) });
  });
});
