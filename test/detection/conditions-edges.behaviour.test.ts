import { describe, expect, it } from 'vitest';
import type { MapUpdateInfo } from '../../functions/core/api/model';
import { diff } from '../../functions/core/detection/diff';
import { stateChanged } from '../../functions/core/detection/state';
import { idOf } from './behaviour';
import { at, baselined, context, obs } from './fixtures';

/**
 * Edges of the condition rules (functions/core/detection/conditions.ts): readings without a
 * counter or a time, a source read before its first usable item, the two maintenance sources
 * sharing one countdown, and the stored map and services exactly.
 */

const DUE = 'vehicle.maintenance.due';
const SERVICES = 'vehicle.services.changed';
const VIN = 'VF3ABCDEFGH123456';

describe('maintenance', () => {
  it('a first reading with no counter stores nothing', () => {
    const r = diff(baselined(), [obs('v2.maintenance', [{} as never], 2)], context(2));
    expect(r.events).toEqual([]);
    expect(Object.hasOwn(r.state, 'maintenance')).toBe(false);
  });

  it('a first reading with days only: no km is never due by km', () => {
    const r = diff(baselined(), [obs('v1.maintenance', [{ days: 200 } as never], 2)], context(2));
    expect(r.events).toEqual([]);
    expect(r.state.maintenance).toStrictEqual({
      days: 200,
      mileageKm: Number.MAX_SAFE_INTEGER,
      cycle: 0,
      emitted: [],
      seenAt: at(2),
    });
  });

  it('a source read before its first countdown: a due countdown then is news, not initial', () => {
    const read = diff(baselined(), [obs('v2.maintenance', [{} as never], 2)], context(2)).state;
    const r = diff(read, [obs('v2.maintenance', [{ days: 20, mileage: 9000 }], 3)], context(3));
    expect(r.events.map((e) => [e.type, e.id, (e.data as { initial: boolean }).initial])).toEqual([
      [DUE, idOf(DUE, 'cycle:0', 'due'), false],
    ]);
  });

  it('the v1 source read first after the v2 one: its due countdown is news, not initial', () => {
    const v2 = diff(
      baselined(),
      [obs('v2.maintenance', [{ days: 200, mileage: 9000 }], 2)],
      context(2),
    ).state;
    const r = diff(v2, [obs('v1.maintenance', [{ days: 20, mileage: 9000 } as never], 3)], context(3));
    expect(r.events.map((e) => [e.type, (e.data as { initial: boolean }).initial])).toEqual([[DUE, false]]);
  });
});

describe('services', () => {
  it('a partial first read, then a complete one: the list is news', () => {
    const partial = diff(baselined(), [obs('services', [], 2, { complete: false })], context(2)).state;
    const r = diff(partial, [obs('services', [{ code: 'A', eligible: true }], 3)], context(3));
    expect(r.events.map((e) => e.id)).toEqual([idOf(SERVICES, 'revision:1', 'changed')]);
  });

  it('an eligibility that is not a boolean is told as false', () => {
    const first = diff(baselined(), [obs('services', [{ code: 'A', eligible: true }], 1)], context(1)).state;
    const items = [
      { code: 'A', eligible: true },
      { code: 'B', eligible: 1 as never },
      { code: 'C', shortLabel: 'Car', eligible: 1 as never },
    ];
    // Read twice: a services change is told once a second read confirms it.
    const once = diff(first, [obs('services', items, 3)], context(3));
    const r = diff(once.state, [obs('services', items, 4)], context(4));
    expect(r.events.map((e) => (e.data as { services: unknown }).services)).toEqual([
      [
        { code: 'A', eligible: true },
        { code: 'B', eligible: false },
        { code: 'C', shortLabel: 'Car', eligible: false },
      ],
    ]);
  });
});

describe('map', () => {
  const info = (availableVersion: string, extra: Partial<MapUpdateInfo> = {}): MapUpdateInfo => ({
    vin: VIN,
    availableVersion,
    updateAvailable: true,
    ...extra,
  });

  it('without an installed version, the stored map has no installed key', () => {
    const r = diff(baselined(), [obs('map', [info('v2')], 1)], context(1));
    expect(r.state.map).toStrictEqual({ available: 'v2', announced: ['v2'], seenAt: at(1) });
  });

  it('the announced version installed since: stored, not told again', () => {
    const announced = diff(
      baselined(),
      [obs('map', [info('v2', { installedVersion: 'v1' })], 1)],
      context(1),
    ).state;
    const r = diff(announced, [obs('map', [info('v2', { installedVersion: 'v2' })], 5)], context(5));
    expect(r.events).toEqual([]);
    expect(r.state.map).toStrictEqual({ available: 'v2', installed: 'v2', announced: ['v2'], seenAt: at(5) });
  });
});

describe('stateChanged', () => {
  it('a part of the state replaced by a value of another type is a change', () => {
    const s = baselined();
    expect(stateChanged(s, { ...s, pendingTrips: 0 as never })).toBe('state');
    expect(stateChanged(s, { ...s })).toBe('none');
  });
});
