import { describe, expect, it } from 'vitest';
import type { MapUpdateInfo, ServiceEligibility } from '../../functions/core/api/model';
import { applyMaintenance } from '../../functions/core/detection/conditions';
import { diff } from '../../functions/core/detection/diff';
import type { VehicleState } from '../../functions/core/detection/state';
import { Work } from '../../functions/core/detection/work';
import { idOf, told, typesOf } from './behaviour';
import { at, baselined, context, expectValidEvents, obs, runPolls } from './fixtures';

const DUE = 'vehicle.maintenance.due';
const OVERDUE = 'vehicle.maintenance.overdue';
const RESET = 'vehicle.maintenance.reset';
const SERVICES = 'vehicle.services.changed';
const MAP = 'vehicle.map_update.available';
const VIN = 'VF3ABCDEFGH123456';

const reading = (days: number | undefined, mileage: number | undefined, updatedAt?: string) =>
  ({ days, mileage, ...(updatedAt === undefined ? {} : { updatedAt }) }) as { days: number; mileage: number };

/** A state whose maintenance was read once at minute 1 (far from any threshold). */
const maintained = (days = 200, mileage = 9000): VehicleState =>
  diff(baselined(), [obs('v2.maintenance', [reading(days, mileage, at(1))], 1)], context(1)).state;

const readMaintenance = (
  prior: VehicleState,
  days?: number,
  mileage?: number,
  minute = 5,
  updatedAt?: string,
) =>
  diff(
    prior,
    [obs('v2.maintenance', [reading(days, mileage, updatedAt ?? at(minute))], minute)],
    context(minute),
  );

describe('maintenance countdown: due, overdue, reset', () => {
  it('due: id "cycle:0"/"due", what crossed, the thresholds; stored with the level emitted', () => {
    const r = readMaintenance(maintained(), 12, 800, 5);
    expect(told(r.events)).toEqual([
      {
        type: DUE,
        id: idOf(DUE, 'cycle:0', 'due'),
        occurredAt: at(5),
        data: {
          days: 12,
          mileageKm: 800,
          cycle: 0,
          crossed: ['days', 'mileage'],
          thresholds: { days: 30, mileageKm: 1000 },
          initial: false,
        },
      },
    ]);
    expect(r.state.maintenance).toEqual({
      days: 12,
      mileageKm: 800,
      cycle: 0,
      emitted: ['due'],
      updatedAt: at(5),
      seenAt: at(5),
    });
    expectValidEvents(r.events);
  });

  it.each([
    [30, 9000, ['days']],
    [31, 9000, []],
    [200, 1000, ['mileage']],
    [200, 1001, []],
  ] as const)('exactly at a threshold is due, one past it is not: %i days, %i km', (days, km, crossed) => {
    const r = readMaintenance(maintained(), days, km);
    expect(r.events.map((e) => [e.type, (e.data as { crossed: string[] }).crossed])).toEqual(
      crossed.length === 0 ? [] : [[DUE, crossed]],
    );
  });

  it.each([
    [0, 500, [[DUE, ['days', 'mileage']]]],
    [
      -1,
      500,
      [
        [DUE, ['days', 'mileage']],
        [OVERDUE, ['days']],
      ],
    ],
    [5, 0, [[DUE, ['days', 'mileage']]]],
    [
      5,
      -1,
      [
        [DUE, ['days', 'mileage']],
        [OVERDUE, ['mileage']],
      ],
    ],
  ] as const)('overdue below zero, not at zero: %i days, %i km', (days, km, expected) => {
    const r = readMaintenance(maintained(), days, km);
    expect(r.events.map((e) => [e.type, (e.data as { crossed: string[] }).crossed])).toEqual(expected);
  });

  it('overdue: its own id and data (no thresholds); due and overdue each told once per cycle', () => {
    const due = readMaintenance(maintained(), 10, 5000, 5).state;
    const over = readMaintenance(due, -2, 4000, 6);
    expect(told(over.events)).toEqual([
      {
        type: OVERDUE,
        id: idOf(OVERDUE, 'cycle:0', 'overdue'),
        occurredAt: at(6),
        data: { days: -2, mileageKm: 4000, cycle: 0, crossed: ['days'], initial: false },
      },
    ]);
    expect(over.state.maintenance?.emitted).toEqual(['due', 'overdue']);
    const hovering = readMaintenance(over.state, 3, 3900, 7);
    expect(hovering.events).toEqual([]);
    expect(hovering.state.maintenance).toMatchObject({
      days: 3,
      mileageKm: 3900,
      emitted: ['due', 'overdue'],
    });
    expectValidEvents(over.events);
  });

  it('a reset (service done): id "cycle:1"/"reset" with both readings; levels can be told again', () => {
    const over = readMaintenance(readMaintenance(maintained(), 10, 900, 5).state, -1, 500, 6).state;
    const reset = readMaintenance(over, 365, 15000, 8);
    expect(told(reset.events)).toEqual([
      {
        type: RESET,
        id: idOf(RESET, 'cycle:1', 'reset'),
        occurredAt: at(8),
        data: { days: 365, mileageKm: 15000, cycle: 1, previousDays: -1, previousMileageKm: 500 },
      },
    ]);
    expect(reset.state.maintenance).toEqual({
      days: 365,
      mileageKm: 15000,
      cycle: 1,
      emitted: [],
      updatedAt: at(8),
      seenAt: at(8),
    });
    const dueAgain = readMaintenance(reset.state, 20, 14000, 9);
    expect(dueAgain.events.map((e) => e.id)).toEqual([idOf(DUE, 'cycle:1', 'due')]);
    expectValidEvents(reset.events);
  });

  it.each([
    ['days only, by exactly the jump', 230, 8900, true],
    ['days only, one short of the jump', 229, 8900, false],
    ['km only, by exactly the jump', 190, 10000, true],
    ['km only, one short of the jump', 190, 9999, false],
  ] as const)('a reset seen in one counter: %s', (_name, days, km, isReset) => {
    const r = readMaintenance(maintained(200, 9000), days, km);
    expect(typesOf(r.events)).toEqual(isReset ? [RESET] : []);
    expect(r.state.maintenance?.cycle).toBe(isReset ? 1 : 0);
  });

  it('a reset that is already due tells reset then due, both in the new cycle', () => {
    const r = readMaintenance(maintained(-5, 9000), 25, 9000);
    expect(r.events.map((e) => [e.type, e.id])).toEqual([
      [RESET, idOf(RESET, 'cycle:1', 'reset')],
      [DUE, idOf(DUE, 'cycle:1', 'due')],
    ]);
  });

  it('first reading of a vehicle: a due countdown is told as initial (policy active-alerts), not under none', () => {
    const r = diff(baselined(), [obs('v2.maintenance', [reading(12, 800)], 1)], context(1));
    expect(
      r.events.map((e) => [e.type, e.id, e.occurredAt, (e.data as { initial: boolean }).initial]),
    ).toEqual([[DUE, idOf(DUE, 'cycle:0', 'due'), at(1), true]]);
    const none = diff(
      baselined({ initialPolicy: 'none' }),
      [obs('v2.maintenance', [reading(12, 800)], 1)],
      context(1, { initialPolicy: 'none' }),
    );
    expect(none.events).toEqual([]);
    expect(none.state.maintenance).toEqual({
      days: 12,
      mileageKm: 800,
      cycle: 0,
      emitted: ['due'],
      seenAt: at(1),
    });
  });

  it('an older record, or an older read without record times, never moves the countdown back', () => {
    const prior = readMaintenance(maintained(), 100, 5000, 5, at(4));
    const older = readMaintenance(prior.state, 10, 500, 6, at(3));
    expect(older.events).toEqual([]);
    expect(older.state.maintenance).toEqual(prior.state.maintenance);
    const untimed = diff(baselined(), [obs('v2.maintenance', [reading(100, 5000)], 5)], context(5)).state;
    const earlierRead = diff(untimed, [obs('v2.maintenance', [reading(10, 500)], 4)], context(6));
    expect(earlierRead.events).toEqual([]);
    expect(earlierRead.state.maintenance?.days).toBe(100);
    const sameRead = diff(untimed, [obs('v2.maintenance', [reading(10, 500)], 5)], context(6));
    expect(typesOf(sameRead.events)).toEqual([DUE]);
  });

  it('the same countdown read again writes nothing', () => {
    const prior = maintained(200, 9000);
    const r = readMaintenance(prior, 200, 9000, 5, at(1));
    expect(r.events).toEqual([]);
    expect(r.changed).toBe('cursors');
    expect(r.state.maintenance).toEqual(prior.maintenance);
  });

  it('a reading with one counter keeps the other; fractions are rounded; no counter is ignored', () => {
    const daysOnly = readMaintenance(maintained(200, 9000), 20.4, undefined);
    expect(daysOnly.state.maintenance).toMatchObject({ days: 20, mileageKm: 9000 });
    expect(daysOnly.events.map((e) => (e.data as { crossed: string[] }).crossed)).toEqual([['days']]);
    const kmOnly = readMaintenance(maintained(200, 9000), undefined, 999.6);
    expect(kmOnly.state.maintenance).toMatchObject({ days: 200, mileageKm: 1000 });
    const neither = readMaintenance(maintained(200, 9000), undefined, undefined);
    expect(neither.changed).toBe('cursors');
    const fresh = diff(baselined(), [obs('v2.maintenance', [reading(undefined, 500)], 1)], context(1));
    expect(fresh.state.maintenance).toMatchObject({ days: Number.MAX_SAFE_INTEGER, mileageKm: 500 });
    expect(fresh.events.map((e) => (e.data as { crossed: string[] }).crossed)).toEqual([['mileage']]);
  });

  it('v1 maintenance: its lastUpdate is the record time', () => {
    const r = diff(
      baselined(),
      [
        obs(
          'v1.maintenance',
          [{ vin: VIN, contract: 'C-1', days: 200, mileage: 9000, lastUpdate: at(1) }],
          2,
        ),
        obs('v1.maintenance', [{ vin: VIN, contract: 'C-1', days: 10, mileage: 9000, lastUpdate: at(3) }], 4),
      ],
      context(4),
    );
    expect(told(r.events).map((e) => [e.type, e.occurredAt])).toEqual([[DUE, at(3)]]);
    expect(r.state.maintenance?.updatedAt).toBe(at(3));
  });

  it('a v2 reading without updatedAt uses its createdAt as the record time', () => {
    const r = diff(
      maintained(),
      [obs('v2.maintenance', [{ days: 10, mileage: 9000, createdAt: at(3) }], 5)],
      context(5),
    );
    expect(r.events.map((e) => e.occurredAt)).toEqual([at(3)]);
  });
});

describe('applyMaintenance called directly', () => {
  it('a non-finite countdown changes nothing (diff refuses it before; the function does too)', () => {
    for (const bad of [
      { days: Number.POSITIVE_INFINITY, mileageKm: 5 },
      { days: 5, mileageKm: Number.NaN },
    ]) {
      const w = new Work(maintained(), context(5));
      applyMaintenance(w, bad, obs('v2.maintenance', [], 5), {
        api: 'v2',
        operation: 'v2.vehicles.maintenance',
      });
      expect(w.events).toEqual([]);
      expect(w.s.maintenance).toEqual(maintained().maintenance);
    }
  });
});

describe('services eligibility', () => {
  const svc = (code: string, eligible: boolean, shortLabel?: string): ServiceEligibility =>
    shortLabel === undefined ? { code, eligible } : { code, eligible, shortLabel };
  const first = () =>
    diff(baselined(), [obs('services', [svc('B', true, 'Brakes'), svc('A', true)], 1)], context(1));
  /**
   * The same answer read at `minute` and a minute later: a services answer carries no record time,
   * so a change is told once a second read confirms it (README "Stale and flapping answers").
   */
  const twice = (state: VehicleState, items: readonly ServiceEligibility[], minute: number) =>
    runPolls(state, [
      { minute, observations: [obs('services', items, minute)] },
      { minute: minute + 1, observations: [obs('services', items, minute + 1)] },
    ]).last;

  it('the first read is baseline: revision 1 stored, nothing told', () => {
    const r = first();
    expect(r.events).toEqual([]);
    expect(r.state.services).toEqual({ eligible: ['A', 'B'], revision: 1, seenAt: at(1) });
  });

  it('a code added without one removed: told with revision 2 and the whole list, sorted', () => {
    const r = twice(
      first().state,
      [svc('C', true), svc('B', true, 'Brakes'), svc('A', true), svc('D', false, 'Doors')],
      5,
    );
    expect(told(r.events)).toEqual([
      {
        type: SERVICES,
        id: idOf(SERVICES, 'revision:2', 'changed'),
        occurredAt: at(5),
        data: {
          eligible: ['A', 'B', 'C'],
          added: ['C'],
          removed: [],
          services: [
            { code: 'A', eligible: true },
            { code: 'B', shortLabel: 'Brakes', eligible: true },
            { code: 'C', eligible: true },
            { code: 'D', shortLabel: 'Doors', eligible: false },
          ],
        },
      },
    ]);
    expect(r.events[0]?.source).toEqual({ api: 'services', operation: 'v2.vehicles.eligibilities' });
    expect(r.events[0]?.detectedAt).toBe(at(6));
    expect(r.state.services).toEqual({ eligible: ['A', 'B', 'C'], revision: 2, seenAt: at(6) });
    expectValidEvents(r.events);
  });

  it('codes removed and added: both lists sorted; revisions count up', () => {
    const two = twice(first().state, [svc('Z', true), svc('Y', true)], 5);
    expect(two.events.map((e) => [e.id, e.data])).toEqual([
      [
        idOf(SERVICES, 'revision:2', 'changed'),
        {
          eligible: ['Y', 'Z'],
          added: ['Y', 'Z'],
          removed: ['A', 'B'],
          services: [
            { code: 'Y', eligible: true },
            { code: 'Z', eligible: true },
          ],
        },
      ],
    ]);
    const three = twice(two.state, [svc('Y', true)], 7);
    expect(three.events.map((e) => [e.id, (e.data as { removed: string[] }).removed])).toEqual([
      [idOf(SERVICES, 'revision:3', 'changed'), ['Z']],
    ]);
    expect(three.state.services?.revision).toBe(3);
  });

  it('the same eligible set (ineligible codes, duplicates and empty codes aside) is not a change', () => {
    const r = diff(
      first().state,
      [obs('services', [svc('A', true), svc('B', true), svc('A', true), svc('', true), svc('Q', false)], 5)],
      context(5),
    );
    expect(r.events).toEqual([]);
    expect(r.state.services).toEqual({ eligible: ['A', 'B'], revision: 1, seenAt: at(1) });
  });

  it('entries listed twice keep their order in the told list', () => {
    const r = twice(
      first().state,
      [svc('C', true), svc('B', true, 'Brakes'), svc('A', false, 'Old'), svc('A', true, 'New')],
      5,
    );
    expect(r.events.map((e) => (e.data as { services: unknown }).services)[0]).toEqual([
      { code: 'A', shortLabel: 'Old', eligible: false },
      { code: 'A', shortLabel: 'New', eligible: true },
      { code: 'B', shortLabel: 'Brakes', eligible: true },
      { code: 'C', eligible: true },
    ]);
  });

  it('same length, different codes is a change', () => {
    const r = twice(first().state, [svc('A', true), svc('C', true)], 5);
    expect(
      r.events.map((e) => [(e.data as { added: string[] }).added, (e.data as { removed: string[] }).removed]),
    ).toEqual([[['C'], ['B']]]);
  });

  it('a partial list or an earlier read changes nothing', () => {
    const partial = diff(first().state, [obs('services', [], 5, { complete: false })], context(5));
    expect(partial.events).toEqual([]);
    expect(partial.state.services?.eligible).toEqual(['A', 'B']);
    const earlier = diff(first().state, [obs('services', [], 0)], context(5));
    expect(earlier.events).toEqual([]);
    expect(earlier.state.services?.eligible).toEqual(['A', 'B']);
    const sameTime = diff(first().state, [obs('services', [], 1)], context(5));
    expect(sameTime.state.services?.pending).toEqual({ eligible: [], seenAt: at(1) });
  });

  it('a change read once is pending, not told; the read that confirms it tells it from the first read', () => {
    const once = diff(first().state, [obs('services', [svc('A', true)], 5)], context(5));
    expect(once.events).toEqual([]);
    expect(once.state.services).toEqual({
      eligible: ['A', 'B'],
      revision: 1,
      seenAt: at(1),
      pending: { eligible: ['A'], seenAt: at(5) },
    });
    expect(once.next.servicesUnconfirmed).toBe(true);
    expect(once.next.services).toBe('now');
    const confirmed = diff(once.state, [obs('services', [svc('A', true)], 6)], context(6));
    expect(told(confirmed.events)).toEqual([
      {
        type: SERVICES,
        id: idOf(SERVICES, 'revision:2', 'changed'),
        occurredAt: at(5),
        data: { eligible: ['A'], added: [], removed: ['B'], services: [{ code: 'A', eligible: true }] },
      },
    ]);
    expect(confirmed.state.services).toEqual({ eligible: ['A'], revision: 2, seenAt: at(6) });
    expect(confirmed.next.servicesUnconfirmed).toBe(false);
  });

  it('a code missing once (a flapping or stale answer) and listed again is never told', () => {
    const once = diff(first().state, [obs('services', [svc('A', true)], 5)], context(5));
    const back = diff(once.state, [obs('services', [svc('A', true), svc('B', true)], 6)], context(6));
    expect(back.events).toEqual([]);
    expect(back.changed).toBe('state');
    expect(back.state.services).toEqual({ eligible: ['A', 'B'], revision: 1, seenAt: at(1) });
  });

  it('a second read that shows yet another set starts a new wait; a read too soon confirms nothing', () => {
    const once = diff(first().state, [obs('services', [svc('A', true)], 5)], context(5));
    const other = diff(once.state, [obs('services', [svc('B', true)], 6)], context(6));
    expect(other.events).toEqual([]);
    expect(other.state.services?.pending).toEqual({ eligible: ['B'], seenAt: at(6) });
    const soon = {
      ...obs('services', [svc('B', true)], 6),
      fetchedAt: new Date(Date.parse(at(6)) + 29_000).toISOString(),
    };
    expect(diff(other.state, [soon], context(7)).events).toEqual([]);
  });

  it('with confirmAbsences off (the benchmark switch) a change is told at its first read', () => {
    const off = { confirmAbsences: false };
    const start = diff(
      baselined(off),
      [obs('services', [svc('A', true), svc('B', true)], 1)],
      context(1, off),
    );
    const r = diff(start.state, [obs('services', [svc('A', true)], 5)], context(5, off));
    expect(r.events.map((e) => [e.occurredAt, (e.data as { removed: string[] }).removed])).toEqual([
      [at(5), ['B']],
    ]);
  });
});

describe('map updates', () => {
  const info = (availableVersion: string, extra: Partial<MapUpdateInfo> = {}): MapUpdateInfo => ({
    vin: VIN,
    availableVersion,
    updateAvailable: true,
    ...extra,
  });
  const installed = (version: string) =>
    diff(
      baselined(),
      [obs('map', [info(version, { installedVersion: version, updateAvailable: false })], 1)],
      context(1),
    ).state;

  it('a new version differing from the installed one: id "version:<v>"/"available", told once', () => {
    const r = diff(
      installed('v1'),
      [obs('map', [info('v2', { installedVersion: 'v1', releasedAt: at(3) })], 5)],
      context(5),
    );
    expect(told(r.events)).toEqual([
      {
        type: MAP,
        id: idOf(MAP, 'version:v2', 'available'),
        occurredAt: at(3),
        data: {
          vin: VIN,
          availableVersion: 'v2',
          installedVersion: 'v1',
          previousAvailableVersion: 'v1',
          releasedAt: at(3),
          initial: false,
        },
      },
    ]);
    expect(r.events[0]?.source).toEqual({ api: 'map', operation: 'map.vin' });
    expect(r.state.map).toEqual({ available: 'v2', installed: 'v1', announced: ['v2'], seenAt: at(5) });
    const again = diff(r.state, [obs('map', [info('v2', { installedVersion: 'v1' })], 6)], context(6));
    expect(again.events).toEqual([]);
    expectValidEvents(r.events);
  });

  it('a version announced once is not news again when it flaps back', () => {
    const a = diff(installed('v1'), [obs('map', [info('v2', { installedVersion: 'v1' })], 5)], context(5));
    const b = diff(a.state, [obs('map', [info('v3', { installedVersion: 'v1' })], 6)], context(6));
    const c = diff(b.state, [obs('map', [info('v2', { installedVersion: 'v1' })], 7)], context(7));
    expect([...a.events, ...b.events, ...c.events].map((e) => e.id)).toEqual([
      idOf(MAP, 'version:v2', 'available'),
      idOf(MAP, 'version:v3', 'available'),
    ]);
    expect(c.state.map).toEqual({ available: 'v2', installed: 'v1', announced: ['v2', 'v3'], seenAt: at(7) });
  });

  it('the memory of announced versions keeps the newest 20', () => {
    let state = installed('v0');
    for (let i = 1; i <= 21; i++) {
      state = diff(
        state,
        [obs('map', [info(`v${i}`, { installedVersion: 'v0' })], i + 1)],
        context(i + 1),
      ).state;
    }
    const announced = Array.from({ length: 20 }, (_, i) => `v${i + 2}`);
    expect(state.map?.announced).toEqual(announced);
    // v1 fell out of the memory: it is news again; v2 is still remembered.
    const v1 = diff(state, [obs('map', [info('v1', { installedVersion: 'v0' })], 30)], context(30));
    expect(v1.events.map((e) => e.id)).toEqual([idOf(MAP, 'version:v1', 'available')]);
    const v2 = diff(state, [obs('map', [info('v2', { installedVersion: 'v0' })], 30)], context(30));
    expect(v2.events).toEqual([]);
  });

  it('installed = available is not news; without installedVersion, updateAvailable decides', () => {
    const same = diff(installed('v1'), [obs('map', [info('v2', { installedVersion: 'v2' })], 5)], context(5));
    expect(same.events).toEqual([]);
    expect(same.state.map).toEqual({ available: 'v2', installed: 'v2', announced: [], seenAt: at(5) });
    const flagOff = diff(
      installed('v1'),
      [obs('map', [info('v2', { updateAvailable: false })], 5)],
      context(5),
    );
    expect(flagOff.events).toEqual([]);
    const flagOn = diff(installed('v1'), [obs('map', [info('v3')], 5)], context(5));
    expect(flagOn.events.map((e) => [e.id, e.occurredAt])).toEqual([
      [idOf(MAP, 'version:v3', 'available'), at(5)],
    ]);
  });

  it('a bulk read listing several VINs: only this vehicle counts', () => {
    const r = diff(
      installed('v1'),
      [
        obs(
          'map',
          [
            info('x9', { vin: 'OTHERVIN000000001', installedVersion: 'v1' }),
            info('v2', { installedVersion: 'v1' }),
            info('x8', { vin: 'OTHERVIN000000002', installedVersion: 'v1' }),
          ],
          5,
        ),
      ],
      context(5),
    );
    expect(r.events.map((e) => e.id)).toEqual([idOf(MAP, 'version:v2', 'available')]);
    expect(r.state.map?.available).toBe('v2');
    const othersOnly = diff(
      installed('v1'),
      [obs('map', [info('x9', { vin: 'OTHERVIN000000001' }), info('x8', { vin: 'OTHERVIN000000002' })], 5)],
      context(5),
    );
    expect(othersOnly.events).toEqual([]);
    // A single entry is this vehicle's, whatever VIN it carries (a by-VIN read).
    const single = diff(
      installed('v1'),
      [obs('map', [info('v2', { vin: 'OTHERVIN000000001' })], 5)],
      context(5),
    );
    expect(typesOf(single.events)).toEqual([MAP]);
  });

  it('an empty version, an earlier read, or the same versions change nothing', () => {
    const prior = installed('v1');
    expect(diff(prior, [obs('map', [info('')], 5)], context(5)).state.map).toEqual(prior.map);
    expect(diff(prior, [obs('map', [info('v2')], 0)], context(5)).events).toEqual([]);
    const same = diff(prior, [obs('map', [info('v1', { installedVersion: 'v1' })], 5)], context(5));
    expect(same.changed).toBe('cursors');
    const sameTime = diff(prior, [obs('map', [info('v2')], 1)], context(5));
    expect(typesOf(sameTime.events)).toEqual([MAP]);
  });

  it('first read: an available update is told as initial; under policy none it is only remembered', () => {
    const r = diff(baselined(), [obs('map', [info('v2', { installedVersion: 'v1' })], 1)], context(1));
    expect(r.events.map((e) => [e.id, (e.data as { initial: boolean }).initial])).toEqual([
      [idOf(MAP, 'version:v2', 'available'), true],
    ]);
    const none = diff(
      baselined({ initialPolicy: 'none' }),
      [obs('map', [info('v2', { installedVersion: 'v1' })], 1)],
      context(1, { initialPolicy: 'none' }),
    );
    expect(none.events).toEqual([]);
    expect(none.state.map).toEqual({ available: 'v2', installed: 'v1', announced: ['v2'], seenAt: at(1) });
  });
});
