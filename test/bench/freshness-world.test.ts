import { describe, expect, it } from 'vitest';
import { modelRun } from '../../bench/freshness-model';
import {
  alertFixItems,
  generateScript,
  WORLD_HISTORY_MS,
  type WorldScript,
} from '../../bench/support/freshness-world';

const T0 = Date.parse('2026-01-15T05:00:00.000Z');
const HOUR = 3_600_000;

describe('the freshness world’s past', () => {
  it('draws a seeded history before the start without changing the changes after it', () => {
    const without = generateScript('mixed', 100, T0, T0 + 3 * HOUR, 7);
    const withPast = generateScript('mixed', 100, T0, T0 + 3 * HOUR, 7, WORLD_HISTORY_MS);
    expect(without.history).toEqual([]);
    // The same vehicles and the same changes to measure, whatever the length of the past.
    expect(withPast.multipliers).toEqual(without.multipliers);
    expect(withPast.changes).toEqual(without.changes);
    expect(generateScript('mixed', 100, T0, T0 + 3 * HOUR, 7, WORLD_HISTORY_MS)).toEqual(withPast);
    expect(generateScript('mixed', 100, T0, T0 + 3 * HOUR, 8, WORLD_HISTORY_MS).history).not.toEqual(
      withPast.history,
    );
    const times = withPast.history.map((c) => c.at);
    expect(times.length).toBeGreaterThan(100);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(T0 - WORLD_HISTORY_MS);
    expect(Math.max(...times)).toBeLessThan(T0);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // The past follows the vehicles' own rates: the busiest fifth has most of it, as after the start.
    const perVehicle = new Array<number>(100).fill(0);
    for (const c of withPast.history) perVehicle[c.vehicle] = (perVehicle[c.vehicle] ?? 0) + 1;
    const busiest = [...withPast.multipliers.keys()].sort(
      (a, b) => (withPast.multipliers[b] ?? 0) - (withPast.multipliers[a] ?? 0),
    );
    const top = busiest.slice(0, 20).reduce((s, i) => s + (perVehicle[i] ?? 0), 0);
    expect(top / withPast.history.length).toBeGreaterThan(0.5);
  });

  it('turns active alerts into items of the bound: the mean number active, sharing the fixes of the window', () => {
    const M = 60_000;
    const script: WorldScript = {
      world: 'mixed',
      multipliers: [1, 1],
      history: [{ at: T0 - 30 * M, vehicle: 0, kind: 'alert-raised', activeMs: 60 * M }],
      changes: [
        { at: T0, vehicle: 1, kind: 'alert-raised', activeMs: 120 * M },
        { at: T0 + 10 * M, vehicle: 1, kind: 'trip' },
        // Fixed after the window: active to its end, its fix not made.
        { at: T0 + 90 * M, vehicle: 0, kind: 'alert-raised', activeMs: 6 * HOUR },
      ],
    };
    // Over 2 h: 30 + 120 + 30 minutes active = 1.5 alerts on average -> 2 slots; one fix made
    // (the past's alert at 30 min; the second is fixed at the window's end, which is not in it).
    expect(alertFixItems(script, T0, T0 + 2 * HOUR)).toEqual([0.5, 0.5]);
    expect(alertFixItems({ ...script, history: [], changes: [] }, T0, T0 + HOUR)).toEqual([]);
  });

  it('the planner alone learns from a first read’s look-back: with the past its mean lag is lower', () => {
    const o = {
      hours: 2,
      warmupMinutes: 60,
      seed: 7,
      oracle: 'none' as const,
      strategies: ['carhook'] as const,
    };
    const [past] = modelRun('mixed', 200, { ...o, historyMs: WORLD_HISTORY_MS }).runs;
    const [none] = modelRun('mixed', 200, { ...o, historyMs: 0 }).runs;
    // The same measured changes, every one read.
    expect(past?.changes).toBe(none?.changes);
    expect(past?.mean).toBeLessThan(none?.mean ?? 0);
  });
});
