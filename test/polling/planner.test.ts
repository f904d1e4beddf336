import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../../functions/adapters/memory/stores';
import type { Result, V1Target } from '../../functions/core/api';
import {
  bulkWithSplit,
  createPlannerMemory,
  cycleBudget,
  DEFAULT_POLLING_CONFIG,
  InvalidJobError,
  type PollVehicleJob,
  parsePollingConfig,
  parsePollJob,
  plan,
  remember,
  runPlanner,
} from '../../functions/core/polling';
import type { VehicleRecord } from '../../functions/core/store/records';
import { steadyVehicle } from './fixtures';
import { MemoryQueue } from './support';

const T0 = Date.parse('2026-01-15T09:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const MIN = 60_000;

/** Everything periodic read a minute ago: only the events are due. */
const vehicle = (id: string, over: Partial<VehicleRecord> = {}): VehicleRecord =>
  steadyVehicle(id, T0, { lastPolledAt: iso(T0 - MIN), ...over });

const vehicleJobs = (jobs: readonly unknown[]) => jobs as PollVehicleJob[];

describe('planner', () => {
  it('plans only the events of a quiet vehicle, and four reads per vehicle for the naive baseline', () => {
    const vs = [vehicle('a'), vehicle('b')];
    const carhook = plan({ vehicles: vs, budget: 100, now: T0 });
    expect(vehicleJobs(carhook.jobs).map((j) => j.resources)).toEqual([['events'], ['events']]);
    expect(carhook.estimatedRequests).toBe(2);
    const naive = plan({ vehicles: vs, budget: 100, now: T0, strategy: 'naive' });
    expect(vehicleJobs(naive.jobs).map((j) => j.resources)).toEqual([
      ['events', 'alerts', 'collisions', 'maintenance'],
      ['events', 'alerts', 'collisions', 'maintenance'],
    ]);
    expect(naive.estimatedRequests).toBe(8);
  });

  it('adds the periodic reads when they are due', () => {
    const stale = vehicle('a', {
      resourcePolledAt: { alerts: iso(T0 - 7 * 60 * MIN), maintenance: iso(T0 - 25 * 60 * MIN) },
    });
    const planned = plan({ vehicles: [stale], budget: 100, now: T0 });
    const [job] = vehicleJobs(planned.jobs);
    expect(job?.resources).toEqual(['events', 'alerts', 'maintenance', 'services']);
    // The map is read daily in bulk, after every vehicle.
    expect(planned.jobs.map((j) => j.kind)).toEqual(['poll-vehicle', 'poll-map']);
  });

  it('reads the map of due vehicles in bulk batches of the configured size, only with spare budget', () => {
    const recent = iso(T0 - MIN);
    const due = Array.from({ length: 5 }, (_, i) =>
      vehicle(`m${i}`, { resourcePolledAt: { alerts: recent, maintenance: recent, services: recent } }),
    );
    const p = plan({ vehicles: due, budget: 100, now: T0, config: { mapBatchSize: 2 } });
    const maps = p.jobs.filter((j) => j.kind === 'poll-map');
    expect(maps.map((j) => (j.kind === 'poll-map' ? j.vehicleIds.length : 0))).toEqual([2, 2, 1]);
    // With just enough for the events, the map waits and no vehicle is deferred.
    const short = plan({ vehicles: due, budget: 5, now: T0, config: { mapBatchSize: 2 } });
    expect(short.jobs.map((j) => j.kind)).toEqual(Array(5).fill('poll-vehicle'));
    expect(short.deferred).toEqual([]);
  });

  it('reads active alerts every cycle when the budget allows, never closer than activeAlertsEveryMs', () => {
    const active = Array.from({ length: 20 }, (_, i) =>
      vehicle(`v${i}`, { hints: { activeAlerts: true, priority: 0 } }),
    );
    const memory = createPlannerMemory();
    for (const v of active) memory.set(v.id, { events: T0 - MIN, alerts: T0 - 5 * MIN });
    const perCycle: number[] = [];
    for (let c = 0; c < 6; c++) {
      const p = plan({
        vehicles: active,
        budget: 1000,
        now: T0 + c * MIN,
        memory,
        config: { activeAlertsEveryMs: 5 * MIN },
      });
      remember(memory, active, p, T0 + c * MIN);
      perCycle.push(vehicleJobs(p.jobs).filter((j) => j.resources.includes('alerts')).length);
    }
    // Read 5 min ago: all now, then none for 4 cycles (4.5 min is the threshold), then all again.
    expect(perCycle).toEqual([20, 0, 0, 0, 0, 20]);
    const every = plan({ vehicles: active, budget: 1000, now: T0, memory: createPlannerMemory() });
    expect(vehicleJobs(every.jobs).filter((j) => j.resources.includes('alerts'))).toHaveLength(20);
  });

  it('when the budget is short: reads past the guarantee first, then by rate × age² (learned rates)', () => {
    const memory = createPlannerMemory();
    const at = (id: string, minutesAgo: number, rates?: string) => {
      memory.set(id, { events: T0 - minutesAgo * MIN });
      return vehicle(id, { hints: { activeAlerts: false, priority: 0, ...(rates ? { rates } : {}) } });
    };
    // r1:<t>:<events>:<eventsHours>:<fixes>:<alertHours>:<active>, as of T0: 20 changes in 2 h = fast.
    const busy = `r1:${T0}:20:2:0:0:0`;
    const idle = `r1:${T0}:0:20:0:0:0`;
    const vs = [
      at('quiet', 2, idle),
      at('busy', 2, busy),
      at('forgotten', 15, idle), // 15 + 1 > 15 min: past its guarantee by the next cycle
      at('unknown', 2), // no history: the fleet's prior
    ];
    const p = plan({ vehicles: vs, budget: 3, now: T0, memory });
    expect(vehicleJobs(p.jobs).map((j) => j.vehicleId)).toEqual(['forgotten', 'busy', 'unknown']);
    expect(p.deferred).toEqual(['quiet']);
    expect(p.guaranteeMs).toBe(15 * MIN);
    // Nothing written to rotate: the planner remembers what it booked.
    expect(vehicleJobs(p.jobs).every((j) => !j.rotate)).toBe(true);
    // round-robin ignores the rates: the oldest first, then (equal ages) the fixed hash order.
    const rr = plan({ vehicles: vs, budget: 3, now: T0, memory, strategy: 'round-robin' });
    expect(vehicleJobs(rr.jobs).map((j) => j.vehicleId)).toEqual(['forgotten', 'busy', 'unknown']);
    // One minute fresher, 'forgotten' is no longer forced and loses to the busy one.
    memory.set('forgotten', { events: T0 - 14 * MIN });
    expect(
      vehicleJobs(plan({ vehicles: vs, budget: 1, now: T0, memory }).jobs).map((j) => j.vehicleId),
    ).toEqual(['busy']);
  });

  it('gives a vehicle at least its events when its full read can never fit a cycle', () => {
    const due = vehicle('a', { resourcePolledAt: {} });
    const p = plan({ vehicles: [due], budget: 2, now: T0 });
    expect(vehicleJobs(p.jobs)[0]?.resources).toEqual(['events']);
  });

  it('never reads a vehicle’s events before its baselines: the first events read carries them, or waits', () => {
    // 40 vehicles never read, 13 reads a cycle: the guarantee and the index want more first
    // reads than fit, and each first read costs 4 (events, alerts, maintenance, services).
    let fleet = Array.from({ length: 40 }, (_, i) => vehicle(`n${i}`, { resourcePolledAt: {} }));
    const memory = createPlannerMemory();
    const baselined = new Set<string>();
    for (let c = 0; c < 12; c++) {
      const now = T0 + c * MIN;
      const p = plan({ vehicles: fleet, budget: 13, now, memory, config: { maxStalenessMs: 3 * MIN } });
      remember(memory, fleet, p, now);
      expect(p.estimatedRequests).toBeLessThanOrEqual(13);
      for (const j of vehicleJobs(p.jobs)) {
        if (j.kind === 'poll-vehicle' && !baselined.has(j.vehicleId)) {
          expect(j.resources).toEqual(['events', 'alerts', 'maintenance', 'services']);
          baselined.add(j.vehicleId);
        }
      }
      // The reads made: their lists are read from now on.
      fleet = fleet.map((v) =>
        baselined.has(v.id)
          ? {
              ...v,
              resourcePolledAt: {
                alerts: iso(now),
                maintenance: iso(now),
                services: iso(now),
                map: iso(now),
              },
            }
          : v,
      );
    }
    // At most 3 first reads a cycle (4 requests each; map batches take a read now and then).
    expect(baselined.size).toBeLessThanOrEqual(36);
    expect(baselined.size).toBeGreaterThanOrEqual(30);
  });

  it('batches fleet vehicles per brand group in bulk jobs of the configured size', () => {
    const fleet = Array.from({ length: 5 }, (_, i) => {
      const { apiVehicleId: _none, ...rest } = vehicle(`f${i}`, { brand: i < 3 ? 'C' : 'P' });
      return rest as VehicleRecord;
    });
    const p = plan({ vehicles: fleet, budget: 100, now: T0, config: { fleetBatchSize: 2 } });
    const jobs = p.jobs.map((j) =>
      j.kind === 'poll-fleet' ? `${j.brand}:${j.vehicleIds.join(',')}` : j.kind,
    );
    expect(jobs.sort()).toEqual(['C:f0,f1', 'C:f2', 'P:f3,f4']);
    expect(p.estimatedRequests).toBe(12);
  });

  it('books a fleet batch when the budget left is exactly its cost, and defers its vehicles when it is not', () => {
    const fleet = Array.from({ length: 3 }, (_, i) => {
      const { apiVehicleId: _none, ...rest } = vehicle(`f${i}`);
      return rest as VehicleRecord;
    });
    const exact = plan({ vehicles: fleet, budget: 4, now: T0 });
    expect(exact.jobs.map((j) => j.kind)).toEqual(['poll-fleet']);
    expect(exact.estimatedRequests).toBe(4);
    expect(exact.deferred).toEqual([]);
    const short = plan({ vehicles: fleet, budget: 3, now: T0 });
    expect(short.jobs).toEqual([]);
    expect(short.estimatedRequests).toBe(0);
    expect(short.deferred).toEqual(['f0', 'f1', 'f2']);
  });

  it('sizes the alerts guarantee on the vehicles with alerts active, the events guarantee on all', () => {
    // 2,000 vehicles at 106 reads a cycle: G = 2 × 2000 / 106 → 38 cycles; 5 alerting: 15 min.
    const fleet = Array.from({ length: 2000 }, (_, i) =>
      vehicle(`g${i}`, { hints: { activeAlerts: i < 5, priority: 0 } }),
    );
    const fixed = { followUpsPerChange: 0 };
    const p = plan({ vehicles: fleet, budget: 108, now: T0, config: fixed });
    expect(p.guaranteeMs).toBe(38 * MIN);
    expect(p.alertGuaranteeMs).toBe(15 * MIN);
    // With the reserve learned from the prior (0.5 changes an hour each): 16.7 + √16.7 → 21
    // follow-ups a cycle, 87 reads: G = 2 × 2000 / 87 → 46 cycles.
    expect(plan({ vehicles: fleet, budget: 108, now: T0 }).guaranteeMs).toBe(46 * MIN);
  });

  it('weighs an active alerts read by the number of alerts active: three beat one at the same age', () => {
    const memory = createPlannerMemory();
    const one = vehicle('one', {
      hints: { activeAlerts: true, priority: 0, rates: `r1:${T0}:0:100:10:10:1` },
    });
    const three = vehicle('three', {
      hints: { activeAlerts: true, priority: 0, rates: `r1:${T0}:0:100:10:10:3` },
    });
    for (const v of [one, three]) memory.set(v.id, { events: T0 - MIN, alerts: T0 - 3 * MIN });
    for (const order of [
      [one, three],
      [three, one],
    ]) {
      // One read: the events (rate 0, read a minute ago) lose to the alerts; three alerts first.
      const p = plan({ vehicles: order, budget: 1, now: T0, memory, config: { followUpReserveRatio: 0 } });
      expect(vehicleJobs(p.jobs).map((j) => [j.vehicleId, j.resources])).toEqual([['three', ['alerts']]]);
    }
  });

  it('reads an overdue periodic read with the events when the budget left is exactly enough', () => {
    const memory = createPlannerMemory();
    const old = vehicle('old', {
      resourcePolledAt: {
        alerts: iso(T0 - MIN),
        maintenance: iso(T0 - 40 * 60 * MIN),
        services: iso(T0 - MIN),
        map: iso(T0 - MIN),
      },
    });
    memory.set(old.id, { events: T0 - 5 * MIN });
    const p = plan({ vehicles: [old], budget: 2, now: T0, memory, config: { followUpReserveRatio: 0 } });
    expect(vehicleJobs(p.jobs).map((j) => j.resources)).toEqual([['events', 'maintenance']]);
  });

  it('spends the last read of a cycle on a due periodic read, then on a map batch', () => {
    const memory = createPlannerMemory();
    const due = vehicle('due', {
      // Maintenance due (a day old, not yet overdue), the map read exactly a day ago.
      resourcePolledAt: {
        alerts: iso(T0 - MIN),
        maintenance: iso(T0 - 25 * 60 * MIN),
        services: iso(T0 - MIN),
        map: iso(T0 - 24 * 60 * MIN),
      },
    });
    memory.set(due.id, { events: T0 - 5 * MIN });
    const config = { followUpReserveRatio: 0 };
    const two = plan({ vehicles: [due], budget: 2, now: T0, memory, config });
    expect(two.jobs).toEqual([
      expect.objectContaining({ vehicleId: 'due', resources: ['events', 'maintenance'] }),
    ]);
    const three = plan({ vehicles: [due], budget: 3, now: T0, memory, config });
    expect(three.jobs.at(-1)).toEqual({ kind: 'poll-map', vehicleIds: ['due'], plannedAt: iso(T0) });
    expect(three.estimatedRequests).toBe(3);
  });

  it('books no read of an OAuth vehicle whose VIN a fleet contract polls: a job without cost links it', () => {
    const dual = vehicle('dual', { vin: 'VC9R5C0HY8LNSSMND' });
    const other = vehicle('other', { vin: 'VC2BS85NADMNYAMM1' });
    const covered = new Set(['VC9R5C0HY8LNSSMND']);
    for (const strategy of ['carhook', 'round-robin', 'naive'] as const) {
      const p = plan({ vehicles: [dual, other], budget: 108, now: T0, strategy, coveredVins: covered });
      const jobs = vehicleJobs(p.jobs);
      // Only `other` is booked: the covered vehicle costs nothing and is not deferred either.
      expect(p.estimatedRequests).toBe(strategy === 'naive' ? 4 : 1);
      expect(p.deferred).toEqual([]);
      const link = jobs.find((j) => j.vehicleId === 'dual');
      expect(link).toEqual({
        kind: 'poll-vehicle',
        vehicleId: 'dual',
        resources: ['events'],
        strategy,
        rotate: false,
        followUps: false,
        plannedAt: iso(T0),
      });
      expect(jobs.map((j) => j.vehicleId)).toEqual(['other', 'dual']);
    }
    // With a budget of one read, that read goes to the vehicle the contract does not cover.
    const tight = plan({ vehicles: [dual, other], budget: 1, now: T0, coveredVins: covered });
    expect(vehicleJobs(tight.jobs).map((j) => [j.vehicleId, j.resources])).toEqual([
      ['other', ['events']],
      ['dual', ['events']],
    ]);
    // Without the contract (or with an empty VIN) it is a vehicle like any other.
    expect(plan({ vehicles: [dual, other], budget: 108, now: T0 }).estimatedRequests).toBe(2);
    const noVin = vehicle('novin', { vin: '' });
    expect(
      plan({ vehicles: [noVin], budget: 108, now: T0, coveredVins: new Set(['']) }).estimatedRequests,
    ).toBe(1);
  });

  it('runPlanner stops booking an OAuth vehicle once an active fleet contract covers its VIN', async () => {
    const stores = createMemoryStores();
    const at = iso(T0);
    await stores.enrollments.create({
      kind: 'oauth-user',
      id: 'enr_1',
      brand: 'cielo',
      status: 'active',
      createdAt: at,
      updatedAt: at,
    });
    for (const [id, vin] of [
      ['a', 'VC2BS85NADMNYAMM1'],
      ['b', 'VC9R5C0HY8LNSSMND'],
    ] as const) {
      await stores.vehicles.put(
        { id: `enr_1:${id}`, enrollmentId: 'enr_1', vin, apiVehicleId: id, nextPollAt: at },
        T0,
      );
    }
    const queue = new MemoryQueue<unknown>();
    const config = { discoveryIntervalMs: 24 * 60 * MIN };
    const before = await runPlanner({ ...stores, queue, now: () => T0, config });
    // Each vehicle: events and the three baselines never read; one map batch for both.
    expect(before.estimatedRequests).toBe(9);
    queue.drain();
    await stores.enrollments.create({
      kind: 'fleet-contract',
      id: 'fleet_1',
      brand: 'cielo',
      vin: 'VC9R5C0HY8LNSSMND',
      contract: 'C-1',
      status: 'active',
      createdAt: at,
      updatedAt: at,
    });
    const after = await runPlanner({ ...stores, queue, now: () => T0 + MIN, config });
    // Only `a` is booked (its reads were booked but never made: still due), `b` costs nothing.
    expect(after.estimatedRequests).toBe(5);
    const jobs = (queue.drain() as PollVehicleJob[]).filter((j) => j.kind === 'poll-vehicle');
    expect(jobs.map((j) => [j.vehicleId, j.followUps])).toEqual([
      ['enr_1:a', undefined],
      ['enr_1:b', false],
    ]);
  });

  it('sizes a cycle from the budget capacity (120 per 60 s minus the margin)', () => {
    expect(cycleBudget(DEFAULT_POLLING_CONFIG)).toBe(108);
  });

  it('runPlanner enqueues one job per due vehicle per cycle and a discovery once per interval', async () => {
    const stores = createMemoryStores();
    const at = iso(T0);
    await stores.enrollments.create({
      kind: 'oauth-user',
      id: 'enr_1',
      brand: 'cielo',
      status: 'active',
      createdAt: at,
      updatedAt: at,
    });
    await stores.vehicles.put(
      { id: 'enr_1:a', enrollmentId: 'enr_1', vin: 'VC2BS85NADMNYAMM1', apiVehicleId: 'a', nextPollAt: at },
      T0,
    );
    await stores.vehicles.put(
      { id: 'enr_1:b', enrollmentId: 'enr_1', vin: 'VC9R5C0HY8LNSSMND', apiVehicleId: 'b', nextPollAt: at },
      T0,
    );
    await stores.vehicles.pause('enr_1:b', 'manual', T0);
    const queue = new MemoryQueue<unknown>();
    let now = T0;
    const config = { discoveryIntervalMs: 5 * MIN };
    const run = await runPlanner({ ...stores, queue, now: () => now, config });
    expect(run).toMatchObject({ due: 1 });
    let discoveries = run.discoveryJobs;
    for (let i = 1; i < 10; i++) {
      now += MIN;
      discoveries += (await runPlanner({ ...stores, queue, now: () => now, config })).discoveryJobs;
    }
    // Once per interval: 10 cycles of 1 min with a 5 min interval.
    expect(discoveries).toBe(2);
    const kinds = queue.drain().map((j) => (j as { kind: string }).kind);
    expect(kinds.filter((k) => k === 'discover-vehicles')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'poll-vehicle')).toHaveLength(10);
  });
});

describe('planner within a full budget', () => {
  const fleet = (n: number, alerting = 0): VehicleRecord[] =>
    Array.from({ length: n }, (_, i) =>
      vehicle(`v${String(i).padStart(3, '0')}`, { hints: { activeAlerts: i < alerting, priority: 0 } }),
    );
  const alertsOf = (jobs: readonly unknown[]) =>
    vehicleJobs(jobs)
      .filter((j) => j.resources.includes('alerts'))
      .map((j) => j.vehicleId);

  it('leaves the follow-up reserve unbooked (2 % of the budget by default)', () => {
    const p = plan({ vehicles: fleet(120), budget: 108, now: T0 });
    expect(p.estimatedRequests).toBe(106);
    expect(p.deferred).toHaveLength(14);
    const none = plan({
      vehicles: fleet(120),
      budget: 108,
      now: T0,
      config: { followUpReserveRatio: 0, followUpsPerChange: 0 },
    });
    expect(none.estimatedRequests).toBe(108);
  });

  it('starves no vehicle: over 60 cycles every events read within G and every active alert within its bound', () => {
    // 300 vehicles (60 with active alerts), 106 reads a cycle: busy ones would take everything.
    const vs = fleet(300, 60).map((v, i) =>
      i % 10 === 0 ? { ...v, hints: { ...v.hints, rates: `r1:${T0}:200:1:0:0:0` } } : v,
    );
    const memory = createPlannerMemory();
    const last = new Map<string, { events: number; alerts: number }>();
    const worst = { events: 0, alerts: 0 };
    let g = 0;
    let ga = 0;
    for (let c = 0; c < 60; c++) {
      const now = T0 + c * MIN;
      // The reserve as the fixed share (its learned size: work-waiting.test.ts).
      const p = plan({ vehicles: vs, budget: 108, now, memory, config: { followUpsPerChange: 0 } });
      g = p.guaranteeMs;
      ga = p.alertGuaranteeMs;
      remember(memory, vs, p, now);
      for (const j of vehicleJobs(p.jobs)) {
        const l = last.get(j.vehicleId) ?? { events: T0 - MIN, alerts: T0 - MIN };
        if (j.resources.includes('events')) {
          worst.events = Math.max(worst.events, now - l.events);
          l.events = now;
        }
        if (j.resources.includes('alerts')) {
          worst.alerts = Math.max(worst.alerts, now - l.alerts);
          l.alerts = now;
        }
        last.set(j.vehicleId, l);
      }
      expect(p.estimatedRequests).toBeLessThanOrEqual(106);
    }
    expect(g).toBe(15 * MIN);
    expect(ga).toBe(15 * MIN);
    expect(last.size).toBe(300);
    for (const [id, l] of last) {
      expect(T0 + 59 * MIN - l.events, id).toBeLessThanOrEqual(g);
    }
    expect(worst.events).toBeLessThanOrEqual(g);
    expect(worst.alerts).toBeLessThanOrEqual(ga);
    // And the busy tenth is read far more often than the fair round (every 3 cycles).
    const busyGap = T0 + 59 * MIN - (last.get('v000')?.events ?? 0);
    expect(busyGap).toBeLessThanOrEqual(MIN);
  });

  it('reads a vehicle silent for days within G, however busy the rest of the fleet', () => {
    // 300 vehicles learned busy (1 to 20 changes an hour over the last day) and one silent for 3 days:
    // its estimate is the lowest of the fleet, so only the guarantee reads it. Three hours of cycles.
    const HOUR = 60 * MIN;
    const vs = fleet(301).map((v, i) => ({
      ...v,
      hints: {
        ...v.hints,
        rates: i === 300 ? `r1:${T0}:0:72:0:0:0` : `r1:${T0}:${24 * (1 + (i % 20))}:24:0:0:0`,
      },
    }));
    const silent = (vs[300] as VehicleRecord).id;
    const memory = createPlannerMemory();
    const reads: number[] = [];
    let g = 0;
    for (let c = 0; c < 180; c++) {
      const now = T0 + c * MIN;
      const p = plan({ vehicles: vs, budget: 108, now, memory });
      g = p.guaranteeMs;
      remember(memory, vs, p, now);
      if (vehicleJobs(p.jobs).some((j) => j.vehicleId === silent && j.resources.includes('events'))) {
        reads.push(now);
      }
    }
    expect(g).toBe(15 * MIN);
    expect(reads.length).toBeGreaterThanOrEqual(Math.floor((3 * HOUR) / g));
    // Never more than G between two reads, nor from the start or to the end of the three hours.
    const gaps = [reads[0] as number, ...reads.slice(1).map((t, i) => t - (reads[i] as number))];
    gaps.push(T0 + 179 * MIN - (reads.at(-1) as number));
    expect(Math.max(...gaps.slice(1))).toBeLessThanOrEqual(g);
    expect((reads[0] as number) - T0).toBeLessThanOrEqual(g);
    // And not more than the guarantee asks: the budget goes to the busy vehicles.
    expect(reads.length).toBeLessThanOrEqual(Math.ceil((3 * HOUR) / (g - MIN)) + 1);
  });

  it('with budget to spare, due periodic reads go in the vehicle’s own job: one poll per vehicle', () => {
    const vs = fleet(100, 12).map((v, i) =>
      i === 99
        ? { ...v, resourcePolledAt: { ...v.resourcePolledAt, maintenance: iso(T0 - 25 * 60 * MIN) } }
        : v,
    );
    const spare = vehicleJobs(plan({ vehicles: vs, budget: 130, now: T0 }).jobs);
    expect(spare).toHaveLength(100);
    expect(spare.filter((j) => j.resources.includes('alerts'))).toHaveLength(12);
    expect(spare.find((j) => j.vehicleId === 'v099')?.resources).toEqual(['events', 'maintenance']);
    expect(spare.every((j) => j.followUps === undefined)).toBe(true);
  });

  it('follows every vehicle with active alerts each cycle when the budget allows', () => {
    const p = plan({ vehicles: fleet(50, 20), budget: 108, now: T0, config: { activeAlertsEveryMs: MIN } });
    expect(alertsOf(p.jobs)).toHaveLength(20);
  });

  it('lets a due daily read wait for spare budget, and reads it with the events once overdue', () => {
    const due = (hours: number) =>
      fleet(106).map((v, i) =>
        i === 0
          ? { ...v, resourcePolledAt: { ...v.resourcePolledAt, maintenance: iso(T0 - hours * 60 * MIN) } }
          : v,
      );
    const first = (p: ReturnType<typeof plan>) => vehicleJobs(p.jobs).find((j) => j.vehicleId === 'v000');
    // 106 events fill the budget less the reserve: the daily read waits.
    expect(first(plan({ vehicles: due(25), budget: 108, now: T0 }))?.resources).toEqual(['events']);
    // With budget to spare, it goes in the vehicle's own job.
    expect(first(plan({ vehicles: due(25), budget: 120, now: T0 }))?.resources).toEqual([
      'events',
      'maintenance',
    ]);
    // Half a period late, it no longer waits (another vehicle's events are deferred instead).
    const overdue = plan({ vehicles: due(37), budget: 108, now: T0 });
    expect(first(overdue)?.resources).toEqual(['events', 'maintenance']);
    expect(overdue.deferred).toHaveLength(1);
  });

  it('without memory (a cold planner), still reads every vehicle within G: a phase from the id’s hash', () => {
    const vs = fleet(400);
    const reads = new Map<string, number>();
    for (let c = 0; c < 15; c++) {
      for (const j of vehicleJobs(plan({ vehicles: vs, budget: 108, now: T0 + c * MIN }).jobs)) {
        reads.set(j.vehicleId, (reads.get(j.vehicleId) ?? 0) + 1);
      }
    }
    expect(reads.size).toBe(400);
  });

  it('keeps reading active alerts (once per maxStalenessMs at least) when the events of the fleet do not fit', () => {
    // 200 vehicles, 40 with active alerts, 106 requests to book: quiet vehicles give way.
    const p = plan({ vehicles: fleet(200, 40), budget: 108, now: T0, config: { activeAlertsEveryMs: MIN } });
    const alerts = alertsOf(p.jobs);
    // 40 vehicles within 10 cycles: 4 a cycle at least.
    expect(alerts.length).toBeGreaterThanOrEqual(4);
    expect(p.estimatedRequests).toBeLessThanOrEqual(106);
    expect(p.deferred.length).toBeGreaterThan(0);
  });

  it('never books more than the budget, whatever the mix', () => {
    for (const budget of [0, 1, 7, 50, 108]) {
      const vs = [
        ...fleet(60, 25),
        vehicle('fresh', { resourcePolledAt: {} }),
        vehicle('old', { resourcePolledAt: { alerts: iso(T0 - 20 * 60 * MIN) } }),
      ];
      const p = plan({ vehicles: vs, budget, now: T0, config: { activeAlertsEveryMs: MIN } });
      const booked = p.jobs.reduce((n, j) => n + (j.kind === 'poll-vehicle' ? j.resources.length : 1), 0);
      expect(booked).toBe(p.estimatedRequests);
      expect(booked).toBeLessThanOrEqual(budget);
    }
  });
});

describe('fleet batches', () => {
  const targets = (n: number): V1Target[] =>
    Array.from({ length: n }, (_, i) => ({ vin: `VIN${String(i).padStart(14, '0')}`, contract: `c${i}` }));

  it('splits a batch the server refuses with 400 in halves until it is accepted', async () => {
    const sizes: number[] = [];
    const call = async (batch: readonly V1Target[]): Promise<Result<readonly string[]>> => {
      sizes.push(batch.length);
      if (batch.length > 3) {
        return {
          ok: false,
          requests: 1,
          error: { kind: 'InvalidRequest', operation: 'v1.crash.list', status: 400, message: 'too many' },
        };
      }
      return { ok: true, requests: 1, value: batch.map((t) => t.vin) };
    };
    let batches = 0;
    const r = await bulkWithSplit(targets(10), call, () => batches++);
    expect(r.items).toHaveLength(10);
    expect(r.answered.size).toBe(10);
    expect(sizes).toEqual([10, 5, 3, 2, 5, 3, 2]);
    expect(batches).toBe(7);
  });

  it('leaves a VIN the server keeps refusing without observation', async () => {
    const call = async (batch: readonly V1Target[]): Promise<Result<readonly string[]>> =>
      batch.some((t) => t.contract === 'c1')
        ? {
            ok: false,
            requests: 1,
            error: { kind: 'InvalidRequest', operation: 'op', status: 400, message: 'bad vin' },
          }
        : { ok: true, requests: 1, value: batch.map((t) => t.vin) };
    const r = await bulkWithSplit(targets(4), call, () => {});
    expect([...r.answered].sort()).toEqual(['VIN00000000000000', 'VIN00000000000002', 'VIN00000000000003']);
    expect(r.errors).toHaveLength(1);
  });
});

describe('configuration and jobs at the boundary', () => {
  it('names the field of a bad setting', () => {
    const r = parsePollingConfig({ strategy: 'fast', fleetBatchSize: 0 });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors.map((e) => e.field).sort()).toEqual(['polling.fleetBatchSize', 'polling.strategy']);
  });

  it('rejects a malformed job body naming the field', () => {
    expect(() =>
      parsePollJob({ kind: 'poll-vehicle', vehicleId: 'x', resources: ['tea'], strategy: 'carhook' }),
    ).toThrow(InvalidJobError);
    expect(() => parsePollJob({ kind: 'nope' })).toThrow(/poll job kind/);
    expect(() => parsePollJob('text')).toThrow(InvalidJobError);
    // Every strategy's jobs cross the queue; an unknown one names the field.
    for (const strategy of ['carhook', 'round-robin', 'naive']) {
      const job = {
        kind: 'poll-vehicle',
        vehicleId: 'x',
        resources: ['events'],
        strategy,
        plannedAt: iso(T0),
      };
      expect(parsePollJob(job)).toMatchObject({ strategy });
    }
    expect(() =>
      parsePollJob({
        kind: 'poll-vehicle',
        vehicleId: 'x',
        resources: ['events'],
        strategy: 'fast',
        plannedAt: iso(T0),
      }),
    ).toThrow(/strategy/);
  });
});
