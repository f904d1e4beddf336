import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rng } from '../../bench/support/stats';
import type { Observation } from '../../functions/core/detection/observations';
import {
  advance,
  decodeRates,
  encodeRates,
  fleetPrior,
  lookBackOf,
  MAX_PRIOR_WEIGHT_HOURS,
  observe,
  posterior,
  type RateState,
  ratesAt,
} from '../../functions/core/polling/rates';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-01-15T09:00:00.000Z');
const settings = { rateHalfLifeMs: 4 * HOUR };
const prior = { eventsPerHour: 0.5, fixesPerHour: 1, eventsWeightHours: 1, fixesWeightHours: 1 };
const iso = (ms: number): string => new Date(ms).toISOString();
const ev = (type: string, n = 1) => Array.from({ length: n }, () => ({ type }) as { type: never });

describe('the change-rate estimator', () => {
  it('halves counts over one half-life and grows the exposure by exactly the decayed time', () => {
    const s: RateState = { t: T0, events: 8, eventsHours: 2, fixes: 4, alertHours: 1, active: 2 };
    const a = advance(s, T0 + 4 * HOUR, settings);
    expect(a.t).toBe(T0 + 4 * HOUR);
    expect(a.events).toBeCloseTo(4, 12);
    expect(a.fixes).toBeCloseTo(2, 12);
    // ∫₀⁴ 2^(−(4−s)/4) ds = (1 − ½) / (ln 2 / 4) = 2 / ln 2 hours.
    expect(a.eventsHours).toBeCloseTo(1 + 2 / Math.LN2, 10);
    expect(a.alertHours).toBeCloseTo(0.5 + (2 * 2) / Math.LN2, 10);
    expect(a.active).toBe(2);
    // No time passed (or the clock went back): the same state.
    expect(advance(s, T0, settings)).toBe(s);
    expect(advance(s, T0 - HOUR, settings)).toBe(s);
  });

  it('counts the changes the events feed reveals and the alert fixes apart, and nothing else', () => {
    const start = observe(
      undefined,
      T0,
      { events: ev('vehicle.trip.completed', 3), activeAlerts: 1 },
      settings,
    );
    // A first poll without its look-back's records only starts the clock (its events are history).
    expect(start).toEqual({ t: T0, events: 0, eventsHours: 0, fixes: 0, alertHours: 0, active: 1 });
    const next = observe(
      start,
      T0,
      {
        events: [
          ...ev('vehicle.alert.raised'),
          ...ev('vehicle.collision.detected'),
          ...ev('vehicle.trip.completed'),
          ...ev('vehicle.refuel.detected'),
          ...ev('vehicle.fuel_theft.detected'),
          ...ev('vehicle.alert.fixed', 2),
          ...ev('vehicle.maintenance.due'),
          ...ev('vehicle.map_update.available'),
        ],
        activeAlerts: 3,
      },
      settings,
    );
    expect(next).toEqual({ t: T0, events: 5, eventsHours: 0, fixes: 2, alertHours: 0, active: 3 });
    expect(observe(next, T0, { events: [], activeAlerts: -1 }, settings).active).toBe(0);
  });

  it('counts a first poll’s look-back as the vehicle’s past: each record decayed by its age, over the whole window', () => {
    const k = Math.LN2 / 4; // per hour, half-life 4 h
    const since = T0 - 8 * HOUR;
    const first = observe(
      undefined,
      T0,
      {
        // The look-back's history is never reported as events: only its records are counted.
        events: [],
        activeAlerts: 2,
        // Two records 4 h old, one just now; one before the window and one after the poll are not the window's.
        lookBack: { since, at: [T0 - 4 * HOUR, T0 - 4 * HOUR, T0, since - 1, T0 + 1] },
      },
      settings,
    );
    expect(first.t).toBe(T0);
    expect(first.events).toBeCloseTo(0.5 + 0.5 + 1, 12);
    // ∫₀⁸ e^(−k s) ds = (1 − ¼) / k hours.
    expect(first.eventsHours).toBeCloseTo(0.75 / k, 12);
    expect(first.active).toBe(2);
    expect(first.fixes).toBe(0);
    expect(first.alertHours).toBe(0);
    // A busy past gives a busy estimate from the first poll on: 3 records an hour for 8 h, five times the prior (0.5).
    const busy = observe(
      undefined,
      T0,
      {
        events: [],
        activeAlerts: 0,
        lookBack: { since, at: Array.from({ length: 24 }, (_, i) => T0 - i * 20 * 60_000) },
      },
      settings,
    );
    expect(posterior(busy, prior).eventsPerHour).toBeGreaterThan(2.5);
    // A look-back that starts at (or after) the poll counts nothing.
    expect(
      observe(undefined, T0, { events: [], activeAlerts: 0, lookBack: { since: T0, at: [T0] } }, settings),
    ).toEqual({ t: T0, events: 0, eventsHours: 0, fixes: 0, alertHours: 0, active: 0 });
    // A later poll does not count a look-back again: only its events.
    const later = observe(
      first,
      T0,
      { events: ev('vehicle.trip.completed'), activeAlerts: 0, lookBack: { since, at: [T0] } },
      settings,
    );
    expect(later.events).toBeCloseTo(first.events + 1, 12);
    expect(later.eventsHours).toBe(first.eventsHours);
  });

  it('counts a look-back record at the window’s start, decayed by its full age', () => {
    const since = T0 - 8 * HOUR;
    const first = observe(
      undefined,
      T0,
      { events: [], activeAlerts: 0, lookBack: { since, at: [since, T0 - 2 * HOUR] } },
      settings,
    );
    // 2^(−8/4) + 2^(−2/4).
    expect(first.events).toBeCloseTo(0.25 + Math.SQRT1_2, 12);
  });

  it('takes a look-back only from a complete events read with a start, and skips records without a time', () => {
    const read = (o: Partial<Observation>): Observation =>
      ({
        source: 'v2.events',
        fetchedAt: iso(T0),
        complete: true,
        window: { since: iso(T0 - HOUR) },
        items: [
          { id: 'a', type: 'TRIP', eventId: 't1', createdAt: iso(T0 - 30 * 60_000) },
          { id: 'b', type: 'ALERT', eventId: 'a1', updatedAt: iso(T0 - 10 * 60_000) },
          { id: 'c', type: 'REFUEL', eventId: 'r1', createdAt: 'not a date' },
        ],
        ...o,
      }) as Observation;
    expect(lookBackOf([read({})])).toEqual({ since: T0 - HOUR, at: [T0 - 30 * 60_000, T0 - 10 * 60_000] });
    expect(lookBackOf([read({ complete: false })])).toBeUndefined();
    expect(lookBackOf([read({ window: {} })])).toBeUndefined();
    expect(lookBackOf([{ ...read({}), source: 'v2.alerts' } as Observation])).toBeUndefined();
    expect(lookBackOf([])).toBeUndefined();
    // The events read among the poll's other reads, whatever their order.
    const alerts = { source: 'v2.alerts', fetchedAt: iso(T0), complete: true, items: [] } as Observation;
    expect(lookBackOf([alerts, read({})])).toEqual({
      since: T0 - HOUR,
      at: [T0 - 30 * 60_000, T0 - 10 * 60_000],
    });
    expect(lookBackOf([{ ...read({}), source: 'v2.trips' } as Observation])).toBeUndefined();
  });

  it('starts a vehicle never observed at the prior, and moves to what it observes', () => {
    expect(ratesAt(undefined, T0, prior, settings)).toEqual({ eventsPerHour: 0.5, fixesPerHour: 1 });
    // 10 changes in 10 hours (no decay over 0 h): (10 + 0.5) / (10 + 1).
    const s: RateState = { t: T0, events: 10, eventsHours: 10, fixes: 3, alertHours: 2, active: 0 };
    const r = ratesAt(s, T0, prior, settings);
    expect(r.eventsPerHour).toBeCloseTo(10.5 / 11, 12);
    expect(r.fixesPerHour).toBeCloseTo(4 / 3, 12);
  });

  it('lets a vehicle that stops driving fall to the prior within a few half-lives', () => {
    let s = observe(undefined, T0, { events: [], activeAlerts: 0 }, settings);
    // Busy: 6 changes an hour for 8 hours.
    for (let h = 1; h <= 8; h++) {
      s = observe(s, T0 + h * HOUR, { events: ev('vehicle.trip.completed', 6), activeAlerts: 0 }, settings);
    }
    const busy = ratesAt(s, T0 + 8 * HOUR, prior, settings).eventsPerHour;
    expect(busy).toBeGreaterThan(4);
    // Silent for 16 hours (no write in between: the estimate is computed from the time).
    const quiet = ratesAt(s, T0 + 24 * HOUR, prior, settings).eventsPerHour;
    expect(quiet).toBeLessThan(0.5);
    expect(quiet).toBeGreaterThan(0);
  });

  it('follows a step change: within three half-lives it covers 3/4 of the way to the new level', () => {
    const run = (s0: RateState, t0: number, perHour: number, hours: number) => {
      let s = s0;
      let t = t0;
      for (let h = 0; h < hours; h++) {
        t += HOUR;
        s = observe(s, t, { events: ev('vehicle.trip.completed', perHour), activeAlerts: 0 }, settings);
      }
      return { s, t, rate: ratesAt(s, t, prior, settings).eventsPerHour };
    };
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 12 }), (low, high) => {
        fc.pre(low !== high);
        const start = observe(undefined, T0, { events: [], activeAlerts: 0 }, settings);
        const before = run(start, T0, low, 48);
        const level = run(start, T0, high, 48).rate; // the estimate's own steady level for `high`
        const after = run(before.s, before.t, high, 12).rate;
        // 1 − 2^−3 = 7/8 of the weight is on the new data after three half-lives.
        expect(Math.abs(after - level)).toBeLessThan(Math.abs(before.rate - level) / 4);
        // And the steady level is the rate, shrunk towards the prior by its weight (1 h of ~5.8 h).
        const tau = 4 / Math.LN2;
        // (counts arrive at the end of each hour, so just after one the level is up to ~9 % higher).
        const shrunk = (high * tau + 0.5) / (tau + 1);
        expect(level).toBeGreaterThanOrEqual(shrunk * 0.99);
        expect(level).toBeLessThanOrEqual(shrunk * 1.1 + 0.01);
      }),
    );
  });

  it('learns a fix rate per active alert from the time alerts stay active', () => {
    let s = observe(undefined, T0, { events: [], activeAlerts: 2 }, settings);
    // Two alerts active for 1 h, then one fixed: 1 fix in 2 alert-hours (decayed a little).
    s = observe(s, T0 + HOUR, { events: ev('vehicle.alert.fixed'), activeAlerts: 1 }, settings);
    expect(s.fixes).toBe(1);
    expect(s.alertHours).toBeCloseTo((2 * (1 - 2 ** -0.25)) / (Math.LN2 / 4), 10);
    expect(s.active).toBe(1);
  });

  it('round-trips through its text form, and refuses damaged text (the vehicle falls back to the prior)', () => {
    fc.assert(
      fc.property(
        fc.record({
          t: fc.integer({ min: 0, max: 4_102_444_800_000 }),
          events: fc.double({ min: 0, max: 1e6, noNaN: true }),
          eventsHours: fc.double({ min: 0, max: 1e6, noNaN: true }),
          fixes: fc.double({ min: 0, max: 1e6, noNaN: true }),
          alertHours: fc.double({ min: 0, max: 1e6, noNaN: true }),
          active: fc.integer({ min: 0, max: 1000 }),
        }),
        (s) => {
          const text = encodeRates(s);
          expect(text.length).toBeLessThanOrEqual(256);
          expect(text).toMatch(/^r1(:[0-9.e+-]+){6}$/);
          const back = decodeRates(text) as RateState;
          expect(back.t).toBe(s.t);
          expect(back.active).toBe(s.active);
          for (const k of ['events', 'eventsHours', 'fixes', 'alertHours'] as const) {
            expect(Math.abs(back[k] - s[k])).toBeLessThanOrEqual(Math.abs(s[k]) * 1e-5 + 1e-300);
          }
        },
      ),
    );
    expect(decodeRates('r1:1:2:3:4:5:6')).toEqual({
      t: 1,
      events: 2,
      eventsHours: 3,
      fixes: 4,
      alertHours: 5,
      active: 6,
    });
    for (const bad of [
      undefined,
      '',
      'r2:1:2:3:4:5:6',
      'r1:1:2:3:4:5',
      'r1:1:2:3:4:5:6:7',
      'r1:x:2:3:4:5:6',
      'r1:1:-2:3:4:5:6',
    ]) {
      expect(decodeRates(bad)).toBeUndefined();
    }
  });
});

describe('the fleet prior (empirical Bayes)', () => {
  const priorSettings = { ...settings, ratePriorMs: HOUR, priorEventsPerHour: 0.5, priorFixesPerHour: 1 };
  /** A Poisson count of mean `mean` from a seeded uniform source (Knuth; small means only). */
  const poisson = (random: () => number, mean: number): number => {
    const limit = Math.exp(-mean);
    let k = 0;
    for (let p = random(); p > limit; p *= random()) k++;
    return k;
  };
  /**
   * Each vehicle observed without gaps for `hours`, hour by hour, at its own rate: the sums as the
   * planner would hold them at the end.
   */
  const fleet = (rates: readonly number[], hours: number, seed: number): RateState[] => {
    const random = rng(seed);
    return rates.map((rate) => {
      let s = observe(undefined, T0, { events: [], activeAlerts: 0 }, settings);
      for (let h = 1; h <= hours; h++) {
        const n = poisson(random, rate);
        s = observe(s, T0 + h * HOUR, { events: ev('vehicle.trip.completed', n), activeAlerts: 0 }, settings);
      }
      return advance(s, T0 + hours * HOUR, settings);
    });
  };

  it('is the configured prior before the fleet has any history', () => {
    expect(fleetPrior([], priorSettings)).toEqual({
      eventsPerHour: 0.5,
      fixesPerHour: 1,
      eventsWeightHours: 1,
      fixesWeightHours: 1,
    });
    // A vehicle never read (no sums) adds nothing.
    expect(fleetPrior([undefined, undefined], priorSettings).eventsPerHour).toBe(0.5);
  });

  it('learns the prior’s weight by the method of moments: m / τ², τ² from the spread beyond Poisson noise', () => {
    const a: RateState = { t: T0, events: 8, eventsHours: 5, fixes: 0, alertHours: 0, active: 0 };
    const b: RateState = { t: T0, events: 2, eventsHours: 5, fixes: 0, alertHours: 0, active: 0 };
    const k = Math.LN2 / 4;
    const m = (8 + 2 + 0.5) / (5 + 5 + 1);
    const spread = (8 - m * 5) ** 2 / 5 + (2 - m * 5) ** 2 / 5;
    const noise = 2 * (1 - (k * 5) / 2);
    const dof = 10 - 50 / 10;
    const tau2 = (spread - m * noise) / dof;
    const p = fleetPrior([a, b, undefined], priorSettings);
    expect(p.eventsPerHour).toBeCloseTo(m, 12);
    expect(m / tau2).toBeGreaterThan(1); // between the least weight and the cap
    expect(p.eventsWeightHours).toBeCloseTo(m / tau2, 9);
    // One vehicle tells nothing of the spread: the least weight.
    expect(fleetPrior([a], priorSettings).eventsWeightHours).toBe(1);
    // A vehicle with no exposure yet is not part of the spread.
    const fresh: RateState = { ...b, events: 0, eventsHours: 0 };
    expect(fleetPrior([a, b, fresh], priorSettings).eventsWeightHours).toBeCloseTo(m / tau2, 9);
  });

  it('weighs the configured prior by ratePriorMs hours in the pooled rates', () => {
    const a: RateState = { t: T0, events: 6, eventsHours: 3, fixes: 1, alertHours: 4, active: 0 };
    const p = fleetPrior([a], { ...priorSettings, ratePriorMs: 2 * HOUR });
    expect(p.eventsPerHour).toBeCloseTo((6 + 0.5 * 2) / (3 + 2), 12);
    expect(p.fixesPerHour).toBeCloseTo((1 + 1 * 2) / (4 + 2), 12);
    expect(p.fixesWeightHours).toBe(2);
    // The fix-rate posterior: (fixes + rate × weight) / (alert-hours + weight).
    const r = posterior(a, { ...prior, fixesPerHour: 0.5, fixesWeightHours: 4 });
    expect(r.fixesPerHour).toBeCloseTo((1 + 0.5 * 4) / (4 + 4), 12);
  });

  it('centres on the pooled rate: every count over every hour, the configured prior included', () => {
    const a: RateState = { t: T0, events: 6, eventsHours: 3, fixes: 1, alertHours: 4, active: 0 };
    const b: RateState = { t: T0, events: 0, eventsHours: 5, fixes: 0, alertHours: 0, active: 0 };
    const p = fleetPrior([a, b, undefined], priorSettings);
    expect(p.eventsPerHour).toBeCloseTo((6 + 0 + 0.5) / (3 + 5 + 1), 12);
    expect(p.fixesPerHour).toBeCloseTo((1 + 1) / (4 + 1), 12);
    expect(p.fixesWeightHours).toBe(1);
  });

  it('weighs heavily in a fleet of equal vehicles: chance differences in counts do not reorder it', () => {
    // 300 vehicles at 0.35 changes an hour for a day: counts differ by chance alone.
    const states = fleet(new Array(300).fill(0.35), 24, 11);
    const p = fleetPrior(states, priorSettings);
    expect(p.eventsPerHour).toBeGreaterThan(0.3);
    expect(p.eventsPerHour).toBeLessThan(0.4);
    expect(p.eventsWeightHours).toBeGreaterThan(20);
    const estimates = states.map((s) => posterior(s, p).eventsPerHour);
    // With the configured 1 h prior the estimates would spread over 0.1 to 1 per hour.
    expect(Math.max(...estimates) / Math.min(...estimates)).toBeLessThan(1.6);
  });

  it('weighs lightly in a fleet of vans and parked cars: each vehicle’s own count decides', () => {
    const rates = Array.from({ length: 300 }, (_, i) => (i % 5 === 0 ? 4 : 0.05));
    const states = fleet(rates, 24, 12);
    const p = fleetPrior(states, priorSettings);
    expect(p.eventsWeightHours).toBeLessThan(2);
    states.forEach((s, i) => {
      const r = posterior(s, p).eventsPerHour;
      if (i % 5 === 0) expect(r).toBeGreaterThan(2.5);
      else expect(r).toBeLessThan(0.5);
    });
  });

  it('never weighs less than ratePriorMs nor more than its cap; a fleet of silent vehicles is planned as one', () => {
    const silent = fleet(new Array(50).fill(0), 24, 13);
    const p = fleetPrior(silent, priorSettings);
    expect(p.eventsWeightHours).toBe(MAX_PRIOR_WEIGHT_HOURS);
    const wild = fleetPrior(fleet([0, 0, 0, 30, 0, 0, 30, 0], 24, 14), {
      ...priorSettings,
      ratePriorMs: 3 * HOUR,
    });
    expect(wild.eventsWeightHours).toBe(3);
    // One vehicle: no spread to learn from, the configured weight.
    expect(fleetPrior(fleet([2], 24, 15), priorSettings).eventsWeightHours).toBe(1);
  });
});
