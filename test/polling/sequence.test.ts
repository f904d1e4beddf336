/**
 * `sequence` is one counter per physical vehicle, allocated with the conditional commit that writes
 * the events: whatever the interleaving of concurrent polls of the same vehicle (two workers of the
 * same enrollment, or an OAuth user and a fleet contract of the same VIN) and of enrollment changes
 * (the vehicle leaving and joining the user's list, the enrollment deleted), the log holds every
 * change once, numbered 1, 2, 3… without gap or repeat, in commit order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../../functions/adapters/memory/stores';
import type { Alert, Collision } from '../../functions/core/api/model';
import type { Observation, ObservationOf } from '../../functions/core/detection/observations';
import { applyVehicleList } from '../../functions/core/enrollment/discovery';
import { unenrollAndAnnounce } from '../../functions/core/enrollment/membership';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { applyObservations } from '../../functions/core/polling/commit';
import { DEFAULT_POLLING_CONFIG } from '../../functions/core/polling/config';
import type { Stores } from '../../functions/core/store/ports';
import type { OAuthUserEnrollment } from '../../functions/core/store/records';
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

/** Every store write and read of the state released in an order fast-check picks. */
const racedStores = (stores: Stores, s: fc.Scheduler): Stores => ({
  ...stores,
  states: {
    getState: s.scheduleFunction((id: string) => stores.states.getState(id)),
    getVehicleWithState: s.scheduleFunction((id: string) => stores.states.getVehicleWithState(id)),
    commitPoll: s.scheduleFunction((input) => stores.states.commitPoll(input)),
  },
});

const ENROLLMENT = 'enr-a';
const VEHICLE = `${ENROLLMENT}:api-1`;

const vehicleList = (present: boolean, minute: number): ObservationOf<'v2.vehicles'> =>
  ({
    source: 'v2.vehicles',
    items: present ? [{ id: 'api-1', vin: VIN, brand: 'cielo' }] : [],
    complete: true,
    fetchedAt: at(minute),
  }) as ObservationOf<'v2.vehicles'>;

describe('per-vehicle sequence across polls and enrollment changes', () => {
  it('polls racing the vehicle leaving / joining the user list and the enrollment deleted: 1..n over every type', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(pollArb, fc.boolean()), { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        fc.scheduler(),
        async (rounds, deleteAtEnd, s) => {
          const stores = createMemoryStores();
          const enrollment: OAuthUserEnrollment = {
            kind: 'oauth-user',
            id: ENROLLMENT,
            brand: 'cielo',
            status: 'active',
            userId: 'u1',
            tokenCiphertext: 'x',
            tokenExpiresAt: at(600),
            createdAt: at(0),
            updatedAt: at(0),
          };
          await stores.enrollments.create(enrollment);
          const bus = quietBus();
          // Enrolled: the first list announces the vehicle (sequence 1), then the baseline poll.
          const first = await applyVehicleList(
            { stores, bus, now: () => T0 },
            enrollment,
            vehicleList(true, 0),
          );
          expect(first).toMatchObject({ kind: 'Synced', added: [VEHICLE] });
          await setupBaseline(stores);

          const raced = racedStores(stores, s);
          const config = { ...DEFAULT_POLLING_CONFIG, conflictRetries: 50 };
          const poll = async (observations: Observation[], minute: number) => {
            const { vehicle, state } = await raced.states.getVehicleWithState(VEHICLE);
            if (!vehicle) throw new Error('no vehicle');
            const r = await applyObservations(
              { stores: raced, bus, now: () => T0 + minute * 60_000, config },
              {
                vehicle,
                enrollment: { id: ENROLLMENT, kind: 'oauth-user' },
                stored: state,
                observations,
                rotate: false,
              },
            );
            expect(r.kind).toBe('Applied');
          };
          const list = async (present: boolean, minute: number) => {
            const r = await applyVehicleList(
              { stores: raced, bus, now: () => T0 + minute * 60_000, conflictRetries: 50 },
              enrollment,
              vehicleList(present, minute),
              // The read of the vehicle itself agrees with the list.
              async () => (present ? 'present' : 'absent'),
            );
            expect(r.kind).toBe('Synced');
          };
          for (const [i, [p, present]] of rounds.entries()) {
            const minute = 10 + i * 10;
            await s.waitFor(
              Promise.all([poll(observationsOf(p, minute), minute), list(present, minute + 1)]),
            );
          }
          if (deleteAtEnd) {
            const minute = 10 + rounds.length * 10;
            const [last] = rounds.at(-1) ?? [];
            const deleted = Promise.all([
              poll(observationsOf(last ?? { collisions: [5], alerts: [] }, minute), minute),
              unenrollAndAnnounce({ stores: raced, bus, now: () => T0 + (minute + 1) * 60_000 }, ENROLLMENT),
            ]);
            await s.waitFor(deleted);
          }

          const page = await stores.events.listByTime({
            since: at(-1000),
            until: at(10_000),
            now: T0,
            limit: 1000,
          });
          const events = page.items.map((e) => e.envelope).filter((e) => e.vehicle?.vin === VIN);
          const sequences = events.map((e) => e.sequence).sort((x, y) => x - y);
          expect(sequences).toEqual(sequences.map((_, i) => i + 1));
          // Membership alternates added / removed: each transition told once, on the same counter.
          const membership = [...events]
            .sort((a, b) => a.sequence - b.sequence)
            .filter((e) => e.type.startsWith('enrollment.'))
            .map((e) => e.type);
          membership.forEach((type, i) => {
            expect(type).toBe(i % 2 === 0 ? 'enrollment.vehicle.added' : 'enrollment.vehicle.removed');
          });
          let expectedTransitions = 1;
          let present = true;
          for (const [, p] of rounds) {
            if (p !== present) expectedTransitions++;
            present = p;
          }
          if (deleteAtEnd && present) expectedTransitions++;
          expect(membership).toHaveLength(expectedTransitions);
          const keys = events
            .filter((e) => e.type.startsWith('vehicle.'))
            .map((e) => `${e.type}/${e.source.recordId}/${String(e.data.occurrence ?? '')}`);
          expect(new Set(keys).size).toBe(keys.length);
          const state = JSON.parse((await stores.states.getState(`vin:${VIN}`))?.state ?? '{}');
          expect(state.sequence).toBe(events.length);
        },
      ),
      { numRuns: 100 },
    );
  });
});

/** The first poll of the enrolled vehicle (baseline: nothing from before is news). */
async function setupBaseline(stores: Stores): Promise<void> {
  const { vehicle, state } = await stores.states.getVehicleWithState(VEHICLE);
  if (!vehicle) throw new Error('no vehicle');
  await applyObservations(
    { stores, bus: quietBus(), now: () => T0, config: DEFAULT_POLLING_CONFIG },
    {
      vehicle,
      enrollment: { id: ENROLLMENT, kind: 'oauth-user' },
      stored: state,
      observations: [],
      rotate: false,
    },
  );
}
