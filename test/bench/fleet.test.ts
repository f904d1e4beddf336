import { describe, expect, it } from 'vitest';
import { run, toMarkdown } from '../../bench/fleet';

/** Smoke test of the fleet (v1) freshness bench at a tiny size. Nothing here is timed. */
describe('bench/fleet.ts', () => {
  it('polls a small v1 fleet, sees the scripted changes within the quota and renders the table', async () => {
    const r = await run({ sizes: [50], batchSizes: [20], changes: 5, minutes: 3, drainMinutes: 4, seed: 3 });
    expect(r.rows).toHaveLength(1);
    const row = r.rows[0];
    if (!row) throw new Error('no row');
    expect(row).toMatchObject({ vehicles: 50, enrolled: 50, batchSize: 20, baselineComplete: true });
    expect((row.byBrand.C ?? 0) + (row.byBrand.P ?? 0)).toBe(50);
    expect(row.changes).toBeGreaterThan(0);
    expect(row.detected).toBeGreaterThan(0);
    expect(row.detected).toBeLessThanOrEqual(row.changes);
    // 50 vehicles in batches of 20 per brand: at least 3 fleet jobs per cycle, 4 lists each.
    expect(row.jobsPerCycle).toBeGreaterThanOrEqual(3);
    expect(row.requestsPerMinute).toBeGreaterThan(0);
    expect(row.quotaKept).toBe(true);
    expect(row.maxInWindow).toBeLessThanOrEqual(row.limit);
    expect(row.tooManyRequests).toBe(0);
    expect(row.splitBatches).toBe(0);
    expect(r.largestKept['20'] === 50 || r.largestKept['20'] === null).toBe(true);
    expect(r.met).toBe(false);
    const md = toMarkdown(r);
    expect(md).toContain('| batch size |');
    expect(md).toContain('target ≥ 2,000: **not met**');
  });

  it('splits a batch the simulator refuses (over 100 VINs) and still sees the changes', async () => {
    const r = await run({
      sizes: [240],
      batchSizes: [150],
      changes: 3,
      minutes: 2,
      drainMinutes: 3,
      seed: 4,
    });
    const row = r.rows[0];
    expect(row?.splitBatches).toBeGreaterThan(0);
    expect(row?.detected).toBeGreaterThan(0);
    expect(row?.quotaKept).toBe(true);
  });

  it('rejects bad options naming the field', async () => {
    await expect(run({ sizes: [] })).rejects.toThrow(/sizes/);
    await expect(run({ batchSizes: [0] })).rejects.toThrow(/batchSizes/);
  });
});
