/**
 * Stale and flapping answers: an API answering with an older cached copy of a list, or with a list
 * that misses one item once. Each scenario gives the exact events a subscriber receives and the
 * stored entry, for v2 and v1 (detection README, "Stale and flapping answers"). Before absences
 * were confirmed, the alert scenarios each told two false events (a fix, then a re-raise `#1`).
 */
import { describe, expect, it } from 'vitest';
import type { V1Alert, V1Crash, V1Maintenance, V1Trip } from '../../functions/core/api/model';
import { diff } from '../../functions/core/detection/diff';
import type { Observation } from '../../functions/core/detection/observations';
import type { VehicleState } from '../../functions/core/detection/state';
import { idOf } from './behaviour';
import { alert, at, baselined, collision, context, obs, runPolls, trip, vehicleEvent } from './fixtures';

const RAISED = 'vehicle.alert.raised';
const FIXED = 'vehicle.alert.fixed';

/** Type, id and occurrence of each event, in order. */
const told = (events: readonly { type: string; id: string; data: unknown }[]) =>
  events.map((e) => [e.type, e.id, (e.data as { occurrence?: string }).occurrence]);

const v1Alert = (idAlert: string, alertState: number, extra: Partial<V1Alert> = {}): V1Alert => ({
  vin: 'VF3ABCDEFGH123456',
  contract: 'C-1',
  idAlert,
  alert: 'Pression huile moteur insuffisante',
  category: 'engine',
  alertState,
  dateAlertBegin: at(1),
  dateUpdate: at(1),
  ...extra,
});

/** Polls at the given minutes (each observation fetched at its poll's minute). */
const polls = (start: VehicleState, steps: readonly [number, Observation[]][]) =>
  runPolls(
    start,
    steps.map(([minute, observations]) => ({ minute, observations })),
  );

// The v2 list keeps fixed alerts: B ended before A started, and stays listed.
const B = alert('b', false, { startedAt: at(-30), endedAt: at(-20), updatedAt: at(-20) });
const A = alert('a', true, { startedAt: at(1), updatedAt: at(1) });
const A_RAISED = idOf(RAISED, `a@${at(1)}`, 'raised');
const A_FIXED = idOf(FIXED, `a@${at(1)}`, 'fixed');

describe('v2: an alert list from before an active alert', () => {
  it('once the alert was listed, the old answer is stale (its newest record is older): nothing told, counted', () => {
    const { events, last } = polls(baselined(), [
      [1, [obs('v2.alerts', [B], 1)]],
      [2, [obs('v2.alerts', [B, A], 2)]],
      // The answer the path gave at minute 1, served at minute 3.
      [3, [obs('v2.alerts', [B], 3)]],
    ]);
    expect(told(events)).toEqual([[RAISED, A_RAISED, at(1)]]);
    expect(last.stale).toEqual([
      {
        observation: 0,
        source: 'v2.alerts',
        reason: `newest record ${at(-20)} is older than ${at(1)}, the newest this list held before`,
      },
    ]);
    expect(last.state.alerts['v2:a']).toEqual({
      active: true,
      message: 'alertOilPressure',
      severity: 'high',
      startedAt: at(1),
      updatedAt: at(1),
      seenAt: at(2),
    });
    // A stale list is no reconciliation.
    expect(last.state.cursors.alertsReconciledAt).toBe(at(2));
    const fresh = diff(last.state, [obs('v2.alerts', [B, A], 4)], context(4));
    expect(fresh.events).toEqual([]);
    expect(fresh.stale).toEqual([]);
  });

  it('known only from the events feed, the old answer makes a doubt; the record read by id answers it: nothing told', () => {
    const { events, last } = polls(baselined(), [
      [1, [obs('v2.alerts', [B], 1)]],
      [2, [obs('v2.events', [vehicleEvent('e1', 'ALERT', 1, { alert: A })], 2)]],
      [3, [obs('v2.alerts', [B], 3)]],
    ]);
    expect(told(events)).toEqual([[RAISED, A_RAISED, at(1)]]);
    expect(last.state.alerts['v2:a']?.missingSince).toBe(at(3));
    expect(last.next.alertsUnconfirmed).toEqual(['v2:a']);
    const record = diff(last.state, [obs('v2.alerts', [A], 3, { complete: false })], context(3));
    expect(record.events).toEqual([]);
    expect(record.state.alerts['v2:a']).toEqual({
      active: true,
      message: 'alertOilPressure',
      severity: 'high',
      startedAt: at(1),
      updatedAt: at(1),
      seenAt: at(3),
    });
    expect(record.next.alertsUnconfirmed).toEqual([]);
  });
});

describe('v1: an active-alert list from before an active alert', () => {
  it('makes a doubt; the inactive list does not hold it; the next active list does: nothing told', () => {
    const { events, last } = polls(baselined(), [
      [2, [obs('v1.alerts', [v1Alert('17', 1)], 2)]],
      // The answer from before the alert, then the inactive list read for it (it is not there).
      [3, [obs('v1.alerts', [], 3), obs('v1.alerts', [], 3, { complete: false })]],
      [4, [obs('v1.alerts', [v1Alert('17', 1)], 4)]],
    ]);
    expect(told(events)).toEqual([[RAISED, idOf(RAISED, `17@${at(1)}`, 'raised'), at(1)]]);
    expect(last.state.alerts['v1:17']).toEqual({
      active: true,
      message: 'Pression huile moteur insuffisante',
      category: 'engine',
      startedAt: at(1),
      updatedAt: at(1),
      seenAt: at(4),
    });
    expect(last.next.alertsUnconfirmed).toEqual([]);
  });
});

describe('a list where a fixed alert is still active (an answer from before the fix)', () => {
  const V1_RAISED = idOf(RAISED, `17@${at(1)}`, 'raised');
  const V1_FIXED = idOf(FIXED, `17@${at(1)}`, 'fixed');

  it('v1, fixed by two active lists without it: the old copy re-raises nothing, and is counted', () => {
    const { events, last } = polls(baselined(), [
      [2, [obs('v1.alerts', [v1Alert('17', 1)], 2)]],
      [3, [obs('v1.alerts', [], 3)]],
      [4, [obs('v1.alerts', [], 4)]],
      // The answer of minute 2, served at minute 5; then a fresh one.
      [5, [obs('v1.alerts', [v1Alert('17', 1)], 5)]],
      [6, [obs('v1.alerts', [], 6)]],
    ]);
    expect(told(events)).toEqual([
      [RAISED, V1_RAISED, at(1)],
      [FIXED, V1_FIXED, at(1)],
    ]);
    expect(events[1]?.data).toMatchObject({ reason: 'absent', endedAt: at(3), endedAtSource: 'observed' });
    expect(last.state.alerts['v1:17']).toEqual({
      active: false,
      message: 'Pression huile moteur insuffisante',
      category: 'engine',
      startedAt: at(1),
      updatedAt: at(1),
      seenAt: at(4),
    });
  });

  it('v1, the stale copy is reported with the reason', () => {
    const fixed = polls(baselined(), [
      [2, [obs('v1.alerts', [v1Alert('17', 1)], 2)]],
      [3, [obs('v1.alerts', [], 3)]],
      [4, [obs('v1.alerts', [], 4)]],
    ]).last.state;
    const r = diff(fixed, [obs('v1.alerts', [v1Alert('17', 1)], 5)], context(5));
    expect(r.events).toEqual([]);
    expect(r.changed).not.toBe('state');
    expect(r.stale).toEqual([
      {
        observation: 0,
        source: 'v1.alerts',
        reason: `alert 17 listed active as of ${at(1)}, the record it had before it ended`,
      },
    ]);
  });

  it('v1, fixed by its inactive record: the old active copy is older than the end, and re-raises nothing', () => {
    const { events } = polls(baselined(), [
      [2, [obs('v1.alerts', [v1Alert('17', 1)], 2)]],
      [
        3,
        [
          obs('v1.alerts', [], 3),
          obs('v1.alerts', [v1Alert('17', 0, { dateAlertEnd: at(3), dateUpdate: at(3) })], 3, {
            complete: false,
          }),
        ],
      ],
      [5, [obs('v1.alerts', [v1Alert('17', 1)], 5)]],
    ]);
    expect(told(events)).toEqual([
      [RAISED, V1_RAISED, at(1)],
      [FIXED, V1_FIXED, at(1)],
    ]);
    expect(events[1]?.data).toMatchObject({ reason: 'inactive', endedAt: at(3), endedAtSource: 'api' });
  });

  it('v2, an alert that left the list (confirmed): the old copy listing it active re-raises nothing', () => {
    const { events, last } = polls(baselined(), [
      [2, [obs('v2.alerts', [B, A, alert('c', false, { startedAt: at(-9), updatedAt: at(1) })], 2)]],
      [3, [obs('v2.alerts', [B, alert('c', false, { startedAt: at(-9), updatedAt: at(1) })], 3)]],
      [4, [obs('v2.alerts', [B, alert('c', false, { startedAt: at(-9), updatedAt: at(1) })], 4)]],
      [5, [obs('v2.alerts', [B, A, alert('c', false, { startedAt: at(-9), updatedAt: at(1) })], 5)]],
    ]);
    expect(told(events)).toEqual([
      [RAISED, A_RAISED, at(1)],
      [FIXED, A_FIXED, at(1)],
    ]);
    expect(last.state.alerts['v2:a']?.active).toBe(false);
    expect(last.stale.map((s) => s.reason)).toEqual([
      `alert a listed active as of ${at(1)}, the record it had before it ended`,
    ]);
  });
});

describe('a list missing an active alert once', () => {
  it('v2: a doubt, answered by the next list: nothing told', () => {
    const { events, last } = polls(baselined(), [
      [2, [obs('v2.alerts', [B, A], 2)]],
      // B updated since keeps this list's newest ahead of A: the list is not stale, A is in doubt.
      [3, [obs('v2.alerts', [{ ...B, updatedAt: at(2) }], 3)]],
      [4, [obs('v2.alerts', [{ ...B, updatedAt: at(2) }, A], 4)]],
    ]);
    expect(told(events)).toEqual([[RAISED, A_RAISED, at(1)]]);
    expect(last.state.alerts['v2:a']).toEqual({
      active: true,
      message: 'alertOilPressure',
      severity: 'high',
      startedAt: at(1),
      updatedAt: at(1),
      seenAt: at(4),
    });
    expect(last.stale).toEqual([]);
  });

  it('v2: the doubt is in the hints until answered', () => {
    const doubt = polls(baselined(), [
      [2, [obs('v2.alerts', [B, A], 2)]],
      [3, [obs('v2.alerts', [{ ...B, updatedAt: at(2) }], 3)]],
    ]).last;
    expect(doubt.events).toEqual([]);
    expect(doubt.next).toMatchObject({ alerts: 'now', hasActiveAlerts: true, alertsUnconfirmed: ['v2:a'] });
  });

  it('v1: a doubt, answered by the next active list: nothing told', () => {
    const { events, last } = polls(baselined(), [
      [2, [obs('v1.alerts', [v1Alert('17', 1), v1Alert('18', 1)], 2)]],
      [3, [obs('v1.alerts', [v1Alert('18', 1)], 3)]],
      [4, [obs('v1.alerts', [v1Alert('17', 1), v1Alert('18', 1)], 4)]],
    ]);
    expect(told(events)).toEqual([
      [RAISED, idOf(RAISED, `17@${at(1)}`, 'raised'), at(1)],
      [RAISED, idOf(RAISED, `18@${at(1)}`, 'raised'), at(1)],
    ]);
    expect(last.state.alerts['v1:17']?.missingSince).toBeUndefined();
    expect(last.state.alerts['v1:17']?.active).toBe(true);
  });
});

describe('a real re-opening is told', () => {
  it('v2: the same start, a record updated after the fix: occurrence #1', () => {
    const { events } = polls(baselined(), [
      [2, [obs('v2.alerts', [B, A], 2)]],
      [3, [obs('v2.alerts', [B, { ...A, active: false, updatedAt: at(3) }], 3)]],
      [5, [obs('v2.alerts', [B, { ...A, updatedAt: at(4) }], 5)]],
    ]);
    expect(told(events)).toEqual([
      [RAISED, A_RAISED, at(1)],
      [FIXED, A_FIXED, at(1)],
      [RAISED, idOf(RAISED, `a@${at(1)}#1`, 'raised'), `${at(1)}#1`],
    ]);
  });

  it('v2: a later start is a new occurrence', () => {
    const { events } = polls(baselined(), [
      [2, [obs('v2.alerts', [B, A], 2)]],
      [3, [obs('v2.alerts', [B, { ...A, active: false, updatedAt: at(3) }], 3)]],
      [9, [obs('v2.alerts', [B, alert('a', true, { startedAt: at(8), updatedAt: at(8) })], 9)]],
    ]);
    expect(told(events)).toEqual([
      [RAISED, A_RAISED, at(1)],
      [FIXED, A_FIXED, at(1)],
      [RAISED, idOf(RAISED, `a@${at(8)}`, 'raised'), at(8)],
    ]);
  });

  it('v1: fixed by confirmation, then listed with a newer dateUpdate: occurrence #1', () => {
    const { events } = polls(baselined(), [
      [2, [obs('v1.alerts', [v1Alert('17', 1)], 2)]],
      [3, [obs('v1.alerts', [], 3)]],
      [4, [obs('v1.alerts', [], 4)]],
      [6, [obs('v1.alerts', [v1Alert('17', 1, { dateUpdate: at(5) })], 6)]],
    ]);
    expect(told(events)).toEqual([
      [RAISED, idOf(RAISED, `17@${at(1)}`, 'raised'), at(1)],
      [FIXED, idOf(FIXED, `17@${at(1)}`, 'fixed'), at(1)],
      [RAISED, idOf(RAISED, `17@${at(1)}#1`, 'raised'), `${at(1)}#1`],
    ]);
  });

  it('v1: a new id is raised whatever the list', () => {
    const { events } = polls(baselined(), [
      [2, [obs('v1.alerts', [v1Alert('17', 1)], 2)]],
      [3, [obs('v1.alerts', [v1Alert('19', 1, { dateAlertBegin: at(3), dateUpdate: at(3) })], 3)]],
    ]);
    expect(told(events)).toEqual([
      [RAISED, idOf(RAISED, `17@${at(1)}`, 'raised'), at(1)],
      [RAISED, idOf(RAISED, `19@${at(3)}`, 'raised'), at(3)],
    ]);
  });
});

describe('lists of records told once (trips, collisions, refuels, maintenance): a stale copy re-tells nothing', () => {
  it('v2: a stale events list, collision and trip lists', () => {
    const refuel = vehicleEvent('e2', 'REFUEL', 2, { eventId: 'r1', record: { id: 'r1', liters: 30 } });
    const fresh: Observation[] = [
      obs('v2.events', [vehicleEvent('e1', 'COLLISION', 1, { collision: collision('c1') }), refuel], 2),
      obs('v2.collisions', [collision('c1')], 2),
      obs('v2.trips', [trip('t1', 1)], 2),
    ];
    const first = diff(baselined({ ecoDrivingWaitMs: 0 }), fresh, context(2, { ecoDrivingWaitMs: 0 }));
    expect(first.events.map((e) => e.type)).toEqual([
      'vehicle.collision.detected',
      'vehicle.refuel.detected',
      'vehicle.trip.completed',
    ]);
    // The same answers, and older ones (before the records), served later.
    const later = diff(
      first.state,
      [
        ...fresh.map((o) => ({ ...o, fetchedAt: at(5) })),
        obs('v2.events', [], 5, { window: { since: at(0) } }),
        obs('v2.collisions', [], 5),
        obs('v2.trips', [], 5),
      ],
      context(5, { ecoDrivingWaitMs: 0 }),
    );
    expect(later.events).toEqual([]);
  });

  it('v1: stale crash and trip lists', () => {
    const crash: V1Crash = {
      vin: 'VF3ABCDEFGH123456',
      contract: 'C-1',
      lastUpdate: at(1),
      raw: { highFrontCrashInfo: { '6': 1 } },
    };
    const v1Trip: V1Trip = {
      vin: 'VF3ABCDEFGH123456',
      contract: 'C-1',
      tripId: 7,
      dateTripBegin: at(1),
      durationS: 60,
      raw: {},
    };
    const first = diff(baselined(), [obs('v1.crash', [crash], 3), obs('v1.trips', [v1Trip], 3)], context(3));
    expect(first.events.map((e) => e.type)).toEqual(['vehicle.collision.detected', 'vehicle.trip.completed']);
    const later = diff(
      first.state,
      [
        obs('v1.crash', [crash], 5),
        obs('v1.trips', [v1Trip], 5),
        obs('v1.crash', [], 6),
        obs('v1.trips', [], 6),
      ],
      context(6),
    );
    expect(later.events).toEqual([]);
  });

  it('v2 and v1: an older maintenance reading (due) after a newer one (fine) tells nothing', () => {
    const v2 = polls(baselined(), [
      [2, [obs('v2.maintenance', [{ days: 200, mileage: 9000, updatedAt: at(2) }], 2)]],
      [3, [obs('v2.maintenance', [{ days: 10, mileage: 300, updatedAt: at(1) }], 3)]],
    ]);
    expect(v2.events).toEqual([]);
    expect(v2.last.state.maintenance).toMatchObject({ days: 200, mileageKm: 9000 });
    const reading = (days: number, lastUpdate: string): V1Maintenance => ({
      vin: 'VF3ABCDEFGH123456',
      contract: 'C-1',
      days,
      mileage: days * 40,
      lastUpdate,
    });
    const v1 = polls(baselined(), [
      [2, [obs('v1.maintenance', [reading(200, at(2))], 2)]],
      [3, [obs('v1.maintenance', [reading(10, at(1))], 3)]],
    ]);
    expect(v1.events).toEqual([]);
    expect(v1.last.state.maintenance).toMatchObject({ days: 200 });
  });
});

describe('stale alert lists: each rule, the reason counted, and what a stale list still does', () => {
  const C = alert('c', true, { startedAt: at(2), updatedAt: at(2) });

  it('a list holding a record older than the one applied is stale: a missing alert is not doubted', () => {
    const known = polls(baselined(), [[3, [obs('v2.alerts', [B, { ...A, updatedAt: at(3) }, C], 3)]]]).last
      .state;
    const r = diff(known, [obs('v2.alerts', [B, { ...A, updatedAt: at(1) }], 4)], context(4));
    expect(r.events).toEqual([]);
    expect(r.stale).toEqual([
      {
        observation: 0,
        source: 'v2.alerts',
        reason: `alert a as of ${at(1)}, older than the record of ${at(3)} already applied`,
      },
    ]);
    expect(r.state.alerts['v2:c']?.missingSince).toBeUndefined();
    expect(r.state.alerts['v2:a']?.updatedAt).toBe(at(3));
    // A stale list is no reconciliation either.
    expect(r.state.cursors.alertsReconciledAt).toBe(at(3));
  });

  it('a record without a time proves nothing either way: the list is judged on the others', () => {
    const known = polls(baselined(), [[3, [obs('v2.alerts', [B, A, C], 3)]]]).last.state;
    // B updated since keeps the list's newest record ahead of the one it held (C's).
    const r = diff(
      known,
      [
        obs(
          'v2.alerts',
          [
            { ...B, updatedAt: at(3) },
            { ...A, updatedAt: undefined },
          ],
          4,
        ),
      ],
      context(4),
    );
    expect(r.stale).toEqual([]);
    expect(r.state.alerts['v2:c']?.missingSince).toBe(at(4));
  });

  it('an ended alert listed active with a newer record is a re-opening, not a stale copy: the list still doubts', () => {
    const ended = polls(baselined(), [
      [3, [obs('v2.alerts', [B, A, C], 3)]],
      [4, [obs('v2.alerts', [B, { ...A, active: false, updatedAt: at(4) }, C], 4)]],
    ]).last.state;
    const r = diff(ended, [obs('v2.alerts', [B, { ...A, updatedAt: at(5) }], 6)], context(6));
    expect(r.stale).toEqual([]);
    expect(told(r.events)).toEqual([[RAISED, idOf(RAISED, `a@${at(1)}#1`, 'raised'), `${at(1)}#1`]]);
    expect(r.state.alerts['v2:c']?.missingSince).toBe(at(6));
  });

  it('an active copy with another start than the ended entry is judged by its start, not taken for a copy', () => {
    const ended = polls(baselined(), [
      [3, [obs('v2.alerts', [B, A, C], 3)]],
      [4, [obs('v2.alerts', [B, { ...A, active: false, updatedAt: at(4) }, C], 4)]],
    ]).last.state;
    const earlier = { ...A, startedAt: at(0), updatedAt: at(4) };
    const r = diff(ended, [obs('v2.alerts', [B, earlier, C], 6)], context(6));
    expect(r.stale).toEqual([]);
    expect(r.events).toEqual([]);
  });

  describe('the newest record a complete v2 list held (the list keeps fixed alerts, so it never goes back)', () => {
    const listed = () => polls(baselined(), [[3, [obs('v2.alerts', [B, A, C], 3)]]]).last.state;
    const sec = (minute: number, s: number) => ({
      ...obs('v2.alerts', [B], minute),
      fetchedAt: new Date(Date.parse(at(minute)) + s * 1000).toISOString(),
    });

    it('is the newest updatedAt of the list, whatever the order and records without one', () => {
      const late = alert('d', false, { startedAt: at(2), endedAt: at(2) });
      const r = diff(baselined(), [obs('v2.alerts', [C, late, B], 3)], context(3));
      expect(r.state.cursors.alertsNewest).toEqual({ at: at(2) });
      const none = diff(baselined(), [obs('v2.alerts', [late], 3)], context(3));
      expect(none.state.cursors.alertsNewest).toBeUndefined();
    });

    it('a list without its newest record is stale, told with the newest it held; an empty one says none', () => {
      const r = diff(listed(), [obs('v2.alerts', [], 4)], context(4));
      expect(r.stale.map((x) => x.reason)).toEqual([
        `newest record (none) is older than ${at(2)}, the newest this list held before`,
      ]);
      expect(r.state.cursors.alertsNewest).toEqual({ at: at(2), lowerSince: at(4) });
      expect(r.state.alerts['v2:a']?.missingSince).toBeUndefined();
    });

    it('a second lower list sooner than absenceConfirmMs is stale too and keeps the first time; one at that delay lowers the mark', () => {
      const first = diff(listed(), [sec(4, 0)], context(4));
      const soon = diff(first.state, [sec(4, 29)], context(5));
      expect(soon.stale).toHaveLength(1);
      expect(soon.state.cursors.alertsNewest).toEqual({ at: at(2), lowerSince: at(4) });
      const due = diff(soon.state, [sec(4, 30)], context(5));
      expect(due.stale).toEqual([]);
      expect(due.state.cursors.alertsNewest).toEqual({ at: at(-20) });
      // Accepted, the list's absences count: A and C are in doubt.
      expect(due.next.alertsUnconfirmed).toEqual(['v2:a', 'v2:c']);
    });

    it('a list back at the mark clears the first lower time, so a later lower list waits again', () => {
      const lower = diff(listed(), [sec(4, 0)], context(4));
      const back = diff(lower.state, [obs('v2.alerts', [B, A, C], 5)], context(5));
      expect(back.stale).toEqual([]);
      expect(back.state.cursors.alertsNewest).toEqual({ at: at(2) });
      const again = diff(back.state, [sec(6, 0)], context(6));
      expect(again.stale).toHaveLength(1);
      expect(again.state.cursors.alertsNewest).toEqual({ at: at(2), lowerSince: at(6) });
    });

    it('a windowed list neither moves the mark nor is judged by it', () => {
      const r = diff(listed(), [obs('v2.alerts', [], 4, { window: { since: at(1) } })], context(4));
      expect(r.stale).toEqual([]);
      expect(r.state.cursors.alertsNewest).toEqual({ at: at(2) });
      expect(r.next.alertsUnconfirmed).toEqual(['v2:a', 'v2:c']);
    });

    it('v1 lists have no mark: a fix removes the newest record of the active list', () => {
      const r = polls(baselined(), [
        [2, [obs('v1.alerts', [v1Alert('17', 1), v1Alert('18', 1, { dateUpdate: at(2) })], 2)]],
        [3, [obs('v1.alerts', [v1Alert('17', 1)], 3)]],
      ]).last;
      expect(r.stale).toEqual([]);
      expect(r.state.cursors.alertsNewest).toBeUndefined();
      expect(r.next.alertsUnconfirmed).toEqual(['v1:18']);
    });
  });
});
