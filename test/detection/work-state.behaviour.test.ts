import { describe, expect, it } from 'vitest';
import { diff } from '../../functions/core/detection/diff';
import { alert, at, baselined, collision, context, obs, runPolls, trip, vehicleEvent } from './fixtures';

/**
 * The working copy of a diff (functions/core/detection/work.ts): copy-on-write over the state it
 * was given, record times that are not timestamps, and the bookkeeping that only moves forward.
 */

describe('the state given to diff is never changed', () => {
  it('a poll that touches every part of the state leaves the given state as it was', () => {
    const cfg = { maxSeen: 2, maxFixedAlerts: 1 };
    // A state with every part filled: alerts (one fixed), pending trips, seen ids, cursors,
    // maintenance, services and map.
    const { last } = runPolls(
      baselined(cfg),
      [
        {
          minute: 1,
          observations: [
            obs(
              'v2.alerts',
              [alert('a1', true, { startedAt: at(1) }), alert('a2', false, { startedAt: at(1) })],
              1,
            ),
            obs('v2.collisions', [collision('c1', { createdAt: at(1) })], 1),
            obs('v2.trips', [trip('t1', 1)], 1),
            obs('v2.events', [vehicleEvent('e1', 'REFUEL', 1)], 1),
            obs('v2.maintenance', [{ days: 100, mileage: 9000, updatedAt: at(1) }], 1),
            obs('services', [{ code: 'A', eligible: true }], 1),
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
              1,
            ),
          ],
        },
      ],
      cfg,
    );
    const given = last.state;
    const copy = structuredClone(given);
    const r = diff(
      given,
      [
        obs('v2.alerts', [alert('a3', true, { startedAt: at(2) })], 3),
        obs(
          'v2.collisions',
          [collision('c2', { createdAt: at(2) }), collision('c3', { createdAt: at(2) })],
          3,
        ),
        obs('v2.trips', [trip('t2', 2)], 3),
        obs('v2.ecodriving', [{ tripId: 't1', global: {}, detailed: {} }], 3),
        obs('v2.events', [vehicleEvent('e2', 'FUEL_STOLEN', 2), vehicleEvent('e3', 'REFUEL', 2)], 3),
        obs('v2.maintenance', [{ days: 10, mileage: 900, updatedAt: at(2) }], 3),
        obs('services', [{ code: 'B', eligible: true }], 3),
        obs(
          'map',
          [
            {
              vin: 'VF3ABCDEFGH123456',
              availableVersion: 'v2',
              installedVersion: 'v1',
              updateAvailable: true,
            },
          ],
          3,
        ),
      ],
      context(3, cfg),
    );
    expect(r.events.length).toBeGreaterThan(5);
    expect(r.changed).toBe('state');
    expect(given).toEqual(copy);
    // And the new state did change, so the comparison above compares something.
    expect(r.state).not.toEqual(copy);
    expect(Object.keys(r.state.pendingTrips)).toEqual(['t2']);
    expect(Object.keys(given.pendingTrips)).toEqual(['t1']);
  });
});

describe('record times that are not ISO timestamps', () => {
  it('a collision with such a time is remembered at the diff time, and is not activity', () => {
    const prior = baselined();
    const r = diff(
      prior,
      [obs('v2.collisions', [collision('c1', { createdAt: '2026-11-01 08:01' })], 4)],
      context(5),
    );
    expect(r.state.collisions.ids).toEqual({ c1: at(5) });
    expect(r.state.lastActivityAt).toBeUndefined();
  });
});

describe('bookkeeping only moves forward', () => {
  it('the last trip end stays the newest when an older trip is read after it', () => {
    const cfg = { ecoDrivingWaitMs: 0 };
    const { last } = runPolls(
      baselined(cfg),
      [
        { minute: 10, observations: [obs('v2.trips', [trip('t2', 8)], 10)] },
        { minute: 11, observations: [obs('v2.trips', [trip('t1', 4)], 11)] },
      ],
      cfg,
    );
    expect(last.state.lastTripAt).toBe(at(8));
    expect(Object.keys(last.state.trips.ids).sort()).toEqual(['t1', 't2']);
  });

  it('a source read again with an older fetch time keeps its newest fetch time', () => {
    const { last } = runPolls(baselined(), [
      { minute: 10, observations: [obs('v2.collisions', [], 10)] },
      { minute: 11, observations: [obs('v2.collisions', [], 7)] },
    ]);
    expect(last.state.cursors.fetched['v2.collisions']).toBe(at(10));
    expect(last.changed).toBe('none');
  });

  it('the alerts reconciliation time moves forward only', () => {
    const { last } = runPolls(baselined(), [
      { minute: 10, observations: [obs('v2.alerts', [], 10)] },
      { minute: 11, observations: [obs('v2.alerts', [], 9)] },
    ]);
    expect(last.state.cursors.alertsReconciledAt).toBe(at(10));
  });
});
