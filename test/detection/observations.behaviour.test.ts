import { describe, expect, it } from 'vitest';
import {
  checkObservation,
  DEFAULT_OPERATION,
  isIsoDate,
  OBSERVATION_SOURCES,
  SOURCE_API,
} from '../../functions/core/detection/observations';

const AT = '2026-03-01T10:00:00Z';
const ALL_SOURCES =
  'v2.events, v2.alerts, v2.collisions, v2.maintenance, v2.trips, v2.ecodriving, v2.vehicles, services, map, v1.alerts, v1.crash, v1.maintenance, v1.trips';

describe('observation envelopes: usable, or refused naming the field', () => {
  it('a complete envelope of every source is usable, with or without a window', () => {
    for (const source of OBSERVATION_SOURCES) {
      expect(checkObservation({ source, fetchedAt: AT, complete: true, items: [] }, 0)).toBeUndefined();
      expect(
        checkObservation(
          { source, fetchedAt: AT, complete: false, items: [], window: { since: AT, until: AT } },
          0,
        ),
      ).toBeUndefined();
      expect(
        checkObservation({ source, fetchedAt: AT, complete: true, items: [], window: {} }, 0),
      ).toBeUndefined();
    }
  });

  it.each([
    ['null', null, { source: '?', field: '', reason: 'observation is not an object' }],
    ['a string', 'v2.alerts', { source: '?', field: '', reason: 'observation is not an object' }],
    [
      'no source',
      { fetchedAt: AT, complete: true, items: [] },
      { source: '?', field: 'source', reason: `unknown source; expected one of ${ALL_SOURCES}` },
    ],
    [
      'an unknown source',
      { source: 'v3.alerts', fetchedAt: AT, complete: true, items: [] },
      { source: 'v3.alerts', field: 'source', reason: `unknown source; expected one of ${ALL_SOURCES}` },
    ],
    [
      'a date without time',
      { source: 'v2.alerts', fetchedAt: '2026-03-01', complete: true, items: [] },
      { source: 'v2.alerts', field: 'fetchedAt', reason: 'must be an ISO 8601 UTC timestamp' },
    ],
    [
      'complete as a string',
      { source: 'map', fetchedAt: AT, complete: 'true', items: [] },
      { source: 'map', field: 'complete', reason: 'must be a boolean' },
    ],
    [
      'items as an object',
      { source: 'services', fetchedAt: AT, complete: true, items: {} },
      { source: 'services', field: 'items', reason: 'must be an array' },
    ],
    [
      'a window that is null',
      { source: 'v1.alerts', fetchedAt: AT, complete: true, items: [], window: null },
      { source: 'v1.alerts', field: 'window', reason: 'must be an object' },
    ],
    [
      'a window that is a string',
      { source: 'v1.alerts', fetchedAt: AT, complete: true, items: [], window: 'today' },
      { source: 'v1.alerts', field: 'window', reason: 'must be an object' },
    ],
    [
      'a window start that is not a timestamp',
      { source: 'v2.alerts', fetchedAt: AT, complete: true, items: [], window: { since: 'yesterday' } },
      { source: 'v2.alerts', field: 'window.since', reason: 'must be an ISO 8601 UTC timestamp' },
    ],
    [
      'a window end that is not a timestamp',
      { source: 'v2.alerts', fetchedAt: AT, complete: true, items: [], window: { since: AT, until: 5 } },
      { source: 'v2.alerts', field: 'window.until', reason: 'must be an ISO 8601 UTC timestamp' },
    ],
  ])('%s', (_, observation, expected) => {
    expect(checkObservation(observation, 3)).toStrictEqual({
      kind: 'Malformed',
      observation: 3,
      ...expected,
    });
  });

  it('the first problem is the one named: source, then fetchedAt, complete, items, window', () => {
    expect(checkObservation({ source: 'x' }, 0)?.field).toBe('source');
    expect(checkObservation({ source: 'map' }, 0)?.field).toBe('fetchedAt');
    expect(checkObservation({ source: 'map', fetchedAt: AT }, 0)?.field).toBe('complete');
    expect(checkObservation({ source: 'map', fetchedAt: AT, complete: false }, 0)?.field).toBe('items');
  });
});

describe('ISO 8601 UTC timestamps', () => {
  it.each([
    ['2026-03-01T10:00:00Z', true],
    ['2026-03-01T10:00:00.5Z', true],
    ['2026-03-01T10:00:00.123456Z', true],
    ['2026-03-01T10:00:00.Z', false],
    ['2026-03-01T10:00:00', false],
    ['2026-03-01T10:00:00+01:00', false],
    ['2026-03-01 10:00:00Z', false],
    ['x2026-03-01T10:00:00Z', false],
    ['2026-03-01T10:00:00Zx', false],
    ['26-03-01T10:00:00Z', false],
    ['2026-3-01T10:00:00Z', false],
    ['2026-03-1T10:00:00Z', false],
    ['2026-03-01T1:00:00Z', false],
    ['2026-03-01T10:0:00Z', false],
    ['2026-03-01T10:00:0Z', false],
    ['', false],
  ])('%j → %s', (text, ok) => {
    expect(isIsoDate(text)).toBe(ok);
  });

  it('only strings are timestamps', () => {
    expect(isIsoDate(Date.parse(AT))).toBe(false);
    expect(isIsoDate(new Date(AT))).toBe(false);
    expect(isIsoDate(undefined)).toBe(false);
  });
});

describe('the source of each observation', () => {
  it('names its API and its default operation id (spec/operations.json)', () => {
    expect(OBSERVATION_SOURCES.map((s) => [s, SOURCE_API[s], DEFAULT_OPERATION[s]])).toStrictEqual([
      ['v2.events', 'v2', 'v2.vehicles.events'],
      ['v2.alerts', 'v2', 'v2.vehicles.alerts'],
      ['v2.collisions', 'v2', 'v2.vehicles.collisions'],
      ['v2.maintenance', 'v2', 'v2.vehicles.maintenance'],
      ['v2.trips', 'v2', 'v2.vehicles.trips'],
      ['v2.ecodriving', 'v2', 'v2.trips.ecodriving'],
      ['v2.vehicles', 'v2', 'v2.vehicles.list'],
      ['services', 'services', 'v2.vehicles.eligibilities'],
      ['map', 'map', 'map.vin'],
      ['v1.alerts', 'v1', 'v1.maintenance.alert.list'],
      ['v1.crash', 'v1', 'v1.crash.list'],
      ['v1.maintenance', 'v1', 'v1.maintenance.list'],
      ['v1.trips', 'v1', 'v1.trips.list'],
    ]);
  });
});
