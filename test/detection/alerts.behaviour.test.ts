import { describe, expect, it } from 'vitest';
import type { V1Alert } from '../../functions/core/api/model';
import { diff } from '../../functions/core/detection/diff';
import type { VehicleState } from '../../functions/core/detection/state';
import { idOf, told, typesOf } from './behaviour';
import { alert, at, baselined, context, expectValidEvents, obs, runPolls } from './fixtures';

const RAISED = 'vehicle.alert.raised';
const FIXED = 'vehicle.alert.fixed';

const v1Alert = (idAlert: string, alertState: number, extra: Partial<V1Alert> = {}): V1Alert => ({
  vin: 'VF3ABCDEFGH123456',
  contract: 'C-1',
  idAlert,
  alert: 'Pression huile moteur insuffisante',
  advise: 'Arrêtez le véhicule',
  category: 'engine',
  alertState,
  dateAlertBegin: at(1),
  ...extra,
});

/** A state with alert a1 raised at minute 1 (record time minute 1), read at minute 1. */
const withActiveA1 = (): VehicleState =>
  diff(
    baselined(),
    [obs('v2.alerts', [alert('a1', true, { startedAt: at(1), updatedAt: at(1) })], 1)],
    context(1),
  ).state;

describe('an alert raised, changed, fixed and back: exact events and stored entries', () => {
  it('raised: the id is derived from the alert id, its start and the word "raised"', () => {
    const r = diff(
      baselined(),
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(1), updatedAt: at(1), category: 'engine' })], 1)],
      context(1),
    );
    expect(told(r.events)).toEqual([
      {
        type: RAISED,
        id: idOf(RAISED, `a1@${at(1)}`, 'raised'),
        occurredAt: at(1),
        data: {
          alertId: 'a1',
          occurrence: at(1),
          message: 'alertOilPressure',
          messageCode: 'alertOilPressure',
          category: 'engine',
          severity: 'high',
          startedAt: at(1),
          initial: false,
        },
      },
    ]);
    expect(r.state.alerts).toEqual({
      'v2:a1': {
        active: true,
        message: 'alertOilPressure',
        severity: 'high',
        category: 'engine',
        startedAt: at(1),
        updatedAt: at(1),
        seenAt: at(1),
      },
    });
    expect(r.state.lastActivityAt).toBe(at(1));
    expectValidEvents(r.events);
  });

  it('fixed: the id names the stored occurrence and "fixed"; the end, reason and duration are told', () => {
    const r = diff(
      withActiveA1(),
      [obs('v2.alerts', [alert('a1', false, { startedAt: at(1), endedAt: at(4), updatedAt: at(4) })], 5)],
      context(5),
    );
    expect(told(r.events)).toEqual([
      {
        type: FIXED,
        id: idOf(FIXED, `a1@${at(1)}`, 'fixed'),
        occurredAt: at(4),
        data: {
          alertId: 'a1',
          occurrence: at(1),
          message: 'alertOilPressure',
          messageCode: 'alertOilPressure',
          severity: 'high',
          startedAt: at(1),
          endedAt: at(4),
          endedAtSource: 'api',
          reason: 'inactive',
          durationS: 180,
        },
      },
    ]);
    expect(r.state.alerts['v2:a1']).toEqual({
      active: false,
      message: 'alertOilPressure',
      severity: 'high',
      startedAt: at(1),
      endedAt: at(4),
      updatedAt: at(4),
      seenAt: at(5),
    });
    expectValidEvents(r.events);
  });

  it('fixed without an end date: ends at the record update (api), else at the read (observed); the duration follows', () => {
    const byUpdate = diff(
      withActiveA1(),
      [obs('v2.alerts', [alert('a1', false, { startedAt: at(1), updatedAt: at(3) })], 5)],
      context(5),
    );
    expect(told(byUpdate.events).map((e) => [e.occurredAt, e.data])).toEqual([
      [
        at(3),
        {
          alertId: 'a1',
          occurrence: at(1),
          message: 'alertOilPressure',
          messageCode: 'alertOilPressure',
          severity: 'high',
          startedAt: at(1),
          endedAt: at(3),
          endedAtSource: 'api',
          reason: 'inactive',
          durationS: 120,
        },
      ],
    ]);
    const byRead = diff(
      withActiveA1(),
      [obs('v2.alerts', [alert('a1', false, { startedAt: at(1) })], 6)],
      context(6),
    );
    expect(byRead.events.map((e) => e.occurredAt)).toEqual([at(6)]);
    expect(byRead.events.map((e) => e.data)).toMatchObject([
      { endedAt: at(6), endedAtSource: 'observed', durationS: 300 },
    ]);
  });

  it('an alert that ends at its start lasts 0 s; one whose end precedes its start has no duration', () => {
    const zero = diff(
      withActiveA1(),
      [obs('v2.alerts', [alert('a1', false, { startedAt: at(1), endedAt: at(1), updatedAt: at(2) })], 5)],
      context(5),
    );
    expect(zero.events[0]?.data).toMatchObject({ endedAt: at(1), durationS: 0 });
    const backwards = diff(
      withActiveA1(),
      [obs('v2.alerts', [alert('a1', false, { startedAt: at(1), endedAt: at(0), updatedAt: at(2) })], 5)],
      context(5),
    );
    expect(backwards.events[0]?.data).toMatchObject({ endedAt: at(0) });
    expect(backwards.events[0]?.data).not.toHaveProperty('durationS');
  });

  it('still active with a new message, severity, category or end: stored as read, no event', () => {
    const r = diff(
      withActiveA1(),
      [
        obs(
          'v2.alerts',
          [
            alert('a1', true, {
              startedAt: at(1),
              updatedAt: at(3),
              message: 'alertLowFuel',
              severity: 'low',
              category: 'fuel',
              endedAt: at(30),
            }),
          ],
          4,
        ),
      ],
      context(4),
    );
    expect(r.events).toEqual([]);
    expect(r.changed).toBe('state');
    expect(r.state.alerts['v2:a1']).toEqual({
      active: true,
      message: 'alertLowFuel',
      severity: 'low',
      category: 'fuel',
      startedAt: at(1),
      endedAt: at(30),
      updatedAt: at(3),
      seenAt: at(4),
    });
  });

  it.each([
    ['the message', { message: 'alertLowFuel' }, { message: 'alertLowFuel' }],
    ['the severity', { severity: 'low' }, { severity: 'low' }],
    ['the category', { category: 'fuel' }, { category: 'fuel' }],
    ['the end', { endedAt: at(30) }, { endedAt: at(30) }],
    ['only the record time', { updatedAt: at(3) }, { updatedAt: at(3) }],
  ] as const)('a re-read that changes only %s rewrites the entry', (_name, change, stored) => {
    const prior = withActiveA1();
    const r = diff(
      prior,
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(1), updatedAt: at(1), ...change })], 4)],
      context(4),
    );
    expect(r.events).toEqual([]);
    expect(r.changed).toBe('state');
    expect(r.state.alerts['v2:a1']).toEqual({ ...prior.alerts['v2:a1'], ...stored, seenAt: at(4) });
  });

  it('a re-read that changes nothing (severity and category omitted) leaves the entry untouched', () => {
    const prior = diff(
      baselined(),
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(1), updatedAt: at(1), category: 'engine' })], 1)],
      context(1),
    ).state;
    const r = diff(
      prior,
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(1), updatedAt: at(1), severity: undefined })], 4)],
      context(4),
    );
    expect(r.events).toEqual([]);
    expect(r.changed).toBe('cursors');
    expect(r.state.alerts['v2:a1']).toEqual(prior.alerts['v2:a1']);
  });

  it('a record that omits severity, category or end keeps the stored ones when it changes the entry', () => {
    const prior = diff(
      baselined(),
      [
        obs(
          'v2.alerts',
          [alert('a1', true, { startedAt: at(1), updatedAt: at(1), category: 'engine', endedAt: at(30) })],
          1,
        ),
      ],
      context(1),
    ).state;
    const r = diff(
      prior,
      [
        obs(
          'v2.alerts',
          [alert('a1', true, { startedAt: at(1), updatedAt: at(2), severity: undefined, message: 'alertB' })],
          3,
        ),
      ],
      context(3),
    );
    expect(r.state.alerts['v2:a1']).toEqual({
      active: true,
      message: 'alertB',
      severity: 'high',
      category: 'engine',
      startedAt: at(1),
      endedAt: at(30),
      updatedAt: at(2),
      seenAt: at(3),
    });
  });

  it('a record without a start updates the stored occurrence; it is not a new one', () => {
    const r = diff(
      withActiveA1(),
      [obs('v2.alerts', [alert('a1', false, { startedAt: undefined, updatedAt: at(3) })], 4)],
      context(4),
    );
    expect(r.events.map((e) => e.id)).toEqual([idOf(FIXED, `a1@${at(1)}`, 'fixed')]);
    expect(r.state.alerts['v2:a1']?.startedAt).toBe(at(1));
  });

  it('a stored alert without a start, read again with one, keeps its occurrence', () => {
    const listed = diff(baselined(), [obs('v2.alerts', [], 1)], context(1)).state;
    const noStart = diff(
      listed,
      [obs('v2.alerts', [alert('a1', true, { startedAt: undefined, updatedAt: at(2) })], 2)],
      context(2),
    );
    expect(noStart.events.map((e) => e.id)).toEqual([idOf(RAISED, 'a1@-', 'raised')]);
    const r = diff(
      noStart.state,
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(2), updatedAt: at(3) })], 4)],
      context(4),
    );
    expect(r.events).toEqual([]);
    expect(r.state.alerts['v2:a1']).not.toHaveProperty('startedAt');
    // Unwindowed complete lists fix it even without a start. It was the list's newest record: the
    // first list without it is taken for stale, the second makes it a doubt, the third confirms.
    const fixed = runPolls(r.state, [
      { minute: 5, observations: [obs('v2.alerts', [], 5)] },
      { minute: 6, observations: [obs('v2.alerts', [], 6)] },
      { minute: 7, observations: [obs('v2.alerts', [], 7)] },
    ]);
    expect(fixed.events.map((e) => e.id)).toEqual([idOf(FIXED, 'a1@-', 'fixed')]);
  });

  it('a fixed alert whose end date is corrected later: the new end is stored, nothing is told', () => {
    const fixed = diff(
      withActiveA1(),
      [obs('v2.alerts', [alert('a1', false, { startedAt: at(1), endedAt: at(4), updatedAt: at(4) })], 5)],
      context(5),
    ).state;
    const r = diff(
      fixed,
      [obs('v2.alerts', [alert('a1', false, { startedAt: at(1), endedAt: at(3), updatedAt: at(6) })], 7)],
      context(7),
    );
    expect(r.events).toEqual([]);
    expect(r.state.alerts['v2:a1']).toMatchObject({
      active: false,
      endedAt: at(3),
      updatedAt: at(6),
      seenAt: at(7),
    });
  });

  it('back active with the same start: occurrence "#1", raised under a new id; fixed again under it', () => {
    const fixed = diff(
      withActiveA1(),
      [obs('v2.alerts', [alert('a1', false, { startedAt: at(1), endedAt: at(4), updatedAt: at(4) })], 5)],
      context(5),
    ).state;
    const back = diff(
      fixed,
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(1), updatedAt: at(7) })], 8)],
      context(8),
    );
    expect(told(back.events)).toEqual([
      {
        type: RAISED,
        id: idOf(RAISED, `a1@${at(1)}#1`, 'raised'),
        occurredAt: at(1),
        data: {
          alertId: 'a1',
          occurrence: `${at(1)}#1`,
          message: 'alertOilPressure',
          messageCode: 'alertOilPressure',
          severity: 'high',
          startedAt: at(1),
          initial: false,
        },
      },
    ]);
    expect(back.state.alerts['v2:a1']).toEqual({
      active: true,
      message: 'alertOilPressure',
      severity: 'high',
      startedAt: at(1),
      updatedAt: at(7),
      seenAt: at(8),
      reopened: 1,
    });
    const again = diff(
      back.state,
      [obs('v2.alerts', [alert('a1', false, { startedAt: at(1), endedAt: at(9), updatedAt: at(9) })], 10)],
      context(10),
    );
    expect(again.events.map((e) => [e.type, e.id, (e.data as { occurrence: string }).occurrence])).toEqual([
      [FIXED, idOf(FIXED, `a1@${at(1)}#1`, 'fixed'), `${at(1)}#1`],
    ]);
    const third = diff(
      again.state,
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(1), updatedAt: at(11) })], 12)],
      context(12),
    );
    expect(third.events.map((e) => e.id)).toEqual([idOf(RAISED, `a1@${at(1)}#2`, 'raised')]);
    expect(third.state.alerts['v2:a1']?.reopened).toBe(2);
  });

  it('the same id with a later start while active: the old occurrence is fixed at the new start, then raised', () => {
    const r = diff(
      withActiveA1(),
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(6), updatedAt: at(6) })], 7)],
      context(7),
    );
    expect(told(r.events)).toEqual([
      {
        type: FIXED,
        id: idOf(FIXED, `a1@${at(1)}`, 'fixed'),
        occurredAt: at(6),
        data: {
          alertId: 'a1',
          occurrence: at(1),
          message: 'alertOilPressure',
          messageCode: 'alertOilPressure',
          severity: 'high',
          startedAt: at(1),
          endedAt: at(6),
          endedAtSource: 'observed',
          reason: 'inactive',
          durationS: 300,
        },
      },
      {
        type: RAISED,
        id: idOf(RAISED, `a1@${at(6)}`, 'raised'),
        occurredAt: at(6),
        data: {
          alertId: 'a1',
          occurrence: at(6),
          message: 'alertOilPressure',
          messageCode: 'alertOilPressure',
          severity: 'high',
          startedAt: at(6),
          initial: false,
        },
      },
    ]);
    expect(r.state.alerts['v2:a1']).toEqual({
      active: true,
      message: 'alertOilPressure',
      severity: 'high',
      startedAt: at(6),
      updatedAt: at(6),
      seenAt: at(7),
    });
  });

  it('the same id with a later start after it was fixed: only the new occurrence is raised', () => {
    const fixed = diff(
      withActiveA1(),
      [obs('v2.alerts', [alert('a1', false, { startedAt: at(1), endedAt: at(2), updatedAt: at(2) })], 3)],
      context(3),
    ).state;
    const r = diff(
      fixed,
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(6), updatedAt: at(1) })], 7)],
      context(7),
    );
    expect(r.events.map((e) => e.id)).toEqual([idOf(RAISED, `a1@${at(6)}`, 'raised')]);
    // The newest record time seen for the id only grows.
    expect(r.state.alerts['v2:a1']?.updatedAt).toBe(at(2));
  });

  it('a record of an earlier occurrence, however new its record time, changes nothing', () => {
    const later = diff(
      baselined(),
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(6), updatedAt: at(6) })], 7)],
      context(7),
    ).state;
    const r = diff(
      later,
      [obs('v2.alerts', [alert('a1', false, { startedAt: at(1), endedAt: at(2), updatedAt: at(9) })], 10)],
      context(10),
    );
    expect(r.events).toEqual([]);
    expect(r.state.alerts['v2:a1']).toEqual(later.alerts['v2:a1']);
  });

  it('raised and fixed between two polls: both are told, raised first, with the record times', () => {
    const r = diff(
      baselined(),
      [obs('v2.alerts', [alert('a1', false, { startedAt: at(1), endedAt: at(3), updatedAt: at(4) })], 5)],
      context(5),
    );
    expect(told(r.events)).toEqual([
      {
        type: RAISED,
        id: idOf(RAISED, `a1@${at(1)}`, 'raised'),
        occurredAt: at(1),
        data: {
          alertId: 'a1',
          occurrence: at(1),
          message: 'alertOilPressure',
          messageCode: 'alertOilPressure',
          severity: 'high',
          startedAt: at(1),
          initial: false,
        },
      },
      {
        type: FIXED,
        id: idOf(FIXED, `a1@${at(1)}`, 'fixed'),
        occurredAt: at(3),
        data: {
          alertId: 'a1',
          occurrence: at(1),
          message: 'alertOilPressure',
          messageCode: 'alertOilPressure',
          severity: 'high',
          startedAt: at(1),
          endedAt: at(3),
          endedAtSource: 'api',
          reason: 'inactive',
          durationS: 120,
        },
      },
    ]);
    // An ended alert is not activity for the scheduler.
    expect(r.state.lastActivityAt).toBeUndefined();
  });

  it('raised and fixed between polls without record times (alerts read before): both occur at the read', () => {
    const listed = diff(baselined(), [obs('v2.alerts', [], 1)], context(1)).state;
    const r = diff(listed, [obs('v2.alerts', [alert('a1', false, { startedAt: undefined })], 5)], context(5));
    expect(r.events.map((e) => [e.type, e.id, e.occurredAt])).toEqual([
      [RAISED, idOf(RAISED, 'a1@-', 'raised'), at(5)],
      [FIXED, idOf(FIXED, 'a1@-', 'fixed'), at(5)],
    ]);
  });

  it('a v2 alert without startedAt starts at its createdAt', () => {
    const r = diff(
      baselined(),
      [obs('v2.alerts', [alert('a1', true, { startedAt: undefined, createdAt: at(2) })], 3)],
      context(3),
    );
    expect(r.events.map((e) => e.id)).toEqual([idOf(RAISED, `a1@${at(2)}`, 'raised')]);
    expect(r.state.alerts['v2:a1']?.startedAt).toBe(at(2));
  });

  it('an alert that started before the first poll, first seen later: told as initial, once', () => {
    const r = diff(
      baselined(),
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(-10) })], 3)],
      context(3),
    );
    expect(r.events.map((e) => [e.type, (e.data as { initial: boolean }).initial])).toEqual([[RAISED, true]]);
    const none = diff(
      baselined({ initialPolicy: 'none' }),
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(-10) })], 3)],
      context(3, { initialPolicy: 'none' }),
    );
    expect(none.events).toEqual([]);
    expect(none.state.alerts['v2:a1']?.active).toBe(true);
  });
});

describe('what an alert message is: a code or text', () => {
  it.each([
    ['alertOilPressure', { messageCode: 'alertOilPressure' }],
    ['alert_2', { messageCode: 'alert_2' }],
    ['a', { messageCode: 'a' }],
    ['Oil pressure', { localizedText: 'Oil pressure' }],
    ['oil pressure low', { localizedText: 'oil pressure low' }],
    ['AlertOil', { localizedText: 'AlertOil' }],
    ['2alerts', { localizedText: '2alerts' }],
  ] as const)('%j → %j', (message, expected) => {
    const r = diff(
      baselined(),
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(1), message })], 1)],
      context(1),
    );
    const data = r.events[0]?.data as Record<string, unknown>;
    expect({ messageCode: data.messageCode, localizedText: data.localizedText }).toEqual({
      messageCode: undefined,
      localizedText: undefined,
      ...expected,
    });
  });

  it('an empty severity is not told; the position is told without unknown fields', () => {
    const r = diff(
      baselined(),
      [
        obs(
          'v2.alerts',
          [alert('a1', true, { startedAt: at(1), severity: '', position: { lon: 2, lat: 48, heading: 90 } })],
          1,
        ),
      ],
      context(1),
    );
    expect(r.events[0]?.data).not.toHaveProperty('severity');
    expect(r.events[0]?.data).toMatchObject({ position: { lon: 2, lat: 48, heading: 90 } });
    expect(r.state.alerts['v2:a1']?.severity).toBe('');
  });

  it('the fixed event carries the advice and position of the record that fixed it', () => {
    const r = diff(
      withActiveA1(),
      [
        obs(
          'v2.alerts',
          [
            alert('a1', false, {
              startedAt: at(1),
              updatedAt: at(2),
              advice: 'ok',
              position: { lon: 1, lat: 2 },
            }),
          ],
          3,
        ),
      ],
      context(3),
    );
    expect(r.events[0]?.data).toMatchObject({ advice: 'ok', position: { lon: 1, lat: 2 } });
  });
});

describe('which read wins: record times, then read times', () => {
  it('an older record read later changes nothing', () => {
    const prior = diff(
      withActiveA1(),
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(1), updatedAt: at(3), message: 'alertNew' })], 4)],
      context(4),
    ).state;
    const r = diff(
      prior,
      [obs('v2.alerts', [alert('a1', false, { startedAt: at(1), updatedAt: at(2) })], 6)],
      context(6),
    );
    expect(r.events).toEqual([]);
    expect(r.state.alerts['v2:a1']).toEqual(prior.alerts['v2:a1']);
  });

  it('without record times, a read at the same time as the stored one applies; an earlier one does not', () => {
    const prior = diff(
      baselined(),
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(1) })], 4)],
      context(4),
    ).state;
    const same = diff(
      prior,
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(1), message: 'alertB' })], 4)],
      context(5),
    );
    expect(same.state.alerts['v2:a1']?.message).toBe('alertB');
    const earlier = diff(
      prior,
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(1), message: 'alertC' })], 3)],
      context(5),
    );
    expect(earlier.state.alerts['v2:a1']?.message).toBe('alertOilPressure');
  });

  it('the same record time read again later applies (a re-read of the same version)', () => {
    const prior = withActiveA1();
    const r = diff(
      prior,
      [obs('v2.alerts', [alert('a1', false, { startedAt: at(1), updatedAt: at(1) })], 2)],
      context(2),
    );
    expect(typesOf(r.events)).toEqual([FIXED]);
  });

  it('an alert embedded in a vehicle event counts only when its record time is strictly newer', () => {
    const prior = withActiveA1();
    const embedded = (updatedAt: string | undefined, minute: number) =>
      diff(
        prior,
        [
          obs(
            'v2.events',
            [
              {
                id: `ev-${minute}`,
                type: 'ALERT',
                eventId: `rec-${minute}`,
                createdAt: at(2),
                alert: alert('a1', false, { startedAt: at(1), updatedAt }),
              },
            ],
            minute,
          ),
        ],
        context(minute),
      );
    expect(typesOf(embedded(at(1), 5).events)).toEqual([]);
    expect(typesOf(embedded(undefined, 5).events)).toEqual([]);
    expect(typesOf(embedded(at(2), 5).events)).toEqual([FIXED]);
  });
});

describe('an alert embedded in a vehicle event without an id', () => {
  it('is ignored: no event, nothing stored', () => {
    const r = diff(
      baselined(),
      [
        obs(
          'v2.events',
          [
            {
              id: 'e1',
              type: 'ALERT',
              eventId: 'x',
              createdAt: at(2),
              alert: alert('', true, { startedAt: at(2) }),
            },
          ],
          3,
        ),
      ],
      context(3),
    );
    expect(r.events).toEqual([]);
    expect(r.state.alerts).toEqual({});
  });
});

describe('an embedded alert and a stored entry without a record time', () => {
  it('any embedded record with a record time is newer', () => {
    const prior = diff(
      baselined(),
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(1) })], 1)],
      context(1),
    ).state;
    const r = diff(
      prior,
      [
        obs(
          'v2.events',
          [
            {
              id: 'e1',
              type: 'ALERT',
              eventId: 'x',
              createdAt: at(2),
              alert: alert('a1', false, { startedAt: at(1), updatedAt: at(2) }),
            },
          ],
          3,
        ),
      ],
      context(3),
    );
    expect(r.events.map((e) => e.id)).toEqual([idOf(FIXED, `a1@${at(1)}`, 'fixed')]);
  });
});

describe('alerts absent from a complete list', () => {
  // The v2 list keeps fixed alerts: an older one stays listed while a1 comes and goes, so no list
  // here has a newest record older than the one before (that would be a stale list, ./absence.ts).
  const ENDED = alert('a0', false, { startedAt: at(-30), endedAt: at(1), updatedAt: at(1) });
  const withListedA1 = (): VehicleState =>
    diff(
      baselined(),
      [obs('v2.alerts', [ENDED, alert('a1', true, { startedAt: at(1), updatedAt: at(1) })], 1)],
      context(1),
    ).state;

  it('a first list without the alert tells nothing: the alert stays active, its absence in doubt', () => {
    const r = diff(withListedA1(), [obs('v2.alerts', [ENDED], 5)], context(5));
    expect(r.events).toEqual([]);
    expect(r.state.alerts['v2:a1']).toEqual({
      active: true,
      message: 'alertOilPressure',
      severity: 'high',
      startedAt: at(1),
      updatedAt: at(1),
      seenAt: at(1),
      missingSince: at(5),
    });
    expect(r.next.alertsUnconfirmed).toEqual(['v2:a1']);
    expect(r.next.alerts).toBe('now');
    expect(r.changed).toBe('state');
  });

  it('a second list a cycle later confirms it: fixed, reason "absent", ended when the first list missed it', () => {
    const doubt = diff(withListedA1(), [obs('v2.alerts', [ENDED], 5)], context(5)).state;
    const r = diff(doubt, [obs('v2.alerts', [ENDED], 6)], context(6));
    expect(told(r.events)).toEqual([
      {
        type: FIXED,
        id: idOf(FIXED, `a1@${at(1)}`, 'fixed'),
        occurredAt: at(5),
        data: {
          alertId: 'a1',
          occurrence: at(1),
          message: 'alertOilPressure',
          messageCode: 'alertOilPressure',
          severity: 'high',
          startedAt: at(1),
          endedAt: at(5),
          endedAtSource: 'observed',
          reason: 'absent',
          durationS: 240,
        },
      },
    ]);
    expect(r.events[0]?.detectedAt).toBe(at(6));
    expect(r.events[0]?.source).toEqual({ api: 'v2', operation: 'v2.vehicles.alerts', recordId: 'a1' });
    expect(r.state.alerts['v2:a1']).toEqual({
      active: false,
      message: 'alertOilPressure',
      severity: 'high',
      startedAt: at(1),
      updatedAt: at(1),
      seenAt: at(6),
    });
    expect(r.next.alertsUnconfirmed).toEqual([]);
    expect(r.state.cursors.alertsReconciledAt).toBe(at(6));
    expectValidEvents(r.events);
  });

  it('a second list sooner than absenceConfirmMs after the first confirms nothing; one at exactly that delay does', () => {
    const doubt = diff(withListedA1(), [obs('v2.alerts', [ENDED], 5)], context(5)).state;
    const soon = (s: number) => new Date(Date.parse(at(5)) + s * 1000).toISOString();
    const early = diff(doubt, [{ ...obs('v2.alerts', [ENDED], 5), fetchedAt: soon(29) }], context(6));
    expect(early.events).toEqual([]);
    expect(early.state.alerts['v2:a1']?.missingSince).toBe(at(5));
    const due = diff(doubt, [{ ...obs('v2.alerts', [ENDED], 5), fetchedAt: soon(30) }], context(6));
    expect(typesOf(due.events)).toEqual([FIXED]);
    const slower = diff(
      doubt,
      [{ ...obs('v2.alerts', [ENDED], 5), fetchedAt: soon(60) }],
      context(6, { absenceConfirmMs: 90_000 }),
    );
    expect(slower.events).toEqual([]);
  });

  it('the record read by id, ended, confirms it at once with the end the API gives', () => {
    const doubt = diff(withListedA1(), [obs('v2.alerts', [ENDED], 5)], context(5)).state;
    const record = alert('a1', false, { startedAt: at(1), updatedAt: at(4) });
    const r = diff(doubt, [obs('v2.alerts', [record], 5, { complete: false })], context(5));
    expect(told(r.events)).toEqual([
      {
        type: FIXED,
        id: idOf(FIXED, `a1@${at(1)}`, 'fixed'),
        occurredAt: at(4),
        data: {
          alertId: 'a1',
          occurrence: at(1),
          message: 'alertOilPressure',
          messageCode: 'alertOilPressure',
          severity: 'high',
          startedAt: at(1),
          endedAt: at(4),
          endedAtSource: 'api',
          reason: 'inactive',
          durationS: 180,
        },
      },
    ]);
    expect(r.state.alerts['v2:a1']).toEqual({
      active: false,
      message: 'alertOilPressure',
      severity: 'high',
      startedAt: at(1),
      updatedAt: at(4),
      seenAt: at(5),
    });
  });

  it('the record read by id, still active, answers the doubt: nothing told, the doubt dropped', () => {
    const doubt = diff(withListedA1(), [obs('v2.alerts', [ENDED], 5)], context(5)).state;
    const record = alert('a1', true, { startedAt: at(1), updatedAt: at(1) });
    const r = diff(doubt, [obs('v2.alerts', [record], 5, { complete: false })], context(5));
    expect(r.events).toEqual([]);
    expect(r.state.alerts['v2:a1']).toEqual({
      active: true,
      message: 'alertOilPressure',
      severity: 'high',
      startedAt: at(1),
      updatedAt: at(1),
      seenAt: at(5),
    });
    expect(r.next.alertsUnconfirmed).toEqual([]);
  });

  it('an older copy of the record answers nothing: the doubt stays', () => {
    const ended = { ...ENDED, updatedAt: at(2) };
    const listed = diff(
      baselined(),
      [obs('v2.alerts', [ended, alert('a1', true, { startedAt: at(1), updatedAt: at(2) })], 2)],
      context(2),
    ).state;
    const doubt = diff(listed, [obs('v2.alerts', [ended], 5)], context(5)).state;
    const copy = alert('a1', true, { startedAt: at(1), updatedAt: at(1) });
    const r = diff(doubt, [obs('v2.alerts', [copy], 5, { complete: false })], context(5));
    expect(r.events).toEqual([]);
    expect(r.changed).not.toBe('state');
    expect(r.state.alerts['v2:a1']?.missingSince).toBe(at(5));
  });

  it('with confirmAbsences off (the benchmark switch), the first list fixes it at its read, as before', () => {
    const off = { confirmAbsences: false };
    const start = diff(
      baselined(off),
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(1), updatedAt: at(1) })], 1)],
      context(1, off),
    ).state;
    const r = diff(start, [obs('v2.alerts', [], 5)], context(5, off));
    expect(told(r.events)).toEqual([
      {
        type: FIXED,
        id: idOf(FIXED, `a1@${at(1)}`, 'fixed'),
        occurredAt: at(5),
        data: {
          alertId: 'a1',
          occurrence: at(1),
          message: 'alertOilPressure',
          messageCode: 'alertOilPressure',
          severity: 'high',
          startedAt: at(1),
          endedAt: at(5),
          endedAtSource: 'observed',
          reason: 'absent',
          durationS: 240,
        },
      },
    ]);
    expect(r.stale).toEqual([]);
  });

  it('a partial list fixes nothing, raises no doubt and is not a reconciliation', () => {
    const r = diff(withActiveA1(), [obs('v2.alerts', [], 5, { complete: false })], context(5));
    expect(r.events).toEqual([]);
    expect(r.state.alerts['v2:a1']?.active).toBe(true);
    expect(r.state.alerts['v2:a1']?.missingSince).toBeUndefined();
    expect(r.state.cursors.alertsReconciledAt).toBe(at(1));
  });

  it('a complete v1 list does not fix a v2 alert, nor a v2 list a v1 alert', () => {
    const both = diff(
      withListedA1(),
      [obs('v1.alerts', [v1Alert('b1', 1, { dateAlertBegin: at(2) })], 2)],
      context(2),
    ).state;
    const v1Empty = runPolls(both, [
      { minute: 5, observations: [obs('v1.alerts', [], 5)] },
      { minute: 6, observations: [obs('v1.alerts', [], 6)] },
    ]);
    expect(v1Empty.events.map((e) => e.id)).toEqual([idOf(FIXED, `b1@${at(2)}`, 'fixed')]);
    expect(v1Empty.last.state.alerts['v2:a1']).toMatchObject({ active: true });
    expect(v1Empty.last.state.alerts['v2:a1']?.missingSince).toBeUndefined();
    const v2Empty = runPolls(both, [
      { minute: 5, observations: [obs('v2.alerts', [ENDED], 5)] },
      { minute: 6, observations: [obs('v2.alerts', [ENDED], 6)] },
    ]);
    expect(v2Empty.events.map((e) => e.id)).toEqual([idOf(FIXED, `a1@${at(1)}`, 'fixed')]);
    expect(v2Empty.last.state.alerts['v1:b1']).toMatchObject({ active: true });
    expect(v2Empty.last.state.alerts['v1:b1']?.missingSince).toBeUndefined();
  });

  it('an alert seen at or after the list was read is not doubted by it', () => {
    const seenAt5 = diff(
      baselined(),
      [obs('v2.alerts', [alert('a1', true, { startedAt: at(1) })], 5)],
      context(5),
    ).state;
    expect(diff(seenAt5, [obs('v2.alerts', [], 4)], context(6)).state.alerts['v2:a1']?.missingSince).toBe(
      undefined,
    );
    expect(diff(seenAt5, [obs('v2.alerts', [], 5)], context(6)).state.alerts['v2:a1']?.missingSince).toBe(
      undefined,
    );
    expect(diff(seenAt5, [obs('v2.alerts', [], 6)], context(6)).state.alerts['v2:a1']?.missingSince).toBe(
      at(6),
    );
  });

  describe('a windowed list only speaks for alerts that started inside its window', () => {
    const prior = () =>
      diff(
        baselined(),
        [
          obs(
            'v2.alerts',
            [
              alert('early', true, { startedAt: at(1) }),
              alert('edge', true, { startedAt: at(2) }),
              alert('inside', true, { startedAt: at(3) }),
              alert('end', true, { startedAt: at(4) }),
              alert('late', true, { startedAt: at(5) }),
              alert('nostart', true, { startedAt: undefined }),
            ],
            5,
          ),
        ],
        context(5),
      ).state;
    const fixedIds = (window: { since?: string; until?: string }) =>
      runPolls(prior(), [
        { minute: 6, observations: [obs('v2.alerts', [], 6, { window })] },
        { minute: 7, observations: [obs('v2.alerts', [], 7, { window })] },
      ]).events.map((e) => (e.data as { alertId: string }).alertId);

    it('since and until: starts from since to until, both included', () => {
      expect(fixedIds({ since: at(2), until: at(4) })).toEqual(['edge', 'inside', 'end']);
    });
    it('since only: until is the read time', () => {
      expect(fixedIds({ since: at(2) })).toEqual(['edge', 'inside', 'end', 'late']);
    });
    it('until only', () => {
      expect(fixedIds({ until: at(3) })).toEqual(['early', 'edge', 'inside']);
      const r = diff(prior(), [obs('v2.alerts', [], 6, { window: { until: at(3) } })], context(6));
      expect(r.state.cursors.alertsReconciledAt).toBe(at(5));
    });
    it('a windowed list does not move the reconciliation cursor', () => {
      const r = diff(prior(), [obs('v2.alerts', [], 6, { window: { since: at(2) } })], context(6));
      expect(r.state.cursors.alertsReconciledAt).toBe(at(5));
    });
  });
});

describe('v1 alerts', () => {
  it('raised with the v1 fields mapped: text, advice, category; no severity', () => {
    const r = diff(baselined(), [obs('v1.alerts', [v1Alert('b1', 1, { dateUpdate: at(1) })], 2)], context(2));
    expect(told(r.events)).toEqual([
      {
        type: RAISED,
        id: idOf(RAISED, `b1@${at(1)}`, 'raised'),
        occurredAt: at(1),
        data: {
          alertId: 'b1',
          occurrence: at(1),
          message: 'Pression huile moteur insuffisante',
          localizedText: 'Pression huile moteur insuffisante',
          advice: 'Arrêtez le véhicule',
          category: 'engine',
          startedAt: at(1),
          initial: false,
        },
      },
    ]);
    expect(r.events[0]?.source).toEqual({
      api: 'v1',
      operation: 'v1.maintenance.alert.list',
      recordId: 'b1',
    });
    expect(r.state.alerts['v1:b1']).toEqual({
      active: true,
      message: 'Pression huile moteur insuffisante',
      category: 'engine',
      startedAt: at(1),
      updatedAt: at(1),
      seenAt: at(2),
    });
    expectValidEvents(r.events);
  });

  it.each([
    ['state 1 with an end date', 1, at(3)],
    ['state 0 with an end date', 0, at(3)],
    ['state 0 without an end date', 0, undefined],
  ] as const)('%s is ended: a stored active alert is fixed', (_name, alertState, dateAlertEnd) => {
    const active = diff(baselined(), [obs('v1.alerts', [v1Alert('b1', 1)], 2)], context(2)).state;
    const r = diff(
      active,
      [obs('v1.alerts', [v1Alert('b1', alertState, { dateAlertEnd, dateUpdate: at(4) })], 5)],
      context(5),
    );
    expect(
      r.events.map((e) => [e.type, e.id, e.occurredAt, (e.data as { endedAt?: string }).endedAt]),
    ).toEqual([[FIXED, idOf(FIXED, `b1@${at(1)}`, 'fixed'), dateAlertEnd ?? at(4), dateAlertEnd ?? at(4)]]);
    expect(r.state.alerts['v1:b1']?.active).toBe(false);
  });
});

describe('the floor: forgotten fixed alerts do not come back', () => {
  // maxFixedAlerts 2 keeps floor(2 × 0.9) = 1 fixed alert once the bound is passed.
  const config = { maxFixedAlerts: 2 };
  const forgetting = () => {
    const fixedList = [
      alert('f1', false, { startedAt: at(1), endedAt: at(2) }),
      alert('f2', false, { startedAt: at(3), endedAt: at(4) }),
      alert('f3', false, { startedAt: at(5), endedAt: at(6) }),
    ];
    return diff(baselined(config), [obs('v2.alerts', fixedList, 7, { complete: false })], context(7, config));
  };

  it('pruning keeps the newest fixed alerts and remembers the newest start and read of the rest', () => {
    const r = forgetting();
    expect(Object.keys(r.state.alerts)).toEqual(['v2:f3']);
    expect(r.state.alertFloor).toEqual({ startedAt: at(3), seenAt: at(7) });
  });

  it('a forgotten ended alert read again is neither told nor stored', () => {
    const r = diff(
      forgetting().state,
      [obs('v2.alerts', [alert('f1', false, { startedAt: at(1), endedAt: at(2) })], 9, { complete: false })],
      context(9, config),
    );
    expect(r.events).toEqual([]);
    expect(r.state.alerts['v2:f1']).toBeUndefined();
  });

  it('an alert starting exactly at the floor is still forgotten; one starting after it is new', () => {
    const prior = forgetting().state;
    const atFloor = diff(
      prior,
      [obs('v2.alerts', [alert('x', false, { startedAt: at(3), endedAt: at(8) })], 9, { complete: false })],
      context(9, config),
    );
    expect(atFloor.events).toEqual([]);
    const after = diff(
      prior,
      [obs('v2.alerts', [alert('y', false, { startedAt: at(3.5), endedAt: at(8) })], 9, { complete: false })],
      context(9, config),
    );
    expect(typesOf(after.events)).toEqual([RAISED, FIXED]);
  });

  it('an active alert under the floor counts when read after the floor was set, not when read before', () => {
    const prior: VehicleState = { ...baselined(), alertFloor: { startedAt: at(3), seenAt: at(7) } };
    const before = diff(prior, [obs('v2.alerts', [alert('f2', true, { startedAt: at(3) })], 6)], context(8));
    expect(before.events).toEqual([]);
    const atSeen = diff(prior, [obs('v2.alerts', [alert('f2', true, { startedAt: at(3) })], 7)], context(8));
    expect(atSeen.events.map((e) => e.id)).toEqual([idOf(RAISED, `f2@${at(3)}`, 'raised')]);
  });

  it('a floor without a start, or an alert without one, does not hide anything', () => {
    const noStart: VehicleState = { ...baselined(), alertFloor: { seenAt: at(7) } };
    expect(
      typesOf(
        diff(noStart, [obs('v2.alerts', [alert('f2', true, { startedAt: at(3) })], 6)], context(8)).events,
      ),
    ).toEqual([RAISED]);
    const floored: VehicleState = { ...baselined(), alertFloor: { startedAt: at(3), seenAt: at(7) } };
    expect(
      typesOf(
        diff(floored, [obs('v2.alerts', [alert('f2', true, { startedAt: undefined })], 6)], context(8))
          .events,
      ),
    ).toEqual([RAISED]);
  });
});
