import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../../functions/adapters/memory/stores';
import type { Observation } from '../../functions/core/detection/observations';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import {
  type ApplyInput,
  type ApplyOutcome,
  applyObservations,
  republishPending,
} from '../../functions/core/polling/commit';
import { DEFAULT_POLLING_CONFIG, type PollingConfig } from '../../functions/core/polling/config';
import type { CommitPollInput, Stores } from '../../functions/core/store/ports';
import type { ScheduleUpdate } from '../../functions/core/store/records';

/**
 * What a poll's commit writes for the planner: the scheduling fields (`resourcePolledAt`,
 * `nextPollAt`, `lastPolledAt`, the hints) and whether a cursor-only change is worth a write, on
 * memory stores with every write captured.
 */

const T0 = Date.parse('2026-11-01T08:00:00.000Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();
const VEHICLE = 'enr-a:api-1';

// A period per periodic read, so a write taken from the wrong one shows: half of each is 3 h,
// 12 h, 24 h and 48 h.
const config: PollingConfig = {
  ...DEFAULT_POLLING_CONFIG,
  alertsReconcileMs: 6 * HOUR,
  dailyMs: DAY,
  servicesIntervalMs: 2 * DAY,
  mapIntervalMs: 4 * DAY,
};

type Write =
  | { kind: 'commit'; schedule: ScheduleUpdate; input: CommitPollInput }
  | { kind: 'touch'; schedule: ScheduleUpdate };

async function world(
  options: {
    conflictRetries?: number;
    vehicle?: { brand?: string; model?: string; subModel?: string };
    /** The store reports every event as already in the log (written by an earlier attempt). */
    alreadyLogged?: boolean;
  } = {},
) {
  const stores = createMemoryStores();
  await stores.vehicles.put(
    {
      id: VEHICLE,
      enrollmentId: 'enr-a',
      vin: 'VF3ABCDEFGH123456',
      apiVehicleId: 'api-1',
      nextPollAt: iso(T0),
      ...options.vehicle,
    },
    T0,
  );
  const writes: Write[] = [];
  let conflictsLeft = 0;
  const captured: Stores = {
    ...stores,
    states: {
      ...stores.states,
      commitPoll: async (input) => {
        if (conflictsLeft > 0) {
          conflictsLeft -= 1;
          // Another worker committed the same state meanwhile: the poll re-diffs against it.
          const { state } = await stores.states.getVehicleWithState(VEHICLE);
          if (!state) throw new Error('no state to conflict with');
          return {
            kind: 'VersionConflict',
            vehicleId: input.vehicleId,
            expectedVersion: input.expectedVersion,
            current: state,
          };
        }
        writes.push({ kind: 'commit', schedule: input.schedule as ScheduleUpdate, input });
        const result = await stores.states.commitPoll(input);
        if (!options.alreadyLogged || result.kind !== 'Committed') return result;
        return { ...result, eventsWritten: [], eventsAlreadyPresent: input.events.map((e) => e.id) };
      },
    },
    vehicles: {
      ...stores.vehicles,
      touchSchedule: async (id, update, now) => {
        writes.push({ kind: 'touch', schedule: update });
        return stores.vehicles.touchSchedule(id, update, now);
      },
    },
  };
  const published: EventEnvelope[] = [];
  const bus = { failing: false };
  const c = { ...config, conflictRetries: options.conflictRetries ?? config.conflictRetries };
  async function poll(
    at: number,
    observations: readonly Observation[],
    rotate = false,
    extra: Partial<Pick<ApplyInput, 'enrollments' | 'stored'>> = {},
  ): Promise<ApplyOutcome> {
    const { vehicle, state } = await stores.states.getVehicleWithState(VEHICLE);
    if (!vehicle) throw new Error('no vehicle');
    return applyObservations(
      {
        stores: captured,
        bus: {
          publish: async (events) => {
            if (bus.failing)
              return {
                published: [],
                failed: events.map((e) => ({
                  id: e.id,
                  retryable: false,
                  code: 'BusCallFailed',
                  message: 'bus down',
                })),
              };
            published.push(...events);
            return { published: events.map((e) => e.id), failed: [] };
          },
        },
        now: () => at,
        config: c,
        // The publisher's retries wait on this, not on real time.
        publish: { sleep: async () => undefined },
      },
      {
        vehicle,
        enrollment: { id: 'enr-a', kind: 'oauth-user' },
        stored: state,
        observations,
        rotate,
        ...extra,
      },
    );
  }
  /** The scheduling fields of the last write, without the learned rates (rates.ts's own tests). */
  function lastSchedule(): Omit<ScheduleUpdate, 'hints'> & { hints: Record<string, unknown> } {
    const w = writes.at(-1);
    if (!w) throw new Error('nothing written');
    const { rates: _rates, ...hints } = w.schedule.hints ?? {};
    return { ...w.schedule, hints };
  }
  /** The next `n` commits find that another worker committed first. */
  const conflictNext = (n: number) => {
    conflictsLeft = n;
    writes.length = 0;
  };
  return { stores, writes, poll, lastSchedule, published, conflictNext, bus };
}

type Source = 'v2.alerts' | 'v2.maintenance' | 'services' | 'map';
const read = (source: Source, at: number, extra: Partial<Observation> = {}): Observation =>
  ({ source, items: [], complete: true, fetchedAt: iso(at), ...extra }) as Observation;
const all = (at: number) =>
  (['v2.alerts', 'v2.maintenance', 'services', 'map'] as const).map((s) => read(s, at));

describe('the scheduling fields a poll writes', () => {
  it('records each periodic read the first time, at the poll time, with the cursors', async () => {
    const w = await world();
    await w.poll(T0, []);
    expect(w.lastSchedule()).toStrictEqual({
      nextPollAt: iso(T0),
      hints: { activeAlerts: false },
      lastChangeAt: iso(T0),
    });
    const t1 = T0 + MIN;
    expect((await w.poll(t1, all(t1))).kind).toBe('Applied');
    expect(w.lastSchedule()).toStrictEqual({
      nextPollAt: iso(T0),
      hints: { activeAlerts: false },
      resourcePolledAt: { alerts: iso(t1), maintenance: iso(t1), services: iso(t1), map: iso(t1) },
      lastChangeAt: iso(t1),
    });
  });

  it('moves a periodic read time at exactly half its own period since the last, not one millisecond sooner', async () => {
    const w = await world();
    await w.poll(T0, []);
    await w.poll(T0, all(T0));
    const halves: [Source, string, number][] = [
      ['v2.alerts', 'alerts', 3 * HOUR],
      ['v2.maintenance', 'maintenance', 12 * HOUR],
      ['services', 'services', 24 * HOUR],
      ['map', 'map', 48 * HOUR],
    ];
    for (const [source, resource, half] of halves) {
      // Rotating, so the scheduling fields are written whatever the state.
      await w.poll(T0 + half - 1, [read(source, T0 + half - 1)], true);
      expect(w.lastSchedule().resourcePolledAt?.[resource]).toBeUndefined();
    }
    for (const [source, resource, half] of halves) {
      await w.poll(T0 + half, [read(source, T0 + half)], true);
      expect(w.lastSchedule().resourcePolledAt).toStrictEqual({ [resource]: iso(T0 + half) });
    }
  });

  it("records a fleet vehicle's v1 maintenance read as its maintenance read", async () => {
    const w = await world();
    await w.poll(T0, []);
    const t = T0 + MIN;
    await w.poll(
      t,
      [{ source: 'v1.maintenance', items: [], complete: true, fetchedAt: iso(t) } as Observation],
      true,
    );
    expect(w.lastSchedule().resourcePolledAt).toStrictEqual({ maintenance: iso(t) });
  });

  it('does not record a windowed alert list or an incomplete read', async () => {
    const w = await world();
    await w.poll(T0, []);
    const t = T0 + MIN;
    await w.poll(
      t,
      [
        read('v2.alerts', t, { window: { since: iso(t - HOUR) } }),
        read('v2.maintenance', t, { complete: false }),
        read('services', t, { complete: false }),
        read('map', t),
      ],
      true,
    );
    expect(w.lastSchedule().resourcePolledAt).toStrictEqual({ map: iso(t) });
  });

  it('a rotating poll moves nextPollAt and lastPolledAt to its time; another keeps nextPollAt and writes no lastPolledAt', async () => {
    const w = await world();
    await w.poll(T0, []);
    const t = T0 + 5 * MIN;
    // Nothing read: only the scheduling fields are written.
    expect(await w.poll(t, [], true)).toMatchObject({ kind: 'Applied', wrote: 'schedule' });
    expect(w.writes.at(-1)?.kind).toBe('touch');
    expect(w.lastSchedule()).toStrictEqual({
      nextPollAt: iso(t),
      lastPolledAt: iso(t),
      hints: { activeAlerts: false },
    });
    expect((await w.stores.vehicles.get(VEHICLE))?.lastPolledAt).toBe(iso(t));
    await w.poll(t + MIN, all(t + MIN));
    expect(w.lastSchedule()).toStrictEqual({
      nextPollAt: iso(t),
      hints: { activeAlerts: false },
      resourcePolledAt: {
        alerts: iso(t + MIN),
        maintenance: iso(t + MIN),
        services: iso(t + MIN),
        map: iso(t + MIN),
      },
      lastChangeAt: iso(t + MIN),
    });
  });
});

describe('a change of cursors only', () => {
  const halves: [Source, number][] = [
    ['v2.alerts', 3 * HOUR],
    ['v2.maintenance', 12 * HOUR],
    ['services', 24 * HOUR],
    ['map', 48 * HOUR],
  ];
  for (const [source, half] of halves) {
    it(`${source}: writes nothing until the read is half its period after the committed one, then commits`, async () => {
      const w = await world();
      await w.poll(T0, []);
      await w.poll(T0, all(T0));
      const before = w.writes.length;
      expect(await w.poll(T0 + half - 1, [read(source, T0 + half - 1)])).toMatchObject({
        kind: 'Applied',
        wrote: 'none',
        eventsWritten: [],
        published: [],
        unpublished: [],
      });
      expect(w.writes).toHaveLength(before);
      expect(await w.poll(T0 + half, [read(source, T0 + half)])).toMatchObject({
        kind: 'Applied',
        wrote: 'commit',
      });
      expect(w.writes.slice(before).map((x) => x.kind)).toStrictEqual(['commit']);
      // A change of cursors is no change of the vehicle: no lastChangeAt, no events.
      expect(w.lastSchedule().lastChangeAt).toBeUndefined();
      expect(await w.poll(T0 + 2 * half, [read(source, T0 + 2 * half)])).toMatchObject({
        wrote: 'commit',
        eventsWritten: [],
        published: [],
        unpublished: [],
      });
    });
  }
});

describe('the events cursor', () => {
  it('an event of a kind Carhook does not announce is committed with its cursor, with nothing to publish', async () => {
    const w = await world();
    const events = (t: number, items: unknown[]): Observation =>
      ({
        source: 'v2.events',
        items,
        complete: true,
        fetchedAt: iso(t),
        window: { since: iso(T0 - DAY) },
      }) as Observation;
    await w.poll(T0, [events(T0, [])]);
    const before = w.writes.length;
    const t = T0 + MIN;
    // An event of a kind Carhook does not announce: nothing to tell, but the cursor moves past it.
    const outcome = await w.poll(t, [
      events(t, [{ id: 'e1', type: 'SOMETHING_NEW', eventId: 'r1', createdAt: iso(t - 1000) }]),
    ]);
    expect(outcome).toMatchObject({ kind: 'Applied', wrote: 'commit', eventsWritten: [] });
    expect(w.writes.slice(before).map((x) => x.kind)).toStrictEqual(['commit']);
    if (outcome.kind !== 'Applied') throw new Error(outcome.kind);
    expect(outcome.hints.eventsSince).toBeDefined();
  });
});

describe('conflicting commits', () => {
  it('re-diffs against the committed state up to conflictRetries times', async () => {
    const w = await world({ conflictRetries: 2 });
    await w.poll(T0, []);
    w.conflictNext(2);
    expect(await w.poll(T0 + MIN, all(T0 + MIN))).toMatchObject({
      kind: 'Applied',
      wrote: 'commit',
      conflicts: 2,
    });
    expect(w.writes.map((x) => x.kind)).toStrictEqual(['commit']);
  });

  it('one conflict more fails the poll, and nothing is written', async () => {
    const w = await world({ conflictRetries: 2 });
    await w.poll(T0, []);
    w.conflictNext(3);
    expect(await w.poll(T0 + MIN, all(T0 + MIN))).toStrictEqual({
      kind: 'ConflictRetriesExhausted',
      conflicts: 3,
    });
    expect(w.writes).toStrictEqual([]);
  });
});

/** One active alert, read in a partial list (it raises by its own state). */
const alert = (id: string, t: number): Observation =>
  ({
    source: 'v2.alerts',
    items: [{ id, active: true, message: 'alertOilPressure', startedAt: iso(t - 1000), updatedAt: iso(t) }],
    complete: false,
    fetchedAt: iso(t),
  }) as Observation;

describe('the events a poll commits', () => {
  it("carry the vehicle's brand, model and sub-model, and every enrollment of the VIN when there are several", async () => {
    const w = await world({ vehicle: { brand: 'C', model: 'C5 Aircross', subModel: 'Hybrid' } });
    await w.poll(T0, []);
    const enrollments = [
      { id: 'enr-a', kind: 'oauth-user' as const },
      { id: 'enr-b', kind: 'fleet-contract' as const },
    ];
    const outcome = await w.poll(T0 + MIN, [alert('a1', T0 + MIN)], false, { enrollments });
    expect(w.published).toHaveLength(1);
    const e = w.published[0] as EventEnvelope;
    expect(e.vehicle).toStrictEqual({
      id: VEHICLE,
      vin: 'VF3ABCDEFGH123456',
      brand: 'C',
      model: 'C5 Aircross',
      subModel: 'Hybrid',
    });
    expect(e.enrollment).toStrictEqual({ id: 'enr-a', kind: 'oauth-user' });
    expect(e.enrollments).toStrictEqual(enrollments);
    expect(outcome).toMatchObject({
      kind: 'Applied',
      wrote: 'commit',
      eventsWritten: [e.id],
      published: [e.id],
      unpublished: [],
    });
    // The planner's hints: an active alert, and the activity it revealed.
    expect(w.lastSchedule().hints).toStrictEqual({
      activeAlerts: true,
      lastActivityAt: iso(T0 + MIN - 1000),
    });
  });

  it('name no model, brand or other enrollment the vehicle does not have', async () => {
    const w = await world();
    await w.poll(T0, []);
    await w.poll(T0 + MIN, [alert('a1', T0 + MIN)], false, {
      enrollments: [{ id: 'enr-a', kind: 'oauth-user' }],
    });
    const e = w.published[0] as EventEnvelope;
    expect(e.vehicle).toStrictEqual({ id: VEHICLE, vin: 'VF3ABCDEFGH123456' });
    expect('enrollments' in e).toBe(false);
  });

  it('left unpublished when the bus refuses them, still committed', async () => {
    const w = await world();
    await w.poll(T0, []);
    w.bus.failing = true;
    const outcome = await w.poll(T0 + MIN, [alert('a1', T0 + MIN)]);
    if (outcome.kind !== 'Applied') throw new Error(outcome.kind);
    expect(outcome.eventsWritten).toHaveLength(1);
    expect(outcome.published).toStrictEqual([]);
    expect(outcome.unpublished).toStrictEqual(outcome.eventsWritten);
  });
});

describe('a stored state that cannot be read', () => {
  it('is never overwritten: the poll names the field and writes nothing', async () => {
    const w = await world();
    await w.poll(T0, []);
    const { state } = await w.stores.states.getVehicleWithState(VEHICLE);
    if (!state) throw new Error('no state');
    w.writes.length = 0;
    const outcome = await w.poll(T0 + MIN, [alert('a1', T0 + MIN)], true, {
      stored: { ...state, state: '{"format":99}' },
    });
    expect(outcome).toMatchObject({ kind: 'StateUnreadable', field: 'stateFormat' });
    expect(w.writes).toStrictEqual([]);
  });
});

describe('events the store already held', () => {
  it('are not published again by the poll that committed them (the first attempt or the sweeper does)', async () => {
    const w = await world({ alreadyLogged: true });
    await w.poll(T0, []);
    const outcome = await w.poll(T0 + MIN, [alert('a1', T0 + MIN)]);
    expect(outcome).toMatchObject({
      kind: 'Applied',
      wrote: 'commit',
      eventsWritten: [],
      published: [],
      unpublished: [],
    });
    expect(w.published).toStrictEqual([]);
    const commit = w.writes.at(-1);
    expect(commit?.kind === 'commit' && commit.input.events.map((e) => e.type)).toStrictEqual([
      'vehicle.alert.raised',
    ]);
  });
});

describe('the unpublished sweeper', () => {
  it('publishes what the log holds unpublished, page after page with the cursor, once', async () => {
    const w = await world();
    await w.poll(T0, []);
    w.bus.failing = true;
    const first = await w.poll(T0 + MIN, [alert('a1', T0 + MIN)]);
    const second = await w.poll(T0 + 2 * MIN, [alert('a2', T0 + 2 * MIN)]);
    const left = [first, second].flatMap((o) => (o.kind === 'Applied' ? o.unpublished : []));
    expect(left).toHaveLength(2);

    const queries: unknown[] = [];
    const events = {
      ...w.stores.events,
      listUnpublished: (query: Parameters<typeof w.stores.events.listUnpublished>[0]) => {
        queries.push(query);
        return w.stores.events.listUnpublished(query);
      },
    };
    const deps = {
      events,
      bus: {
        publish: async (batch: readonly EventEnvelope[]) =>
          w.bus.failing
            ? {
                published: [],
                failed: batch.map((e) => ({
                  id: e.id,
                  retryable: false,
                  code: 'BusCallFailed',
                  message: 'down',
                })),
              }
            : { published: batch.map((e) => e.id), failed: [] },
      },
      now: () => T0 + 3 * MIN,
      publish: { pageSize: 1, sleep: async () => undefined },
    };
    // The bus still refusing: both stay unpublished, named by id.
    const down = await republishPending(deps);
    expect(down.published).toStrictEqual([]);
    expect([...down.unpublished].sort()).toStrictEqual([...left].sort());

    w.bus.failing = false;
    queries.length = 0;
    const up = await republishPending(deps);
    expect([...up.published].sort()).toStrictEqual([...left].sort());
    expect(up.unpublished).toStrictEqual([]);
    // One event a page: the second page asked with the first page's cursor.
    expect(queries[0]).toStrictEqual({ now: T0 + 3 * MIN, limit: 1 });
    expect(typeof (queries[1] as { cursor?: unknown }).cursor).toBe('string');
    expect((await republishPending(deps)).published).toStrictEqual([]);
  });
});
