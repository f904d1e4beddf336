import { describe, expect, it } from 'vitest';
import type { V1Alert } from '../../functions/core/api/model';
import { diff } from '../../functions/core/detection/diff';
import type { Observation } from '../../functions/core/detection/observations';
import { toInstant } from '../../functions/core/detection/times';
import { idOf, told } from './behaviour';
import {
  alert,
  at,
  baselined,
  collision,
  context,
  expectValidEvents,
  obs,
  trip,
  vehicleEvent,
} from './fixtures';

/**
 * Record times are RFC 3339 timestamps (the API's field convention): they are compared as
 * instants, whatever their spelling, and a time that does not parse is reported with its field
 * and read as absent: the record is still told, never taken for history by a text comparison.
 */

const COLLISION = 'vehicle.collision.detected';
const RAISED = 'vehicle.alert.raised';
const FIXED = 'vehicle.alert.fixed';
const TRIP = 'vehicle.trip.completed';

/** `at(minutes)` spelled with an offset of `hours` (e.g. -1 gives 07:01-01:00 for 08:01Z). */
const withOffset = (minutes: number, hours: number): string => {
  const local = new Date(Date.parse(at(minutes)) + hours * 3_600_000).toISOString().slice(0, 19);
  const sign = hours < 0 ? '-' : '+';
  return `${local}${sign}${String(Math.abs(hours)).padStart(2, '0')}:00`;
};

const v1Alert = (idAlert: string, alertState: number, extra: Partial<V1Alert> = {}): V1Alert => ({
  vin: 'VF3ABCDEFGH123456',
  contract: 'C-1',
  idAlert,
  alert: 'alertOilPressure',
  alertState,
  dateAlertBegin: at(1),
  ...extra,
});

describe('a record time with an offset is the same instant', () => {
  it('a collision at 07:01-01:00 after enrollment at 08:00Z is told, at 08:01Z', () => {
    const createdAt = withOffset(1, -1);
    expect(createdAt).toBe('2026-11-01T07:01:00-01:00');
    const r = diff(baselined(), [obs('v2.collisions', [collision('c1', { createdAt })], 4)], context(4));
    expect(told(r.events)).toEqual([
      {
        type: COLLISION,
        id: idOf(COLLISION, 'c1', 'detected'),
        occurredAt: at(1),
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
    expect(r.state.collisions.ids).toEqual({ c1: at(1) });
    expect(r.state.lastActivityAt).toBe(at(1));
    expect(r.rejected).toEqual([]);
    expectValidEvents(r.events);
  });

  it('a collision at 09:59+02:00, before enrollment at 08:00Z, is history although its text sorts after', () => {
    const createdAt = withOffset(-1, 2);
    expect(createdAt).toBe('2026-11-01T09:59:00+02:00');
    const r = diff(baselined(), [obs('v2.collisions', [collision('c1', { createdAt })], 4)], context(4));
    expect(r.events).toEqual([]);
    expect(r.state.collisions.ids).toEqual({ c1: at(-1) });
  });

  it('the API’s +0000 form, a lower-case t and z, and no fraction read as the same instant', () => {
    for (const [given, instant] of [
      ['2026-11-01T08:01:00.000+0000', at(1)],
      ['2026-11-01t08:01:00z', at(1)],
      ['2026-11-01 09:01:00.5+01:00', '2026-11-01T08:01:00.500Z'],
      ['2026-11-01T08:01:00.000Z', at(1)],
    ] as const) {
      expect(toInstant(given), given).toBe(instant);
    }
  });

  it('an alert raised with its start spelled with an offset is the same occurrence when re-read in UTC', () => {
    const first = diff(
      baselined(),
      [
        obs(
          'v2.alerts',
          [alert('a1', true, { startedAt: withOffset(1, 1), updatedAt: withOffset(1, 1) })],
          2,
        ),
      ],
      context(2),
    );
    expect(told(first.events).map((e) => [e.type, e.id, e.occurredAt])).toEqual([
      [RAISED, idOf(RAISED, `a1@${at(1)}`, 'raised'), at(1)],
    ]);
    expect(first.state.alerts['v2:a1']).toMatchObject({ startedAt: at(1), updatedAt: at(1), active: true });
    const again = diff(
      first.state,
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(1), updatedAt: at(1) })], 3)],
      context(3),
    );
    expect(again.events).toEqual([]);
    const fixed = diff(
      again.state,
      [obs('v2.alerts', [alert('a1', false, { startedAt: at(1), endedAt: withOffset(3, -5) })], 4)],
      context(4),
    );
    expect(told(fixed.events).map((e) => [e.type, e.id, e.occurredAt])).toEqual([
      [FIXED, idOf(FIXED, `a1@${at(1)}`, 'fixed'), at(3)],
    ]);
    expect(fixed.events[0]?.data).toMatchObject({ endedAt: at(3), endedAtSource: 'api', durationS: 120 });
  });

  it('an older alert record spelled with an offset is older, though its text sorts after', () => {
    const raised = diff(
      baselined(),
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(1), updatedAt: at(5) })], 5)],
      context(5),
    ).state;
    // 10:04+02:00 is 08:04Z: a minute before the stored update, so this ended record is stale.
    const stale = alert('a1', false, { startedAt: at(1), endedAt: at(4), updatedAt: withOffset(4, 2) });
    const r = diff(raised, [obs('v2.alerts', [stale], 6, { complete: false })], context(6));
    expect(r.events).toEqual([]);
    expect(r.state.alerts['v2:a1']?.active).toBe(true);
  });

  it('a trip stopping at 03:02-05:00 is completed at 08:02Z', () => {
    const cfg = { ecoDrivingWaitMs: 0 };
    const t = trip('t1', 2, { startedAt: withOffset(-18, -5), stoppedAt: withOffset(2, -5) });
    const r = diff(baselined(cfg), [obs('v2.trips', [t], 3)], context(3, cfg));
    expect(told(r.events).map((e) => [e.type, e.id, e.occurredAt])).toEqual([
      [TRIP, idOf(TRIP, 't1', 'completed'), at(2)],
    ]);
    expect(r.events[0]?.data).toMatchObject({ startedAt: at(-18), stoppedAt: at(2) });
    expect(r.state.lastTripAt).toBe(at(2));
    expectValidEvents(r.events);
  });

  it('the events cursor follows the newest event as an instant', () => {
    const r = diff(
      baselined(),
      [obs('v2.events', [vehicleEvent('e1', 'UNKNOWN', 0, { createdAt: withOffset(5, 3) })], 6)],
      context(6),
    );
    // Newest event 08:05Z minus the 10-minute overlap.
    expect(r.state.cursors.eventsSince).toBe(at(-5));
    expect(r.state.lastActivityAt).toBe(at(5));
  });
});

/** A state whose collisions list was read (empty) at minute 1: a record without a time is news. */
const collisionsRead = () => diff(baselined(), [obs('v2.collisions', [], 1)], context(1)).state;

describe('a record time that does not parse is reported and read as absent', () => {
  it('a collision with a time in no RFC 3339 form is told at detection, without a collision time', () => {
    const r = diff(
      collisionsRead(),
      [obs('v2.collisions', [collision('c1', { createdAt: '01/11/2026 07:01' })], 4)],
      context(4),
    );
    expect(told(r.events)).toEqual([
      {
        type: COLLISION,
        id: idOf(COLLISION, 'c1', 'detected'),
        occurredAt: at(4),
        data: {
          collisionId: 'c1',
          front: 'low',
          rear: 'none',
          lateral: 'none',
          maxLevel: 'low',
          rollOver: false,
          pedestrian: false,
        },
      },
    ]);
    expect(r.rejected).toEqual([
      {
        kind: 'Malformed',
        observation: 0,
        source: 'v2.collisions',
        field: 'items[0].createdAt',
        reason: 'not an RFC 3339 timestamp ("01/11/2026 07:01"); the record is read without it',
      },
    ]);
    expect(r.state.collisions.ids).toEqual({ c1: at(4) });
    expect(r.state.lastActivityAt).toBeUndefined();
    expectValidEvents(r.events);
  });

  it('the same collision read again is not told twice', () => {
    const first = diff(
      collisionsRead(),
      [obs('v2.collisions', [collision('c1', { createdAt: 'yesterday' })], 4)],
      context(4),
    );
    const again = diff(
      first.state,
      [obs('v2.collisions', [collision('c1', { createdAt: 'yesterday' })], 5)],
      context(5),
    );
    expect(first.events.map((e) => e.id)).toEqual([idOf(COLLISION, 'c1', 'detected')]);
    expect(again.events).toEqual([]);
    expect(again.rejected.map((x) => x.field)).toEqual(['items[0].createdAt']);
  });

  it('on the first read of its source it is baseline, like any record without a time', () => {
    const r = diff(
      collisionsRead(),
      [obs('v2.collisions', [collision('c1', { createdAt: 'yesterday' })], 4)],
      context(4),
    );
    expect(r.events.map((e) => e.occurredAt)).toEqual([at(4)]);
    const neverRead = diff(
      diff(undefined, [obs('v2.alerts', [], 0)], context(0)).state,
      [obs('v2.collisions', [collision('c1', { createdAt: 'yesterday' })], 4)],
      context(4),
    );
    expect(neverRead.events).toEqual([]);
    expect(neverRead.state.collisions.ids).toEqual({ c1: at(4) });
    expect(neverRead.rejected.map((x) => x.field)).toEqual(['items[0].createdAt']);
  });

  it.each([
    ['an impossible day', '2026-02-30T08:00:00Z'],
    ['hour 24', '2026-11-01T24:00:00Z'],
    ['minute 60', '2026-11-01T08:60:00Z'],
    ['no seconds', '2026-11-01T08:01Z'],
    ['no zone', '2026-11-01T08:01:00'],
    ['a number', 1_761_984_060_000],
    ['year 10000', '10000-01-01T00:00:00Z'],
    ['before year 0 once in UTC', '0000-01-01T00:30:00+01:00'],
  ] as const)('%s is not a time', (_name, value) => {
    expect(toInstant(value)).toBeUndefined();
    const r = diff(
      collisionsRead(),
      [obs('v2.collisions', [collision('c1', { createdAt: value as string })], 4)],
      context(4),
    );
    expect(r.events.map((e) => e.occurredAt)).toEqual([at(4)]);
    expect(r.rejected.map((x) => x.field)).toEqual(['items[0].createdAt']);
  });

  it('an unreadable number is named by its type in the reason', () => {
    const r = diff(
      collisionsRead(),
      [obs('v2.collisions', [collision('c1', { createdAt: 5 as unknown as string })], 4)],
      context(4),
    );
    expect(r.rejected[0]?.reason).toBe('not an RFC 3339 timestamp (a number); the record is read without it');
  });

  it('a long unreadable time is shortened to 40 characters in the reason', () => {
    const r = diff(
      collisionsRead(),
      [obs('v2.collisions', [collision('c1', { createdAt: 'x'.repeat(50) })], 4)],
      context(4),
    );
    expect(r.rejected[0]?.reason).toBe(
      `not an RFC 3339 timestamp ("${'x'.repeat(40)}…"); the record is read without it`,
    );
  });

  it('an alert embedded in an event is named by its path', () => {
    const ev = vehicleEvent('e1', 'ALERT', 2, {
      alert: alert('a1', true, { startedAt: 'soon', updatedAt: at(2) }),
    });
    const r = diff(baselined(), [obs('v2.events', [ev], 3)], context(3));
    expect(r.rejected).toEqual([
      {
        kind: 'Malformed',
        observation: 0,
        source: 'v2.events',
        field: 'items[0].alert.startedAt',
        reason: 'not an RFC 3339 timestamp ("soon"); the record is read without it',
      },
    ]);
    expect(told(r.events).map((e) => [e.type, e.id, e.occurredAt])).toEqual([
      [RAISED, idOf(RAISED, 'a1@-', 'raised'), at(2)],
    ]);
  });

  it('a time in an embedded record with an offset is read as an instant too', () => {
    const ev = vehicleEvent('e1', 'COLLISION', 2, {
      collision: collision('c1', { createdAt: withOffset(1, -1) }),
    });
    const r = diff(baselined(), [obs('v2.events', [ev], 3)], context(3));
    expect(r.rejected).toEqual([]);
    expect(told(r.events).map((e) => [e.type, e.id, e.occurredAt])).toEqual([
      [COLLISION, idOf(COLLISION, 'c1', 'detected'), at(1)],
    ]);
  });

  it('a v1 alert whose end does not parse has still ended: the stored alert is fixed at detection', () => {
    const active = diff(baselined(), [obs('v1.alerts', [v1Alert('b1', 1)], 2)], context(2)).state;
    const r = diff(
      active,
      [obs('v1.alerts', [v1Alert('b1', 1, { dateAlertEnd: 'ended', dateUpdate: at(4) })], 5)],
      context(5),
    );
    expect(told(r.events).map((e) => [e.type, e.id, e.occurredAt])).toEqual([
      [FIXED, idOf(FIXED, `b1@${at(1)}`, 'fixed'), at(4)],
    ]);
    expect(r.state.alerts['v1:b1']?.active).toBe(false);
    expect(r.rejected.map((x) => [x.source, x.field])).toEqual([['v1.alerts', 'items[0].dateAlertEnd']]);
  });

  it('the other items of the list are applied, and each unreadable field is named', () => {
    const r = diff(
      collisionsRead(),
      [
        obs(
          'v2.collisions',
          [collision('c1', { createdAt: at(1) }), collision('c2', { createdAt: '?', updatedAt: '??' })],
          4,
        ),
      ],
      context(4),
    );
    expect(r.events.map((e) => e.id)).toEqual([
      idOf(COLLISION, 'c1', 'detected'),
      idOf(COLLISION, 'c2', 'detected'),
    ]);
    expect(r.rejected.map((x) => x.field)).toEqual(['items[1].createdAt', 'items[1].updatedAt']);
  });

  it('items that are already canonical are used as given (no copy)', () => {
    const c = collision('c1', { createdAt: at(1) });
    const o = obs('v2.collisions', [c, null as never], 4);
    const r = diff(baselined(), [o], context(4));
    expect(r.events.map((e) => e.id)).toEqual([idOf(COLLISION, 'c1', 'detected')]);
  });
});

describe('the poll’s own times', () => {
  it('a fetch time and window without a fraction are stored in the canonical form', () => {
    const o = {
      ...obs('v2.alerts', [], 0, {
        window: { since: '2026-11-01T07:00:00Z', until: '2026-11-01T08:05:00Z' },
      }),
      fetchedAt: '2026-11-01T08:05:00Z',
    };
    const r = diff(baselined(), [o], context(6));
    expect(r.rejected).toEqual([]);
    expect(r.state.cursors.fetched['v2.alerts']).toBe(at(5));
  });

  it('a fetch time on a day that does not exist is refused with its field', () => {
    const o = { ...obs('v2.collisions', [collision('c1')], 0), fetchedAt: '2026-02-30T08:00:00.000Z' };
    const r = diff(baselined(), [o], context(6));
    expect(r.events).toEqual([]);
    expect(r.rejected.map((x) => [x.field, x.reason])).toEqual([
      ['fetchedAt', 'must be an ISO 8601 UTC timestamp'],
    ]);
  });
});

describe('the calendar', () => {
  it.each([
    ['2024-02-29T08:00:00.000Z', '2024-02-29T08:00:00.000Z'],
    ['2000-02-29T08:00:00+00:00', '2000-02-29T08:00:00.000Z'],
    ['0400-02-29T08:00:00.000Z', '0400-02-29T08:00:00.000Z'],
    ['2026-01-31T08:00:00.000Z', '2026-01-31T08:00:00.000Z'],
    ['2026-04-30T23:59:59.999Z', '2026-04-30T23:59:59.999Z'],
    ['2026-04-30T23:59:59+00:00', '2026-04-30T23:59:59.000Z'],
  ])('%s is a real day', (given, instant) => {
    expect(toInstant(given)).toBe(instant);
  });

  it.each([
    '2026-02-29T08:00:00.000Z',
    '1900-02-29T08:00:00.000Z',
    '0100-02-29T08:00:00+00:00',
    '2026-04-31T08:00:00.000Z',
    '2026-13-01T08:00:00.000Z',
    '2026-00-10T08:00:00.000Z',
    '2026-01-00T08:00:00.000Z',
    '2026-11-32T08:00:00.000Z',
    '2026-11-01T24:00:00.000Z',
    '2026-11-01T08:60:00.000Z',
    '2026-11-01T08:00:60.000Z',
    'x2026-11-01T08:00:00.000Z',
    '2026-11-01T08:00:00.000Zx',
  ])('%s is not', (given) => {
    expect(toInstant(given)).toBeUndefined();
  });
});

describe('a time stored before record times were read as instants', () => {
  it('a held trip whose stored end is not a timestamp is told at detection when released', () => {
    const held = diff(baselined(), [obs('v2.trips', [trip('t1', 2)], 3)], context(3)).state;
    expect(Object.keys(held.pendingTrips)).toEqual(['t1']);
    const legacy = {
      ...held,
      pendingTrips: {
        t1: {
          ...(held.pendingTrips.t1 as NonNullable<(typeof held.pendingTrips)['t1']>),
          occurredAt: '2026-11-01 08:02',
        },
      },
    };
    const r = diff(legacy, [], context(13));
    expect(told(r.events).map((e) => [e.type, e.id, e.occurredAt])).toEqual([
      [TRIP, idOf(TRIP, 't1', 'completed'), at(13)],
    ]);
    expectValidEvents(r.events);
  });
});

describe('every record time of the API is read as an instant', () => {
  const v1 = { vin: 'VF3ABCDEFGH123456', contract: 'C-1' };
  it.each([
    ['v1.alerts', 'dateAlertBegin', { ...v1, idAlert: 'b1', alert: 'alertOilPressure', alertState: 1 }],
    ['v1.alerts', 'dateUpdate', { ...v1, idAlert: 'b1', alert: 'alertOilPressure', alertState: 1 }],
    ['v1.maintenance', 'lastUpdate', { ...v1, days: 200, mileage: 9000 }],
    ['v1.crash', 'lastUpdate', { ...v1, raw: { highFront: 1 } }],
    ['v1.trips', 'dateTripBegin', { ...v1, tripId: 1, durationS: 60, raw: {} }],
    ['map', 'releasedAt', { vin: 'VF3ABCDEFGH123456', availableVersion: 'v2', updateAvailable: true }],
    ['v2.trips', 'startedAt', { id: 't1', durationS: 60 }],
    ['v2.maintenance', 'createdAt', { days: 200, mileage: 9000 }],
    ['v2.alerts', 'endedAt', { id: 'a1', active: false, message: 'alertOilPressure' }],
    ['v2.alerts', 'updatedAt', { id: 'a1', active: true, message: 'alertOilPressure' }],
  ] as const)('%s %s: an offset is the same instant, garbage is named', (source, field, item) => {
    const withTime = (time: string) => obs(source, [{ ...item, [field]: time } as never], 4) as Observation;
    const offset = diff(baselined(), [withTime(withOffset(2, 1))], context(4));
    expect(offset.rejected).toEqual([]);
    const garbage = diff(baselined(), [withTime('later')], context(4));
    expect(garbage.rejected.map((x) => [x.source, x.field])).toContainEqual([source, `items[0].${field}`]);
  });

  it('a trip embedded in an event: its end is read as an instant too', () => {
    const cfg = { ecoDrivingWaitMs: 0 };
    const ev = vehicleEvent('e1', 'TRIP', 3, { trip: trip('t1', 2, { stoppedAt: withOffset(2, -5) }) });
    const r = diff(baselined(cfg), [obs('v2.events', [ev], 4)], context(4, cfg));
    expect(r.rejected).toEqual([]);
    expect(told(r.events).map((e) => [e.type, e.id, e.occurredAt])).toEqual([
      [TRIP, idOf(TRIP, 't1', 'completed'), at(2)],
    ]);
    const garbage = diff(
      baselined(cfg),
      [obs('v2.events', [vehicleEvent('e1', 'TRIP', 3, { trip: trip('t1', 2, { stoppedAt: 'later' }) })], 4)],
      context(4, cfg),
    );
    expect(garbage.rejected.map((x) => x.field)).toEqual(['items[0].trip.stoppedAt']);
  });

  it('a map release time with an offset is told in UTC', () => {
    const info = {
      vin: 'VF3ABCDEFGH123456',
      availableVersion: 'v2',
      installedVersion: 'v1',
      updateAvailable: true,
      releasedAt: withOffset(-60, 2),
    };
    const r = diff(baselined(), [obs('map', [info], 4)], context(4));
    expect(r.events.map((e) => [e.occurredAt, (e.data as { releasedAt?: string }).releasedAt])).toEqual([
      [at(-60), at(-60)],
    ]);
  });

  it('an unreadable time of exactly 40 characters is shown whole', () => {
    const r = diff(
      baselined(),
      [obs('v2.collisions', [collision('c1', { createdAt: 'y'.repeat(40) })], 4)],
      context(4),
    );
    expect(r.rejected[0]?.reason).toBe(
      `not an RFC 3339 timestamp ("${'y'.repeat(40)}"); the record is read without it`,
    );
  });
});

describe('a v1 alert whose update time does not parse', () => {
  it('is still active: only an unreadable end says the alert ended', () => {
    const r = diff(
      baselined(),
      [obs('v1.alerts', [v1Alert('b1', 1, { dateUpdate: 'soon' })], 2)],
      context(2),
    );
    expect(r.events.map((e) => [e.type, e.id])).toEqual([[RAISED, idOf(RAISED, `b1@${at(1)}`, 'raised')]]);
    expect(r.state.alerts['v1:b1']?.active).toBe(true);
  });
});

describe('a window without fractions', () => {
  it('an active alert started at the window’s start, given as …:00Z, is fixed by its absence', () => {
    const active = diff(
      baselined(),
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(1) })], 2, { complete: false })],
      context(2),
    ).state;
    const o = obs('v2.alerts', [], 5, {
      window: { since: '2026-11-01T08:01:00Z', until: '2026-11-01T08:05:00Z' },
    });
    const doubt = diff(active, [o], context(6));
    expect(doubt.rejected).toEqual([]);
    expect(doubt.state.alerts['v2:a1']?.missingSince).toBe(at(5));
    const r = diff(doubt.state, [{ ...o, fetchedAt: at(6) }], context(7));
    expect(r.events.map((e) => e.type)).toEqual([FIXED]);
  });
});
