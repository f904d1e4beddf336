import { describe, expect, it } from 'vitest';
import type { Vehicle } from '../../functions/core/api/model';
import {
  diffEnrollmentVehicles,
  type EnrollmentContext,
  type EnrollmentState,
  emptyEnrollmentState,
} from '../../functions/core/detection/enrollment';
import { eventId } from '../../functions/core/events/ids';
import { at, expectValidEvents, obs } from './fixtures';

const ENR = 'enr-1';
const ADDED = 'enrollment.vehicle.added';
const REMOVED = 'enrollment.vehicle.removed';

const ctx = (minute: number, extra: Partial<EnrollmentContext> = {}): EnrollmentContext => ({
  enrollment: { id: ENR, kind: 'oauth-user' },
  now: new Date(Date.parse(at(minute))),
  ...extra,
});

const car = (id: string, extra: Partial<Vehicle> = {}): Vehicle => ({ id, vin: `VIN-${id}`, ...extra });

/** What reads of the vehicles themselves said: gone (404 / 403) or there (200). */
const readGone = (...ids: string[]): Partial<EnrollmentContext> => ({
  checked: new Map(ids.map((id) => [id, 'absent' as const])),
});
const readThere = (...ids: string[]): Partial<EnrollmentContext> => ({
  checked: new Map(ids.map((id) => [id, 'present' as const])),
});

const idOf = (type: string, vehicle: string, additions: number) =>
  eventId({
    scope: ENR,
    type,
    key: `${vehicle}#${additions}`,
    transition: type === ADDED ? 'added' : 'removed',
  });

const baseline = (...ids: string[]) =>
  diffEnrollmentVehicles(
    undefined,
    obs(
      'v2.vehicles',
      ids.map((id) => car(id)),
      0,
    ),
    ctx(0),
  ).state;

describe('enrollment vehicles: exact events and stored state', () => {
  it('the first list is stored as baseline: each vehicle present, added once, at the list time', () => {
    const r = diffEnrollmentVehicles(
      undefined,
      obs('v2.vehicles', [car('b', { brand: 'P', model: '208', energy: 'Electric' }), car('a')], 0),
      ctx(1),
    );
    expect(r).toStrictEqual({
      state: {
        stateFormat: 1,
        version: 0,
        enrollmentId: ENR,
        createdAt: at(1),
        sequence: 0,
        vehicles: {
          b: {
            vin: 'VIN-b',
            brand: 'P',
            model: '208',
            energy: 'Electric',
            present: true,
            additions: 1,
            changedAt: at(0),
          },
          a: { vin: 'VIN-a', present: true, additions: 1, changedAt: at(0) },
        },
        seenAt: at(0),
      },
      events: [],
      changed: 'state',
      vehicleIds: ['a', 'b'],
      rejected: [],
      unconfirmed: [],
    });
  });

  it('an added vehicle: its id (vehicle and addition count), envelope and data; a mapped vehicle id', () => {
    const r = diffEnrollmentVehicles(
      baseline('a'),
      obs('v2.vehicles', [car('a'), car('c', { brand: 'DS', model: 'DS4' })], 3, {
        operation: 'v2.user.vehicles',
      }),
      ctx(4, { vehicleId: (api) => `veh_${api}` }),
    );
    expect(r.events).toStrictEqual([
      {
        id: idOf(ADDED, 'c', 1),
        type: ADDED,
        schemaVersion: 1,
        occurredAt: at(3),
        detectedAt: at(4),
        sequence: 1,
        vehicle: { id: 'veh_c', vin: 'VIN-c', brand: 'DS' },
        enrollment: { id: ENR, kind: 'oauth-user' },
        source: { api: 'v2', operation: 'v2.user.vehicles', recordId: 'c' },
        data: { vehicleId: 'veh_c', vin: 'VIN-c', brand: 'DS', model: 'DS4' },
      },
    ]);
    expect(r.vehicleIds).toStrictEqual(['a', 'c']);
    expect(r.state.sequence).toBe(1);
    expect(r.state.seenAt).toBe(at(3));
    expectValidEvents(r.events);
  });

  it('a removed vehicle (complete list, the read of it says it is gone): its id, no brand when none is known, stored absent; then added again as addition 2', () => {
    const r = diffEnrollmentVehicles(
      baseline('a', 'b'),
      obs('v2.vehicles', [car('a')], 5),
      ctx(5, readGone('b')),
    );
    expect(r.events).toStrictEqual([
      {
        id: idOf(REMOVED, 'b', 1),
        type: REMOVED,
        schemaVersion: 1,
        occurredAt: at(5),
        detectedAt: at(5),
        sequence: 1,
        vehicle: { id: 'b', vin: 'VIN-b' },
        enrollment: { id: ENR, kind: 'oauth-user' },
        source: { api: 'v2', operation: 'v2.vehicles.list', recordId: 'b' },
        data: { vehicleId: 'b', vin: 'VIN-b' },
      },
    ]);
    expect(r.state.vehicles.b).toStrictEqual({
      vin: 'VIN-b',
      present: false,
      additions: 1,
      changedAt: at(5),
    });
    expect(r.vehicleIds).toStrictEqual(['a']);
    const back = diffEnrollmentVehicles(
      r.state,
      obs('v2.vehicles', [car('a'), car('b')], 6),
      ctx(6, readThere('b')),
    );
    expect(back.events.map((e) => [e.type, e.id, e.sequence])).toStrictEqual([
      [ADDED, idOf(ADDED, 'b', 2), 2],
    ]);
    expect(back.state.vehicles.b).toStrictEqual({
      vin: 'VIN-b',
      present: true,
      additions: 2,
      changedAt: at(6),
    });
  });

  it('a partial list adds but never removes', () => {
    const r = diffEnrollmentVehicles(
      baseline('a', 'b'),
      obs('v2.vehicles', [car('c')], 5, { complete: false }),
      ctx(5),
    );
    expect(r.events.map((e) => [e.type, e.id])).toStrictEqual([[ADDED, idOf(ADDED, 'c', 1)]]);
    expect(r.vehicleIds).toStrictEqual(['a', 'b', 'c']);
  });

  it('the same list again: nothing changed, the state given back as it was', () => {
    const prior = baseline('a');
    const r = diffEnrollmentVehicles(prior, obs('v2.vehicles', [car('a')], 5), ctx(5));
    expect(r.changed).toBe('none');
    expect(r.state).toBe(prior);
    expect(r.events).toStrictEqual([]);
  });

  it('a list read before the one that last changed the state is ignored; one read at the same time is applied', () => {
    const prior = diffEnrollmentVehicles(
      baseline('a'),
      obs('v2.vehicles', [car('a'), car('b')], 5),
      ctx(5),
    ).state;
    const older = diffEnrollmentVehicles(prior, obs('v2.vehicles', [], 4), ctx(6));
    expect(older).toStrictEqual({
      state: prior,
      events: [],
      changed: 'none',
      vehicleIds: ['a', 'b'],
      rejected: [],
      unconfirmed: [],
    });
    const same = diffEnrollmentVehicles(prior, obs('v2.vehicles', [car('a')], 5), ctx(6, readGone('b')));
    expect(same.events.map((e) => e.type)).toStrictEqual([REMOVED]);
  });

  it('initialPolicy all tells the first list; none and active-alerts keep it as baseline', () => {
    const all = diffEnrollmentVehicles(
      undefined,
      obs('v2.vehicles', [car('a')], 0),
      ctx(0, { config: { initialPolicy: 'all' } }),
    );
    expect(all.events.map((e) => [e.type, e.id])).toStrictEqual([[ADDED, idOf(ADDED, 'a', 1)]]);
    for (const initialPolicy of ['none', 'active-alerts'] as const) {
      const r = diffEnrollmentVehicles(
        undefined,
        obs('v2.vehicles', [car('a')], 0),
        ctx(0, { config: { initialPolicy } }),
      );
      expect(r.events).toStrictEqual([]);
    }
  });

  it('an item without id or vin is refused by index; the rest apply and a refused one is not removed', () => {
    const r = diffEnrollmentVehicles(
      baseline('a'),
      obs('v2.vehicles', [{ id: '', vin: 'X' } as Vehicle, { id: 'a' } as Vehicle, car('d')], 5),
      ctx(5, readGone('a')),
    );
    expect(r.rejected).toStrictEqual([
      {
        kind: 'Malformed',
        observation: 0,
        source: 'v2.vehicles',
        field: 'items[0].id',
        reason: 'vehicle without id or vin',
      },
      {
        kind: 'Malformed',
        observation: 0,
        source: 'v2.vehicles',
        field: 'items[1].id',
        reason: 'vehicle without id or vin',
      },
    ]);
    expect(r.events.map((e) => e.type)).toStrictEqual([ADDED, REMOVED]);
  });

  it('an observation of another source, or a bad envelope, changes nothing and is refused', () => {
    const prior = baseline('a');
    const wrong = diffEnrollmentVehicles(prior, obs('v2.alerts', [], 5) as never, ctx(5));
    expect(wrong).toStrictEqual({
      state: prior,
      events: [],
      changed: 'none',
      vehicleIds: ['a'],
      rejected: [
        {
          kind: 'Malformed',
          observation: 0,
          source: 'v2.alerts',
          field: 'source',
          reason: 'expected v2.vehicles',
        },
      ],
      unconfirmed: [],
    });
    const bad = diffEnrollmentVehicles(
      undefined,
      { ...obs('v2.vehicles', [], 5), fetchedAt: 'soon' },
      ctx(5),
    );
    expect(bad.state).toStrictEqual(emptyEnrollmentState(ENR, at(5)));
    expect(bad.rejected.map((x) => x.field)).toStrictEqual(['fetchedAt']);
    expect(bad.vehicleIds).toStrictEqual([]);
  });

  it('remembers at most 500 removed vehicles, forgetting the longest removed first', () => {
    const vehicles: EnrollmentState['vehicles'] = {};
    for (let i = 0; i < 500; i++) {
      vehicles[`old${String(i).padStart(3, '0')}`] = {
        vin: `V${i}`,
        present: false,
        additions: 1,
        changedAt: at(1 + (i % 2)),
      };
    }
    vehicles.keep = { vin: 'K', present: true, additions: 1, changedAt: at(0) };
    const prior: EnrollmentState = { ...emptyEnrollmentState(ENR, at(0)), vehicles, seenAt: at(2) };
    const r = diffEnrollmentVehicles(prior, obs('v2.vehicles', [], 10), ctx(10, readGone('keep')));
    expect(r.events.map((e) => e.type)).toStrictEqual([REMOVED]);
    const removed = Object.entries(r.state.vehicles).filter(([, v]) => !v.present);
    expect(removed).toHaveLength(500);
    // The one removed now is kept; one of those removed at minute 1 is forgotten.
    expect(r.state.vehicles.keep).toMatchObject({ present: false, changedAt: at(10) });
    expect(removed.filter(([, v]) => v.changedAt === at(1))).toHaveLength(249);
    expect(removed.filter(([, v]) => v.changedAt === at(2))).toHaveLength(250);
  });

  it('forgets the longest removed first, whatever their order in the stored state, and of equally old ones the smaller id', () => {
    const vehicles: EnrollmentState['vehicles'] = {};
    const gone = (minute: number) => ({ vin: 'V', present: false, additions: 1, changedAt: at(minute) });
    // Stored newest first: 496 removed at minute 3, one at minute 2, then five at minute 1 in no order.
    for (let i = 0; i < 496; i++) vehicles[`r${String(i).padStart(3, '0')}`] = gone(3);
    vehicles.m2 = gone(2);
    for (const id of ['z1', 'x1', 'v1', 'y1', 'w1']) vehicles[id] = gone(1);
    vehicles.keep = { vin: 'K', present: true, additions: 1, changedAt: at(0) };
    const prior: EnrollmentState = { ...emptyEnrollmentState(ENR, at(0)), vehicles, seenAt: at(3) };
    // 502 removed, plus `keep` removed now: 503, so the three longest removed are forgotten.
    const r = diffEnrollmentVehicles(prior, obs('v2.vehicles', [], 10), ctx(10, readGone('keep')));
    const ids = Object.keys(r.state.vehicles);
    expect(ids).toHaveLength(500);
    const older = ['v1', 'w1', 'x1', 'y1', 'z1', 'm2', 'keep'];
    expect(older.filter((id) => ids.includes(id))).toStrictEqual(['y1', 'z1', 'm2', 'keep']);
    expect(ids.filter((id) => id.startsWith('r'))).toHaveLength(496);
  });

  it('present vehicles are never forgotten, however old, and 500 removed ones are all kept', () => {
    const vehicles: EnrollmentState['vehicles'] = {};
    vehicles.old = { vin: 'O', present: true, additions: 1, changedAt: at(0) };
    for (let i = 0; i < 500; i++)
      vehicles[`r${String(i).padStart(3, '0')}`] = {
        vin: 'V',
        present: false,
        additions: 1,
        changedAt: at(5),
      };
    const prior: EnrollmentState = { ...emptyEnrollmentState(ENR, at(0)), vehicles, seenAt: at(5) };
    const r = diffEnrollmentVehicles(prior, obs('v2.vehicles', [car('old'), car('new')], 10), ctx(10));
    expect(r.changed).toBe('state');
    expect(Object.keys(r.state.vehicles)).toHaveLength(502);
    expect(r.vehicleIds).toStrictEqual(['new', 'old']);
  });

  it('an item that is null, or whose id is not a string, is refused by index; the others apply', () => {
    const r = diffEnrollmentVehicles(
      baseline('a'),
      obs('v2.vehicles', [null, { id: 7, vin: 'VIN-7' }, car('a'), car('b')] as unknown as Vehicle[], 5),
      ctx(5),
    );
    expect(r.rejected.map((x) => [x.field, x.reason])).toStrictEqual([
      ['items[0].id', 'vehicle without id or vin'],
      ['items[1].id', 'vehicle without id or vin'],
    ]);
    expect(r.events.map((e) => e.id)).toStrictEqual([idOf(ADDED, 'b', 1)]);
    expect(r.vehicleIds).toStrictEqual(['a', 'b']);
  });

  it('an unchanged list gives back the vehicles to poll: the present ones, sorted', () => {
    const prior = diffEnrollmentVehicles(
      baseline('b', 'a'),
      obs('v2.vehicles', [car('a')], 5),
      ctx(5, readGone('b')),
    ).state;
    const r = diffEnrollmentVehicles(prior, obs('v2.vehicles', [car('a')], 6), ctx(6));
    expect(r.changed).toBe('none');
    expect(r.state).toBe(prior);
    expect(r.vehicleIds).toStrictEqual(['a']);
  });
});

describe('enrollment vehicles: a list that misses a vehicle once, or an older copy of it', () => {
  it('a vehicle missing from one complete list is unconfirmed: nothing told, still polled', () => {
    const prior = baseline('a', 'b');
    const r = diffEnrollmentVehicles(prior, obs('v2.vehicles', [car('a')], 5), ctx(5));
    expect(r.events).toStrictEqual([]);
    expect(r.changed).toBe('none');
    expect(r.state).toBe(prior);
    expect(r.unconfirmed).toStrictEqual(['b']);
    expect(r.vehicleIds).toStrictEqual(['a', 'b']);
  });

  it('the read of the vehicle says it is still there: nothing changes, nothing left to confirm', () => {
    const r = diffEnrollmentVehicles(
      baseline('a', 'b'),
      obs('v2.vehicles', [car('a')], 5),
      ctx(5, readThere('b')),
    );
    expect(r.events).toStrictEqual([]);
    expect(r.unconfirmed).toStrictEqual([]);
    expect(r.vehicleIds).toStrictEqual(['a', 'b']);
  });

  it('a vehicle removed (confirmed) and listed again by an older copy of the list is unconfirmed: not added back', () => {
    const removed = diffEnrollmentVehicles(
      baseline('a', 'b'),
      obs('v2.vehicles', [car('a')], 5),
      ctx(5, readGone('b')),
    ).state;
    const stale = diffEnrollmentVehicles(removed, obs('v2.vehicles', [car('a'), car('b')], 6), ctx(6));
    expect(stale.events).toStrictEqual([]);
    expect(stale.unconfirmed).toStrictEqual(['b']);
    expect(stale.vehicleIds).toStrictEqual(['a']);
    const readGoneAgain = diffEnrollmentVehicles(
      removed,
      obs('v2.vehicles', [car('a'), car('b')], 6),
      ctx(6, readGone('b')),
    );
    expect(readGoneAgain.events).toStrictEqual([]);
    expect(readGoneAgain.unconfirmed).toStrictEqual([]);
  });

  it('a new vehicle id needs no read: it is added at once', () => {
    const r = diffEnrollmentVehicles(baseline('a'), obs('v2.vehicles', [car('a'), car('n')], 5), ctx(5));
    expect(r.events.map((e) => [e.type, e.id])).toStrictEqual([[ADDED, idOf(ADDED, 'n', 1)]]);
    expect(r.unconfirmed).toStrictEqual([]);
  });

  it('with confirmAbsences off (the benchmark switch), one list removes and adds back at once', () => {
    const off = { config: { confirmAbsences: false } };
    const r = diffEnrollmentVehicles(baseline('a', 'b'), obs('v2.vehicles', [car('a')], 5), ctx(5, off));
    expect(r.events.map((e) => e.type)).toStrictEqual([REMOVED]);
    const back = diffEnrollmentVehicles(r.state, obs('v2.vehicles', [car('a'), car('b')], 6), ctx(6, off));
    expect(back.events.map((e) => e.type)).toStrictEqual([ADDED]);
  });
});
