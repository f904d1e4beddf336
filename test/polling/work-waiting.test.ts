/**
 * What a poll tells the planner beyond its observations, and how the planner uses it:
 * - the learned rates start with the vehicle's first events read (its look-back is its past), never
 *   with a write before it (a map batch read first);
 * - work a poll leaves waiting (a trip held for its eco-driving, a read the budget refused) is
 *   written as `workWaitingAt`, with a write the poll makes anyway or, for a refused read, one of
 *   its own, and the planner reads that vehicle's events in its next cycle, first, within the
 *   budget; round-robin reads no hint.
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
import { decodeRates } from '../../functions/core/polling/rates';
import type { Stores } from '../../functions/core/store/ports';
import type { VehicleRecord } from '../../functions/core/store/records';
import { steadyVehicle } from './fixtures';

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
  refused?: 'events' | 'follow-up' | 'unfinished',
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
      ...(refused === 'unfinished' ? { unfinished: true } : refused ? { refused } : {}),
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
    alertsUnconfirmed: [],
    servicesUnconfirmed: false,
    ...over,
  });

  it('is a trip held for its eco-driving, a record announced but not read, a doubt, or a refused read', () => {
    expect(workWaiting(hints(), false)).toBe(false);
    expect(workWaiting(hints({ ecodrivingFor: ['t1'] }), false)).toBe(true);
    expect(workWaiting(hints({ collisions: 'now' }), false)).toBe(true);
    expect(workWaiting(hints({ trips: 'now' }), false)).toBe(true);
    expect(workWaiting(hints(), true)).toBe(true);
    // An absence or a services change read once, not yet confirmed: a read next cycle confirms it.
    expect(workWaiting(hints({ alertsUnconfirmed: ['v2:a1'] }), false)).toBe(true);
    expect(workWaiting(hints({ servicesUnconfirmed: true }), false)).toBe(true);
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
    const cut = await apply(stores, t1, [alerts(t1, [alert('a1', t1 - MIN)])], 'follow-up');
    expect(cut.wrote).toBe('commit');
    expect(cut.vehicle.hints.workWaitingAt).toBe(iso(t1));
    // A complete poll with a change and nothing left: no new hint (the old one is stale by now).
    const t2 = T0 + 6 * MIN;
    const done = await apply(stores, t2, [alerts(t2, [alert('a1', t1 - MIN), alert('a2', t2 - MIN)])]);
    expect(done.wrote).toBe('commit');
    expect(done.vehicle.hints.workWaitingAt).toBe(iso(t1));
  });

  it('a confirmation read that failed writes the hint alone: the doubt is read again next cycle', async () => {
    const stores = await newVehicle();
    await apply(stores, T0, [events(T0, []), alerts(T0, [])]);
    const failed = await apply(stores, T0 + 2 * MIN, [], 'unfinished');
    expect(failed.writes).toBe(1);
    expect(failed.wrote).toBe('schedule');
    expect(failed.vehicle.hints.workWaitingAt).toBe(iso(T0 + 2 * MIN));
  });

  it('a refused read is the one reason of its own to write: the hint, once; a quiet poll writes nothing', async () => {
    const stores = await newVehicle();
    await apply(stores, T0, [events(T0, []), alerts(T0, [])]);
    // A read refused after a poll that saw nothing new: the planner counted it as made. One write tells it.
    const refused = await apply(stores, T0 + 2 * MIN, [], 'follow-up');
    expect(refused.writes).toBe(1);
    expect(refused.wrote).toBe('schedule');
    expect(refused.vehicle.hints.workWaitingAt).toBe(iso(T0 + 2 * MIN));
    const quiet = await apply(stores, T0 + 3 * MIN, [events(T0 + 3 * MIN, [], T0)]);
    expect(quiet.writes).toBe(0);
    expect(quiet.vehicle.hints.workWaitingAt).toBe(iso(T0 + 2 * MIN));
  });
});

describe('the planner and work waiting', () => {
  const vehicle = (id: string, over: Partial<VehicleRecord> = {}): VehicleRecord =>
    steadyVehicle(id, T0, { vin: VIN, ...over });
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
    Array.from({ length: n }, (_, i) =>
      steadyVehicle(`v${i}`, T0, {
        vin: VIN,
        hints: { activeAlerts: false, priority: 0, ...(rates ? { rates } : {}) },
      }),
    );

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

describe('a read the budget refused', () => {
  const vehicle = (id: string, rates: string, eventsRefusedAt?: number): VehicleRecord =>
    steadyVehicle(id, T0, {
      vin: VIN,
      hints: {
        activeAlerts: false,
        priority: 0,
        rates,
        ...(eventsRefusedAt !== undefined ? { eventsRefusedAt: iso(eventsRefusedAt) } : {}),
      },
    });
  const same = `r1:${T0}:5:10:0:0:0`;
  const ids = (jobs: readonly unknown[]) => (jobs as PollVehicleJob[]).map((j) => j.vehicleId);
  const config = { followUpReserveRatio: 0, followUpsPerChange: 0 };

  it('is written by the poll as `eventsRefusedAt`, not as work waiting; a refused follow-up is work waiting', async () => {
    const stores = await newVehicle();
    await apply(stores, T0, [events(T0, []), alerts(T0, [])]);
    const { vehicle: v, state } = await stores.states.getVehicleWithState(ID);
    if (!v) throw new Error('no vehicle');
    const at = T0 + 2 * MIN;
    const lost = await applyObservations(
      { stores, bus: bus() as never, now: () => at, config: DEFAULT_POLLING_CONFIG },
      {
        vehicle: v,
        enrollment: { id: 'enr-a', kind: 'oauth-user' },
        stored: state,
        observations: [],
        rotate: false,
        refused: 'events',
      },
    );
    expect(lost.kind === 'Applied' && lost.wrote).toBe('schedule');
    const after = (await stores.vehicles.get(ID))?.hints;
    expect(after?.eventsRefusedAt).toBe(iso(at));
    expect(after?.workWaitingAt).toBeUndefined();
    // Events read, the maintenance follow-up refused: work waiting, and the events read stands.
    const later = T0 + 3 * MIN;
    const cut = await apply(stores, later, [events(later, [], T0)], 'follow-up');
    expect(cut.wrote).toBe('schedule');
    expect(cut.vehicle.hints.workWaitingAt).toBe(iso(later));
    expect(cut.vehicle.hints.eventsRefusedAt).toBe(iso(at));
  });

  it('counts the vehicle from the read made before it: the index ranks it by that age', () => {
    const memory = createPlannerMemory();
    // Booked a minute ago and refused; read 10 minutes ago before that. `other` read 5 minutes ago.
    memory.set('refused', { events: T0 - MIN, eventsBefore: T0 - 10 * MIN });
    memory.set('other', { events: T0 - 5 * MIN });
    const other = vehicle('other', same);
    const p = plan({
      vehicles: [vehicle('refused', same, T0 - MIN + 5_000), other],
      budget: 1,
      now: T0,
      memory,
      config,
    });
    expect(ids(p.jobs)).toEqual(['refused']);
    // Without the hint the read booked a minute ago counts as made: `other` is older.
    const without = plan({ vehicles: [vehicle('refused', same), other], budget: 1, now: T0, memory, config });
    expect(ids(without.jobs)).toEqual(['other']);
    // A hint older than the last booking is an older read's: that booking stands.
    const stale = plan({
      vehicles: [vehicle('refused', same, T0 - MIN - 1), other],
      budget: 1,
      now: T0,
      memory,
      config,
    });
    expect(ids(stale.jobs)).toEqual(['other']);
  });

  it('keeps the guarantee: a quiet vehicle whose guaranteed read was refused is forced in the next cycle', () => {
    // G = 15 min. `quiet` (no change in days) was last read 15 minutes ago: its read booked a
    // minute ago was refused. The busy vehicles' index would take every slot.
    const memory = createPlannerMemory();
    memory.set('quiet', { events: T0 - MIN, eventsBefore: T0 - 15 * MIN });
    const busy = Array.from({ length: 4 }, (_, i) => vehicle(`busy${i}`, `r1:${T0}:40:2:0:0:0`));
    for (const b of busy) memory.set(b.id, { events: T0 - 2 * MIN });
    const quiet = vehicle('quiet', `r1:${T0}:0:48:0:0:0`, T0 - MIN + 1_000);
    const p = plan({ vehicles: [...busy, quiet], budget: 1, now: T0, memory, config });
    expect(ids(p.jobs)).toEqual(['quiet']);
    // Round-robin keeps its fair order: the refused read counts as made there.
    const rr = plan({
      vehicles: [...busy, quiet],
      budget: 1,
      now: T0,
      memory,
      config,
      strategy: 'round-robin',
    });
    expect(ids(rr.jobs)).not.toContain('quiet');
  });
});
