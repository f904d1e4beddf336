import { describe, expect, it } from 'vitest';
import type { EcoDriving, V1Crash, V1Trip } from '../../functions/core/api/model';
import { diff } from '../../functions/core/detection/diff';
import {
  alert,
  at,
  baselined,
  collision,
  context,
  expectValidEvents,
  obs,
  runPolls,
  trip,
  vehicleEvent,
} from './fixtures';

const types = (events: readonly { type: string }[]) => events.map((e) => e.type);

const eco = (tripId: string): EcoDriving => ({
  id: `eco-${tripId}`,
  tripId,
  global: { trend: { score: 7.5, label: 'good' }, style: { score: 6 }, road: { score: 8 } },
  detailed: { acceleration: { score: 5, advice: 'smoother' }, braking: { score: 9 } },
});

const v1Trip = (tripId: number, extra: Partial<V1Trip> = {}): V1Trip => ({
  vin: 'VF3ABCDEFGH123456',
  contract: 'C-1',
  tripId,
  dateTripBegin: at(2),
  durationS: 600,
  distanceKm: 8,
  avgFuelConsumption: 6.1,
  co2Emission: 140,
  refueling: false,
  siphoning: false,
  raw: { refuelingCost: 52.3, siphoningCost: 30, fuelTankLevel: 85 },
  ...extra,
});

const v1Crash = (lastUpdate: string | undefined, raw: Record<string, unknown>): V1Crash => ({
  vin: 'VF3ABCDEFGH123456',
  contract: 'C-1',
  ...(lastUpdate === undefined ? {} : { lastUpdate }),
  raw,
});

describe('vehicle.collision.detected', () => {
  it('emits once per collision from the list, with per-side levels, flags and trip', () => {
    const c = collision('c1', {
      front: 'high',
      lateral: 'fixable',
      rollOver: true,
      pedestrian: true,
      tripId: 't9',
    });
    const { events } = runPolls(baselined(), [
      { minute: 2, observations: [obs('v2.collisions', [c], 2)] },
      { minute: 3, observations: [obs('v2.collisions', [c], 3)] },
    ]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'vehicle.collision.detected',
      occurredAt: at(1),
      data: {
        collisionId: 'c1',
        front: 'high',
        rear: 'none',
        lateral: 'fixable',
        maxLevel: 'high',
        rollOver: true,
        pedestrian: true,
        tripId: 't9',
      },
    });
    expectValidEvents(events);
  });

  it('a collision revealed by an event and later read from the list is emitted once (same id)', () => {
    const c = collision('c1');
    const viaEvent = diff(
      baselined(),
      [obs('v2.events', [vehicleEvent('e1', 'COLLISION', 1, { collision: c })], 2)],
      context(2),
    );
    const viaList = diff(baselined(), [obs('v2.collisions', [c], 2)], context(2));
    expect(viaEvent.events[0]?.id).toBe(viaList.events[0]?.id);
    const again = diff(viaEvent.state, [obs('v2.collisions', [c], 3)], context(3));
    expect(again.events).toEqual([]);
  });

  it('keeps an unknown level string and still ranks the known ones', () => {
    const r = diff(
      baselined(),
      [obs('v2.collisions', [collision('c1', { front: 'SEVERE', rear: 'medium' })], 2)],
      context(2),
    );
    expect(r.events[0]?.data).toMatchObject({ front: 'SEVERE', maxLevel: 'medium' });
    expectValidEvents(r.events);
  });

  it('history (collisions before enrollment) is baseline on the first poll', () => {
    const r = diff(
      undefined,
      [obs('v2.collisions', [collision('old', { createdAt: at(-600) })], 0)],
      context(0),
    );
    expect(r.events).toEqual([]);
    const later = diff(
      r.state,
      [obs('v2.collisions', [collision('old', { createdAt: at(-600) })], 5)],
      context(5),
    );
    expect(later.events).toEqual([]);
  });

  it.each([
    ['high front', { highFrontCrashInfo: { 41: 1 } }, { front: 'high', rear: 'none', lateral: 'none' }],
    ['medium rear', { avgRearCrashInfo: { 41: 0, 60: 2 } }, { rear: 'medium', maxLevel: 'medium' }],
    ['roll-over only', { flipVeh: { 41: 1 } }, { rollOver: true, maxLevel: 'none' }],
    [
      'pedestrian',
      { pedestCrashInfo2_60: 1, lowLatCrashInfo: { 41: 1 } },
      { pedestrian: true, lateral: 'low' },
    ],
  ] as const)('derives a v1 crash (%s) into a collision with source.api v1', (_name, raw, expected) => {
    const r = diff(baselined(), [obs('v1.crash', [v1Crash(at(2), raw)], 3)], context(3));
    expect(types(r.events)).toEqual(['vehicle.collision.detected']);
    expect(r.events[0]).toMatchObject({ source: { api: 'v1' }, data: expected });
    expectValidEvents(r.events);
  });

  it('a v1 crash record with only zero indicators is not a collision; the same record twice is one', () => {
    const zero = diff(
      baselined(),
      [obs('v1.crash', [v1Crash(at(2), { highFrontCrashInfo: { 41: 0 } })], 3)],
      context(3),
    );
    expect(zero.events).toEqual([]);
    const crash = v1Crash(at(2), { lowFrontCrashInfo: { 41: 3 } });
    const { events } = runPolls(baselined(), [
      { minute: 3, observations: [obs('v1.crash', [crash], 3)] },
      { minute: 4, observations: [obs('v1.crash', [crash], 4)] },
    ]);
    expect(events).toHaveLength(1);
  });

  it('rejects (without crashing) a v1 crash without lastUpdate, naming the field', () => {
    const r = diff(
      baselined(),
      [obs('v1.crash', [v1Crash(undefined, { highFrontCrashInfo: { 41: 1 } })], 3)],
      context(3),
    );
    expect(r.events).toEqual([]);
    expect(r.rejected[0]).toMatchObject({ kind: 'Malformed', field: 'items[].lastUpdate' });
  });
});

describe('vehicle.trip.completed', () => {
  it('waits for the eco-driving evaluation and includes it when it arrives in a later poll', () => {
    const t = trip('t1', 2);
    const first = diff(baselined(), [obs('v2.trips', [t], 3)], context(3));
    expect(first.events).toEqual([]);
    expect(first.next.ecodrivingFor).toEqual(['t1']);
    const second = diff(first.state, [obs('v2.ecodriving', [eco('t1')], 5)], context(5));
    expect(types(second.events)).toEqual(['vehicle.trip.completed']);
    expect(second.events[0]).toMatchObject({
      occurredAt: at(2),
      data: {
        tripId: 't1',
        distanceKm: 14.2,
        durationS: 1200,
        co2Estimated: 2.5,
        ecoDrivingStatus: 'included',
        ecoDriving: { global: { trend: { score: 7.5 } } },
      },
    });
    expect(second.next.ecodrivingFor).toEqual([]);
    expectValidEvents(second.events);
  });

  it('emits without eco-driving once the wait is over', () => {
    const first = diff(baselined(), [obs('v2.trips', [trip('t1', 2)], 3)], context(3));
    const early = diff(first.state, [], context(12));
    expect(early.events).toEqual([]);
    const late = diff(first.state, [], context(13));
    expect(types(late.events)).toEqual(['vehicle.trip.completed']);
    expect(late.events[0]?.data).toMatchObject({ ecoDrivingStatus: 'unavailable' });
    expectValidEvents(late.events);
  });

  it('a trip and its evaluation read in the same poll go out together; ecoDrivingWaitMs 0 never waits', () => {
    const same = diff(
      baselined(),
      [obs('v2.trips', [trip('t1', 2)], 3), obs('v2.ecodriving', [eco('t1')], 3)],
      context(3),
    );
    expect(same.events[0]?.data).toMatchObject({ ecoDrivingStatus: 'included' });
    const noWait = diff(
      baselined({ ecoDrivingWaitMs: 0 }),
      [obs('v2.trips', [trip('t1', 2)], 3)],
      context(3, { ecoDrivingWaitMs: 0 }),
    );
    expect(noWait.events[0]?.data).toMatchObject({ ecoDrivingStatus: 'unavailable' });
  });

  it('a trip seen via events and via the list is completed once', () => {
    const t = trip('t1', 2);
    const { events } = runPolls(
      baselined(),
      [
        { minute: 3, observations: [obs('v2.events', [vehicleEvent('e1', 'TRIP', 2, { trip: t })], 3)] },
        { minute: 4, observations: [obs('v2.trips', [t], 4)] },
      ],
      { ecoDrivingWaitMs: 0 },
    );
    expect(types(events)).toEqual(['vehicle.trip.completed']);
  });

  it('a trip without an end is still running: no event until a read shows it ended', () => {
    const running = trip('t1', 2, { stoppedAt: undefined, durationS: undefined });
    const { events } = runPolls(
      baselined(),
      [
        { minute: 3, observations: [obs('v2.trips', [running], 3)] },
        { minute: 30, observations: [obs('v2.trips', [trip('t1', 25)], 30)] },
      ],
      { ecoDrivingWaitMs: 0 },
    );
    expect(types(events)).toEqual(['vehicle.trip.completed']);
  });

  it('v1 trips complete at once, with refuel and fuel theft from their flags, once', () => {
    const t = v1Trip(42, { refueling: true, siphoning: true });
    const { events } = runPolls(baselined(), [
      { minute: 20, observations: [obs('v1.trips', [t], 20)] },
      { minute: 21, observations: [obs('v1.trips', [t], 21)] },
    ]);
    expect(types(events)).toEqual([
      'vehicle.trip.completed',
      'vehicle.refuel.detected',
      'vehicle.fuel_theft.detected',
    ]);
    expect(events[0]).toMatchObject({
      source: { api: 'v1' },
      data: { tripId: '42', stoppedAt: at(12), distanceKm: 8 },
    });
    expect(events[1]?.data).toMatchObject({ cost: 52.3, fuelLevel: 85, tripId: '42' });
    expect(events[2]?.data).toMatchObject({ cost: 30 });
    expectValidEvents(events);
  });
});

describe('vehicle.refuel.detected / vehicle.fuel_theft.detected from v2 events', () => {
  it.each([
    ['REFUEL', 'vehicle.refuel.detected'],
    ['refuel', 'vehicle.refuel.detected'],
    ['FUEL_STOLEN', 'vehicle.fuel_theft.detected'],
  ])('event type %s → %s, once across overlapping reads', (kind, type) => {
    const ev = vehicleEvent('e1', kind, 2, { record: { fuelLevel: 12, tripId: 't7' } });
    const { events } = runPolls(baselined(), [
      { minute: 3, observations: [obs('v2.events', [ev], 3)] },
      { minute: 4, observations: [obs('v2.events', [ev], 4, { window: { since: at(1) } })] },
    ]);
    expect(types(events)).toEqual([type]);
    expect(events[0]?.data).toMatchObject({ recordId: 'rec-e1', fuelLevel: 12, tripId: 't7', at: at(2) });
    expectValidEvents(events);
  });

  it('ignores event kinds it does not know', () => {
    const r = diff(baselined(), [obs('v2.events', [vehicleEvent('e1', 'TELEPORT', 2)], 3)], context(3));
    expect(r.events).toEqual([]);
    expect(r.rejected).toEqual([]);
  });
});

describe('maintenance due / overdue / reset', () => {
  const m = (days: number, mileage: number, minute: number) =>
    obs('v2.maintenance', [{ days, mileage, updatedAt: at(minute) }], minute);

  it.each([
    ['days cross 30', [m(40, 5000, 0), m(30, 4800, 1)], ['vehicle.maintenance.due'], ['days']],
    ['km cross 1,000', [m(200, 1500, 0), m(199, 990, 1)], ['vehicle.maintenance.due'], ['mileage']],
    ['days go negative', [m(5, 5000, 0), m(-1, 4800, 1)], ['vehicle.maintenance.overdue'], ['days']],
    [
      'both straight from ok to overdue',
      [m(40, 5000, 0), m(-2, -10, 1)],
      ['vehicle.maintenance.due', 'vehicle.maintenance.overdue'],
      ['days', 'mileage'],
    ],
    ['nothing crossed', [m(100, 9000, 0), m(99, 8000, 1)], [], []],
  ] as const)('%s', (_name, readings, expected, crossed) => {
    const { events } = runPolls(
      baselined({ initialPolicy: 'none' }),
      readings.map((o, i) => ({ minute: i, observations: [o] })),
      { initialPolicy: 'none' },
    );
    expect(types(events)).toEqual(expected);
    if (events.length > 0) expect(events.at(-1)?.data).toMatchObject({ crossed });
    expectValidEvents(events);
  });

  it('a countdown hovering at the threshold emits due once (no flapping)', () => {
    const { events } = runPolls(
      baselined(),
      [31, 30, 31, 29, 31, 28].map((days, i) => ({ minute: i + 1, observations: [m(days, 5000, i + 1)] })),
    );
    expect(types(events)).toEqual(['vehicle.maintenance.due']);
    expect(events[0]?.data).toMatchObject({
      days: 30,
      mileageKm: 5000,
      cycle: 0,
      thresholds: { days: 30, mileageKm: 1000 },
    });
  });

  it('a jump back up is a reset (service done) and starts a new cycle with new ids', () => {
    const { events } = runPolls(baselined(), [
      { minute: 1, observations: [m(10, 5000, 1)] },
      { minute: 2, observations: [m(365, 20000, 2)] },
      { minute: 3, observations: [m(20, 19000, 3)] },
    ]);
    expect(types(events)).toEqual([
      'vehicle.maintenance.due',
      'vehicle.maintenance.reset',
      'vehicle.maintenance.due',
    ]);
    expect(events[1]?.data).toMatchObject({ previousDays: 10, previousMileageKm: 5000, days: 365, cycle: 1 });
    expect(events[0]?.id).not.toBe(events[2]?.id);
    expectValidEvents(events);
  });

  it('first poll: an overdue vehicle is told once with initial: true (active-alerts), not at all with none', () => {
    const told = diff(undefined, [m(-3, 500, 0)], context(0));
    expect(types(told.events)).toEqual(['vehicle.maintenance.due', 'vehicle.maintenance.overdue']);
    expect(told.events[1]?.data).toMatchObject({ initial: true });
    expectValidEvents(told.events);
    const silent = diff(undefined, [m(-3, 500, 0)], context(0, { initialPolicy: 'none' }));
    expect(silent.events).toEqual([]);
    const later = diff(silent.state, [m(-4, 450, 1)], context(1, { initialPolicy: 'none' }));
    expect(later.events).toEqual([]);
  });

  it('thresholds are configurable', () => {
    const cfg = { maintenanceDue: { days: 7, mileageKm: 200 } };
    const { events } = runPolls(
      baselined(cfg),
      [
        { minute: 1, observations: [m(20, 900, 1)] },
        { minute: 2, observations: [m(7, 900, 2)] },
      ],
      cfg,
    );
    expect(types(events)).toEqual(['vehicle.maintenance.due']);
    expect(events[0]?.data).toMatchObject({ thresholds: { days: 7, mileageKm: 200 } });
  });

  it('an older reading never moves the countdown back', () => {
    const { events, last } = runPolls(baselined(), [
      { minute: 5, observations: [m(10, 5000, 5)] },
      {
        minute: 6,
        observations: [obs('v2.maintenance', [{ days: 300, mileage: 30000, updatedAt: at(1) }], 6)],
      },
    ]);
    expect(types(events)).toEqual(['vehicle.maintenance.due']);
    expect(last.state.maintenance?.days).toBe(10);
  });

  it('v1 maintenance gives the same events with source.api v1', () => {
    const r = runPolls(baselined(), [
      {
        minute: 1,
        observations: [
          obs('v1.maintenance', [{ vin: 'V', contract: 'C', days: 50, mileage: 5000, lastUpdate: at(1) }], 1),
        ],
      },
      {
        minute: 2,
        observations: [
          obs('v1.maintenance', [{ vin: 'V', contract: 'C', days: 29, mileage: 4900, lastUpdate: at(2) }], 2),
        ],
      },
    ]);
    expect(types(r.events)).toEqual(['vehicle.maintenance.due']);
    expect(r.events[0]?.source).toMatchObject({ api: 'v1', operation: 'v1.maintenance.list' });
  });
});

describe('vehicle.services.changed and vehicle.map_update.available', () => {
  const services = (codes: string[], minute: number, extra = {}) =>
    obs(
      'services',
      ['A', 'B', 'C'].map((code) => ({ code, shortLabel: `svc ${code}`, eligible: codes.includes(code) })),
      minute,
      extra,
    );

  it('the first read is baseline; a changed set is told once with what was added and removed', () => {
    const { events } = runPolls(undefined, [
      { minute: 0, observations: [services(['A', 'B'], 0)] },
      { minute: 1, observations: [services(['A', 'B'], 1)] },
      { minute: 2, observations: [services(['B', 'C'], 2)] },
      { minute: 3, observations: [services(['B', 'C'], 3)] },
      { minute: 4, observations: [services(['A'], 4, { complete: false })] },
    ]);
    expect(types(events)).toEqual(['vehicle.services.changed']);
    expect(events[0]).toMatchObject({
      source: { api: 'services' },
      data: { eligible: ['B', 'C'], added: ['C'], removed: ['A'] },
    });
    expectValidEvents(events);
  });

  const map = (availableVersion: string, installedVersion: string, minute: number) =>
    obs(
      'map',
      [
        {
          vin: 'VF3ABCDEFGH123456',
          availableVersion,
          installedVersion,
          updateAvailable: availableVersion !== installedVersion,
        },
      ],
      minute,
    );

  it('tells a new available map version once, and only when it differs from the installed one', () => {
    const { events } = runPolls(undefined, [
      { minute: 0, observations: [map('2026.1', '2026.1', 0)] },
      { minute: 1, observations: [map('2026.2', '2026.1', 1)] },
      { minute: 2, observations: [map('2026.2', '2026.1', 2)] },
      { minute: 3, observations: [map('2026.2', '2026.2', 3)] },
      { minute: 4, observations: [map('2026.3', '2026.3', 4)] },
    ]);
    expect(types(events)).toEqual(['vehicle.map_update.available']);
    expect(events[0]?.data).toMatchObject({
      availableVersion: '2026.2',
      installedVersion: '2026.1',
      previousAvailableVersion: '2026.1',
      initial: false,
    });
    expectValidEvents(events);
  });

  it('an update already available at enrollment is told with initial: true', () => {
    const r = diff(undefined, [map('2026.2', '2025.4', 0)], context(0));
    expect(r.events[0]?.data).toMatchObject({ initial: true });
  });
});

describe('poll hints', () => {
  it('asks for alerts while some are active, a reconciliation when none was done, and skips otherwise', () => {
    const a = diff(
      baselined(),
      [obs('v2.alerts', [{ id: 'a1', active: true, message: 'x' }], 1)],
      context(1),
    );
    expect(a.next).toMatchObject({ alerts: 'now', hasActiveAlerts: true, activeAlerts: 1 });
    expect(diff(baselined(), [], context(1)).next.alerts).toBe('reconcile');
    expect(diff(baselined(), [obs('v2.alerts', [], 1)], context(2)).next.alerts).toBe('skip');
    expect(diff(baselined(), [obs('v2.alerts', [], 1)], context(60 * 7)).next.alerts).toBe('reconcile');
  });

  it('asks for alerts, collisions or trips when an event announced one without embedding it (once)', () => {
    const r = diff(
      baselined(),
      [
        obs(
          'v2.events',
          [vehicleEvent('e1', 'ALERT', 1), vehicleEvent('e2', 'COLLISION', 1), vehicleEvent('e3', 'TRIP', 1)],
          2,
        ),
      ],
      context(2),
    );
    expect(r.next).toMatchObject({
      alerts: 'now',
      collisions: 'now',
      trips: 'now',
      eventsSince: at(-9),
      lastActivityAt: at(1),
    });
    const again = diff(r.state, [obs('v2.events', [vehicleEvent('e1', 'ALERT', 1)], 3)], context(3));
    expect(again.next).toMatchObject({ collisions: 'skip', trips: 'skip' });
  });

  it('asks for maintenance after a trip and daily otherwise', () => {
    const read = diff(baselined(), [obs('v2.maintenance', [{ days: 100, mileage: 9000 }], 1)], context(1));
    expect(read.next.maintenance).toBe('daily');
    const afterTrip = diff(read.state, [obs('v2.trips', [trip('t1', 3)], 4)], context(4));
    expect(afterTrip.next.maintenance).toBe('now');
    expect(diff(read.state, [], context(60 * 25)).next.maintenance).toBe('now');
  });
});

describe('model drift (the client may add optional fields)', () => {
  it('events stay valid when model records carry fields the event schemas do not know', () => {
    const position = { lon: 2.3, lat: 48.8, accuracyM: 5 } as never;
    const r = diff(
      baselined({ ecoDrivingWaitMs: 0 }),
      [
        obs('v2.alerts', [alert('a1', true, { startedAt: at(1), position, fresh: true } as never)], 2),
        obs('v2.trips', [trip('t1', 2, { startPosition: position, durationS: -5 })], 2),
        obs(
          'v2.ecodriving',
          [{ ...eco('t1'), global: { trend: { score: 7, colour: 'green' } as never } }],
          2,
        ),
        obs('services', [{ code: 'A', eligible: true, since: '2020' } as never], 2),
      ],
      context(2, { ecoDrivingWaitMs: 0 }),
    );
    expect(types(r.events)).toEqual(['vehicle.alert.raised', 'vehicle.trip.completed']);
    expectValidEvents(r.events);
    const changed = [{ code: 'B', eligible: true, since: '2020' } as never];
    const services = runPolls(r.state, [
      { minute: 3, observations: [obs('services', changed, 3)] },
      { minute: 4, observations: [obs('services', changed, 4)] },
    ]);
    expectValidEvents(services.events);
    expect(services.events).toHaveLength(1);
  });
});

describe('bad input', () => {
  it('rejects malformed observations and items by field, and applies the rest', () => {
    const r = diff(
      baselined(),
      [
        { source: 'v2.alerts', fetchedAt: 'yesterday', complete: true, items: [] } as never,
        { source: 'v2.nope', fetchedAt: at(1), complete: true, items: [] } as never,
        obs('v2.collisions', [{ id: '' } as never, collision('c1')], 2),
      ],
      context(2),
    );
    expect(types(r.events)).toEqual(['vehicle.collision.detected']);
    expect(r.rejected.map((x) => [x.observation, x.field])).toEqual([
      [0, 'fetchedAt'],
      [1, 'source'],
      [2, 'items[0].id'],
    ]);
  });

  it('refuses the state of another vehicle and applies nothing', () => {
    const other = { ...baselined(), vehicleId: 'veh-2' };
    const r = diff(other, [obs('v2.collisions', [collision('c1')], 2)], context(2));
    expect(r.events).toEqual([]);
    expect(r.state).toBe(other);
    expect(r.rejected[0]).toMatchObject({ kind: 'Malformed', field: 'state.vehicleId' });
  });

  it('ignores v2.vehicles observations (enrollment level) in the vehicle diff', () => {
    const r = diff(baselined(), [obs('v2.vehicles', [{ id: 'x', vin: 'y' }], 1)], context(1));
    expect(r.events).toEqual([]);
  });
});
