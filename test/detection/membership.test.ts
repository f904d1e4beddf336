/**
 * Enrollment events numbered on the vehicle's own counter (`sequenceMembership`): after the
 * vehicle's last event, each once, and a state they create keeps the first poll's rules.
 */
import { describe, expect, it } from 'vitest';
import { diff } from '../../functions/core/detection/diff';
import { MAX_TOLD, membershipEvent, sequenceMembership } from '../../functions/core/detection/membership';
import type { CarhookEvent } from '../../functions/core/events/catalogue';
import { alert, at, baselined, collision, context, expectValidEvents, obs, T0 } from './fixtures';

const vehicle = { id: 'veh-1', vin: 'VF3ABCDEFGH123456', brand: 'P' };
const IDENTITY = 'vin:VF3ABCDEFGH123456';

const event = (type: 'enrollment.vehicle.added' | 'enrollment.vehicle.removed', transition: string) =>
  membershipEvent(type, {
    enrollment: { id: 'enr-1', kind: 'oauth-user' },
    vehicle,
    transition,
    at: T0,
    operation: 'test',
  });

const ids = (events: readonly CarhookEvent[]) => events.map((e) => [e.type, e.sequence]);

describe('enrollment events on the vehicle sequence', () => {
  it('numbers them after the last vehicle event, in the order given', () => {
    const polled = diff(baselined(), [obs('v2.collisions', [collision('c1')], 2)], context(2));
    expect(polled.state.sequence).toBe(1);
    const s = sequenceMembership(
      polled.state,
      IDENTITY,
      [event('enrollment.vehicle.removed', 'unenrolled'), event('enrollment.vehicle.added', 'again')],
      new Date(Date.parse(at(3))),
    );
    expect(ids(s.events)).toEqual([
      ['enrollment.vehicle.removed', 2],
      ['enrollment.vehicle.added', 3],
    ]);
    expect(s.state.sequence).toBe(3);
    expect(s.changed).toBe(true);
    expectValidEvents(s.events);
    // The next vehicle event continues the same counter.
    const next = diff(
      { ...s.state, vehicleId: 'veh-1' },
      [obs('v2.collisions', [collision('c2')], 4)],
      context(4),
    );
    expect(next.events.map((e) => e.sequence)).toEqual([4]);
  });

  it('an event already numbered (a retry, a repeated DELETE) takes no second number', () => {
    const removed = event('enrollment.vehicle.removed', 'unenrolled');
    const first = sequenceMembership(undefined, IDENTITY, [removed], new Date(T0));
    const again = sequenceMembership(first.state, IDENTITY, [removed, removed], new Date(T0 + 1000));
    expect(again.events).toEqual([]);
    expect(again.skipped).toEqual([removed.id, removed.id]);
    expect(again.changed).toBe(false);
    expect(again.state.sequence).toBe(1);
    // Twice in one call: numbered once.
    const twice = sequenceMembership(undefined, IDENTITY, [removed, removed], new Date(T0));
    expect(ids(twice.events)).toEqual([['enrollment.vehicle.removed', 1]]);
  });

  it('keeps the newest told ids only, bounded', () => {
    let state = sequenceMembership(
      undefined,
      IDENTITY,
      [event('enrollment.vehicle.added', 't0')],
      new Date(T0),
    ).state;
    for (let i = 1; i <= MAX_TOLD + 5; i++) {
      state = sequenceMembership(
        state,
        IDENTITY,
        [event('enrollment.vehicle.added', `t${i}`)],
        new Date(T0 + i * 1000),
      ).state;
    }
    expect(Object.keys(state.told ?? {})).toHaveLength(MAX_TOLD);
    expect(state.told?.[event('enrollment.vehicle.added', 't0').id]).toBeUndefined();
    expect(state.told?.[event('enrollment.vehicle.added', `t${MAX_TOLD + 5}`).id]).toBeDefined();
    expect(state.sequence).toBe(MAX_TOLD + 6);
  });

  it('a state the enrollment created is still a first poll: history is baseline, the counter goes on', () => {
    const created = sequenceMembership(
      undefined,
      'veh-1',
      [event('enrollment.vehicle.added', 'enrolled')],
      new Date(Date.parse(at(-5))),
    );
    expect(created.state.unpolled).toBe(true);
    // An active alert at enrollment is told once as a current condition (`initial`), an old
    // collision is history: exactly as with no state at all.
    const observations = [
      obs('v2.alerts', [alert('a1', true)], 0),
      obs('v2.collisions', [collision('c0', { createdAt: at(-20) })], 0),
    ];
    const fresh = diff(undefined, observations, context(0));
    const first = diff(created.state, observations, context(0));
    expect(first.events.map((e) => [e.type, e.data, e.sequence])).toEqual(
      fresh.events.map((e) => [e.type, e.data, e.sequence + 1]),
    );
    expect(first.events.map((e) => e.type)).toEqual(['vehicle.alert.raised']);
    expect(first.state.unpolled).toBeUndefined();
    expect(first.state.createdAt).toBe(at(0));
    expect(first.changed).toBe('state');
    // Afterwards a new collision is news.
    const later = diff(
      first.state,
      [obs('v2.collisions', [collision('c1', { createdAt: at(5) })], 6)],
      context(6),
    );
    expect(later.events.map((e) => [e.type, e.sequence])).toEqual([['vehicle.collision.detected', 3]]);
  });
});
