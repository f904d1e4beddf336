import { describe, expect, it } from 'vitest';
import type { Alert } from '../../functions/core/api/model';
import { diff } from '../../functions/core/detection/diff';
import { parseState, serializeState, stateChanged } from '../../functions/core/detection/state';
import { alert, at, baselined, collision, context, obs, trip, vehicleEvent } from './fixtures';

const longMessage = 'Défaut du système de freinage: arrêtez le véhicule et contactez un réparateur agréé';

/** A vehicle with a long, busy history: hundreds of alerts, trips, collisions and refuels. */
const busyVehicle = (activeEvery = 12) => {
  let state = baselined();
  let minute = 1;
  // 3,000 alert records over time: 250 stay active, the rest come and go.
  for (let batch = 0; batch < 30; batch += 1) {
    const items: Alert[] = [];
    for (let i = 0; i < 100; i += 1) {
      const n = batch * 100 + i;
      items.push(
        alert(`alert-${n}`, n % activeEvery === 0, {
          message: `${longMessage} #${n}`,
          category: 'braking',
          startedAt: at(minute),
          updatedAt: at(minute),
        }),
      );
    }
    state = diff(state, [obs('v2.alerts', items, minute, { complete: false })], context(minute)).state;
    minute += 1;
  }
  // 2,000 trips, 500 collisions, 500 refuels, read through lists and events.
  for (let batch = 0; batch < 20; batch += 1) {
    const trips = Array.from({ length: 100 }, (_, i) => trip(`trip-${batch * 100 + i}`, minute));
    const collisions = Array.from({ length: 25 }, (_, i) =>
      collision(`col-${batch * 25 + i}`, { createdAt: at(minute) }),
    );
    const refuels = Array.from({ length: 25 }, (_, i) =>
      vehicleEvent(`ev-${batch * 25 + i}`, 'REFUEL', minute, { eventId: `refuel-${batch * 25 + i}` }),
    );
    state = diff(
      state,
      [
        obs('v2.trips', trips, minute),
        obs('v2.collisions', collisions, minute),
        obs('v2.events', refuels, minute),
      ],
      context(minute, { ecoDrivingWaitMs: 0 }),
    ).state;
    minute += 1;
  }
  state = diff(
    state,
    [
      obs('v2.maintenance', [{ days: 12, mileage: 800 }], minute),
      obs(
        'services',
        Array.from({ length: 30 }, (_, i) => ({
          code: `SERVICE_${i}`,
          shortLabel: `Service ${i}`,
          eligible: i % 2 === 0,
        })),
        minute,
      ),
      obs(
        'map',
        [
          {
            vin: 'VF3ABCDEFGH123456',
            availableVersion: '2026.11',
            installedVersion: '2026.01',
            updateAvailable: true,
          },
        ],
        minute,
      ),
    ],
    context(minute),
  ).state;
  return state;
};

describe('vehicle state', () => {
  it.each([
    // 3,000 alerts over time, of which 100 are still active: the realistic worst case.
    [30, 100, 100 * 1024],
    // 250 alerts active at once, each with a long localized message: still far from 400 KB.
    [12, 250, 200 * 1024],
  ])(
    'stays bounded and under one DynamoDB item for a busy vehicle (1 in %i active → %i active)',
    (every, active, bound) => {
      const state = busyVehicle(every);
      const bytes = Buffer.byteLength(serializeState(state), 'utf8');
      expect(Object.values(state.alerts).filter((a) => a.active)).toHaveLength(active);
      expect(Object.values(state.alerts).filter((a) => !a.active).length).toBeLessThanOrEqual(50);
      expect(Object.keys(state.trips.ids).length).toBeLessThanOrEqual(200);
      expect(Object.keys(state.collisions.ids).length).toBeLessThanOrEqual(200);
      expect(Object.keys(state.fuel.ids).length).toBeLessThanOrEqual(200);
      expect(bytes).toBeLessThan(bound);
      expect(bytes).toBeLessThan(400 * 1024);
    },
  );

  it('forgets old ids but still treats forgotten records as seen (floor)', () => {
    let state = baselined();
    for (let i = 0; i < 300; i += 1) {
      state = diff(
        state,
        [obs('v2.collisions', [collision(`c${i}`, { createdAt: at(i + 1) })], i + 1)],
        context(i + 1),
      ).state;
    }
    expect(state.collisions.ids.c0).toBeUndefined();
    expect(state.collisions.floor).toBeDefined();
    const again = diff(
      state,
      [obs('v2.collisions', [collision('c0', { createdAt: at(1) })], 400)],
      context(400),
    );
    expect(again.events).toEqual([]);
  });

  it('serializes to JSON and parses back to an equal state', () => {
    const state = busyVehicle();
    const parsed = parseState(serializeState(state));
    expect(parsed).toEqual({ ok: true, state });
  });

  it.each([
    ['not JSON', '{nope', ''],
    [
      'an unknown stateFormat (written by a newer Carhook)',
      JSON.stringify({ ...baselined(), stateFormat: 99 }),
      'stateFormat',
    ],
    ['a wrong field type', JSON.stringify({ ...baselined(), sequence: 'seven' }), 'sequence'],
  ])('refuses %s with a Malformed error naming the field', (_name, text, field) => {
    const r = parseState(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ kind: 'Malformed', field });
  });

  it('stateChanged: none for a quiet poll, cursors when only bookkeeping moved, state on news', () => {
    const start = diff(baselined(), [obs('v2.alerts', [alert('a1', true)], 1)], context(1)).state;
    expect(stateChanged(start, diff(start, [], context(2)).state)).toBe('none');
    const sameList = diff(start, [obs('v2.alerts', [alert('a1', true)], 2)], context(2));
    expect(sameList.events).toEqual([]);
    expect(sameList.changed).toBe('cursors');
    expect(stateChanged(start, sameList.state)).toBe('cursors');
    const news = diff(start, [obs('v2.alerts', [alert('a1', false)], 3)], context(3));
    expect(news.changed).toBe('state');
    expect(stateChanged(start, news.state)).toBe('state');
    expect(stateChanged(undefined, news.state)).toBe('state');
  });

  it('the engine carries the version (the store increments it) and never mutates its input', () => {
    const start = { ...baselined(), version: 7 };
    const frozen = JSON.stringify(start);
    const r = diff(
      start,
      [obs('v2.alerts', [alert('a1', true)], 1), obs('v2.collisions', [collision('c1')], 1)],
      context(1),
    );
    expect(r.state.version).toBe(7);
    expect(JSON.stringify(start)).toBe(frozen);
  });
});
