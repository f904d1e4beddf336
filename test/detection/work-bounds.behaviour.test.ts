import { describe, expect, it } from 'vitest';
import type { V1Trip } from '../../functions/core/api/model';
import { diff } from '../../functions/core/detection/diff';
import type { AlertEntry, VehicleState } from '../../functions/core/detection/state';
import { idOf } from './behaviour';
import { alert, at, baselined, collision, context, obs, vehicleEvent } from './fixtures';

/**
 * The working copy's bookkeeping (functions/core/detection/work.ts): which ids and fixed alerts a
 * bounded state forgets (whatever order the stored object lists them in), the first poll of a
 * state an enrollment event created, the other API's reads, and the writes a re-read asks for.
 */

const DETECTED = 'vehicle.collision.detected';
const RAISED = 'vehicle.alert.raised';
const TRIP = 'vehicle.trip.completed';

/** A state that read the collisions list (empty) at minute 1, with the given remembered ids. */
const withIds = (ids: Record<string, string>, config?: object): VehicleState => {
  const s = diff(baselined(config), [obs('v2.collisions', [], 1)], context(1, config)).state;
  return { ...s, collisions: { ids } };
};

describe('a full seen-id set forgets its oldest ids, whatever the order they are stored in', () => {
  // maxSeen 3 keeps floor(3 × 0.9) = 2 ids once the bound is passed.
  const config = { maxSeen: 3 };

  it('ids stored newest first: the two oldest go into the floor', () => {
    const prior = withIds({ d: at(4), a: at(1), c: at(3) }, config);
    const r = diff(
      prior,
      [obs('v2.collisions', [collision('e', { createdAt: at(5) })], 6)],
      context(6, config),
    );
    expect(r.events.map((e) => e.id)).toEqual([idOf(DETECTED, 'e', 'detected')]);
    expect(r.state.collisions).toStrictEqual({ ids: { d: at(4), e: at(5) }, floor: at(3) });
  });

  it('ids stored oldest last: the same two go', () => {
    const prior = withIds({ c: at(3), d: at(4), a: at(1) }, config);
    const r = diff(
      prior,
      [obs('v2.collisions', [collision('e', { createdAt: at(5) })], 6)],
      context(6, config),
    );
    expect(r.state.collisions).toStrictEqual({ ids: { d: at(4), e: at(5) }, floor: at(3) });
  });

  it('ids whose order is the reverse of their times: the two oldest go', () => {
    const prior = withIds({ x: at(4), z: at(1), y: at(3) }, config);
    const r = diff(
      prior,
      [obs('v2.collisions', [collision('w', { createdAt: at(5) })], 6)],
      context(6, config),
    );
    expect(r.state.collisions).toStrictEqual({ ids: { x: at(4), w: at(5) }, floor: at(3) });
  });

  it('ids of the same time: the smallest ids go first', () => {
    const prior = withIds({ x: at(2), b: at(2), y: at(2) }, config);
    const r = diff(
      prior,
      [obs('v2.collisions', [collision('a', { createdAt: at(2) })], 6)],
      context(6, config),
    );
    expect(r.events.map((e) => e.id)).toEqual([idOf(DETECTED, 'a', 'detected')]);
    expect(r.state.collisions).toStrictEqual({ ids: { x: at(2), y: at(2) }, floor: at(2) });
  });

  it('an id exactly at the retention horizon is kept; one a minute older goes into the floor', () => {
    const hour = { retentionMs: 60 * 60_000 };
    const edge = diff(
      withIds({ a: at(40) }, hour),
      [obs('v2.collisions', [collision('b', { createdAt: at(99) })], 100)],
      context(100, hour),
    );
    expect(edge.state.collisions).toStrictEqual({ ids: { a: at(40), b: at(99) } });
    const older = diff(
      withIds({ x: at(39), a: at(40) }, hour),
      [obs('v2.collisions', [collision('b', { createdAt: at(99) })], 100)],
      context(100, hour),
    );
    expect(older.state.collisions).toStrictEqual({ ids: { a: at(40), b: at(99) }, floor: at(39) });
  });
});

/** A fixed alert entry as the state stores it. */
const fixedEntry = (
  startedAt: string | undefined,
  endedAt: string | undefined,
  seenAt: string,
): AlertEntry => ({
  active: false,
  message: 'alertOilPressure',
  ...(startedAt === undefined ? {} : { startedAt }),
  ...(endedAt === undefined ? {} : { endedAt }),
  seenAt,
});

/** A state holding these fixed alerts, touched by a poll raising a new alert `n` at minute 20. */
const pruned = (alerts: Record<string, AlertEntry>, config: object, now = 20) => {
  const s = diff(baselined(config), [obs('v2.alerts', [], 1, { complete: false })], context(1, config)).state;
  return diff(
    { ...s, alerts },
    [obs('v2.alerts', [alert('n', true, { startedAt: at(19) })], now, { complete: false })],
    context(now, config),
  );
};

describe('fixed alerts beyond the bound: the earliest ended are forgotten, into the floor', () => {
  // maxFixedAlerts 2 keeps floor(2 × 0.9) = 1 fixed alert once the bound is passed.
  const config = { maxFixedAlerts: 2 };

  it('exactly the bound: nothing is forgotten', () => {
    const r = pruned(
      { 'v2:f1': fixedEntry(at(1), at(2), at(2)), 'v2:f2': fixedEntry(at(3), at(4), at(4)) },
      config,
    );
    expect(r.events.map((e) => e.id)).toEqual([idOf(RAISED, `n@${at(19)}`, 'raised')]);
    expect(Object.keys(r.state.alerts).sort()).toEqual(['v2:f1', 'v2:f2', 'v2:n']);
    expect(Object.hasOwn(r.state, 'alertFloor')).toBe(false);
  });

  it('stored latest first: the two that ended first are forgotten', () => {
    const r = pruned(
      {
        'v2:f3': fixedEntry(at(5), at(6), at(6)),
        'v2:f1': fixedEntry(at(1), at(2), at(9)),
        'v2:f2': fixedEntry(at(3), at(4), at(7)),
      },
      config,
    );
    expect(Object.keys(r.state.alerts).sort()).toEqual(['v2:f3', 'v2:n']);
    // The newest start and the newest read of the forgotten ones (f1 was read last, at 9).
    expect(r.state.alertFloor).toStrictEqual({ startedAt: at(3), seenAt: at(9) });
  });

  it('an alert without an end is placed by its last read', () => {
    const r = pruned(
      {
        'v2:f1': fixedEntry(at(1), undefined, at(9)),
        'v2:f2': fixedEntry(at(2), at(3), at(10)),
        'v2:f3': fixedEntry(at(4), at(5), at(10)),
      },
      config,
    );
    expect(Object.keys(r.state.alerts).sort()).toEqual(['v2:f1', 'v2:n']);
  });

  it('alerts that ended together: the smallest keys are forgotten first, whatever the stored order', () => {
    const entry = fixedEntry(at(1), at(4), at(4));
    for (const order of [
      ['v2:fz', 'v2:fa', 'v2:fm'],
      ['v2:fa', 'v2:fz', 'v2:fm'],
      ['v2:fm', 'v2:fa', 'v2:fz'],
    ]) {
      const r = pruned(Object.fromEntries(order.map((k) => [k, entry])), config);
      expect(Object.keys(r.state.alerts).sort()).toEqual(['v2:fz', 'v2:n']);
    }
  });

  it('the latest ended is kept even when its key sorts first, whatever the stored order', () => {
    // Keys in the reverse order of the ends: `fa` ended last, `fz` first.
    const ends: Record<string, AlertEntry> = {
      'v2:fa': fixedEntry(at(1), at(8), at(8)),
      'v2:fm': fixedEntry(at(1), at(5), at(5)),
      'v2:fz': fixedEntry(at(1), at(2), at(2)),
    };
    for (const order of [
      ['v2:fa', 'v2:fm', 'v2:fz'],
      ['v2:fz', 'v2:fm', 'v2:fa'],
      ['v2:fm', 'v2:fz', 'v2:fa'],
      ['v2:fm', 'v2:fa', 'v2:fz'],
    ]) {
      const r = pruned(Object.fromEntries(order.map((k) => [k, ends[k] as AlertEntry])), config);
      expect(Object.keys(r.state.alerts).sort()).toEqual(['v2:fa', 'v2:n']);
      expect(r.state.alertFloor).toStrictEqual({ startedAt: at(1), seenAt: at(5) });
    }
  });

  it('forgotten alerts without a start leave a floor without one', () => {
    const r = pruned(
      {
        'v2:f1': fixedEntry(undefined, at(2), at(2)),
        'v2:f2': fixedEntry(undefined, at(4), at(4)),
        'v2:f3': fixedEntry(undefined, at(6), at(6)),
      },
      config,
    );
    expect(r.state.alertFloor).toStrictEqual({ seenAt: at(4) });
  });

  it('under the bound, an alert ended exactly at the retention horizon is kept; one older is forgotten', () => {
    const hour = { retentionMs: 60 * 60_000 };
    const edge = pruned({ 'v2:f1': fixedEntry(at(30), at(40), at(40)) }, hour, 100);
    expect(Object.keys(edge.state.alerts).sort()).toEqual(['v2:f1', 'v2:n']);
    const older = pruned(
      { 'v2:f0': fixedEntry(at(30), at(39), at(39)), 'v2:f1': fixedEntry(at(31), at(40), at(40)) },
      hour,
      100,
    );
    expect(Object.keys(older.state.alerts).sort()).toEqual(['v2:f1', 'v2:n']);
    expect(older.state.alertFloor).toStrictEqual({ startedAt: at(30), seenAt: at(39) });
  });
});

describe('the first poll of a state an enrollment event created', () => {
  const unpolled = (): VehicleState => ({ ...baselined(), sequence: 1, unpolled: true, createdAt: at(-600) });

  it('is a first poll: history is baseline, active alerts told as initial, the state dated now', () => {
    const r = diff(
      unpolled(),
      [
        // c2 is dated after the poll: only the first-poll rule keeps it baseline.
        obs(
          'v2.collisions',
          [collision('c1', { createdAt: at(5) }), collision('c2', { createdAt: at(15) })],
          10,
        ),
        obs('v2.alerts', [alert('a1', true, { startedAt: at(4) })], 10),
      ],
      context(10),
    );
    expect(
      r.events.map((e) => [e.type, e.id, e.sequence, (e.data as { initial?: boolean }).initial]),
    ).toEqual([[RAISED, idOf(RAISED, `a1@${at(4)}`, 'raised'), 2, true]]);
    expect(r.state.collisions.ids).toEqual({ c1: at(5), c2: at(15) });
    expect(r.state.createdAt).toBe(at(10));
    expect(Object.hasOwn(r.state, 'unpolled')).toBe(false);
  });

  it('a record dated after the first poll is baseline too', () => {
    const r = diff(
      undefined,
      [obs('v2.collisions', [collision('c1', { createdAt: at(15) })], 10)],
      context(10),
    );
    expect(r.events).toEqual([]);
    expect(r.state.collisions.ids).toEqual({ c1: at(15) });
  });
});

const v1Trip = (tripId: number, begin: string): V1Trip => ({
  vin: 'VF3ABCDEFGH123456',
  contract: 'C-1',
  tripId,
  dateTripBegin: begin,
  durationS: 60,
  raw: {},
});

describe('one VIN, two APIs: the other API’s reads', () => {
  it('a v2 source read first after a v1 read: records up to that read are baseline, later ones told', () => {
    const fed = diff(baselined(), [obs('v1.trips', [], 5)], context(5)).state;
    const r = diff(
      fed,
      [
        obs(
          'v2.collisions',
          [collision('c1', { createdAt: at(5) }), collision('c2', { createdAt: at(6) })],
          8,
        ),
      ],
      context(8),
    );
    expect(r.events.map((e) => e.id)).toEqual([idOf(DETECTED, 'c2', 'detected')]);
  });

  it('services and map reads are no other API', () => {
    const fed = diff(baselined(), [obs('services', [], 5), obs('map', [], 5)], context(5)).state;
    const r = diff(fed, [obs('v1.trips', [v1Trip(1, at(2))], 8)], context(8));
    expect(r.events.map((e) => [e.type, e.id])).toEqual([[TRIP, idOf(TRIP, 'v1trip:1', 'completed')]]);
  });
});

describe('what a re-read asks the store to write', () => {
  it('the sources read are listed in order, whatever order they were read in', () => {
    const r = diff(
      baselined(),
      [obs('v2.trips', [], 2), obs('v2.alerts', [], 2), obs('map', [], 2)],
      context(2),
    );
    expect(r.state.sources).toEqual(['map', 'v2.alerts', 'v2.trips']);
  });

  it('a list read again with the same fetch time asks for nothing', () => {
    const first = diff(baselined(), [obs('v2.collisions', [], 10), obs('v2.alerts', [], 10)], context(10));
    const again = diff(first.state, [obs('v2.collisions', [], 10), obs('v2.alerts', [], 10)], context(11));
    expect(again.changed).toBe('none');
    expect(again.state).toBe(first.state);
  });

  it('events read again: the cursors move, the newest activity does not', () => {
    const events = [vehicleEvent('e1', 'UNKNOWN', 2)];
    const first = diff(baselined(), [obs('v2.events', events, 3)], context(3));
    expect(first.state.lastActivityAt).toBe(at(2));
    const again = diff(first.state, [obs('v2.events', events, 4)], context(4));
    expect(again.changed).toBe('cursors');
  });

  it('a record without a time leaves no activity time in the state', () => {
    const read = diff(baselined(), [obs('v2.collisions', [], 1)], context(1)).state;
    const r = diff(read, [obs('v2.collisions', [collision('c1', { createdAt: undefined })], 2)], context(2));
    expect(r.events).toHaveLength(1);
    expect(Object.hasOwn(r.state, 'lastActivityAt')).toBe(false);
  });
});

describe('the alert code book and messages that are codes already', () => {
  it('a message that is a code keeps itself as code, even when the book lists the same text', () => {
    const book = new Map([['engine', 'alertEngine']]);
    const r = diff(
      baselined(),
      [obs('v2.alerts', [alert('a1', true, { message: 'engine', startedAt: at(1) })], 2)],
      { ...context(2), alertCodes: book },
    );
    expect(r.events[0]?.data).toMatchObject({ message: 'engine', messageCode: 'engine' });
  });
});

describe('a poll that touches no bounded list leaves it as stored', () => {
  // A day's retention: the ids and the fixed alert below are older than the horizon at minute 3,000.
  const config = { retentionMs: 24 * 3_600_000 };
  const fixedAlert: AlertEntry = {
    active: false,
    message: 'alertOilPressure',
    startedAt: at(0),
    endedAt: at(1),
    seenAt: at(1),
  };

  it('ids and fixed alerts past the retention are kept, and nothing is written, until their list is read', () => {
    const prior: VehicleState = {
      ...withIds({ old: at(1) }, config),
      trips: { ids: { t0: at(1) } },
      fuel: { ids: { f0: at(1) } },
      alerts: { 'v2:a0': fixedAlert },
    };
    const quiet = diff(prior, [], context(3_000, config));
    expect(quiet.changed).toBe('none');
    expect(quiet.events).toEqual([]);
    expect(quiet.state.collisions).toStrictEqual({ ids: { old: at(1) } });
    expect(quiet.state.trips).toStrictEqual({ ids: { t0: at(1) } });
    expect(quiet.state.fuel).toStrictEqual({ ids: { f0: at(1) } });
    expect(quiet.state.alerts).toStrictEqual({ 'v2:a0': fixedAlert });
    // A new collision writes that list, which is pruned then (the old id goes into the floor);
    // the other lists stay as stored.
    const read = diff(
      prior,
      [obs('v2.collisions', [collision('c1', { createdAt: at(2_999) })], 3_000)],
      context(3_000, config),
    );
    expect(read.events.map((e) => e.type)).toEqual([DETECTED]);
    expect(read.state.collisions).toStrictEqual({ ids: { c1: at(2_999) }, floor: at(1) });
    expect(read.state.trips).toStrictEqual({ ids: { t0: at(1) } });
    expect(read.state.alerts).toStrictEqual({ 'v2:a0': fixedAlert });
  });
});
