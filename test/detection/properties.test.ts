import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Alert, Collision, EcoDriving, Trip, VehicleEvent } from '../../functions/core/api/model';
import type { DiffConfig } from '../../functions/core/detection/config';
import { diff } from '../../functions/core/detection/diff';
import type { Observation } from '../../functions/core/detection/observations';
import { stateChanged, type VehicleState } from '../../functions/core/detection/state';
import { validateEvent } from '../../functions/core/events/validate';
import { idOf } from './behaviour';
import { at, baselined, context, expectValidEvents, obs } from './fixtures';

// A small world: few ids and times, so observations overlap, repeat and contradict each other.
const time = fc.integer({ min: 1, max: 60 }).map(at);
const optTime = fc.option(time, { nil: undefined });

const alertArb: fc.Arbitrary<Alert> = fc.record({
  id: fc.constantFrom('a1', 'a2', 'a3'),
  active: fc.boolean(),
  message: fc.constantFrom('alertOilPressure', 'Pneu crevé'),
  severity: fc.constantFrom('low', 'high', 'WEIRD'),
  startedAt: fc.constantFrom(at(1), at(20)),
  updatedAt: optTime,
});

const collisionArb: fc.Arbitrary<Collision> = fc.record({
  id: fc.constantFrom('c1', 'c2', 'c3'),
  rollOver: fc.boolean(),
  pedestrian: fc.boolean(),
  front: fc.constantFrom('none', 'low', 'high'),
  rear: fc.constantFrom('none', 'medium'),
  lateral: fc.constantFrom('none', 'fixable'),
  createdAt: optTime,
});

const tripArb: fc.Arbitrary<Trip> = fc.record({
  id: fc.constantFrom('t1', 't2', 't3'),
  stoppedAt: time,
  distanceKm: fc.integer({ min: 0, max: 300 }),
});

const ecoArb: fc.Arbitrary<EcoDriving> = fc.record({
  tripId: fc.constantFrom('t1', 't2', 't3'),
  global: fc.constant({ trend: { score: 5 } }),
  detailed: fc.constant({ braking: { score: 7 } }),
});

const eventArb: fc.Arbitrary<VehicleEvent> = fc.oneof(
  fc.record({
    id: fc.constant('e'),
    type: fc.constant('ALERT'),
    eventId: fc.constant('x'),
    createdAt: time,
    alert: alertArb,
  }),
  fc.record({
    id: fc.constant('e'),
    type: fc.constant('COLLISION'),
    eventId: fc.constant('x'),
    createdAt: time,
    collision: collisionArb,
  }),
  fc.record({
    id: fc.constant('e'),
    type: fc.constant('TRIP'),
    eventId: fc.constant('x'),
    createdAt: time,
    trip: tripArb,
  }),
  fc.record({
    id: fc.constant('e'),
    type: fc.constantFrom('REFUEL', 'FUEL_STOLEN'),
    eventId: fc.constantFrom('r1', 'r2'),
    createdAt: time,
  }),
);

/** Lists with unique record ids (a list holds each record once; pages may come in any order). */
const uniqueList = <T extends { id: string }>(arb: fc.Arbitrary<T>) =>
  fc.uniqueArray(arb, { selector: (x) => x.id, maxLength: 3 });

type Draft = {
  source: Observation['source'];
  items: unknown[];
  complete: boolean;
  window?: { since: string };
};

const draftArb: fc.Arbitrary<Draft> = fc.oneof(
  fc.record({
    source: fc.constant('v2.alerts' as const),
    items: uniqueList(alertArb),
    complete: fc.boolean(),
  }),
  fc.record({
    source: fc.constant('v2.alerts' as const),
    items: uniqueList(alertArb),
    complete: fc.constant(true),
    window: fc.record({ since: fc.constantFrom(at(10), at(30)) }),
  }),
  fc.record({
    source: fc.constant('v2.collisions' as const),
    items: uniqueList(collisionArb),
    complete: fc.boolean(),
  }),
  fc.record({ source: fc.constant('v2.trips' as const), items: uniqueList(tripArb), complete: fc.boolean() }),
  fc.record({
    source: fc.constant('v2.ecodriving' as const),
    items: fc.uniqueArray(ecoArb, { selector: (x) => x.tripId, maxLength: 2 }),
    complete: fc.constant(true),
  }),
  fc.record({
    source: fc.constant('v2.events' as const),
    items: fc.array(eventArb, { maxLength: 3 }).map((evs) => evs.map((e, i) => ({ ...e, id: `ev${i}` }))),
    complete: fc.boolean(),
  }),
  fc.record({
    source: fc.constant('v2.maintenance' as const),
    items: fc
      .tuple(fc.integer({ min: -40, max: 400 }), fc.integer({ min: -2000, max: 20000 }))
      .map(([days, mileage]) => [{ days, mileage }]),
    complete: fc.constant(true),
  }),
  fc.record({
    source: fc.constant('services' as const),
    items: fc
      .subarray(['A', 'B', 'C'])
      .map((codes) => ['A', 'B', 'C'].map((code) => ({ code, eligible: codes.includes(code) }))),
    complete: fc.boolean(),
  }),
  fc.record({
    source: fc.constant('v1.alerts' as const),
    items: fc.uniqueArray(
      fc.record({
        vin: fc.constant('VF3ABCDEFGH123456'),
        contract: fc.constant('C-1'),
        idAlert: fc.constantFrom('17', '18'),
        alert: fc.constant('Pression huile'),
        alertState: fc.constantFrom(0, 1),
        dateAlertBegin: fc.constantFrom(at(2), at(25)),
        dateUpdate: optTime,
      }),
      { selector: (a) => a.idAlert, maxLength: 2 },
    ),
    complete: fc.boolean(),
  }),
  fc.record({
    source: fc.constant('v1.trips' as const),
    items: fc.uniqueArray(
      fc.record({
        vin: fc.constant('VF3ABCDEFGH123456'),
        contract: fc.constant('C-1'),
        tripId: fc.constantFrom(1, 2),
        dateTripBegin: time,
        durationS: fc.constant(600),
        refueling: fc.boolean(),
        siphoning: fc.boolean(),
        raw: fc.constant({}),
      }),
      { selector: (t) => t.tripId, maxLength: 2 },
    ),
    complete: fc.constant(true),
  }),
  fc.record({
    source: fc.constant('v1.maintenance' as const),
    items: fc
      .tuple(fc.integer({ min: -40, max: 400 }), fc.integer({ min: -2000, max: 20000 }), optTime)
      .map(([days, mileage, lastUpdate]) => [{ vin: 'V', contract: 'C', days, mileage, lastUpdate }]),
    complete: fc.constant(true),
  }),
  fc.record({
    source: fc.constant('map' as const),
    items: fc
      .constantFrom('1', '2', '3')
      .map((v) => [
        { vin: 'VF3ABCDEFGH123456', availableVersion: v, installedVersion: '1', updateAvailable: v !== '1' },
      ]),
    complete: fc.constant(true),
  }),
);

/** Observations with increasing fetchedAt, as successive reads produce them. */
const observationsArb = fc
  .array(draftArb, { minLength: 1, maxLength: 12 })
  .map((drafts) => drafts.map((d, i): Observation => ({ ...d, fetchedAt: at(100 + i) }) as Observation));

const cutsArb = (n: number) =>
  fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, n - 1) }), { maxLength: n });

const split = <T>(xs: readonly T[], cuts: readonly number[]): T[][] => {
  const points = [...new Set(cuts.filter((c) => c > 0 && c < xs.length))].sort((a, b) => a - b);
  const out: T[][] = [];
  let prev = 0;
  for (const p of [...points, xs.length]) {
    out.push(xs.slice(prev, p));
    prev = p;
  }
  return out;
};

const NOW = 200;

const runAll = (
  start: VehicleState,
  polls: readonly (readonly Observation[])[],
  config?: Partial<DiffConfig>,
  minute = NOW,
) => {
  let state = start;
  const events: { id: string; sequence: number; type: string; schemaVersion: number }[] = [];
  for (const p of polls) {
    const r = diff(state, p, context(minute, config));
    state = r.state;
    events.push(...r.events);
  }
  return { state, events };
};

// CARHOOK_FC_RUNS=2000 for a deeper local search.
const RUNS = { numRuns: Number(process.env.CARHOOK_FC_RUNS ?? 150) };

describe('diff engine properties', () => {
  it('replaying the same observations yields no new events', () => {
    fc.assert(
      fc.property(observationsArb, (observations) => {
        // Without the eco-driving wait: a held trip legitimately completes when an evaluation is read.
        const config = { ecoDrivingWaitMs: 0 };
        const first = runAll(baselined(config), [observations], config);
        const replay = diff(first.state, observations, context(NOW, config));
        expect(replay.events).toEqual([]);
        const replayOneByOne = runAll(
          first.state,
          observations.map((o) => [o]),
          config,
        );
        expect(replayOneByOne.events).toEqual([]);
      }),
      RUNS,
    );
  });

  it('splitting a sequence of observations into any number of polls yields the same event ids', () => {
    fc.assert(
      fc.property(
        observationsArb.chain((obs) => fc.tuple(fc.constant(obs), cutsArb(obs.length))),
        ([observations, cuts]) => {
          const whole = runAll(baselined(), [observations]);
          const parts = runAll(baselined(), split(observations, cuts));
          expect(parts.events.map((e) => e.id).sort()).toEqual(whole.events.map((e) => e.id).sort());
          expect(new Set(whole.events.map((e) => e.id)).size).toBe(whole.events.length);
        },
      ),
      RUNS,
    );
  });

  it('the order of items within a list (out-of-order pages) does not change the event ids', () => {
    fc.assert(
      fc.property(observationsArb, fc.integer(), (observations, seed) => {
        const shuffled = observations.map((o, i) => {
          const items = [...o.items];
          // Deterministic shuffle from the seed: reverse or rotate.
          if ((seed + i) % 2 === 0) items.reverse();
          else items.push(...items.splice(0, 1));
          return { ...o, items } as Observation;
        });
        const a = runAll(baselined(), [observations])
          .events.map((e) => e.id)
          .sort();
        const b = runAll(baselined(), [shuffled])
          .events.map((e) => e.id)
          .sort();
        expect(b).toEqual(a);
      }),
      RUNS,
    );
  });

  it('no event without a change, and a poll without news writes nothing', () => {
    fc.assert(
      fc.property(observationsArb, (observations) => {
        let state = baselined();
        for (const o of observations) {
          const r = diff(state, [o], context(NOW));
          if (r.events.length > 0) {
            expect(r.changed).toBe('state');
            expect(stateChanged(state, r.state)).toBe('state');
          }
          expect(stateChanged(state, r.state)).toBe(r.changed);
          state = r.state;
        }
        const quiet = diff(state, [], context(NOW));
        expect(quiet.events).toEqual([]);
        expect(quiet.changed).toBe('none');
        expect(quiet.state).toBe(state);
      }),
      RUNS,
    );
  });

  it('state never regresses: sequence only grows, and stale observations change nothing', () => {
    fc.assert(
      fc.property(observationsArb, fc.array(fc.nat(), { maxLength: 6 }), (observations, picks) => {
        // No eco-driving wait here: a held trip legitimately completes when its evaluation arrives late.
        const config = { ecoDrivingWaitMs: 0 };
        let state = baselined(config);
        let sequence = state.sequence;
        for (const o of observations) {
          const r = diff(state, [o], context(NOW, config));
          r.events.forEach((e, i) => {
            expect(e.sequence).toBe(sequence + i + 1);
          });
          expect(r.state.sequence).toBe(sequence + r.events.length);
          sequence = r.state.sequence;
          state = r.state;
        }
        // Earlier observations arriving late, in any order: nothing moves, nothing is raised.
        const stale = picks.map((p) => observations[p % observations.length] as Observation);
        const late = diff(state, stale, context(NOW, config));
        expect(late.events).toEqual([]);
        for (const [key, entry] of Object.entries(state.alerts)) {
          if (!entry.active) expect(late.state.alerts[key]?.active).toBe(false);
        }
      }),
      RUNS,
    );
  });

  it('every event produced validates against its committed JSON Schema', () => {
    fc.assert(
      fc.property(observationsArb, (observations) => {
        const { events } = runAll(baselined(), [observations], { ecoDrivingWaitMs: 0 });
        expectValidEvents(events);
        for (const e of events) expect(validateEvent(e)).toEqual({ ok: true });
        const first = diff(undefined, observations, context(NOW, { initialPolicy: 'all' }));
        expectValidEvents(first.events);
      }),
      { numRuns: 60 },
    );
  });

  it('an alert newly active in a list is told raised, and fixed once complete lists keep omitting it', () => {
    fc.assert(
      fc.property(
        alertArb,
        // The API lists an alert once: a list naming one alert twice, ended and active, contradicts
        // itself and is read as stale (./absence.ts), which this property is not about.
        fc.uniqueArray(alertArb, { maxLength: 4, selector: (x) => x.id }),
        fc.integer({ min: 1, max: 60 }),
        (a, others, minute) => {
          const subject = { ...a, id: 'subject', active: true, startedAt: at(minute), updatedAt: at(minute) };
          const raised = diff(baselined(), [obs('v2.alerts', [...others, subject], NOW)], context(NOW));
          const told = raised.events.filter((e) => (e.data as { alertId?: string }).alertId === 'subject');
          expect(told.map((e) => [e.type, e.id])).toEqual([
            ['vehicle.alert.raised', idOf('vehicle.alert.raised', `subject@${at(minute)}`, 'raised')],
          ]);
          // One list without it makes a doubt (or, when it held the list's newest record, is taken
          // for stale first); a list a minute later confirms: three lists always suffice.
          let state = raised.state;
          const fixed: (string | undefined)[][] = [];
          for (let k = 1; k <= 3; k++) {
            const r = diff(state, [obs('v2.alerts', others, NOW + k)], context(NOW + k));
            state = r.state;
            for (const e of r.events) {
              if ((e.data as { alertId?: string }).alertId !== 'subject') continue;
              fixed.push([e.type, e.id, (e.data as { reason?: string }).reason]);
            }
          }
          expect(fixed).toEqual([
            ['vehicle.alert.fixed', idOf('vehicle.alert.fixed', `subject@${at(minute)}`, 'fixed'), 'absent'],
          ]);
        },
      ),
      RUNS,
    );
  });
});
