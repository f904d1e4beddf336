/**
 * The capacity model (functions/core/capacity) against a measured run of the planner on a small
 * world: bench/freshness-model.ts runs `plan()` each simulated minute over 200 vehicles of the mixed
 * world for two hours (about a second), and the model, given the same world's rates and quota,
 * predicts the mean and p95 lag of every change within 15 %.
 */
import { describe, expect, it } from 'vitest';
import { modelRun } from '../../bench/freshness-model';
import {
  alertFixItems,
  BASE_RATE_PER_HOUR,
  dailyCurve,
  generateScript,
  WORLD_HISTORY_MS,
} from '../../bench/support/freshness-world';
import { predictFleet } from '../../functions/core/capacity/model';
import { DEFAULT_POLLING_CONFIG } from '../../functions/core/polling/config';

const MINUTE = 60_000;

describe('the capacity model against a measured run', () => {
  it('predicts the mean and p95 lag of a 200-vehicle mixed world within 15 %', () => {
    const hours = 2;
    const measured = modelRun('mixed', 200, {
      hours,
      warmupMinutes: 60,
      seed: 7,
      strategies: ['carhook'],
      oracle: 'none',
    }).runs[0];
    // The same world's rates over the measured hours (as bench/freshness-model.ts makes them).
    const start = Date.UTC(2026, 0, 5, 6) - 60 * MINUTE;
    const from = start + 60 * MINUTE;
    const to = from + hours * 60 * MINUTE;
    const script = generateScript('mixed', 200, start, to, 7, WORLD_HISTORY_MS);
    let curve = 0;
    for (let t = from; t < to; t += MINUTE) curve += dailyCurve(t);
    const vehicles = script.multipliers.map((m) => ({
      eventsPerHour: (BASE_RATE_PER_HOUR * m * curve) / 60 / hours,
      alertFixesPerHour: 0,
    }));
    // The alerts active on average, each as an item beside the vehicles.
    alertFixItems(script, from, to).forEach((fixes, i) => {
      vehicles[i] = { ...(vehicles[i] as (typeof vehicles)[number]), alertFixesPerHour: fixes / hours };
    });
    // That instrument models no follow-up reads: the reserve is the fixed one.
    const predicted = predictFleet(
      vehicles,
      { limit: 120, windowMs: MINUTE, safetyMargin: 0.1 },
      { ...DEFAULT_POLLING_CONFIG, followUpsPerChange: 0 },
    ).all;
    expect(measured?.all).toMatchObject({ mean: 44.2, p95: 115.2 });
    const ratio = { mean: predicted.meanMs / 1000 / 44.2, p95: predicted.p95Ms / 1000 / 115.2 };
    expect(ratio.mean).toBeGreaterThan(0.85);
    expect(ratio.mean).toBeLessThan(1.15);
    expect(ratio.p95).toBeGreaterThan(0.85);
    expect(ratio.p95).toBeLessThan(1.15);
  });
});
