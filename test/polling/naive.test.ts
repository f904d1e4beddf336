import { describe, expect, it } from 'vitest';
import type { PollFleetJob } from '../../functions/core/polling/jobs';
import { planNaive } from '../../functions/core/polling/naive';
import type { Booking } from '../../functions/core/polling/reads';
import type { VehicleRecord } from '../../functions/core/store/records';
import { newVehicle } from './fixtures';

const MIN = 60_000;
const T0 = Date.parse('2026-01-15T09:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const plannedAt = iso(T0);
const FOUR = ['events', 'alerts', 'collisions', 'maintenance'];

const vehicle = (id: string, over: Partial<VehicleRecord> = {}): VehicleRecord => newVehicle(id, T0, over);

const vehicleJob = (vehicleId: string, rotate: boolean) => ({
  kind: 'poll-vehicle',
  vehicleId,
  resources: FOUR,
  strategy: 'naive',
  rotate,
  plannedAt,
});

function batch(brand: 'C' | 'P', vehicleIds: string[], cost = 4): Booking {
  const job: PollFleetJob = { kind: 'poll-fleet', brand, vehicleIds, rotate: false, plannedAt };
  return { job, cost };
}

describe('the naive baseline', () => {
  it('reads four resources of every vehicle when the budget allows, and rotates nothing', () => {
    const p = planNaive([vehicle('a'), vehicle('b')], [batch('C', ['f1', 'f2'])], 12, T0, plannedAt);
    expect(p).toStrictEqual({
      jobs: [vehicleJob('a', false), vehicleJob('b', false), batch('C', ['f1', 'f2']).job],
      estimatedRequests: 12,
      deferred: [],
      guaranteeMs: Number.POSITIVE_INFINITY,
      alertGuaranteeMs: Number.POSITIVE_INFINITY,
    });
  });

  it('reads the stalest first (last poll, else creation), equally stale ones by id', () => {
    const vs = [
      vehicle('fresh', { lastPolledAt: iso(T0 - MIN) }),
      vehicle('d', { lastPolledAt: iso(T0 - 5 * MIN) }),
      vehicle('never', { createdAt: iso(T0 - 10 * MIN) }),
      vehicle('b', { lastPolledAt: iso(T0 - 5 * MIN) }),
      vehicle('c', { lastPolledAt: iso(T0 - 5 * MIN) }),
      // Created long ago but polled recently: its poll counts, not its creation.
      vehicle('old', { lastPolledAt: iso(T0 - 2 * MIN), createdAt: iso(T0 - 100 * MIN) }),
    ];
    const p = planNaive(vs, [], 100, T0, plannedAt);
    expect(p.jobs.map((j) => (j as { vehicleId: string }).vehicleId)).toEqual([
      'never',
      'b',
      'c',
      'd',
      'old',
      'fresh',
    ]);
    // Whatever order they are given in.
    const q = planNaive([...vs].reverse(), [], 100, T0, plannedAt);
    expect(q.jobs).toStrictEqual(p.jobs);
  });

  it('defers the vehicles past the budget, books one at exactly four requests left, and rotates every job', () => {
    const vs = [
      vehicle('a', { lastPolledAt: iso(T0 - 3 * MIN) }),
      vehicle('b', { lastPolledAt: iso(T0 - 2 * MIN) }),
      vehicle('c', { lastPolledAt: iso(T0 - MIN) }),
    ];
    const p = planNaive(vs, [batch('P', ['f1'])], 8, T0, plannedAt);
    expect(p).toStrictEqual({
      jobs: [vehicleJob('a', true), vehicleJob('b', true)],
      estimatedRequests: 8,
      deferred: ['c', 'f1'],
      guaranteeMs: Number.POSITIVE_INFINITY,
      alertGuaranteeMs: Number.POSITIVE_INFINITY,
    });
    // Seven requests: one vehicle, three left unspent.
    const q = planNaive(vs, [], 7, T0, plannedAt);
    expect(q.jobs).toStrictEqual([vehicleJob('a', true)]);
    expect(q.estimatedRequests).toBe(4);
    expect(q.deferred).toEqual(['b', 'c']);
  });

  it('books a fleet batch at exactly its cost, and defers its vehicles one request short', () => {
    const exact = planNaive([vehicle('a')], [batch('C', ['f1', 'f2'], 3)], 7, T0, plannedAt);
    expect(exact.jobs).toStrictEqual([vehicleJob('a', false), batch('C', ['f1', 'f2'], 3).job]);
    expect(exact.estimatedRequests).toBe(7);
    expect(exact.deferred).toEqual([]);

    const short = planNaive(
      [vehicle('a')],
      [batch('C', ['f1', 'f2'], 3), batch('P', ['f3'], 1)],
      6,
      T0,
      plannedAt,
    );
    // The first batch does not fit; the next, cheaper one still does.
    expect(short.jobs).toStrictEqual([vehicleJob('a', true), { ...batch('P', ['f3'], 1).job, rotate: true }]);
    expect(short.estimatedRequests).toBe(5);
    expect(short.deferred).toEqual(['f1', 'f2']);
  });

  it('plans nothing on an empty budget, deferring every vehicle', () => {
    const p = planNaive([vehicle('a')], [batch('C', ['f1'])], 0, T0, plannedAt);
    expect(p.jobs).toEqual([]);
    expect(p.estimatedRequests).toBe(0);
    expect(p.deferred).toEqual(['a', 'f1']);
  });
});
