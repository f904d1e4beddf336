import { describe, expect, it } from 'vitest';
import { modelRun } from '../../bench/freshness-model';
import { generateScript, WORLD_HISTORY_MS } from '../../bench/support/freshness-world';

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

  it('the planner alone learns from a first read’s look-back: with the past its mean lag is lower, round-robin’s reads the same', () => {
    const o = { hours: 2, warmupMinutes: 60, seed: 7, oracle: 'none' as const };
    const past = modelRun('mixed', 200, {
      ...o,
      strategies: ['carhook', 'round-robin'],
      historyMs: WORLD_HISTORY_MS,
    });
    const none = modelRun('mixed', 200, { ...o, strategies: ['carhook', 'round-robin'], historyMs: 0 });
    const [carhookPast, rrPast] = past.runs;
    const [carhookNone, rrNone] = none.runs;
    // Round-robin learns nothing: the past changes none of its reads.
    expect(rrPast).toEqual(rrNone);
    // Every measured change is read (the same changes in both).
    expect(carhookPast?.changes).toBe(carhookNone?.changes);
    expect(carhookPast?.mean).toBeLessThan(carhookNone?.mean ?? 0);
  });
});
