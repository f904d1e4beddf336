/**
 * The freshness check over the memory stores, on an injected clock: when it is due, what it tells
 * (exact ids, stored with its state in the event log, then published), and what it never does:
 * tell twice, lose an event the bus refused, overwrite a state it does not know, or trust a handful
 * of events for a p95. A quota of 12 requests a minute keeps the fleets small: 10 vehicles are read
 * every minute, 200 about every 20 minutes.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../../functions/adapters/memory/stores';
import { MEASURED_MIN_EVENTS, measuredLags, readMeasuredLags } from '../../functions/core/capacity/measured';
import {
  FRESHNESS_STATE_FORMAT,
  FRESHNESS_STATE_KEY,
  type FreshnessWatchDeps,
  freshnessEvent,
  watchFreshness,
} from '../../functions/core/capacity/watch';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { eventId } from '../../functions/core/events/ids';
import { validateEvent } from '../../functions/core/events/validate';
import { republishPending } from '../../functions/core/polling/commit';
import { DEFAULT_POLLING_CONFIG } from '../../functions/core/polling/config';
import type { RateBudgetConfig } from '../../functions/core/ratelimit/bucket';
import { createMemoryRateBudget } from '../../functions/core/ratelimit/budget';
import { MemoryBus } from '../polling/support';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T0 = Date.parse('2026-03-02T08:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const QUOTA: RateBudgetConfig = { limit: 12, windowMs: MINUTE, safetyMargin: 0.1 };
const atRiskId = (kind: string, at: number) =>
  eventId({ scope: 'carhook', type: 'carhook.freshness.at_risk', key: kind, transition: String(at) });
const restoredId = (kind: string, atRiskAt: number) =>
  eventId({ scope: 'carhook', type: 'carhook.freshness.restored', key: kind, transition: String(atRiskAt) });

function world(targets: FreshnessWatchDeps['targets']) {
  const stores = createMemoryStores();
  const bus = new MemoryBus();
  let now = T0;
  let deps: FreshnessWatchDeps = {
    stores,
    vehicles: stores.vehicles,
    rateBudget: createMemoryRateBudget(QUOTA),
    rateBudgetConfig: QUOTA,
    pollingConfig: DEFAULT_POLLING_CONFIG,
    bus,
    now: () => now,
    targets,
    publish: { sleep: async () => {} },
  };
  let n = 0;
  return {
    stores,
    bus,
    deps: () => deps,
    retarget(next: FreshnessWatchDeps['targets']) {
      deps = { ...deps, targets: next };
    },
    /** Moves the clock by `ms` (back when negative). */
    pass: (ms: number) => {
      now += ms;
    },
    now: () => now,
    check: () => watchFreshness(deps),
    async enroll(count: number): Promise<string[]> {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const id = `enr_1:v${n}`;
        await stores.vehicles.put(
          {
            id,
            enrollmentId: 'enr_1',
            apiVehicleId: `v${n}`,
            vin: `VF1${String(n).padStart(14, '0')}`,
            nextPollAt: iso(now),
          },
          now,
        );
        ids.push(id);
        n += 1;
      }
      return ids;
    },
    async pause(ids: readonly string[]) {
      for (const id of ids) await stores.vehicles.pause(id, 'manual', now);
    },
    async resume(ids: readonly string[]) {
      for (const id of ids) await stores.vehicles.resume(id, now);
    },
    told: () => bus.received.map((e) => `${e.type} ${(e.data as { kind: string }).kind}`),
  };
}

const CHECKED_NOTHING = { kind: 'Checked', told: [], published: [], unpublished: [] };

describe('the freshness check', () => {
  it('does nothing without a target', async () => {
    const w = world({});
    await w.enroll(5);
    expect(await w.check()).toEqual({ kind: 'NoTargets' });
    expect(await w.stores.states.getState(FRESHNESS_STATE_KEY)).toBeUndefined();
  });

  it('tells a fleet grown past its trips target once, and restored once it shrinks back', async () => {
    const w = world({ trips: 10 * MINUTE });
    await w.enroll(10);
    expect(await w.check()).toEqual(CHECKED_NOTHING);
    const stored = await w.stores.states.getState(FRESHNESS_STATE_KEY);
    expect(stored?.stateFormat).toBe(FRESHNESS_STATE_FORMAT);
    expect(JSON.parse(stored?.state ?? '{}')).toEqual({ checkedAt: T0, kinds: { trips: { atRisk: false } } });

    const grown = await w.enroll(190);
    // Within 5 planner cycles (give or take half of one) of the last check: not due.
    w.pass(4 * MINUTE);
    expect(await w.check()).toEqual({ kind: 'NotDue', checkedAt: T0 });
    w.pass(MINUTE / 2);
    const atRiskAt = w.now();
    const id = atRiskId('trips', atRiskAt);
    expect(await w.check()).toEqual({ kind: 'Checked', told: [id], published: [id], unpublished: [] });
    const [event] = w.bus.received;
    expect(validateEvent(event)).toEqual({ ok: true });
    expect(event).toMatchObject({
      id,
      type: 'carhook.freshness.at_risk',
      occurredAt: iso(atRiskAt),
      sequence: 0,
      source: { api: 'carhook', operation: 'carhook.freshness.at_risk' },
      data: {
        kind: 'trips',
        targetS: 600,
        vehicles: 200,
        quotaLimit: 12,
        windowSeconds: 60,
        measuredEvents: 0,
        checkedAt: iso(atRiskAt),
      },
    });
    expect(event?.data).not.toHaveProperty('measuredP95S');
    const data = (event as EventEnvelope).data as { predictedP95S: number; quotaForTarget: number };
    expect(data.predictedP95S).toBeGreaterThan(600);
    // The quota that meets 10 min for 200 vehicles: about twice the 12 followed.
    expect(data.quotaForTarget).toBeGreaterThan(20);
    expect(data.quotaForTarget).toBeLessThan(30);
    expect((await w.stores.events.get(id, w.now()))?.published).toBe(true);

    // Still at risk, an hour and more later: told once.
    for (const later of [5 * MINUTE, HOUR, 5 * MINUTE]) {
      w.pass(later);
      expect(await w.check()).toEqual(CHECKED_NOTHING);
    }
    await w.pause(grown);
    w.pass(5 * MINUTE);
    expect(await w.check()).toMatchObject({ kind: 'Checked', told: [restoredId('trips', atRiskAt)] });
    expect(w.told()).toEqual(['carhook.freshness.at_risk trips', 'carhook.freshness.restored trips']);
    expect(w.bus.received[1]?.data).toMatchObject({
      kind: 'trips',
      vehicles: 10,
      atRiskSince: iso(atRiskAt),
    });
    expect(
      ((w.bus.received[1] as EventEnvelope).data as { predictedP95S: number }).predictedP95S,
    ).toBeLessThan(600);

    // At risk again within the hour of the first at-risk... it is past; a new pair, with new ids.
    await w.resume(grown);
    w.pass(5 * MINUTE);
    expect(await w.check()).toMatchObject({ told: [atRiskId('trips', w.now())] });
    expect(new Set(w.bus.received.map((e) => e.id)).size).toBe(3);
  });

  it('keeps a standing at-risk through a target removed and set again: no second at-risk, then restored', async () => {
    const w = world({ trips: 10 * MINUTE });
    const grown = await w.enroll(200);
    const atRiskAt = w.now();
    expect(await w.check()).toMatchObject({ told: [atRiskId('trips', atRiskAt)] });
    w.retarget({ alerts: HOUR });
    w.pass(5 * MINUTE);
    expect(await w.check()).toEqual(CHECKED_NOTHING);
    w.retarget({ trips: 10 * MINUTE });
    w.pass(2 * HOUR);
    // Still at risk: the at-risk told stands; nothing new.
    expect(await w.check()).toEqual(CHECKED_NOTHING);
    await w.pause(grown.slice(10));
    w.pass(5 * MINUTE);
    expect(await w.check()).toMatchObject({ told: [restoredId('trips', atRiskAt)] });
    expect(w.told()).toEqual(['carhook.freshness.at_risk trips', 'carhook.freshness.restored trips']);
  });

  it('tells a measured p95 past the target even when the model meets it', async () => {
    const w = world({ alerts: 5 * MINUTE });
    await w.enroll(5);
    const events: EventEnvelope[] = [];
    for (let i = 0; i < 30; i++) {
      const occurred = T0 - 50 * MINUTE + i * MINUTE;
      events.push({
        id: `evt_lag${i}`,
        type: i % 2 ? 'vehicle.alert.raised' : 'vehicle.alert.fixed',
        schemaVersion: 1,
        occurredAt: iso(occurred),
        detectedAt: iso(occurred + 10 * MINUTE),
        sequence: i + 1,
        vehicle: { id: 'enr_1:v0' },
        source: { api: 'v2' },
        data: {},
      });
    }
    await w.stores.events.append(events, T0);
    expect(await w.check()).toMatchObject({ kind: 'Checked', told: [atRiskId('alerts', T0)] });
    expect(w.bus.received[0]?.data).toMatchObject({
      kind: 'alerts',
      targetS: 300,
      measuredP95S: 600,
      measuredEvents: 30,
    });
    expect(
      ((w.bus.received[0] as EventEnvelope).data as { predictedP95S: number }).predictedP95S,
    ).toBeLessThan(300);
  });

  it('keeps what the bus refused in the event log: the sweeper publishes it, same id', async () => {
    const w = world({ trips: 10 * MINUTE });
    await w.enroll(200);
    w.bus.failing = true;
    const id = atRiskId('trips', T0);
    expect(await w.check()).toEqual({ kind: 'Checked', told: [id], published: [], unpublished: [id] });
    w.bus.failing = false;
    expect(await w.check()).toMatchObject({ kind: 'NotDue' });
    const swept = await republishPending({ events: w.stores.events, bus: w.bus, now: w.now });
    expect(swept.published).toEqual([id]);
    expect(w.bus.ids()).toEqual([id]);
  });

  it('publishes nothing an earlier check already wrote under the same id', async () => {
    const w = world({ trips: 10 * MINUTE });
    await w.enroll(200);
    const id = atRiskId('trips', T0);
    await w.stores.events.append(
      [
        {
          id,
          type: 'carhook.freshness.at_risk',
          schemaVersion: 1,
          occurredAt: iso(T0),
          detectedAt: iso(T0),
          sequence: 0,
          source: { api: 'carhook' },
          data: {},
        },
      ],
      T0,
    );
    expect(await w.check()).toEqual(CHECKED_NOTHING);
    expect(w.bus.received).toEqual([]);
  });

  it('stands down when another check committed first', async () => {
    const w = world({ trips: 10 * MINUTE });
    await w.enroll(200);
    // Two checks read the same (absent) state; the second to commit finds a conflict.
    const states = { ...w.stores.states, getState: async () => undefined };
    expect(await w.check()).toMatchObject({ kind: 'Checked' });
    expect(await watchFreshness({ ...w.deps(), stores: { ...w.stores, states } })).toEqual({
      kind: 'Concurrent',
    });
    expect(w.bus.received).toHaveLength(1);
  });

  it('starts again from a state it cannot read, and leaves alone a format it does not know', async () => {
    const w = world({ trips: 10 * MINUTE });
    await w.enroll(200);
    const put = (state: string, stateFormat: string, expectedVersion: number) =>
      w.stores.states.commitPoll({
        vehicleId: FRESHNESS_STATE_KEY,
        expectedVersion,
        state,
        stateFormat,
        events: [],
        now: T0,
      });
    await put('{"checkedAt":"yesterday","kinds":{"trips":{"atRisk":"yes"}}}', FRESHNESS_STATE_FORMAT, 0);
    // Unreadable: checked as if never checked, so the standing risk is told.
    expect(await w.check()).toMatchObject({
      kind: 'Checked',
      told: [atRiskId('trips', T0)],
      reset: expect.stringMatching(/^checkedAt: [^;]+; kinds\.trips\.atRisk: /),
    });
    expect(JSON.parse((await w.stores.states.getState(FRESHNESS_STATE_KEY))?.state ?? '')).toEqual({
      checkedAt: T0,
      kinds: { trips: { atRisk: true, toldAt: T0 } },
    });
    await put('{"v":2}', 'freshness-2', 2);
    w.pass(HOUR);
    expect(await w.check()).toEqual({ kind: 'UnknownFormat', stateFormat: 'freshness-2' });
    expect((await w.stores.states.getState(FRESHNESS_STATE_KEY))?.state).toBe('{"v":2}');
  });

  it('starts again from a state that is not JSON', async () => {
    const w = world({ trips: 10 * MINUTE });
    await w.stores.states.commitPoll({
      vehicleId: FRESHNESS_STATE_KEY,
      expectedVersion: 0,
      state: 'not json',
      stateFormat: FRESHNESS_STATE_FORMAT,
      events: [],
      now: T0,
    });
    expect(await w.check()).toMatchObject({
      kind: 'Checked',
      told: [],
      reset: expect.stringMatching(/JSON/),
    });
  });

  it('tells a kind that is not measured (services) from the model alone, with no measured figures', async () => {
    // Services are read once a day: a p95 target of an hour cannot be met, whatever the quota.
    const w = world({ services: HOUR });
    await w.enroll(10);
    expect(await w.check()).toMatchObject({ told: [atRiskId('services', T0)] });
    expect(w.bus.received[0]?.data).toMatchObject({
      kind: 'services',
      measuredEvents: 0,
      quotaForTarget: null,
    });
    expect(w.bus.received[0]?.data).not.toHaveProperty('measuredP95S');
  });

  it('checks again when the last check is in the future (a clock set back)', async () => {
    const w = world({ trips: 10 * MINUTE });
    await w.enroll(10);
    expect(await w.check()).toEqual(CHECKED_NOTHING);
    w.pass(-HOUR);
    expect(await w.check()).toEqual(CHECKED_NOTHING);
    expect(JSON.parse((await w.stores.states.getState(FRESHNESS_STATE_KEY))?.state ?? '').checkedAt).toBe(
      T0 - HOUR,
    );
  });
});

describe('the at-risk event', () => {
  it('says null for a figure the model cannot give (no read left), and rounds the rest to tenths of a second', () => {
    const e = freshnessEvent(
      {
        type: 'carhook.freshness.at_risk',
        at: T0,
        freshness: {
          kind: 'alerts',
          targetMs: 300_000,
          predictedP95Ms: null,
          guaranteeMs: 1_234_567,
          measuredP95Ms: 400_049,
          vehicles: 3,
          quotaForTarget: null,
        },
      },
      QUOTA,
      25,
    );
    expect(validateEvent(e)).toEqual({ ok: true });
    expect(e.data).toEqual({
      kind: 'alerts',
      targetS: 300,
      predictedP95S: null,
      guaranteeS: 1234.6,
      measuredP95S: 400,
      measuredEvents: 25,
      vehicles: 3,
      quotaLimit: 12,
      windowSeconds: 60,
      quotaForTarget: null,
      checkedAt: iso(T0),
    });
  });
});

describe('the measured lag', () => {
  const lag = (type: string, lagMs: number, extra: Partial<EventEnvelope> = {}) =>
    ({ type, occurredAt: iso(T0), detectedAt: iso(T0 + lagMs), data: {}, ...extra }) as EventEnvelope;

  it('is the p95 of a kind with enough events, history and fleet-contract vehicles left out', () => {
    // 19 lags of 19..1 s, the newest first: sorted before the rank is taken.
    const lags = Array.from({ length: 19 }, (_, i) => lag('vehicle.trip.completed', (19 - i) * 1000));
    lags.push(lag('vehicle.trip.completed', 40_000, { data: { initial: true } }));
    lags.push(lag('vehicle.trip.completed', 40_000, { enrollment: { id: 'enr_f', kind: 'fleet-contract' } }));
    // Too few (19 once history and the fleet vehicle are left out): counted, no p95.
    expect(measuredLags(lags, ['trips', 'alerts'])).toEqual({ trips: { events: 19 }, alerts: { events: 0 } });
    expect(MEASURED_MIN_EVENTS).toBe(20);
    lags.push(lag('vehicle.trip.completed', 20_000, { enrollment: { id: 'enr_1', kind: 'oauth-user' } }));
    // 20 events of 1..20 s: the nearest-rank p95 is the 19th.
    expect(measuredLags(lags, ['trips'])).toEqual({ trips: { events: 20, p95Ms: 19_000 } });
    // Another kind's events do not count; an unreadable or negative lag is left out.
    expect(measuredLags([lag('vehicle.alert.raised', 5)], ['trips'])).toEqual({ trips: { events: 0 } });
    expect(
      measuredLags(
        [{ ...lag('vehicle.trip.completed', 5), detectedAt: 'soon' }, lag('vehicle.trip.completed', -5)],
        ['trips'],
      ),
    ).toEqual({ trips: { events: 0 } });
    // Services and map updates are not measured: their occurredAt is not when the change happened.
    expect(measuredLags([lag('vehicle.map_update.available', 5)], ['map', 'services'])).toEqual({});
    // A change seen the moment it happened has a lag of 0, and counts; each measured kind by its types.
    const kinds = ['collisions', 'fuel', 'maintenance'] as const;
    expect(
      measuredLags(
        [
          lag('vehicle.collision.detected', 0),
          lag('vehicle.refuel.detected', 1),
          lag('vehicle.fuel_theft.detected', 1),
          lag('vehicle.maintenance.overdue', 1),
        ],
        kinds,
      ),
    ).toEqual({ collisions: { events: 1 }, fuel: { events: 2 }, maintenance: { events: 1 } });
  });

  it('reads at most 20 pages, following the cursor of each slice, the newest slices first', async () => {
    const asked: string[] = [];
    const log = {
      // Every slice of the hour holds seven pages of one event: the cap falls inside the third.
      listByTime: async (q: { since?: string; until?: string; cursor?: string }) => {
        const page = Number(q.cursor ?? 0);
        asked.push(`${q.since} ${page}`);
        return {
          items: [{ envelope: lag('vehicle.trip.completed', 1000), published: true, expiresAt: 0 }],
          ...(page < 6 ? { cursor: String(page + 1) } : {}),
        };
      },
    };
    expect(await readMeasuredLags(log, ['trips'], T0)).toEqual({ trips: { events: 20, p95Ms: 1000 } });
    expect(asked).toHaveLength(20);
    expect(asked.slice(0, 8)).toEqual([
      ...[0, 1, 2, 3, 4, 5, 6].map((p) => `${iso(T0 - 10 * MINUTE)} ${p}`),
      `${iso(T0 - 20 * MINUTE)} 0`,
    ]);
    // Cut in the third slice; the three oldest are left out.
    expect(asked.at(-1)).toBe(`${iso(T0 - 30 * MINUTE)} 5`);
  });

  it('reads the hour before now from the log, newest first, and nothing for unmeasured kinds', async () => {
    const stores = createMemoryStores();
    const at = (detected: number, n: number): EventEnvelope => ({
      id: `evt_t${n}`,
      type: 'vehicle.trip.completed',
      schemaVersion: 1,
      occurredAt: iso(detected - 1000),
      detectedAt: iso(detected),
      sequence: n,
      vehicle: { id: 'enr_1:v0' },
      source: { api: 'v2' },
      data: {},
    });
    // Two outside the hour (61 min ago, 1 min ahead), three inside, the newest detected right now.
    await stores.events.append(
      [
        at(T0 - 61 * MINUTE, 1),
        at(T0 - 59 * MINUTE, 2),
        at(T0 - 5 * MINUTE, 3),
        at(T0, 4),
        at(T0 + MINUTE, 5),
      ],
      T0,
    );
    const asked: string[] = [];
    const log = {
      listByTime: (q: Parameters<typeof stores.events.listByTime>[0]) => {
        asked.push(`${q.since}..${q.until}`);
        return stores.events.listByTime(q);
      },
    };
    expect(await readMeasuredLags(log, ['trips', 'map'], T0)).toEqual({ trips: { events: 3 } });
    expect(asked[0]).toBe(`${iso(T0 - 10 * MINUTE)}..${iso(T0 + 1)}`);
    expect(asked.at(-1)).toBe(`${iso(T0 - HOUR)}..${iso(T0 - 50 * MINUTE)}`);
    asked.length = 0;
    expect(await readMeasuredLags(log, ['map', 'services'], T0)).toEqual({});
    expect(asked).toEqual([]);
  });
});
