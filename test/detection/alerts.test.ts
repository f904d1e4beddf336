import { describe, expect, it } from 'vitest';
import type { V1Alert } from '../../functions/core/api/model';
import { diff } from '../../functions/core/detection/diff';
import { alert, at, baselined, context, expectValidEvents, obs, runPolls, vehicleEvent } from './fixtures';

const types = (events: readonly { type: string }[]) => events.map((e) => e.type);

const v1Alert = (idAlert: string, alertState: number, extra: Partial<V1Alert> = {}): V1Alert => ({
  vin: 'VF3ABCDEFGH123456',
  contract: 'C-1',
  idAlert,
  alert: 'Pression huile moteur insuffisante',
  advise: 'Arrêtez le véhicule',
  category: 'engine',
  alertState,
  dateAlertBegin: at(-30),
  ...extra,
});

describe('first poll (no stored state)', () => {
  it.each([
    ['active-alerts', ['vehicle.alert.raised'], true],
    ['none', [], undefined],
    ['all', ['vehicle.alert.raised', 'vehicle.alert.fixed', 'vehicle.alert.raised'], false],
  ] as const)('policy %s: active alerts → %j', (initialPolicy, expected, initial) => {
    const r = diff(
      undefined,
      [
        obs(
          'v2.alerts',
          [alert('a1', true), alert('old', false, { startedAt: at(-500), endedAt: at(-400) })],
          0,
        ),
      ],
      context(0, { initialPolicy }),
    );
    expect(types(r.events)).toEqual(expected);
    if (initial !== undefined) expect(r.events.at(-1)?.data).toMatchObject({ alertId: 'a1', initial });
    expectValidEvents(r.events);
  });

  it('keeps ended alerts of the first poll as baseline, not events', () => {
    const r = diff(undefined, [obs('v2.alerts', [alert('old', false)], 0)], context(0));
    expect(r.events).toEqual([]);
    expect(r.state.alerts['v2:old']?.active).toBe(false);
  });
});

describe('vehicle.alert.raised / vehicle.alert.fixed (v2)', () => {
  it('emits vehicle.alert.raised once for a new active alert, with what a subscriber needs', () => {
    const position = { lon: 2.35, lat: 48.85, heading: 90 };
    const { events } = runPolls(baselined(), [
      {
        minute: 1,
        observations: [
          obs('v2.alerts', [alert('a1', true, { startedAt: at(1), position, advice: 'stop' })], 1),
        ],
      },
      {
        minute: 2,
        observations: [
          obs('v2.alerts', [alert('a1', true, { startedAt: at(1), position, advice: 'stop' })], 2),
        ],
      },
    ]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'vehicle.alert.raised',
      occurredAt: at(1),
      detectedAt: at(1),
      sequence: 1,
      vehicle: { id: 'veh-1', vin: 'VF3ABCDEFGH123456', brand: 'P' },
      enrollment: { id: 'enr-1', kind: 'oauth-user' },
      source: { api: 'v2', operation: 'v2.vehicles.alerts', recordId: 'a1' },
      data: {
        alertId: 'a1',
        message: 'alertOilPressure',
        messageCode: 'alertOilPressure',
        severity: 'high',
        advice: 'stop',
        position,
        startedAt: at(1),
        initial: false,
      },
    });
    expect(events[0]?.id).toMatch(/^evt_[a-z2-7]{26}$/);
    expectValidEvents(events);
  });

  it('emits vehicle.alert.fixed when an active alert comes back inactive', () => {
    const { events } = runPolls(baselined(), [
      { minute: 1, observations: [obs('v2.alerts', [alert('a1', true, { startedAt: at(1) })], 1)] },
      {
        minute: 5,
        observations: [
          obs('v2.alerts', [alert('a1', false, { startedAt: at(1), endedAt: at(4), updatedAt: at(4) })], 5),
        ],
      },
    ]);
    expect(types(events)).toEqual(['vehicle.alert.raised', 'vehicle.alert.fixed']);
    expect(events[1]).toMatchObject({
      occurredAt: at(4),
      data: { alertId: 'a1', reason: 'inactive', endedAt: at(4), durationS: 180 },
      sequence: 2,
    });
    expectValidEvents(events);
  });

  it('emits vehicle.alert.fixed (reason absent) when an active alert vanishes from two complete lists a cycle apart', () => {
    const { events } = runPolls(baselined(), [
      { minute: 1, observations: [obs('v2.alerts', [alert('a1', true)], 1)] },
      { minute: 2, observations: [obs('v2.alerts', [], 2)] },
      { minute: 3, observations: [obs('v2.alerts', [], 3)] },
    ]);
    expect(types(events)).toEqual(['vehicle.alert.raised', 'vehicle.alert.fixed']);
    expect(events[1]?.data).toMatchObject({
      reason: 'absent',
      alertId: 'a1',
      message: 'alertOilPressure',
      endedAt: at(2),
      endedAtSource: 'observed',
    });
    expect(events[1]?.detectedAt).toBe(at(3));
    expectValidEvents(events);
  });

  it('treats a 404-as-empty (complete empty list) as "no alerts": active ones are fixed', () => {
    const start = runPolls(baselined(), [
      { minute: 1, observations: [obs('v2.alerts', [alert('a1', true)], 1)] },
    ]).last.state;
    const doubt = diff(start, [obs('v2.alerts', [], 3, { complete: true })], context(3));
    expect(doubt.events).toEqual([]);
    const r = diff(doubt.state, [obs('v2.alerts', [], 4, { complete: true })], context(4));
    expect(types(r.events)).toEqual(['vehicle.alert.fixed']);
  });

  it.each([
    ['a partial (failed) list', { complete: false }],
    ['a list windowed after the alert started', { window: { since: at(0) } }],
  ] as const)('never fixes an alert absent from %s', (_name, extra) => {
    const start = runPolls(baselined(), [
      { minute: 1, observations: [obs('v2.alerts', [alert('a1', true, { startedAt: at(-10) })], 1)] },
    ]).last.state;
    const r = diff(start, [obs('v2.alerts', [], 3, extra)], context(3));
    expect(r.events).toEqual([]);
    expect(r.state.alerts['v2:a1']?.active).toBe(true);
  });

  it('fixes an alert absent from a windowed list whose window covers its start', () => {
    const start = runPolls(baselined(), [
      { minute: 1, observations: [obs('v2.alerts', [alert('a1', true, { startedAt: at(1) })], 1)] },
    ]).last.state;
    const doubt = diff(start, [obs('v2.alerts', [], 3, { window: { since: at(0) } })], context(3));
    expect(doubt.state.alerts['v2:a1']?.missingSince).toBe(at(3));
    const r = diff(doubt.state, [obs('v2.alerts', [], 4, { window: { since: at(0) } })], context(4));
    expect(types(r.events)).toEqual(['vehicle.alert.fixed']);
  });

  it('does not fix from a list read before the alert was last seen (stale list)', () => {
    const start = runPolls(baselined(), [
      { minute: 5, observations: [obs('v2.alerts', [alert('a1', true)], 5)] },
    ]).last.state;
    const r = diff(start, [obs('v2.alerts', [], 4)], context(6));
    expect(r.events).toEqual([]);
  });

  it('a stale record (older updatedAt) never re-raises a fixed alert', () => {
    const { events } = runPolls(baselined(), [
      { minute: 1, observations: [obs('v2.alerts', [alert('a1', true, { updatedAt: at(1) })], 1)] },
      {
        minute: 3,
        observations: [obs('v2.alerts', [alert('a1', false, { updatedAt: at(3), endedAt: at(3) })], 3)],
      },
      { minute: 4, observations: [obs('v2.alerts', [alert('a1', true, { updatedAt: at(1) })], 4)] },
    ]);
    expect(types(events)).toEqual(['vehicle.alert.raised', 'vehicle.alert.fixed']);
  });

  it('an old alert snapshot embedded in a vehicle event never re-raises a fixed alert', () => {
    const snapshot = alert('a1', true, { updatedAt: at(1) });
    const { events } = runPolls(baselined(), [
      {
        minute: 1,
        observations: [obs('v2.events', [vehicleEvent('e1', 'ALERT', 1, { alert: snapshot })], 1)],
      },
      { minute: 2, observations: [obs('v2.alerts', [], 2)] },
      { minute: 3, observations: [obs('v2.alerts', [], 3)] },
      {
        minute: 4,
        observations: [obs('v2.events', [vehicleEvent('e1', 'ALERT', 1, { alert: snapshot })], 4)],
      },
    ]);
    expect(types(events)).toEqual(['vehicle.alert.raised', 'vehicle.alert.fixed']);
  });

  it('an alert revealed by an event and then read from the list is raised once', () => {
    const a = alert('a1', true, { updatedAt: at(1) });
    const { events } = runPolls(baselined(), [
      { minute: 1, observations: [obs('v2.events', [vehicleEvent('e1', 'ALERT', 1, { alert: a })], 1)] },
      { minute: 2, observations: [obs('v2.alerts', [a], 2)] },
    ]);
    expect(types(events)).toEqual(['vehicle.alert.raised']);
    expect(events[0]?.source.operation).toBe('v2.vehicles.events');
  });

  it('the same alert id raised again later (new start) is a new occurrence with a new id', () => {
    const { events } = runPolls(baselined(), [
      { minute: 1, observations: [obs('v2.alerts', [alert('a1', true, { startedAt: at(1) })], 1)] },
      {
        minute: 2,
        observations: [obs('v2.alerts', [alert('a1', false, { startedAt: at(1), endedAt: at(2) })], 2)],
      },
      { minute: 9, observations: [obs('v2.alerts', [alert('a1', true, { startedAt: at(8) })], 9)] },
    ]);
    expect(types(events)).toEqual(['vehicle.alert.raised', 'vehicle.alert.fixed', 'vehicle.alert.raised']);
    expect(events[0]?.id).not.toBe(events[2]?.id);
    expect(events[2]?.data).toMatchObject({ occurrence: at(8) });
  });

  it('an alert missing from one list and listed again is neither fixed nor raised again', () => {
    const { events, last } = runPolls(baselined(), [
      { minute: 1, observations: [obs('v2.alerts', [alert('a1', true, { startedAt: at(1) })], 1)] },
      { minute: 2, observations: [obs('v2.alerts', [], 2)] },
      { minute: 3, observations: [obs('v2.alerts', [alert('a1', true, { startedAt: at(1) })], 3)] },
    ]);
    expect(types(events)).toEqual(['vehicle.alert.raised']);
    expect(last.state.alerts['v2:a1']?.active).toBe(true);
    expect(last.state.alerts['v2:a1']?.missingSince).toBeUndefined();
  });

  it('an alert back active with the same start and a newer record after a fix is re-raised as occurrence #1', () => {
    // An older fixed alert stays listed (the v2 list keeps fixed alerts), so no list looks stale.
    const old = alert('b9', false, { startedAt: at(-20), endedAt: at(1), updatedAt: at(1) });
    const { events } = runPolls(baselined(), [
      {
        minute: 1,
        observations: [obs('v2.alerts', [old, alert('a1', true, { startedAt: at(1), updatedAt: at(1) })], 1)],
      },
      { minute: 2, observations: [obs('v2.alerts', [old], 2)] },
      { minute: 3, observations: [obs('v2.alerts', [old], 3)] },
      {
        minute: 5,
        observations: [obs('v2.alerts', [old, alert('a1', true, { startedAt: at(1), updatedAt: at(4) })], 5)],
      },
    ]);
    expect(types(events)).toEqual(['vehicle.alert.raised', 'vehicle.alert.fixed', 'vehicle.alert.raised']);
    expect(events[2]?.data).toMatchObject({ occurrence: `${at(1)}#1` });
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
  });

  it('the previous occurrence is fixed when the same id starts again while still active', () => {
    const { events } = runPolls(baselined(), [
      { minute: 1, observations: [obs('v2.alerts', [alert('a1', true, { startedAt: at(1) })], 1)] },
      { minute: 9, observations: [obs('v2.alerts', [alert('a1', true, { startedAt: at(8) })], 9)] },
    ]);
    expect(types(events)).toEqual(['vehicle.alert.raised', 'vehicle.alert.fixed', 'vehicle.alert.raised']);
  });

  it('an alert that came and went between two polls is told as raised then fixed', () => {
    const r = diff(
      baselined(),
      [obs('v2.alerts', [alert('a1', false, { startedAt: at(1), endedAt: at(2) })], 3)],
      context(3),
    );
    expect(types(r.events)).toEqual(['vehicle.alert.raised', 'vehicle.alert.fixed']);
    expectValidEvents(r.events);
  });

  it.each([
    ['an unknown severity string', { severity: 'CRITICAL-2' }, { severity: 'CRITICAL-2' }],
    [
      'a localized message',
      { message: 'Pression huile insuffisante' },
      { localizedText: 'Pression huile insuffisante' },
    ],
    ['no severity', { severity: undefined }, {}],
  ] as const)('passes %s through to a valid event', (_name, extra, expected) => {
    const r = diff(
      baselined(),
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(1), ...extra })], 1)],
      context(1),
    );
    expect(r.events[0]?.data).toMatchObject(expected);
    expectValidEvents(r.events);
  });
});

describe('v1 alert lists (alertState, dateAlertEnd)', () => {
  it('normalizes v1 alerts to the same events with source.api v1', () => {
    const { events } = runPolls(baselined(), [
      { minute: 1, observations: [obs('v1.alerts', [v1Alert('17', 1, { dateAlertBegin: at(1) })], 1)] },
      {
        minute: 2,
        observations: [
          obs(
            'v1.alerts',
            [v1Alert('17', 0, { dateAlertBegin: at(1), dateAlertEnd: at(2), dateUpdate: at(2) })],
            2,
          ),
        ],
      },
    ]);
    expect(types(events)).toEqual(['vehicle.alert.raised', 'vehicle.alert.fixed']);
    expect(events[0]).toMatchObject({
      source: { api: 'v1', operation: 'v1.maintenance.alert.list', recordId: '17' },
      data: {
        alertId: '17',
        localizedText: 'Pression huile moteur insuffisante',
        advice: 'Arrêtez le véhicule',
        category: 'engine',
      },
    });
    expect(events[1]?.data).toMatchObject({ endedAt: at(2), reason: 'inactive' });
    expectValidEvents(events);
  });

  it('a complete v2 list does not fix v1 alerts (and vice versa)', () => {
    const { events } = runPolls(baselined(), [
      { minute: 1, observations: [obs('v1.alerts', [v1Alert('17', 1, { dateAlertBegin: at(1) })], 1)] },
      { minute: 2, observations: [obs('v2.alerts', [], 2)] },
    ]);
    expect(types(events)).toEqual(['vehicle.alert.raised']);
  });

  it('a v1 alert absent from two complete v1 lists a cycle apart is fixed', () => {
    const { events } = runPolls(baselined(), [
      { minute: 1, observations: [obs('v1.alerts', [v1Alert('17', 1, { dateAlertBegin: at(1) })], 1)] },
      { minute: 2, observations: [obs('v1.alerts', [], 2)] },
      { minute: 3, observations: [obs('v1.alerts', [], 3)] },
    ]);
    expect(types(events)).toEqual(['vehicle.alert.raised', 'vehicle.alert.fixed']);
  });
});
