import { describe, expect, inject, it } from 'vitest';
import { FRESHNESS_VARIANTS, run as runPipeline, toMarkdown } from '../../bench/pipeline';
import { AREAS, benchCommand, DEFAULT_AREAS, machine, parseBenchArgs, renderReport } from '../../bench/run';
import { planChanges } from '../../bench/support/changes';
import { percentile } from '../../bench/support/stats';

/** Smoke tests: the bench modules run with tiny sizes and give sane figures. Nothing here is timed. */
describe('bench/run.ts arguments', () => {
  it('runs every default area by default and takes --quick and --only', () => {
    const all = parseBenchArgs([]);
    expect(all.ok && all.args.only).toEqual([...DEFAULT_AREAS]);
    const some = parseBenchArgs(['--quick', '--only', 'pipeline, sim']);
    expect(some.ok && some.args).toMatchObject({ quick: true, only: ['sim', 'pipeline'] });
  });

  it('adds the long fault run with --faults, runs it alone with --only faults, and names the command', () => {
    const plain = parseBenchArgs([]);
    expect(plain.ok && plain.args.only).not.toContain('faults');
    const withFaults = parseBenchArgs(['--faults']);
    expect(withFaults.ok && withFaults.args.only).toEqual([...DEFAULT_AREAS, 'faults']);
    expect(AREAS).toContain('freshness');
    expect(withFaults.ok && benchCommand(withFaults.args)).toBe('npm run bench -- --faults');
    const alone = parseBenchArgs(['--only', 'faults', '--quick']);
    expect(alone.ok && alone.args.only).toEqual(['faults']);
    expect(alone.ok && benchCommand(alone.args)).toBe('npm run bench -- --quick --only faults');
    expect(plain.ok && benchCommand(plain.args)).toBe('npm run bench');
  });

  it('rejects unknown areas and unknown flags, naming the flag', () => {
    const unknown = parseBenchArgs(['--only', 'pipeline,gpu']);
    expect(unknown).toMatchObject({ ok: false, field: '--only' });
    expect(!unknown.ok && unknown.message).toContain("'gpu'");
    expect(parseBenchArgs(['--only', ''])).toMatchObject({ ok: false, field: '--only' });
    expect(parseBenchArgs(['--fast'])).toMatchObject({ ok: false, field: 'argv' });
  });
});

describe('bench support', () => {
  it('plans the same seeded script twice, sorted by time, within the duration', () => {
    const a = planChanges(20, 600_000, 10, 7);
    expect(planChanges(20, 600_000, 10, 7)).toEqual(a);
    expect(a.map((c) => c.offsetMs)).toEqual([...a.map((c) => c.offsetMs)].sort((x, y) => x - y));
    expect(a.every((c) => c.offsetMs >= 0 && c.offsetMs < 600_000 && c.vehicle < 10)).toBe(true);
  });

  it('takes nearest-rank percentiles', () => {
    const s = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([percentile(s, 50), percentile(s, 95), percentile(s, 99)]).toEqual([50, 95, 99]);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('pipeline bench with tiny sizes', () => {
  it('measures both strategies on one world, keeps the quota and renders its tables', async () => {
    const r = await runPipeline({
      fleets: [6],
      steadyVehicles: 5,
      steadyCycles: 2,
      efficiencyChanges: 5,
      freshnessChanges: 5,
      freshnessMinutes: 3,
      drainMinutes: 12,
      variants: FRESHNESS_VARIANTS.filter((v) => v.name === 'carhook' || v.name === 'naive'),
      dynamodb: { endpoint: inject('dynamoEndpoint') },
    });
    // Request counts are deterministic on the manual clock.
    expect(r.efficiency.naive.requestsPerVehiclePerCycle).toBe(4);
    expect(r.efficiency.carhook.requestsPerVehiclePerCycle).toBeLessThan(2);
    expect(r.efficiency.carhook.detected).toBeGreaterThan(0);
    expect(r.freshness.rows.map((row) => row.variant)).toEqual(['carhook', 'naive']);
    for (const row of r.freshness.rows) {
      expect(row.changes).toBe(5);
      expect(row.detected).toBeGreaterThan(0);
      expect(row.p50S).toBeGreaterThanOrEqual(0);
      expect(row.maxInWindow).toBeGreaterThan(0);
      expect(row.quotaKept).toBe(true);
    }
    if ('skipped' in r.dynamodb) throw new Error('the DynamoDB measure was skipped');
    expect(r.dynamodb.polls).toBe(10);
    expect(r.dynamodb.budgetWrites).toBeGreaterThan(0);
    expect(Number.isFinite(r.dynamodb.writesPerPoll)).toBe(true);

    const md = toMarkdown(r);
    expect(md).toContain('| carhook | 6 |');
    expect(md).toContain('| naive | 6 |');
    expect(md).toContain('accepted by the bus');

    const report = renderReport({
      machine: machine(),
      args: { quick: true, only: ['pipeline', 'sim'], out: '/dev/null' },
      startedAt: new Date(0),
      seconds: 1,
      peakRssMiB: 1,
      outcomes: [
        { area: 'pipeline', ok: true, seconds: 1, result: r },
        { area: 'sim', ok: false, seconds: 0, error: 'BenchError: simulator did not start' },
      ],
    });
    expect(report).toContain('npm run bench -- --quick --only pipeline,sim');
    expect(report).toContain('**This area failed:** BenchError: simulator did not start');
    expect(report).toContain('| cores |');
  }, 120_000);
});
