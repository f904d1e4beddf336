/**
 * `sequence` is one counter per physical vehicle, allocated with the conditional commit that writes
 * the events: whatever the interleaving of concurrent polls of the same vehicle (two workers of the
 * same enrollment, or an OAuth user and a fleet contract of the same VIN), the log holds every
 * change once, numbered 1, 2, 3… without gap or repeat, in commit order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../../functions/adapters/memory/stores';
import type { Alert, Collision } from '../../functions/core/api/model';
import type { Observation } from '../../functions/core/detection/observations';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { applyObservations } from '../../functions/core/polling/commit';
import { DEFAULT_POLLING_CONFIG } from '../../functions/core/polling/config';
import type { Stores } from '../../functions/core/store/ports';
import type { MemoryBus } from './support';

const T0 = Date.parse('2026-11-01T08:00:00.000Z');
const at = (minute: number): string => new Date(T0 + minute * 60_000).toISOString();
const VIN = 'VF3ABCDEFGH123456';

const quietBus = (): MemoryBus => {
  const received: EventEnvelope[] = [];
  return {
    received,
    failing: false,
    publish: async (events: readonly EventEnvelope[]) => {
      received.push(...events);
      return { published: events.map((e) => e.id), failed: [] };
    },
    ids: () => received.map((e) => e.id),
  } as unknown as MemoryBus;
};

/** What one poll read: collisions and alerts of a small pool, so polls overlap. */
const pollArb = fc.record({
  collisions: fc.uniqueArray(fc.integer({ min: 0, max: 5 }), { maxLength: 4 }),
  alerts: fc.uniqueArray(fc.record({ id: fc.integer({ min: 0, max: 3 }), active: fc.boolean() }), {
    maxLength: 3,
    selector: (a) => a.id,
  }),
});

type Poll = { collisions: number[]; alerts: { id: number; active: boolean }[] };

const observationsOf = (poll: Poll, minute: number): Observation[] => {
  const collisions: Collision[] = poll.collisions.map((i) => ({
    id: `c${i}`,
    rollOver: false,
    pedestrian: false,
    front: 'low',
    rear: 'none',
    lateral: 'none',
    createdAt: at(1 + i),
  }));
  const alerts: Alert[] = poll.alerts.map((a) => ({
    id: `a${a.id}`,
    active: a.active,
    message: 'alertOilPressure',
    startedAt: at(1 + a.id),
    updatedAt: at(minute),
  }));
  return [
    { source: 'v2.collisions', items: collisions, complete: false, fetchedAt: at(minute) },
    // Partial lists: they raise and fix by record state, never by absence, so any order is valid.
    { source: 'v2.alerts', items: alerts, complete: false, fetchedAt: at(minute) },
  ] as Observation[];
};

/** Two vehicles of one VIN (an OAuth user's, a fleet contract's) or the same vehicle twice. */
async function setup(stores: Stores, twoEnrollments: boolean): Promise<string[]> {
  const ids = twoEnrollments ? ['enr-a:api-1', `enr-b:${VIN}`] : ['enr-a:api-1', 'enr-a:api-1'];
  for (const id of new Set(ids)) {
    await stores.vehicles.put(
      { id, enrollmentId: id.split(':')[0] as string, vin: VIN, nextPollAt: at(0) },
      T0,
    );
  }
  // The first poll (baseline) happened: later records are news.
  const { vehicle, state } = await stores.states.getVehicleWithState(ids[0] as string);
  if (!vehicle) throw new Error('no vehicle');
  await applyObservations(
    { stores, bus: quietBus(), now: () => T0, config: DEFAULT_POLLING_CONFIG },
    {
      vehicle,
      enrollment: { id: 'enr-a', kind: 'oauth-user' },
      stored: state,
      observations: [],
      rotate: false,
    },
  );
  return ids;
}

describe('per-vehicle sequence across concurrent polls', () => {
  it('two polls of the same vehicle (or of one VIN through two enrollments) racing: 1..n, each change once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(pollArb, pollArb), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.scheduler(),
        async (rounds, twoEnrollments, s) => {
          const stores = createMemoryStores();
          const ids = await setup(stores, twoEnrollments);
          // Every store call of the racing polls is released in an order fast-check picks.
          const raced: Stores = {
            ...stores,
            states: {
              getState: s.scheduleFunction((id: string) => stores.states.getState(id)),
              getVehicleWithState: s.scheduleFunction((id: string) => stores.states.getVehicleWithState(id)),
              commitPoll: s.scheduleFunction((input) => stores.states.commitPoll(input)),
            },
          };
          const config = { ...DEFAULT_POLLING_CONFIG, conflictRetries: 20 };
          const poll = async (vehicleId: string, observations: Observation[], minute: number) => {
            const { vehicle, state } = await raced.states.getVehicleWithState(vehicleId);
            if (!vehicle) throw new Error('no vehicle');
            const r = await applyObservations(
              { stores: raced, bus: quietBus(), now: () => T0 + minute * 60_000, config },
              {
                vehicle,
                enrollment: { id: vehicle.enrollmentId, kind: 'oauth-user' },
                stored: state,
                observations,
                rotate: false,
              },
            );
            expect(r.kind).toBe('Applied');
          };
          for (const [i, [a, b]] of rounds.entries()) {
            const minute = 10 + i * 10;
            const both = Promise.all([
              poll(ids[0] as string, observationsOf(a, minute), minute),
              poll(ids[1] as string, observationsOf(b, minute + 1), minute + 1),
            ]);
            await s.waitFor(both);
          }
          const page = await stores.events.listByTime({
            since: at(-1000),
            until: at(10_000),
            now: T0,
            limit: 1000,
          });
          const events = page.items.map((e) => e.envelope);
          const sequences = events.map((e) => e.sequence).sort((x, y) => x - y);
          expect(sequences).toEqual(sequences.map((_, i) => i + 1));
          // Each change once: one collision event per collision, one raise per alert occurrence.
          const keys = events.map((e) => `${e.type}/${e.source.recordId}/${String(e.data.occurrence ?? '')}`);
          expect(new Set(keys).size).toBe(keys.length);
          const state = JSON.parse((await stores.states.getState(`vin:${VIN}`))?.state ?? '{}');
          expect(state.sequence).toBe(events.length);
        },
      ),
      { numRuns: 150 },
    );
  });
});
