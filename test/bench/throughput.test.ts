import { describe, expect, inject, it } from 'vitest';
import { parseThroughputArgs, readGrowth, run, toMarkdown } from '../../bench/throughput';

/** Smoke test: the throughput bench runs end to end on a tiny fleet. Nothing here is timed. */
describe('throughput bench with a tiny fleet', () => {
  it('polls every vehicle, publishes the changes as events and delivers them, and renders its section', async () => {
    const r = await run({
      fleets: [40],
      changeShare: 0.25,
      pollConcurrency: 8,
      warmupTimeoutSeconds: 240,
      cycleTimeoutSeconds: 240,
      budgetSeconds: 600,
      dynamodb: { endpoint: inject('dynamoEndpoint') },
    });
    expect(r.rows).toHaveLength(1);
    const row = r.rows[0];
    if (!row) throw new Error('no row');
    expect(row.status, row.note).toBe('measured');
    expect(row.vehicles).toBeGreaterThanOrEqual(40);
    expect(row.enroll?.vehicles).toBe(row.vehicles);
    expect(row.warmup?.complete).toBe(true);
    expect(row.cycles).toHaveLength(1);
    const cycle = row.cycles[0];
    if (!cycle) throw new Error('no measured cycle');
    // Every enrolled vehicle is due every cycle (steady polls write no schedule) and is polled.
    expect(cycle.planned.due).toBe(row.vehicles);
    expect(cycle.vehiclesPolled).toBe(row.vehicles);
    expect(cycle.polls).toBeGreaterThanOrEqual(row.vehicles);
    expect(cycle.requests).toBeGreaterThanOrEqual(cycle.polls);
    expect(cycle.events).toBeGreaterThan(0);
    expect(cycle.deliveriesSucceeded).toBe(cycle.deliveriesCreated);
    expect(cycle.deliveriesSucceeded).toBeGreaterThan(0);
    expect(row.received).toBe(cycle.deliveriesSucceeded);
    expect(row.changes.alerts + row.changes.collisions + row.changes.trips).toBe(
      Math.round(row.vehicles * 0.25),
    );
    expect(row.pollsPerSecond).toBeGreaterThan(0);
    expect(row.eventsPerSecond).toBeGreaterThan(0);
    expect(row.deliveriesPerSecond).toBeGreaterThan(0);
    expect(row.memory?.peakRssMiB).toBeGreaterThan(0);
    expect(row.memory?.peakHeapUsedMiB).toBeGreaterThan(0);
    expect(cycle.problems, cycle.firstProblem).toBe(0);
    expect(r.projections).toEqual([]);

    const md = toMarkdown(r);
    expect(md).toContain(
      '| vehicles | polls/s | API requests/s | events/s | deliveries/s | cycle time | warm-up polls/s | planner run | peak RSS | peak heap used | wall time | status |',
    );
    expect(md).toMatch(/\| 4\d \| [\d.,]+ \| [\d.,]+ \| [\d.,]+ \| [\d.,]+ \| [\d.]+ s \|/);
    expect(md).toContain('- polls/s: n/a (fewer than two measured sizes)');
    expect(md).toContain('poll-jobs consumer concurrency 8');
  }, 600_000);

  it('refuses bad options, naming them', async () => {
    await expect(run({ fleets: [] })).rejects.toMatchObject({ kind: 'InvalidOption' });
    await expect(run({ fleets: [200, 100] })).rejects.toThrow(/fleets\[1\]: sizes must be ascending/);
    await expect(run({ changeShare: 2 })).rejects.toThrow(/changeShare/);
    await expect(run({ pollConcurrency: 0 })).rejects.toThrow(/pollConcurrency/);
    expect(parseThroughputArgs(['--fleets', '10,x'])).toMatchObject({ ok: false, field: '--fleets' });
    expect(parseThroughputArgs(['--poll-queue', 'sqs'])).toMatchObject({ ok: false, field: '--poll-queue' });
    expect(parseThroughputArgs(['--nope'])).toMatchObject({ ok: false, field: 'argv' });
    expect(parseThroughputArgs(['--quick', '--fleets', '10,20'])).toEqual({
      ok: true,
      options: { quick: true, fleets: [10, 20] },
    });
  });
});

describe('reading how a figure grows with the fleet', () => {
  const at = (a: number, b: number) => [
    { fleet: 1000, value: a },
    { fleet: 10_000, value: b },
  ];
  it('calls a figure that stays put flat, one that follows the fleet linear, one that falls degrading', () => {
    expect(readGrowth('x', at(100, 105)).growth).toBe('flat');
    expect(readGrowth('x', at(100, 1000)).growth).toBe('linear');
    expect(readGrowth('x', at(100, 300)).growth).toBe('sub-linear');
    expect(readGrowth('x', at(100, 40)).growth).toBe('degrading');
    expect(readGrowth('x', at(100, 1000)).exponent).toBe(1);
  });
  it('says n/a with fewer than two usable sizes', () => {
    expect(readGrowth('x', [{ fleet: 1000, value: 5 }]).growth).toBe('n/a');
    expect(readGrowth('x', at(0, 5)).growth).toBe('n/a');
  });
});
