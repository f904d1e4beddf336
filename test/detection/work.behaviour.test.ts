import { describe, expect, it } from 'vitest';
import { diff } from '../../functions/core/detection/diff';
import { idOf, told, typesOf } from './behaviour';
import { at, baselined, collision, context, obs } from './fixtures';

const DETECTED = 'vehicle.collision.detected';
const DAY_MINUTES = 24 * 60;

describe('seen-id sets: bounded, and forgotten records stay seen', () => {
  // maxSeen 10 keeps floor(10 × 0.9) = 9 ids once the bound is passed.
  const config = { maxSeen: 10 };
  const eleven = () =>
    diff(
      baselined(config),
      [
        obs(
          'v2.collisions',
          Array.from({ length: 11 }, (_, i) => collision(`c${i + 1}`, { createdAt: at(i + 1) })),
          20,
        ),
      ],
      context(20, config),
    );

  it('keeps the newest ids and remembers the newest forgotten time as the floor', () => {
    const r = eleven();
    expect(r.events).toHaveLength(11);
    expect(r.state.collisions).toEqual({
      ids: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`c${i + 3}`, at(i + 3)])),
      floor: at(2),
    });
  });

  it('ten ids (the bound) are all kept, without a floor', () => {
    const r = diff(
      baselined(config),
      [
        obs(
          'v2.collisions',
          Array.from({ length: 10 }, (_, i) => collision(`c${i + 1}`, { createdAt: at(i + 1) })),
          20,
        ),
      ],
      context(20, config),
    );
    expect(Object.keys(r.state.collisions.ids)).toHaveLength(10);
    expect(r.state.collisions.floor).toBeUndefined();
  });

  it('a forgotten record read again, or an unknown one at the floor, is old; after the floor it is new', () => {
    const prior = eleven().state;
    const r = diff(
      prior,
      [
        obs(
          'v2.collisions',
          [
            collision('c1', { createdAt: at(1) }),
            collision('x', { createdAt: at(2) }),
            collision('y', { createdAt: at(2.5) }),
          ],
          21,
        ),
      ],
      context(21, config),
    );
    expect(r.events.map((e) => e.id)).toEqual([idOf(DETECTED, 'y', 'detected')]);
  });

  it('records older than the retention are old; exactly at the retention horizon they are new', () => {
    const config30 = { retentionMs: DAY_MINUTES * 60_000 };
    const now = 2 * DAY_MINUTES;
    const r = diff(
      baselined(config30),
      [
        obs(
          'v2.collisions',
          [
            collision('old', { createdAt: at(now - DAY_MINUTES - 1) }),
            collision('edge', { createdAt: at(now - DAY_MINUTES) }),
          ],
          now,
        ),
      ],
      context(now, config30),
    );
    expect(typesOf(r.events)).toEqual([DETECTED]);
    expect(r.events[0]?.data).toMatchObject({ collisionId: 'edge' });
  });

  it('ids older than the retention are pruned at the next change, into the floor', () => {
    const config1 = { retentionMs: 60 * 60_000 };
    const first = diff(
      baselined(config1),
      [obs('v2.collisions', [collision('a', { createdAt: at(5) })], 6)],
      context(6, config1),
    );
    const later = diff(
      first.state,
      [obs('v2.collisions', [collision('b', { createdAt: at(100) })], 101)],
      context(101, config1),
    );
    expect(later.state.collisions).toEqual({ ids: { b: at(100) }, floor: at(5) });
  });

  it('a record without a time is remembered at the diff time; told at it once the source was read before', () => {
    const first = diff(
      baselined(),
      [obs('v2.collisions', [collision('a', { createdAt: undefined })], 6)],
      context(7),
    );
    expect(first.state.collisions.ids).toEqual({ a: at(7) });
    expect(first.events).toEqual([]);
    const r = diff(
      first.state,
      [obs('v2.collisions', [collision('b', { createdAt: undefined })], 8)],
      context(9),
    );
    expect(r.events.map((e) => [e.id, e.occurredAt])).toEqual([[idOf(DETECTED, 'b', 'detected'), at(9)]]);
  });
});

describe('the event envelope', () => {
  it('names the vehicle and enrollment, drops absent fields, numbers events in order', () => {
    const r = diff(
      baselined(),
      [obs('v2.collisions', [collision('a', { createdAt: at(2) }), collision('b', { createdAt: at(3) })], 4)],
      { ...context(4), vehicle: { id: 'veh-1', vin: 'VIN-1' } },
    );
    expect(r.events.map((e) => [e.sequence, e.vehicle, e.enrollment, e.source, e.detectedAt])).toEqual([
      [
        1,
        { id: 'veh-1', vin: 'VIN-1' },
        { id: 'enr-1', kind: 'oauth-user' },
        { api: 'v2', operation: 'v2.vehicles.collisions', recordId: 'a' },
        at(4),
      ],
      [
        2,
        { id: 'veh-1', vin: 'VIN-1' },
        { id: 'enr-1', kind: 'oauth-user' },
        { api: 'v2', operation: 'v2.vehicles.collisions', recordId: 'b' },
        at(4),
      ],
    ]);
    expect(r.state.sequence).toBe(2);
    expect(told(r.events)[0]?.data).toEqual({
      collisionId: 'a',
      front: 'low',
      rear: 'none',
      lateral: 'none',
      maxLevel: 'low',
      rollOver: false,
      pedestrian: false,
      collidedAt: at(2),
    });
  });

  it('an operation given with the observation is the source operation', () => {
    const r = diff(
      baselined(),
      [obs('v2.collisions', [collision('a', { createdAt: at(2) })], 4, { operation: 'v2.collisions.list' })],
      context(4),
    );
    expect(r.events[0]?.source).toEqual({ api: 'v2', operation: 'v2.collisions.list', recordId: 'a' });
  });
});

describe('activity and history', () => {
  it('a future-dated record is not activity; a past one is', () => {
    const future = diff(
      baselined(),
      [obs('v2.collisions', [collision('a', { createdAt: at(9) })], 4)],
      context(4),
    );
    expect(future.state.lastActivityAt).toBeUndefined();
    const past = diff(
      baselined(),
      [obs('v2.collisions', [collision('a', { createdAt: at(3) })], 4)],
      context(4),
    );
    expect(past.state.lastActivityAt).toBe(at(3));
    const newer = diff(
      past.state,
      [obs('v2.collisions', [collision('b', { createdAt: at(2) })], 5)],
      context(5),
    );
    expect(newer.state.lastActivityAt).toBe(at(3));
  });

  it('a record from before the first poll is history (baseline); policy all tells it', () => {
    const before = diff(
      baselined(),
      [obs('v2.collisions', [collision('a', { createdAt: at(-1) })], 4)],
      context(4),
    );
    expect(before.events).toEqual([]);
    expect(Object.keys(before.state.collisions.ids)).toEqual(['a']);
    const atStart = diff(
      baselined(),
      [obs('v2.collisions', [collision('a', { createdAt: at(0) })], 4)],
      context(4),
    );
    expect(typesOf(atStart.events)).toEqual([DETECTED]);
    const all = diff(
      baselined({ initialPolicy: 'all' }),
      [obs('v2.collisions', [collision('a', { createdAt: at(-1) })], 4)],
      context(4, { initialPolicy: 'all' }),
    );
    expect(typesOf(all.events)).toEqual([DETECTED]);
  });
});
