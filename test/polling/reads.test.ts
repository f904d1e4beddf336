import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLLING_CONFIG, type PollingConfig } from '../../functions/core/polling/config';
import type { PollFleetJob } from '../../functions/core/polling/jobs';
import {
  FLEET_REQUESTS_PER_BATCH,
  fleetBookings,
  followUpReserve,
  inCycle,
  inResourceOrder,
  isFleetVehicle,
  mapDue,
  resourceSplitter,
  splitResources,
} from '../../functions/core/polling/reads';
import type { VehicleRecord } from '../../functions/core/store/records';
import { newVehicle } from './fixtures';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-01-15T09:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

// Three different periods, so a cut-off taken from the wrong setting shows.
const config: PollingConfig = {
  ...DEFAULT_POLLING_CONFIG,
  alertsReconcileMs: 6 * HOUR,
  dailyMs: DAY,
  servicesIntervalMs: 2 * DAY,
  mapIntervalMs: 3 * DAY,
};

const vehicle = (id: string, over: Partial<VehicleRecord> = {}): VehicleRecord => newVehicle(id, T0, over);

const polledAgo = (ages: Partial<Record<'alerts' | 'maintenance' | 'services', number>>) =>
  vehicle('v', {
    resourcePolledAt: Object.fromEntries(Object.entries(ages).map(([r, age]) => [r, iso(T0 - age)])),
  });

describe('the periodic reads of a v2 vehicle', () => {
  it('reads every baseline it never had with its events', () => {
    expect(splitResources(vehicle('v'), T0, config)).toStrictEqual({
      now: ['events', 'alerts', 'maintenance', 'services'],
      periodic: [],
    });
  });

  it('books nothing periodic one millisecond before its period, and a due read at exactly its period', () => {
    expect(
      splitResources(
        polledAgo({ alerts: 6 * HOUR - 1, maintenance: DAY - 1, services: 2 * DAY - 1 }),
        T0,
        config,
      ),
    ).toStrictEqual({ now: ['events'], periodic: [] });
    expect(
      splitResources(polledAgo({ alerts: 6 * HOUR, maintenance: DAY, services: 2 * DAY }), T0, config),
    ).toStrictEqual({ now: ['events'], periodic: ['alerts', 'maintenance', 'services'] });
  });

  it('reads with the events a periodic read overdue by half its period, and not one millisecond sooner', () => {
    expect(
      splitResources(
        polledAgo({ alerts: 9 * HOUR - 1, maintenance: 1.5 * DAY - 1, services: 3 * DAY - 1 }),
        T0,
        config,
      ),
    ).toStrictEqual({ now: ['events'], periodic: ['alerts', 'maintenance', 'services'] });
    expect(
      splitResources(polledAgo({ alerts: 9 * HOUR, maintenance: 1.5 * DAY, services: 3 * DAY }), T0, config),
    ).toStrictEqual({ now: ['events', 'alerts', 'maintenance', 'services'], periodic: [] });
  });

  it('judges each read by its own period', () => {
    // Seven hours: alerts due (6 h), maintenance (1 day) and services (2 days) not.
    expect(
      splitResources(polledAgo({ alerts: 7 * HOUR, maintenance: 7 * HOUR, services: 7 * HOUR }), T0, config),
    ).toStrictEqual({ now: ['events'], periodic: ['alerts'] });
    // A day and a half: alerts overdue, maintenance overdue, services due.
    expect(
      splitResources(
        polledAgo({ alerts: 1.5 * DAY, maintenance: 1.5 * DAY, services: 2.5 * DAY }),
        T0,
        config,
      ),
    ).toStrictEqual({ now: ['events', 'alerts', 'maintenance'], periodic: ['services'] });
    // Only services read long ago; the others never: baselines now, services overdue too.
    expect(splitResources(polledAgo({ services: 4 * DAY }), T0, config)).toStrictEqual({
      now: ['events', 'alerts', 'maintenance', 'services'],
      periodic: [],
    });
  });

  it('gives the same split from one splitter for many vehicles as one call per vehicle', () => {
    const split = resourceSplitter(T0, config);
    const vs = [
      vehicle('a'),
      polledAgo({ alerts: 6 * HOUR, maintenance: 1, services: 3 * DAY }),
      polledAgo({ alerts: 1, maintenance: DAY, services: 1 }),
    ];
    expect(vs.map(split)).toStrictEqual(vs.map((v) => splitResources(v, T0, config)));
    expect(split(vs[1] as VehicleRecord)).toStrictEqual({
      now: ['events', 'services'],
      periodic: ['alerts'],
    });
  });
});

describe('map reads', () => {
  it('are due when never read, or at exactly the map period since the last', () => {
    expect(mapDue(vehicle('v'), T0, config)).toBe(true);
    expect(mapDue(vehicle('v', { resourcePolledAt: { map: iso(T0 - 3 * DAY) } }), T0, config)).toBe(true);
    expect(mapDue(vehicle('v', { resourcePolledAt: { map: iso(T0 - 3 * DAY + 1) } }), T0, config)).toBe(
      false,
    );
    // The map's own period, not the daily one.
    expect(mapDue(vehicle('v', { resourcePolledAt: { map: iso(T0 - 2 * DAY) } }), T0, config)).toBe(false);
  });
});

describe('a periodic task spread over the cycles', () => {
  const offset = (key: string, every: number) =>
    createHash('sha256').update(key).digest().readUInt32BE(0) % every;

  it('runs every cycle when its period rounds to one cycle or less', () => {
    for (const period of [MIN / 2, MIN, 1.49 * MIN]) {
      for (let c = 0; c < 4; c++) expect(inCycle('k', T0 + c * MIN, period, MIN)).toBe(true);
    }
  });

  it('runs once in every period, in the cycle the key hashes to', () => {
    const every = 10;
    for (const key of ['discovery:enr_1', 'discovery:enr_2', 'x']) {
      const cycles = Array.from({ length: 2 * every }, (_, c) => T0 + c * MIN);
      const on = cycles.filter((at) => inCycle(key, at, every * MIN, MIN));
      expect(on).toHaveLength(2);
      expect((on[1] as number) - (on[0] as number)).toBe(every * MIN);
      for (const at of on) expect(Math.floor(at / MIN) % every).toBe(offset(key, every));
      // The whole cycle long: its first and last millisecond.
      const start = on[0] as number;
      expect(inCycle(key, start + MIN - 1, every * MIN, MIN)).toBe(true);
      expect(inCycle(key, start - 1, every * MIN, MIN)).toBe(false);
    }
  });

  it('rounds the period to whole cycles', () => {
    // 2.5 cycles round to 3; 1.5 to 2.
    const key = 'discovery:enr_1';
    const on3 = Array.from({ length: 6 }, (_, c) => T0 + c * MIN).filter((at) =>
      inCycle(key, at, 2.5 * MIN, MIN),
    );
    expect(on3).toHaveLength(2);
    expect((on3[1] as number) - (on3[0] as number)).toBe(3 * MIN);
    const on2 = Array.from({ length: 4 }, (_, c) => T0 + c * MIN).filter((at) =>
      inCycle(key, at, 1.5 * MIN, MIN),
    );
    expect(on2).toHaveLength(2);
    expect((on2[1] as number) - (on2[0] as number)).toBe(2 * MIN);
  });
});

describe('fleet vehicles, resource order and the follow-up reserve', () => {
  it('tells a fleet contract vehicle by its missing v2 id', () => {
    expect(isFleetVehicle({ apiVehicleId: undefined })).toBe(true);
    expect(isFleetVehicle({ apiVehicleId: 'v-1' })).toBe(false);
    expect(isFleetVehicle({ apiVehicleId: '' })).toBe(false);
  });

  it("puts resources in a poll's reading order, each once", () => {
    expect(inResourceOrder(['map', 'events', 'services', 'alerts', 'events', 'trips'])).toEqual([
      'events',
      'alerts',
      'trips',
      'services',
      'map',
    ]);
    expect(inResourceOrder([])).toEqual([]);
  });

  it('keeps the whole requests of the reserve ratio, none of a negative budget', () => {
    const c = { ...config, followUpReserveRatio: 0.02 };
    expect(followUpReserve(100, c)).toBe(2);
    expect(followUpReserve(99, c)).toBe(1);
    expect(followUpReserve(49, c)).toBe(0);
    expect(followUpReserve(50, c)).toBe(1);
    expect(followUpReserve(-100, c)).toBe(0);
    expect(followUpReserve(1000, { ...config, followUpReserveRatio: 0 })).toBe(0);
  });
});

describe('fleet batches', () => {
  it('batches each brand group apart, C first, at most fleetBatchSize vehicles, four requests each', () => {
    const fleet = [
      vehicle('c1', { brand: 'C', apiVehicleId: undefined }),
      vehicle('p1', { brand: 'P', apiVehicleId: undefined }),
      vehicle('c2', { apiVehicleId: undefined }),
      vehicle('c3', { brand: 'X', apiVehicleId: undefined }),
      vehicle('p2', { brand: 'P', apiVehicleId: undefined }),
      vehicle('p3', { brand: 'P', apiVehicleId: undefined }),
    ];
    const at = iso(T0);
    expect(fleetBookings(fleet, { ...config, fleetBatchSize: 2 }, at)).toStrictEqual([
      {
        job: { kind: 'poll-fleet', brand: 'C', vehicleIds: ['c1', 'c2'], rotate: false, plannedAt: at },
        cost: 4,
      },
      { job: { kind: 'poll-fleet', brand: 'C', vehicleIds: ['c3'], rotate: false, plannedAt: at }, cost: 4 },
      {
        job: { kind: 'poll-fleet', brand: 'P', vehicleIds: ['p1', 'p2'], rotate: false, plannedAt: at },
        cost: 4,
      },
      { job: { kind: 'poll-fleet', brand: 'P', vehicleIds: ['p3'], rotate: false, plannedAt: at }, cost: 4 },
    ]);
    expect(FLEET_REQUESTS_PER_BATCH).toBe(4);
    // A batch size of exactly the group's size: one batch per group.
    expect(
      fleetBookings(fleet, { ...config, fleetBatchSize: 3 }, at).map(
        (b) => (b.job as PollFleetJob).vehicleIds,
      ),
    ).toEqual([
      ['c1', 'c2', 'c3'],
      ['p1', 'p2', 'p3'],
    ]);
    expect(fleetBookings([], config, at)).toEqual([]);
  });
});
