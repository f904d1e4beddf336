/**
 * The freshness check over the memory stores, on an injected clock: when it is due, what it tells
 * (exact ids, stored with its state in the event log, then published), and what it never does:
 * tell twice, lose an event the bus refused, or trust a handful of events for a p95.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../../functions/adapters/memory/stores';
import { MEASURED_MIN_EVENTS, measuredLags } from '../../functions/core/capacity/measured';
import {
  FRESHNESS_STATE_FORMAT,
  FRESHNESS_STATE_KEY,
  type FreshnessWatchDeps,
  watchFreshness,
} from '../../functions/core/capacity/watch';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { eventId } from '../../functions/core/events/ids';
import { validateEvent } from '../../functions/core/events/validate';
import { republishPending } from '../../functions/core/polling/commit';
import { DEFAULT_POLLING_CONFIG } from '../../functions/core/polling/config';
import { DEFAULT_RATE_BUDGET } from '../../functions/core/ratelimit/bucket';
import { createMemoryRateBudget } from '../../functions/core/ratelimit/budget';
import { MemoryBus } from '../polling/support';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T0 = Date.parse('2026-03-02T08:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

function world(targets: FreshnessWatchDeps['targets']) {
  const stores = createMemoryStores();
  const bus = new MemoryBus();
  let now = T0;
  const deps: FreshnessWatchDeps = {
    stores,
    vehicles: stores.vehicles,
    rateBudget: createMemoryRateBudget(DEFAULT_RATE_BUDGET),
    rateBudgetConfig: DEFAULT_RATE_BUDGET,
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
    deps,
    /** Moves the clock on by `ms`. */
    pass: (ms: number) => {
      now += ms;
    },
    now: () => now,
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
  };
}

const lagEvent = (type: string, occurredAt: number, lagMs: number, initial = false) =>
  ({
    type,
    occurredAt: iso(occurredAt),
    detectedAt: iso(occurredAt + lagMs),
    data: initial ? { initial } : {},
  }) as Pick<EventEnvelope, 'type' | 'occurredAt' | 'detectedAt' | 'data'>;

describe('the freshness check', () => {
  it('does nothing without a target', async () => {
    const w = world({});
    await w.enroll(5);
    expect(await watchFreshness(w.deps)).toEqual({ kind: 'NoTargets' });
    expect(await w.stores.states.getState(FRESHNESS_STATE_KEY)).toBeUndefined();
  });

  it('tells a fleet grown past its trips target once, and restored once it shrinks back', async () => {
    // 120 requests a minute: 100 vehicles read about every minute; 2,000 about every 19 minutes.
    const w = world({ trips: 10 * MINUTE });
    await w.enroll(100);
    expect(await watchFreshness(w.deps)).toEqual({
      kind: 'Checked',
      told: [],
      published: [],
      unpublished: [],
    });
    const stored = await w.stores.states.getState(FRESHNESS_STATE_KEY);
    expect(stored?.stateFormat).toBe(FRESHNESS_STATE_FORMAT);
    expect(JSON.parse(stored?.state ?? '{}')).toEqual({ checkedAt: T0, kinds: { trips: { atRisk: false } } });

    const grown = await w.enroll(1900);
    // Within 5 planner cycles of the last check: not due.
    w.pass(4 * MINUTE);
    expect(await watchFreshness(w.deps)).toEqual({ kind: 'NotDue', checkedAt: T0 });
    w.pass(MINUTE);
    const atRiskAt = w.now();
    const id = eventId({
      scope: 'carhook',
      type: 'carhook.freshness.at_risk',
      key: 'trips',
      transition: 'first',
    });
    expect(await watchFreshness(w.deps)).toEqual({
      kind: 'Checked',
      told: [id],
      published: [id],
      unpublished: [],
    });
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
        vehicles: 2000,
        quotaLimit: 120,
        windowSeconds: 60,
        measuredEvents: 0,
        checkedAt: iso(atRiskAt),
      },
    });
    expect(event?.data).not.toHaveProperty('measuredP95S');
    const data = event?.data as { predictedP95S: number; quotaForTarget: number };
    expect(data.predictedP95S).toBeGreaterThan(600);
    // The quota that meets 10 min for 2,000 vehicles: about twice the 120 followed.
    expect(data.quotaForTarget).toBeGreaterThan(200);
    expect(data.quotaForTarget).toBeLessThan(300);
    // Stored with its state: in the event log, published.
    expect((await w.stores.events.get(id, w.now()))?.published).toBe(true);

    // Still at risk, an hour and more later: told once.
    for (const later of [5 * MINUTE, HOUR, 5 * MINUTE]) {
      w.pass(later);
      expect(await watchFreshness(w.deps)).toMatchObject({ kind: 'Checked', told: [] });
    }
    for (const v of grown) await w.stores.vehicles.pause(v, 'removed', w.now());
    w.pass(5 * MINUTE);
    const restoredId = eventId({
      scope: 'carhook',
      type: 'carhook.freshness.restored',
      key: 'trips',
      transition: String(atRiskAt),
    });
    expect(await watchFreshness(w.deps)).toMatchObject({ kind: 'Checked', told: [restoredId] });
    expect(w.bus.received.map((e) => e.type)).toEqual([
      'carhook.freshness.at_risk',
      'carhook.freshness.restored',
    ]);
    expect(w.bus.received[1]?.data).toMatchObject({
      kind: 'trips',
      vehicles: 100,
      atRiskSince: iso(atRiskAt),
    });
    expect(
      ((w.bus.received[1] as EventEnvelope).data as { predictedP95S: number }).predictedP95S,
    ).toBeLessThan(600);
  });

  it('tells a measured p95 past the target even when the model meets it', async () => {
    const w = world({ alerts: 5 * MINUTE });
    await w.enroll(10);
    // 30 alert events detected in the last hour, 10 min after they happened; history left out.
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
    const result = await watchFreshness(w.deps);
    expect(result).toMatchObject({ kind: 'Checked', told: [expect.any(String)] });
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
    await w.enroll(2000);
    w.bus.failing = true;
    const result = await watchFreshness(w.deps);
    expect(result).toMatchObject({ kind: 'Checked', published: [] });
    const told = (result as { told: readonly string[] }).told;
    expect(told).toHaveLength(1);
    expect((result as { unpublished: readonly string[] }).unpublished).toEqual(told);
    // The next check is not due and tells nothing more; the sweeper publishes the one kept.
    w.bus.failing = false;
    expect(await watchFreshness(w.deps)).toMatchObject({ kind: 'NotDue' });
    const swept = await republishPending({ events: w.stores.events, bus: w.bus, now: w.now });
    expect(swept.published).toEqual(told);
    expect(w.bus.ids()).toEqual(told);
  });

  it('stands down when another check committed first, and starts again from unreadable state', async () => {
    const w = world({ trips: 10 * MINUTE });
    await w.enroll(2000);
    // Two checks read the same (absent) state; the second to commit finds a conflict.
    const slow = { ...w.deps, stores: { ...w.stores, states: { ...w.stores.states } } };
    const first = await watchFreshness(w.deps);
    slow.stores.states.getState = async () => undefined;
    expect(await watchFreshness(slow)).toEqual({ kind: 'Concurrent' });
    expect(w.bus.received).toHaveLength(1);
    expect(first).toMatchObject({ kind: 'Checked' });

    const other = world({ trips: 10 * MINUTE });
    await other.stores.states.commitPoll({
      vehicleId: FRESHNESS_STATE_KEY,
      expectedVersion: 0,
      state: '{"checkedAt":"yesterday"}',
      stateFormat: FRESHNESS_STATE_FORMAT,
      events: [],
      now: T0,
    });
    expect(await watchFreshness(other.deps)).toMatchObject({
      kind: 'Checked',
      told: [],
      reset: expect.stringMatching(/^checkedAt: /),
    });
    expect(JSON.parse((await other.stores.states.getState(FRESHNESS_STATE_KEY))?.state ?? '')).toEqual({
      checkedAt: T0,
      kinds: { trips: { atRisk: false } },
    });
  });
});

describe('the measured lag', () => {
  it('is the p95 of a kind with enough events, history left out', () => {
    const lags = [
      ...Array.from({ length: 19 }, (_, i) => lagEvent('vehicle.trip.completed', T0, (i + 1) * 1000)),
    ];
    lags.push(lagEvent('vehicle.trip.completed', T0, 40_000, true));
    // Too few (19 after history is left out): counted, no p95.
    expect(measuredLags(lags, ['trips', 'alerts'])).toEqual({ trips: { events: 19 }, alerts: { events: 0 } });
    expect(MEASURED_MIN_EVENTS).toBe(20);
    lags.push(lagEvent('vehicle.trip.completed', T0, 20_000));
    // 20 events of 1..20 s: the nearest-rank p95 is the 19th.
    expect(measuredLags(lags, ['trips'])).toEqual({ trips: { events: 20, p95Ms: 19_000 } });
    // Another kind's events and a kind not asked for do not count.
    expect(measuredLags([lagEvent('vehicle.alert.raised', T0, 5)], ['trips'])).toEqual({
      trips: { events: 0 },
    });
    // An unreadable or negative lag is left out.
    expect(
      measuredLags(
        [
          { ...lagEvent('vehicle.trip.completed', T0, 5), detectedAt: 'soon' },
          lagEvent('vehicle.trip.completed', T0, -5),
        ],
        ['trips'],
      ),
    ).toEqual({ trips: { events: 0 } });
  });
});
