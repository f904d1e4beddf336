/**
 * One VIN fed by both APIs (an OAuth user's v2 reads, then a fleet contract's v1 bulk reads, or
 * back): the same change has a v2 and a v1 record with different keys, and must be told once.
 */
import { describe, expect, it } from 'vitest';
import type { V1Alert, V1Crash } from '../../functions/core/api/model';
import { diff } from '../../functions/core/detection/diff';
import { alert, at, baselined, collision, context, obs, runPolls } from './fixtures';

const v1Alert = (idAlert: string, alertState: number, extra: Partial<V1Alert> = {}): V1Alert => ({
  vin: 'VF3ABCDEFGH123456',
  contract: 'C-1',
  idAlert,
  alert: 'alertOilPressure',
  alertState,
  dateAlertBegin: at(1),
  dateUpdate: at(1),
  ...extra,
});

const crash = (lastUpdate: string): V1Crash => ({
  vin: 'VF3ABCDEFGH123456',
  contract: 'C-1',
  lastUpdate,
  raw: { highFrontCrashInfo: { '6': 1 } },
});

describe('one VIN, two APIs', () => {
  it('an alert raised through v2 and then read through v1 (same id) is not raised again; v1 fixes it', () => {
    const { events, last } = runPolls(baselined(), [
      {
        minute: 2,
        observations: [obs('v2.alerts', [alert('a1', true, { startedAt: at(1), updatedAt: at(1) })], 2)],
      },
      { minute: 5, observations: [obs('v1.alerts', [v1Alert('a1', 1)], 5)] },
      {
        // The active list misses it; the inactive list read for it gives its end.
        minute: 8,
        observations: [
          obs('v1.alerts', [], 8),
          obs('v1.alerts', [v1Alert('a1', 0, { dateAlertEnd: at(7), dateUpdate: at(7) })], 8, {
            complete: false,
          }),
        ],
      },
    ]);
    expect(events.map((e) => [e.type, e.source.api, e.sequence, e.occurredAt])).toEqual([
      ['vehicle.alert.raised', 'v2', 1, at(1)],
      ['vehicle.alert.fixed', 'v1', 2, at(7)],
    ]);
    expect(events[1]?.data).toMatchObject({ reason: 'inactive', endedAt: at(7), endedAtSource: 'api' });
    expect(Object.keys(last.state.alerts)).toEqual(['v1:a1']);
    expect(last.state.alerts['v1:a1']?.active).toBe(false);
  });

  it('v1 records up to the last v2 read are baseline the first time v1 is read; later ones are news', () => {
    const v2 = diff(
      baselined(),
      [obs('v2.collisions', [collision('c1', { createdAt: at(3) })], 4)],
      context(4),
    );
    expect(v2.events.map((e) => e.type)).toEqual(['vehicle.collision.detected']);
    // The same collision as v1 crash data (keyed by its lastUpdate) plus a newer one.
    const r = diff(v2.state, [obs('v1.crash', [crash(at(3)), crash(at(6))], 7)], context(7));
    expect(r.events.map((e) => [e.type, (e.data as { collidedAt?: string }).collidedAt, e.sequence])).toEqual(
      [['vehicle.collision.detected', at(6), 2]],
    );
  });

  it('back to v2 after v1: v2 records up to the last v1 read are baseline, newer ones are told', () => {
    const { last } = runPolls(baselined(), [
      { minute: 2, observations: [obs('v2.collisions', [], 2)] },
      { minute: 5, observations: [obs('v1.crash', [crash(at(4))], 5)] },
    ]);
    const r = diff(
      last.state,
      [
        obs(
          'v2.collisions',
          [collision('c-old', { createdAt: at(4) }), collision('c-new', { createdAt: at(9) })],
          10,
        ),
      ],
      context(10),
    );
    expect(r.events.map((e) => (e.data as { collisionId?: string }).collisionId)).toEqual(['c-new']);
  });

  it('a vehicle read through one API only is unaffected (no boundary)', () => {
    const { events } = runPolls(baselined(), [
      { minute: 2, observations: [obs('v1.crash', [crash(at(1))], 2)] },
      { minute: 5, observations: [obs('v1.crash', [crash(at(1)), crash(at(4))], 5)] },
    ]);
    expect(events.map((e) => (e.data as { collidedAt?: string }).collidedAt)).toEqual([at(1), at(4)]);
  });
});
