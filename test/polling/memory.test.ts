import { describe, expect, it } from 'vitest';
import type { PollFleetJob, PollMapJob, PollVehicleJob } from '../../functions/core/polling/jobs';
import { ageOf, createPlannerMemory, lastEventsRead, remember } from '../../functions/core/polling/memory';
import type { Plan } from '../../functions/core/polling/planner';
import type { SchedulingHints } from '../../functions/core/store/records';

const MIN = 60_000;
const T0 = Date.parse('2026-01-15T09:00:00.000Z');
const plannedAt = new Date(T0).toISOString();

function vehicleJob(vehicleId: string, resources: PollVehicleJob['resources']): PollVehicleJob {
  return { kind: 'poll-vehicle', vehicleId, resources, strategy: 'carhook', rotate: false, plannedAt };
}

/** A due vehicle as `remember` reads it: its id and hints (`eventsRefusedAt` when given). */
function due(id: string, eventsRefusedAt?: number): { id: string; hints: SchedulingHints } {
  return {
    id,
    hints: {
      activeAlerts: false,
      priority: 0,
      ...(eventsRefusedAt !== undefined ? { eventsRefusedAt: new Date(eventsRefusedAt).toISOString() } : {}),
    },
  };
}

function planOf(jobs: Plan['jobs']): Plan {
  return { jobs, estimatedRequests: 0, deferred: [], guaranteeMs: 0, alertGuaranteeMs: 0 };
}

describe('the planner memory', () => {
  it('keeps what was set per vehicle and forgets every vehicle not retained', () => {
    const memory = createPlannerMemory();
    expect(memory.get('a')).toBeUndefined();
    memory.set('a', { events: 1 });
    memory.set('b', { alerts: 2 });
    memory.set('c', { events: 3, alerts: 4 });
    expect(memory.get('a')).toEqual({ events: 1 });
    memory.set('a', { events: 5 });
    expect(memory.get('a')).toEqual({ events: 5 });

    memory.retain(new Set(['a', 'c', 'not-there']));
    expect(memory.get('a')).toEqual({ events: 5 });
    expect(memory.get('b')).toBeUndefined();
    expect(memory.get('c')).toEqual({ events: 3, alerts: 4 });
    expect(memory.get('not-there')).toBeUndefined();

    memory.retain(new Set());
    expect(memory.get('a')).toBeUndefined();
    expect(memory.get('c')).toBeUndefined();
  });
});

describe('the age of a read', () => {
  it('is the time since the remembered read, never negative', () => {
    expect(ageOf(T0 - 3 * MIN, 0, T0, MIN, 10 * MIN)).toBe(3 * MIN);
    expect(ageOf(T0, 0, T0, MIN, 10 * MIN)).toBe(0);
    // A read remembered after `now` (a clock step back) is as fresh as one made now.
    expect(ageOf(T0 + 5 * MIN, 0, T0, MIN, 10 * MIN)).toBe(0);
    // The hash and the bound play no part once the read is remembered.
    expect(ageOf(T0 - 1, 123, T0, MIN, MIN)).toBe(1);
  });

  it('without memory, is a phase of 1 to K cycles from the hash, K the whole cycles of the bound', () => {
    // T0 is cycle c0 (minutes since the epoch); the bound of 5 minutes gives K = 5.
    const c0 = Math.floor(T0 / MIN);
    const phase = (hash: number) => ((c0 + hash) % 5) + 1;
    expect([0, 1, 2, 3, 4].map((h) => ageOf(undefined, h, T0, MIN, 5 * MIN))).toEqual(
      [0, 1, 2, 3, 4].map((h) => phase(h) * MIN),
    );
    // Every phase from 1 to K cycles once over K consecutive hashes.
    expect([0, 1, 2, 3, 4].map((h) => ageOf(undefined, h, T0, MIN, 5 * MIN) / MIN).sort()).toEqual([
      1, 2, 3, 4, 5,
    ]);
    // The phase moves on by one cycle each cycle, wrapping from K back to 1.
    const now = T0 - (T0 % MIN) + 30_000; // mid-cycle: same cycle as its start
    const h = 5 - (c0 % 5); // (c0 + h) % 5 = 0: phase 1 this cycle
    expect(ageOf(undefined, h, now, MIN, 5 * MIN)).toBe(MIN);
    expect(ageOf(undefined, h, now + MIN, MIN, 5 * MIN)).toBe(2 * MIN);
    expect(ageOf(undefined, h, now + 4 * MIN, MIN, 5 * MIN)).toBe(5 * MIN);
    expect(ageOf(undefined, h, now + 5 * MIN, MIN, 5 * MIN)).toBe(MIN);
    expect(ageOf(undefined, h, now - 30_000, MIN, 5 * MIN)).toBe(MIN);
    expect(ageOf(undefined, h, now - 30_001, MIN, 5 * MIN)).toBe(5 * MIN);
  });

  it('counts only whole cycles of the bound, and at least one', () => {
    const c0 = Math.floor(T0 / MIN);
    const h = 5 - (c0 % 5);
    // 5.99 cycles: K = 5, so the hash that gives phase 1 at K = 5 gives it here.
    expect(ageOf(undefined, h, T0, MIN, 5 * MIN + 59_999)).toBe(MIN);
    expect(ageOf(undefined, h + 4, T0, MIN, 5 * MIN + 59_999)).toBe(5 * MIN);
    // A bound shorter than one cycle: K = 1, every vehicle one cycle old.
    for (const hash of [0, 1, 7, 2 ** 31]) expect(ageOf(undefined, hash, T0, MIN, 30_000)).toBe(MIN);
    expect(ageOf(undefined, 3, T0, MIN, MIN)).toBe(MIN);
  });
});

describe('remembering a plan', () => {
  it('records the events and alerts reads each vehicle job booked, at the plan time', () => {
    const memory = createPlannerMemory();
    memory.set('a', { events: T0 - 9 * MIN, alerts: T0 - 8 * MIN });
    memory.set('b', { events: T0 - 7 * MIN, alerts: T0 - 6 * MIN });
    const fleet: PollFleetJob = {
      kind: 'poll-fleet',
      brand: 'C',
      vehicleIds: ['f'],
      rotate: false,
      plannedAt,
    };
    const map: PollMapJob = { kind: 'poll-map', vehicleIds: ['m'], plannedAt };
    remember(
      memory,
      ['a', 'b', 'c', 'd', 'f', 'm'].map((id) => due(id)),
      planOf([
        vehicleJob('a', ['events']),
        vehicleJob('b', ['alerts', 'maintenance']),
        vehicleJob('c', ['events', 'alerts']),
        vehicleJob('d', ['maintenance', 'services']),
        fleet,
        map,
      ]),
      T0,
    );
    // `a`: events now (the read before it kept), its alerts kept; `b`: alerts now, its events kept.
    expect(memory.get('a')).toStrictEqual({ events: T0, eventsBefore: T0 - 9 * MIN, alerts: T0 - 8 * MIN });
    expect(memory.get('b')).toStrictEqual({ events: T0 - 7 * MIN, alerts: T0 });
    expect(memory.get('c')).toStrictEqual({ events: T0, alerts: T0 });
    // A job with neither read leaves an entry without either time (no phase guess replaced).
    expect(memory.get('d')).toStrictEqual({});
    // Fleet and map jobs are not the planner's per-vehicle reads.
    expect(memory.get('f')).toBeUndefined();
    expect(memory.get('m')).toBeUndefined();
  });

  it('forgets the vehicles no longer due before recording', () => {
    const memory = createPlannerMemory();
    memory.set('gone', { events: T0 - MIN });
    memory.set('kept', { events: T0 - 2 * MIN });
    memory.set('booked', { events: T0 - 3 * MIN });
    remember(
      memory,
      [due('kept'), due('booked')],
      planOf([vehicleJob('booked', ['events']), vehicleJob('gone', ['events'])]),
      T0,
    );
    // A job for a vehicle no longer due starts from nothing (its old entry was forgotten first).
    expect(memory.get('gone')).toStrictEqual({ events: T0 });
    memory.retain(new Set(['kept', 'booked']));
    expect(memory.get('gone')).toBeUndefined();
    expect(memory.get('kept')).toStrictEqual({ events: T0 - 2 * MIN });
    expect(memory.get('booked')).toStrictEqual({ events: T0, eventsBefore: T0 - 3 * MIN });
  });
});

describe('a read the budget refused', () => {
  it('is not counted as made: the last read is the one booked before it', () => {
    const last = { events: T0 - 2 * MIN, eventsBefore: T0 - 9 * MIN };
    expect(lastEventsRead(last, due('v'))).toBe(T0 - 2 * MIN);
    // Refused at or after its booking: that read was not made.
    expect(lastEventsRead(last, due('v', T0 - 2 * MIN))).toBe(T0 - 9 * MIN);
    expect(lastEventsRead(last, due('v', T0 - MIN))).toBe(T0 - 9 * MIN);
    // A refusal before the last booking is an older read's: the last booking stands.
    expect(lastEventsRead(last, due('v', T0 - 2 * MIN - 1))).toBe(T0 - 2 * MIN);
    // Never booked, or the first booking refused: no read known (a cold start's phase stands in).
    expect(lastEventsRead(undefined, due('v', T0))).toBeUndefined();
    expect(lastEventsRead({ events: T0 - MIN }, due('v', T0))).toBeUndefined();
    expect(lastEventsRead({ alerts: T0 - MIN }, due('v'))).toBeUndefined();
    // No vehicle record to read a hint from: the last booking stands.
    expect(lastEventsRead(last, undefined)).toBe(T0 - 2 * MIN);
  });

  it('booked again, it keeps counting from the read made, however often it is refused', () => {
    const memory = createPlannerMemory();
    memory.set('v', { events: T0 - 10 * MIN });
    const job = planOf([vehicleJob('v', ['events'])]);
    // Booked at T0 and refused; booked at T0 + 1 min and refused again; then read at T0 + 2 min.
    remember(memory, [due('v')], job, T0);
    expect(memory.get('v')).toStrictEqual({ events: T0, eventsBefore: T0 - 10 * MIN });
    remember(memory, [due('v', T0 + 1_000)], job, T0 + MIN);
    expect(memory.get('v')).toStrictEqual({ events: T0 + MIN, eventsBefore: T0 - 10 * MIN });
    remember(memory, [due('v', T0 + MIN + 1_000)], job, T0 + 2 * MIN);
    expect(memory.get('v')).toStrictEqual({ events: T0 + 2 * MIN, eventsBefore: T0 - 10 * MIN });
    // That read made (the refusal is older than it): the next booking counts from it.
    remember(memory, [due('v', T0 + MIN + 1_000)], job, T0 + 3 * MIN);
    expect(memory.get('v')).toStrictEqual({ events: T0 + 3 * MIN, eventsBefore: T0 + 2 * MIN });
    expect(lastEventsRead(memory.get('v'), due('v', T0 + MIN + 1_000))).toBe(T0 + 3 * MIN);
  });
});
