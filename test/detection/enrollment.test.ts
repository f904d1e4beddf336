import { describe, expect, it } from 'vitest';
import type { Vehicle } from '../../functions/core/api/model';
import { diffEnrollmentVehicles, type EnrollmentContext } from '../../functions/core/detection/enrollment';
import { at, expectValidEvents, obs } from './fixtures';

const ctx = (minute: number, initialPolicy?: 'active-alerts' | 'none' | 'all'): EnrollmentContext => ({
  enrollment: { id: 'enr-1', kind: 'oauth-user' },
  now: new Date(Date.parse(at(minute))),
  ...(initialPolicy === undefined ? {} : { config: { initialPolicy } }),
});

/** The context after reading the vehicles themselves: `gone` answered 404 / 403, `there` 200. */
const read = (minute: number, gone: string[], there: string[] = []): EnrollmentContext => ({
  ...ctx(minute),
  checked: new Map([
    ...gone.map((id) => [id, 'absent'] as const),
    ...there.map((id) => [id, 'present'] as const),
  ]),
});

const car = (id: string): Vehicle => ({
  id,
  vin: `VF3${id.toUpperCase().padEnd(14, '0')}`,
  brand: 'P',
  model: '208',
  energy: 'Electric',
});

const types = (events: readonly { type: string }[]) => events.map((e) => e.type);

describe('diffEnrollmentVehicles', () => {
  it('takes the first list as baseline, then tells added vehicles once', () => {
    const first = diffEnrollmentVehicles(undefined, obs('v2.vehicles', [car('a')], 0), ctx(0));
    expect(first.events).toEqual([]);
    expect(first.vehicleIds).toEqual(['a']);
    const second = diffEnrollmentVehicles(first.state, obs('v2.vehicles', [car('a'), car('b')], 1), ctx(1));
    expect(types(second.events)).toEqual(['enrollment.vehicle.added']);
    expect(second.events[0]).toMatchObject({
      vehicle: { id: 'b', brand: 'P' },
      enrollment: { id: 'enr-1', kind: 'oauth-user' },
      source: { api: 'v2', operation: 'v2.vehicles.list', recordId: 'b' },
      data: { vehicleId: 'b', model: '208', energy: 'Electric' },
      sequence: 1,
    });
    expectValidEvents(second.events);
    const third = diffEnrollmentVehicles(second.state, obs('v2.vehicles', [car('a'), car('b')], 2), ctx(2));
    expect(third.events).toEqual([]);
    expect(third.changed).toBe('none');
  });

  it('removes a vehicle only when a COMPLETE list no longer has it', () => {
    const start = diffEnrollmentVehicles(
      undefined,
      obs('v2.vehicles', [car('a'), car('b')], 0),
      ctx(0),
    ).state;
    const partial = diffEnrollmentVehicles(
      start,
      obs('v2.vehicles', [car('a')], 1, { complete: false }),
      ctx(1),
    );
    expect(partial.events).toEqual([]);
    expect(partial.unconfirmed).toEqual([]);
    const unread = diffEnrollmentVehicles(start, obs('v2.vehicles', [car('a')], 1), ctx(1));
    expect(unread.events).toEqual([]);
    expect(unread.unconfirmed).toEqual(['b']);
    const complete = diffEnrollmentVehicles(start, obs('v2.vehicles', [car('a')], 1), read(1, ['b']));
    expect(types(complete.events)).toEqual(['enrollment.vehicle.removed']);
    expect(complete.vehicleIds).toEqual(['a']);
    expectValidEvents(complete.events);
  });

  it('treats a 404 "user has no vehicle" (complete empty list) as every vehicle removed', () => {
    const start = diffEnrollmentVehicles(undefined, obs('v2.vehicles', [car('a')], 0), ctx(0)).state;
    const r = diffEnrollmentVehicles(start, obs('v2.vehicles', [], 1), read(1, ['a']));
    expect(types(r.events)).toEqual(['enrollment.vehicle.removed']);
  });

  it('a vehicle removed and added again is a new addition with a new id', () => {
    let state = diffEnrollmentVehicles(undefined, obs('v2.vehicles', [], 0), ctx(0)).state;
    const ids: string[] = [];
    [[car('a')], [], [car('a')]].forEach((items, i) => {
      // Each change confirmed by a read of the vehicle: gone when the list misses it, there when not.
      const checked = items.length === 0 ? read(i + 1, ['a']) : read(i + 1, [], ['a']);
      const r = diffEnrollmentVehicles(state, obs('v2.vehicles', items, i + 1), checked);
      ids.push(...r.events.map((e) => e.id));
      state = r.state;
    });
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
  });

  it('ignores a list older than the one that last changed the state', () => {
    const start = diffEnrollmentVehicles(undefined, obs('v2.vehicles', [car('a')], 5), ctx(5)).state;
    const stale = diffEnrollmentVehicles(start, obs('v2.vehicles', [], 3), ctx(6));
    expect(stale.events).toEqual([]);
    expect(stale.vehicleIds).toEqual(['a']);
  });

  it('with initialPolicy all, the first list announces every vehicle', () => {
    const r = diffEnrollmentVehicles(undefined, obs('v2.vehicles', [car('a'), car('b')], 0), ctx(0, 'all'));
    expect(types(r.events)).toEqual(['enrollment.vehicle.added', 'enrollment.vehicle.added']);
  });

  it('rejects malformed input by field instead of crashing', () => {
    const bad = diffEnrollmentVehicles(
      undefined,
      { source: 'v2.vehicles', fetchedAt: 'now', complete: true, items: [] } as never,
      ctx(0),
    );
    expect(bad.rejected[0]).toMatchObject({ kind: 'Malformed', field: 'fetchedAt' });
    const item = diffEnrollmentVehicles(
      undefined,
      obs('v2.vehicles', [{ id: '' } as never, car('a')], 0),
      ctx(0),
    );
    expect(item.rejected[0]).toMatchObject({ field: 'items[0].id' });
    expect(item.vehicleIds).toEqual(['a']);
  });
});
