/**
 * What a poll tells the planner beyond its observations, and how the planner uses it:
 * - the learned rates start with the vehicle's first events read (its look-back is its past), never
 *   with a write before it (a map batch read first);
 * - work a poll leaves waiting (a trip held for its eco-driving, a follow-up the budget refused)
 *   is written as `workWaitingAt` with a write the poll makes anyway, and the planner reads that
 *   vehicle's events in its next cycle, first, within the budget; round-robin reads no hint.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../../functions/adapters/memory/stores';
import type { Alert, MapUpdateInfo, VehicleEvent } from '../../functions/core/api/model';
import type { PollHints } from '../../functions/core/detection/diff';
import type { Observation } from '../../functions/core/detection/observations';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { createPlannerMemory, type PollVehicleJob, plan, remember } from '../../functions/core/polling';
import { applyObservations, workWaiting } from '../../functions/core/polling/commit';
import { DEFAULT_POLLING_CONFIG } from '../../functions/core/polling/config';
import { bookedAtRisk } from '../../functions/core/polling/memory';
import { decodeRates } from '../../functions/core/polling/rates';
import type { Stores } from '../../functions/core/store/ports';
import type { VehicleRecord } from '../../functions/core/store/records';

const T0 = Date.parse('2026-03-02T09:00:00.000Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const iso = (ms: number): string => new Date(ms).toISOString();
const ID = 'enr-a:api-1';
const VIN = 'VF3ABCDEFGH123456';

const bus = () => {
  const received: EventEnvelope[] = [];
  return {
    received,
    publish: async (events: readonly EventEnvelope[]) => {
      received.push(...events);
      return { published: events.map((e) => e.id), failed: [] };
    },
  };
};

async function newVehicle(): Promise<Stores> {
  const stores = createMemoryStores();
  await stores.vehicles.put(
    { id: ID, enrollmentId: 'enr-a', vin: VIN, apiVehicleId: 'api-1', nextPollAt: iso(T0) },
    T0 - HOUR,
  );
  return stores;
}

/** One poll's observations applied at `now`; returns the vehicle record after it and what it wrote. */
async function apply(
  stores: Stores,
  now: number,
  observations: Observation[],
  refused = false,
): Promise<{ vehicle: VehicleRecord; wrote: string; writes: number }> {
  const { vehicle, state } = await stores.states.getVehicleWithState(ID);
  if (!vehicle) throw new Error('no vehicle');
  let writes = 0;
  const counted: Stores = {
    ...stores,
    vehicles: {
      ...stores.vehicles,
      touchSchedule: (...a) => {
        writes++;
        return stores.vehicles.touchSchedule(...a);
      },
    },
    states: {
      ...stores.states,
      getVehicleWithState: (id) => stores.states.getVehicleWithState(id),
      commitPoll: (input) => {
        writes++;
        return stores.states.commitPoll(input);
      },
    },
  };
  const r = await applyObservations(
    { stores: counted, bus: bus() as never, now: () => now, config: DEFAULT_POLLING_CONFIG },
    {
      vehicle,
      enrollment: { id: 'enr-a', kind: 'oauth-user' },
      stored: state,
      observations,
      rotate: false,
      refused,
    },
  );
  if (r.kind !== 'Applied') throw new Error(r.kind);
  const after = await stores.vehicles.get(ID);
  if (!after) throw new Error('vehicle gone');
  return { vehicle: after, wrote: r.wrote, writes };
}

const events = (now: number, items: VehicleEvent[], since = now - 24 * HOUR): Observation => ({
  source: 'v2.events',
  items,
  complete: true,
  fetchedAt: iso(now),
  window: { since: iso(since) },
});
const alerts = (now: number, items: Alert[]): Observation => ({
  source: 'v2.alerts',
  items,
  complete: true,
  fetchedAt: iso(now),
});
const map = (now: number): Observation => {
  const info: MapUpdateInfo = { vin: VIN, availableVersion: '2026.1', updateAvailable: false };
  return { source: 'map', items: [info], complete: true, fetchedAt: iso(now) } as Observation;
};
const alert = (id: string, startedAt: number): Alert => ({
  id,
  active: true,
  message: 'alertOilPressure',
  startedAt: iso(startedAt),
  updatedAt: iso(startedAt),
});
const record = (id: string, at: number): VehicleEvent => ({
  id,
  type: 'REFUEL',
  eventId: id,
  createdAt: iso(at),
  record: { id, createdAt: iso(at) },
});

describe('the learned rates start with the first events read', () => {
  it('a map batch written before any events read starts no estimate; the first events read counts its look-back', async () => {
    const stores = await newVehicle();
    const first = await apply(stores, T0, [map(T0)]);
    expect(first.wrote).not.toBe('none');
    expect(first.vehicle.hints.rates).toBeUndefined();

    // Three records in the day before: the vehicle's past, over a whole day of exposure.
    const later = T0 + MIN;
    const read = events(later, [
      record('r1', later - 3 * HOUR),
      record('r2', later - 2 * HOUR),
      record('r3', later - HOUR),
    ]);
    const second = await apply(stores, later, [read, alerts(later, [])]);
    const rates = decodeRates(second.vehicle.hints.rates);
    expect(rates?.t).toBe(later);
    // 24 h decayed with a 6 h half-life: (1 − 2^−4) × 6 h / ln 2 = 8.1 h, not the minute since the map.
    expect(rates?.eventsHours).toBeCloseTo(((1 - 2 ** -4) * 6) / Math.LN2, 3);
    expect(rates?.events).toBeGreaterThan(2);
  });

  it('a vehicle whose estimate already started keeps it through a map write', async () => {
    const stores = await newVehicle();
    await apply(stores, T0, [events(T0, []), alerts(T0, [])]);
    const started = (await stores.vehicles.get(ID))?.hints.rates;
    expect(started).toBeDefined();
    const after = await apply(stores, T0 + HOUR, [map(T0 + HOUR)]);
    expect(decodeRates(after.vehicle.hints.rates)?.eventsHours).toBeGreaterThan(
      decodeRates(started)?.eventsHours ?? Number.POSITIVE_INFINITY,
    );
  });
});

describe('work a poll leaves waiting', () => {
  const hints = (over: Partial<PollHints> = {}): PollHints => ({
    alerts: 'skip',
    collisions: 'skip',
    trips: 'skip',
    ecodrivingFor: [],
    maintenance: 'daily',
    services: 'daily',
    map: 'daily',
    hasActiveAlerts: false,
    activeAlerts: 0,
    ...over,
  });

  it('is a trip held for its eco-driving, a record announced but not read, or a refused read', () => {
    expect(workWaiting(hints(), false)).toBe(false);
    expect(workWaiting(hints({ ecodrivingFor: ['t1'] }), false)).toBe(true);
    expect(workWaiting(hints({ collisions: 'now' }), false)).toBe(true);
    expect(workWaiting(hints({ trips: 'now' }), false)).toBe(true);
    expect(workWaiting(hints(), true)).toBe(true);
    // Active alerts and a daily maintenance read are the planner's own business.
    expect(workWaiting(hints({ alerts: 'now', hasActiveAlerts: true, maintenance: 'now' }), false)).toBe(
      false,
    );
  });

  it('is written with the write of a poll the budget cut short, and only then', async () => {
    const stores = await newVehicle();
    await apply(stores, T0, [events(T0, []), alerts(T0, [])]);
    // A change seen, a later read refused: the write the change needs carries the hint.
    const t1 = T0 + 5 * MIN;
    const cut = await apply(stores, t1, [alerts(t1, [alert('a1', t1 - MIN)])], true);
    expect(cut.wrote).toBe('commit');
    expect(cut.vehicle.hints.workWaitingAt).toBe(iso(t1));
    // A complete poll with a change and nothing left: no new hint (the old one is stale by now).
    const t2 = T0 + 6 * MIN;
    const done = await apply(stores, t2, [alerts(t2, [alert('a1', t1 - MIN), alert('a2', t2 - MIN)])]);
    expect(done.wrote).toBe('commit');
    expect(done.vehicle.hints.workWaitingAt).toBe(iso(t1));
  });

  it('is never a reason to write: a refused poll that saw nothing new writes nothing', async () => {
    const stores = await newVehicle();
    await apply(stores, T0, [events(T0, []), alerts(T0, [])]);
    const steady = await apply(stores, T0 + 2 * MIN, [], true);
    expect(steady.writes).toBe(0);
    expect(steady.vehicle.hints.workWaitingAt).toBeUndefined();
    const quiet = await apply(stores, T0 + 3 * MIN, [events(T0 + 3 * MIN, [], T0)]);
    expect(quiet.writes).toBe(0);
  });
});

describe('the planner and work waiting', () => {
  const vehicle = (id: string, over: Partial<VehicleRecord> = {}): VehicleRecord => ({
    id,
    enrollmentId: 'enr_1',
    vin: VIN,
    apiVehicleId: id,
    paused: false,
    nextPollAt: iso(T0 - MIN),
    hints: { activeAlerts: false, priority: 0 },
    resourcePolledAt: {
      alerts: iso(T0 - MIN),
      maintenance: iso(T0 - MIN),
      services: iso(T0 - MIN),
      map: iso(T0 - MIN),
    },
    createdAt: iso(T0 - HOUR),
    updatedAt: iso(T0 - MIN),
    ...over,
  });
  const idle = `r1:${T0}:0:20:0:0:0`;
  const busy = `r1:${T0}:20:2:0:0:0`;
  const ids = (jobs: readonly unknown[]) => (jobs as PollVehicleJob[]).map((j) => j.vehicleId);

  it('books a vehicle with a held trip in the next cycle, first, though its index is the lowest', () => {
    const memory = createPlannerMemory();
    memory.set('quiet', { events: T0 - MIN });
    memory.set('busy', { events: T0 - 5 * MIN });
    const vs = [
      // Read a minute ago; that poll held a trip (it wrote the hint after the read was booked).
      vehicle('quiet', {
        hints: { activeAlerts: false, priority: 0, rates: idle, workWaitingAt: iso(T0 - MIN + 5_000) },
      }),
      vehicle('busy', { hints: { activeAlerts: false, priority: 0, rates: busy } }),
    ];
    const p = plan({
      vehicles: vs,
      budget: 2,
      now: T0,
      memory,
      config: { followUpReserveRatio: 0, followUpsPerChange: 0 },
    });
    expect(ids(p.jobs)).toEqual(['quiet', 'busy']);
    // Without the hint the quiet vehicle, read a minute ago, waits.
    const without = plan({
      vehicles: [
        vehicle('quiet', { hints: { activeAlerts: false, priority: 0, rates: idle } }),
        vs[1] as VehicleRecord,
      ],
      budget: 1,
      now: T0,
      memory,
      config: { followUpReserveRatio: 0, followUpsPerChange: 0 },
    });
    expect(ids(without.jobs)).toEqual(['busy']);
  });

  it('reads the hint once: the read booked after it makes it stale', () => {
    const memory = createPlannerMemory();
    memory.set('quiet', { events: T0 - MIN });
    memory.set('busy', { events: T0 - 5 * MIN });
    const vs = [
      vehicle('quiet', {
        hints: { activeAlerts: false, priority: 0, rates: idle, workWaitingAt: iso(T0 - MIN) },
      }),
      vehicle('busy', { hints: { activeAlerts: false, priority: 0, rates: busy } }),
    ];
    const once = { budget: 1, memory, config: { followUpReserveRatio: 0, followUpsPerChange: 0 } };
    const first = plan({ vehicles: vs, now: T0, ...once });
    expect(ids(first.jobs)).toEqual(['quiet']);
    remember(memory, vs, first, T0);
    const next = plan({ vehicles: vs, now: T0 + MIN, ...once });
    expect(ids(next.jobs)).toEqual(['busy']);
    // A planner without memory (a cold start) reads a hint newer than G, not an older one: that
    // vehicle's read is the guarantee's business (G = 2 h here, so no phase forces it).
    const coldPlan = (waitingAt?: number) =>
      ids(
        plan({
          vehicles: [
            vehicle('quiet', {
              hints: {
                activeAlerts: false,
                priority: 0,
                rates: idle,
                ...(waitingAt !== undefined ? { workWaitingAt: iso(waitingAt) } : {}),
              },
            }),
            vehicle('busy', { hints: { activeAlerts: false, priority: 0, rates: busy } }),
          ],
          budget: 1,
          now: T0,
          config: { followUpReserveRatio: 0, followUpsPerChange: 0, maxStalenessMs: 120 * MIN },
        }).jobs,
      );
    expect(coldPlan()).toEqual(['busy']);
    expect(coldPlan(T0 - 10 * MIN)).toEqual(['quiet']);
    expect(coldPlan(T0 - 121 * MIN)).toEqual(['busy']);
    // Exactly G old: the guarantee's, not the hint's.
    expect(coldPlan(T0 - 120 * MIN)).toEqual(['busy']);
  });

  it('round-robin reads no hint: its fair order stays as it is', () => {
    const memory = createPlannerMemory();
    memory.set('hinted', { events: T0 - MIN });
    memory.set('old', { events: T0 - 3 * MIN });
    const vs = [
      vehicle('hinted', { hints: { activeAlerts: false, priority: 0, workWaitingAt: iso(T0 - MIN) } }),
      vehicle('old'),
    ];
    const p = plan({
      vehicles: vs,
      budget: 1,
      now: T0,
      memory,
      strategy: 'round-robin',
      config: { followUpReserveRatio: 0, followUpsPerChange: 0 },
    });
    expect(ids(p.jobs)).toEqual(['old']);
  });

  it('never over-books the budget with hints, whatever their number', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 80 }),
        fc.integer({ min: 0, max: 80 }),
        fc.integer({ min: 0, max: 60 }),
        (n, hinted, budget) => {
          const memory = createPlannerMemory();
          const vs = Array.from({ length: n }, (_, i) => {
            memory.set(`v${i}`, { events: T0 - MIN });
            return vehicle(`v${i}`, {
              hints: {
                activeAlerts: i % 7 === 0,
                priority: 0,
                rates: i % 3 === 0 ? busy : idle,
                ...(i < hinted ? { workWaitingAt: iso(T0 - MIN) } : {}),
              },
            });
          });
          // The reserve as a fixed share here (its learned size is tested below).
          const p = plan({ vehicles: vs, budget, now: T0, memory, config: { followUpsPerChange: 0 } });
          const learned = plan({ vehicles: vs, budget, now: T0, memory });
          expect(learned.estimatedRequests).toBeLessThanOrEqual(budget);
          const booked = p.jobs.reduce((s, j) => s + (j.kind === 'poll-vehicle' ? j.resources.length : 1), 0);
          expect(booked).toBe(p.estimatedRequests);
          expect(booked).toBeLessThanOrEqual(budget);
          // Every hinted vehicle that fits is read, and before any vehicle without a hint.
          const order = ids(p.jobs);
          const firstPlain = order.findIndex((id) => Number(id.slice(1)) >= hinted);
          const hintedRead = order.filter((id) => Number(id.slice(1)) < hinted);
          if (firstPlain >= 0) expect(hintedRead.every((id) => order.indexOf(id) < firstPlain)).toBe(true);
          expect(hintedRead.length).toBe(Math.min(hinted, n, budget - Math.floor(budget * 0.02)));
        },
      ),
    );
  });
});

describe('the follow-up reserve, sized from the learned rates', () => {
  const fleet = (n: number, rates?: string): VehicleRecord[] =>
    Array.from({ length: n }, (_, i) => ({
      id: `v${i}`,
      enrollmentId: 'enr_1',
      vin: VIN,
      apiVehicleId: `v${i}`,
      paused: false,
      nextPollAt: iso(T0 - MIN),
      hints: { activeAlerts: false, priority: 0, ...(rates ? { rates } : {}) },
      resourcePolledAt: {
        alerts: iso(T0 - MIN),
        maintenance: iso(T0 - MIN),
        services: iso(T0 - MIN),
        map: iso(T0 - MIN),
      },
      createdAt: iso(T0 - HOUR),
      updatedAt: iso(T0 - MIN),
    }));

  it('leaves the follow-ups a busy fleet is expected to reveal in a cycle unbooked', () => {
    // 600 vehicles at 1 change an hour each (60 in 60 h): 10 changes a cycle, one follow-up each,
    // and a margin of one standard deviation of a Poisson count (√10): 13.
    const busy = fleet(600, `r1:${T0}:60:60:0:0:0`);
    const p = plan({ vehicles: busy, budget: 108, now: T0 });
    expect(p.estimatedRequests).toBe(95);
    // Two follow-ups per change: 20 + √20, 24.
    expect(
      plan({ vehicles: busy, budget: 108, now: T0, config: { followUpsPerChange: 2 } }).estimatedRequests,
    ).toBe(84);
    // Never more than half the budget.
    expect(
      plan({ vehicles: busy, budget: 108, now: T0, config: { followUpsPerChange: 10 } }).estimatedRequests,
    ).toBe(54);
    // Round-robin learns nothing: the fixed share (2 % of 108).
    expect(plan({ vehicles: busy, budget: 108, now: T0, strategy: 'round-robin' }).estimatedRequests).toBe(
      106,
    );
  });

  it('keeps the configured share when the fleet is quiet', () => {
    const quiet = fleet(600, `r1:${T0}:0:60:0:0:0`);
    expect(plan({ vehicles: quiet, budget: 108, now: T0 }).estimatedRequests).toBe(106);
    expect(
      plan({ vehicles: quiet, budget: 108, now: T0, config: { followUpReserveRatio: 0.1 } })
        .estimatedRequests,
    ).toBe(98);
  });
});

describe('reads at the tail of a busy cycle', () => {
  const vehicle = (id: string, rates: string): VehicleRecord => ({
    id,
    enrollmentId: 'enr_1',
    vin: VIN,
    apiVehicleId: id,
    paused: false,
    nextPollAt: iso(T0 - MIN),
    hints: { activeAlerts: false, priority: 0, rates },
    resourcePolledAt: {
      alerts: iso(T0 - MIN),
      maintenance: iso(T0 - MIN),
      services: iso(T0 - MIN),
      map: iso(T0 - MIN),
    },
    createdAt: iso(T0 - HOUR),
    updatedAt: iso(T0 - MIN),
  });

  it('a read booked where follow-ups could have it refused does not restart the guarantee', () => {
    // 40 vehicles, 20 reads a cycle with a reserve of 2 (10 %): the jobs past 20 − 3 × 2 = 14
    // requests are at risk.
    const vs = Array.from({ length: 40 }, (_, i) =>
      vehicle(`v${String(i).padStart(2, '0')}`, `r1:${T0}:0:20:0:0:0`),
    );
    const memory = createPlannerMemory();
    for (const v of vs) memory.set(v.id, { events: T0 - 5 * MIN, eventsSure: T0 - 5 * MIN });
    const config = { followUpReserveRatio: 0.1, followUpsPerChange: 0 };
    const p = plan({ vehicles: vs, budget: 20, now: T0, memory, config });
    const order = (p.jobs as PollVehicleJob[]).map((j) => j.vehicleId);
    expect(order).toHaveLength(18);
    expect([...(p.atRisk ?? [])]).toEqual(order.slice(14));
    remember(memory, vs, p, T0);
    const tail = order[17] as string;
    const head = order[0] as string;
    expect(memory.get(head)).toEqual({ events: T0, eventsSure: T0 });
    expect(memory.get(tail)).toEqual({ events: T0, eventsSure: T0 - 5 * MIN });
    // Every other vehicle read (surely) at T0 too. G = 15 min: at T0 + 10 min the tail vehicles
    // are forced, 15 min after their sure read, though their booked read is younger; no other is.
    for (const v of vs) if (!order.includes(v.id)) memory.set(v.id, { events: T0, eventsSure: T0 });
    const later = T0 + 10 * MIN;
    const q = plan({ vehicles: vs, budget: 20, now: later, memory, config });
    const next = (q.jobs as PollVehicleJob[]).map((j) => j.vehicleId);
    expect(new Set(next.slice(0, 4))).toEqual(new Set(order.slice(14)));
    // A minute earlier nothing is forced: the order is the index's alone.
    const before = plan({ vehicles: vs, budget: 4, now: later - MIN, memory, config });
    expect(
      (before.jobs as PollVehicleJob[]).map((j) => j.vehicleId).filter((id) => order.slice(14).includes(id)),
    ).toEqual([]);
  });

  it('round-robin counts its guarantee from the last booked read, whatever the memory says of the tail', () => {
    const memory = createPlannerMemory();
    memory.set('tail', { events: T0 - MIN, eventsSure: T0 - 20 * MIN });
    memory.set('old', { events: T0 - 3 * MIN, eventsSure: T0 - 3 * MIN });
    const vs = [vehicle('tail', `r1:${T0}:0:20:0:0:0`), vehicle('old', `r1:${T0}:0:20:0:0:0`)];
    const config = { followUpReserveRatio: 0, followUpsPerChange: 0 };
    const rr = plan({ vehicles: vs, budget: 1, now: T0, memory, strategy: 'round-robin', config });
    expect((rr.jobs as PollVehicleJob[]).map((j) => j.vehicleId)).toEqual(['old']);
    // carhook forces the vehicle whose last sure read is past its guarantee.
    const carhook = plan({ vehicles: vs, budget: 1, now: T0, memory, config });
    expect((carhook.jobs as PollVehicleJob[]).map((j) => j.vehicleId)).toEqual(['tail']);
  });

  it('round-robin marks no read at risk', () => {
    const vs = Array.from({ length: 40 }, (_, i) => vehicle(`v${i}`, `r1:${T0}:0:20:0:0:0`));
    const p = plan({
      vehicles: vs,
      budget: 20,
      now: T0,
      strategy: 'round-robin',
      config: { followUpReserveRatio: 0.1 },
    });
    expect(p.atRisk).toBeUndefined();
  });
});

describe('bookedAtRisk', () => {
  it('marks the events reads past budget − 3 × reserve requests, in queue order; an alerts read alone is never marked', () => {
    const jobs = [
      { vehicleId: 'a', resources: ['events'] as const },
      { vehicleId: 'b', resources: ['alerts'] as const },
      { vehicleId: 'c', resources: ['events', 'alerts'] as const },
      { vehicleId: 'd', resources: ['events'] as const },
    ].map((j) => ({ ...j, resources: [...j.resources] }));
    // 6 − 3 × 1 = 3: a (1) and b (2) are within, c (4) and d (5) past it; b would be, but reads no events.
    expect([...bookedAtRisk(jobs, 6, 1)]).toEqual(['c', 'd']);
    expect([...bookedAtRisk(jobs, 6, 0)]).toEqual([]);
    expect([...bookedAtRisk(jobs, 6, 2)]).toEqual(['a', 'c', 'd']);
  });
});
