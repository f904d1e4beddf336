import { describe, expect, it } from 'vitest';
import { diff } from '../../functions/core/detection/diff';
import {
  parseState,
  serializeState,
  stateChanged,
  type VehicleState,
} from '../../functions/core/detection/state';
import { alert, at, baselined, context, obs } from './fixtures';

/** A state with every optional field set. */
const full = (): VehicleState => ({
  stateFormat: 1,
  version: 3,
  vehicleId: 'veh-1',
  createdAt: at(0),
  sequence: 4,
  sources: ['map', 'v2.alerts'],
  alerts: {
    'v2:a1': {
      active: false,
      message: 'alertOilPressure',
      severity: 'high',
      category: 'engine',
      startedAt: at(1),
      endedAt: at(2),
      updatedAt: at(2),
      seenAt: at(3),
      reopened: 1,
    },
    'v1:b1': { active: true, message: 'Pression huile', seenAt: at(1), missingSince: at(3) },
  },
  alertFloor: { startedAt: at(0), seenAt: at(1) },
  collisions: { ids: { c1: at(1) }, floor: at(0) },
  trips: { ids: {} },
  fuel: { ids: {} },
  pendingTrips: {
    t1: { heldSince: at(1), occurredAt: at(1), operation: 'v2.vehicles.trips', data: { tripId: 't1' } },
  },
  maintenance: {
    days: -3,
    mileageKm: 100,
    cycle: 1,
    emitted: ['due', 'overdue'],
    updatedAt: at(1),
    seenAt: at(2),
  },
  services: { eligible: ['A'], revision: 2, seenAt: at(1), pending: { eligible: [], seenAt: at(2) } },
  map: { available: 'v2', installed: 'v1', announced: ['v2'], seenAt: at(1) },
  lastActivityAt: at(1),
  lastTripAt: at(1),
  links: [
    { id: 'enr-user', kind: 'oauth-user' },
    { id: 'enr-fleet', kind: 'fleet-contract' },
  ],
  told: { evt_added: at(0) },
  unpolled: true,
  cursors: {
    eventsSince: at(0),
    fetched: { map: at(1) },
    alertsReconciledAt: at(1),
    alertsNewest: { at: at(2), lowerSince: at(3) },
  },
});

describe('parseState: a stored state read back, or the field that is wrong', () => {
  it('a state with every optional field, and one with none, round-trip through JSON', () => {
    expect(parseState(serializeState(full()))).toEqual({ ok: true, state: full() });
    const minimal = baselined();
    expect(parseState(serializeState(minimal))).toEqual({ ok: true, state: minimal });
    expect(parseState(full())).toEqual({ ok: true, state: full() });
  });

  it('text that is not JSON', () => {
    const r = parseState('{"stateFormat":');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.kind).toBe('Malformed');
      expect(r.error.field).toBe('');
      expect(r.error.reason).toMatch(/^not JSON: SyntaxError: /);
    }
  });

  it.each([
    ['a newer format', { stateFormat: 2 }, 'stateFormat'],
    ['a negative version', { version: -1 }, 'version'],
    ['a fractional sequence', { sequence: 1.5 }, 'sequence'],
    ['a vehicle id that is not a string', { vehicleId: 7 }, 'vehicleId'],
    ['an alert without seenAt', { alerts: { 'v2:a': { active: true, message: 'm' } } }, 'alerts.v2:a.seenAt'],
    [
      'a negative reopen count',
      { alerts: { 'v2:a': { active: true, message: 'm', seenAt: at(1), reopened: -1 } } },
      'alerts.v2:a.reopened',
    ],
    [
      'an unknown maintenance level',
      { maintenance: { days: 1, mileageKm: 1, cycle: 0, emitted: ['soon'], seenAt: at(1) } },
      'maintenance.emitted.0',
    ],
    ['a seen set without ids', { trips: {} }, 'trips.ids'],
    ['a link of an unknown kind', { links: [{ id: 'enr-x', kind: 'partner' }] }, 'links.0.kind'],
    ['a link without its id', { links: [{ kind: 'oauth-user' }] }, 'links.0.id'],
    ['cursors without fetched', { cursors: {} }, 'cursors.fetched'],
    ['a map without announced', { map: { available: 'v', seenAt: at(1) } }, 'map.announced'],
    [
      'a fractional services revision',
      { services: { eligible: [], revision: 0.5, seenAt: at(1) } },
      'services.revision',
    ],
    [
      'an absence in doubt since a number',
      { alerts: { 'v2:a': { active: true, message: 'm', seenAt: at(1), missingSince: 5 } } },
      'alerts.v2:a.missingSince',
    ],
    [
      'a pending services change without its codes',
      { services: { eligible: [], revision: 1, seenAt: at(1), pending: { seenAt: at(1) } } },
      'services.pending.eligible',
    ],
    [
      'a newest-record mark without its time',
      { cursors: { fetched: {}, alertsNewest: { lowerSince: at(1) } } },
      'cursors.alertsNewest.at',
    ],
  ] as const)('%s names the field', (_name, change, field) => {
    const r = parseState(JSON.stringify({ ...full(), ...change }));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.field).toBe(field);
      expect(r.error.reason).not.toBe('');
    }
  });

  it('a value that is not an object', () => {
    const r = parseState('42');
    expect(r).toMatchObject({ ok: false, error: { kind: 'Malformed', field: '' } });
  });
});

describe('stateChanged: what a store must write', () => {
  it('the same object: nothing; no state before: everything', () => {
    const s = full();
    expect(stateChanged(s, s)).toBe('none');
    expect(stateChanged(undefined, s)).toBe('state');
  });

  it('an equal copy is nothing; a changed cursor only the cursors; a changed core the state', () => {
    expect(stateChanged(full(), full())).toBe('none');
    expect(stateChanged(full(), { ...full(), cursors: { ...full().cursors, eventsSince: at(5) } })).toBe(
      'cursors',
    );
    expect(stateChanged(full(), { ...full(), cursors: { fetched: { map: at(1) } } })).toBe('cursors');
    const deeper = full();
    (deeper.alerts['v2:a1'] as { message: string }).message = 'other';
    expect(stateChanged(full(), deeper)).toBe('state');
    expect(stateChanged(full(), { ...full(), sources: ['map'] })).toBe('state');
    expect(stateChanged(full(), { ...full(), sources: ['map', 'v2.alerts', 'v2.trips'] })).toBe('state');
    expect(stateChanged(full(), { ...full(), lastTripAt: undefined })).toBe('state');
  });

  it('a key holding undefined is the same as a key absent', () => {
    const withUndefined = {
      ...full(),
      maintenance: { ...full().maintenance, updatedAt: undefined },
    } as VehicleState;
    const without = full();
    delete without.maintenance?.updatedAt;
    expect(stateChanged(without, withUndefined)).toBe('none');
    expect(stateChanged(withUndefined, without)).toBe('none');
  });

  it('an array and an object with the same keys differ; null differs from an object', () => {
    const asObject = { ...full(), sources: { 0: 'map', 1: 'v2.alerts' } } as unknown as VehicleState;
    expect(stateChanged(full(), asObject)).toBe('state');
    expect(stateChanged(asObject, full())).toBe('state');
    const nullMap = { ...full(), map: null } as unknown as VehicleState;
    expect(stateChanged(full(), nullMap)).toBe('state');
    expect(stateChanged(nullMap, full())).toBe('state');
  });

  it('agrees with what diff reports', () => {
    const prior = diff(baselined(), [obs('v2.alerts', [], 1)], context(1)).state;
    const quiet = diff(prior, [obs('v2.alerts', [], 2)], context(2));
    expect(stateChanged(prior, quiet.state)).toBe('cursors');
    const news = diff(prior, [obs('v2.alerts', [alert('a1', true, { startedAt: at(2) })], 2)], context(2));
    expect(stateChanged(prior, news.state)).toBe('state');
  });
});
