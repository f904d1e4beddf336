import { describe, expect, it } from 'vitest';
import { knownRatesBound, parseFreshnessArgs, run, SWEEP_SIZES } from '../../bench/freshness';
import { chartRows } from '../../bench/freshness-chart';
import { benchCommand, parseBenchArgs } from '../../bench/run';
import { dailyCurve, generateScript } from '../../bench/support/freshness-world';

const T0 = Date.parse('2026-01-15T06:00:00.000Z');
const HOUR = 3_600_000;

describe('freshness bench', () => {
  it('takes the freshness command line, and names a bad flag', () => {
    const argv = [
      '--only',
      'freshness',
      '--world',
      'mixed',
      '--vehicles',
      '400',
      '--hours',
      '6',
      '--seed',
      '7',
    ];
    const r = parseBenchArgs([...argv, '--strategies', 'carhook,round-robin,naive', '--json', 'f.json']);
    expect(r.ok && r.args.freshness).toMatchObject({
      worlds: ['mixed'],
      sizes: [400],
      hours: 6,
      seed: 7,
      strategies: ['carhook', 'round-robin', 'naive'],
      json: 'f.json',
    });
    expect(r.ok && benchCommand(r.args)).toBe(
      'npm run bench -- --only freshness --world mixed --vehicles 400 --hours 6 --seed 7 --strategies carhook,round-robin,naive --json f.json',
    );
    // Without --world/--vehicles: the sweep (both worlds, 50 to 800 vehicles).
    const sweep = parseFreshnessArgs([]);
    expect(sweep.ok && sweep.options.worlds).toEqual(['uniform', 'mixed']);
    expect(sweep.ok && sweep.options.trace).toBeUndefined();
    const traced = parseFreshnessArgs(['--trace', '/tmp/trace']);
    expect(traced.ok && traced.options.trace).toBe('/tmp/trace');
    expect(sweep.ok && sweep.options.sizes).toEqual([...SWEEP_SIZES]);
    expect(parseBenchArgs(['--only', 'freshness', '--world', 'flat'])).toMatchObject({
      ok: false,
      field: '--world',
    });
    expect(parseBenchArgs(['--only', 'freshness', '--strategies', 'carhook,fast'])).toMatchObject({
      ok: false,
      field: '--strategies',
    });
    expect(parseBenchArgs(['--only', 'freshness', '--vehicles', '0'])).toMatchObject({
      ok: false,
      field: '--vehicles',
    });
    expect(parseBenchArgs(['--world', 'mixed'])).toMatchObject({ ok: false, field: '--world' });
  });

  it('generates the same script for the same seed, log-normal rates in the mixed world, one rate in the uniform one', () => {
    const a = generateScript('mixed', 200, T0, T0 + 6 * HOUR, 7);
    expect(generateScript('mixed', 200, T0, T0 + 6 * HOUR, 7)).toEqual(a);
    expect(generateScript('mixed', 200, T0, T0 + 6 * HOUR, 8)).not.toEqual(a);
    const sorted = [...a.multipliers].sort((x, y) => y - x);
    const top = sorted.slice(0, 40).reduce((s, m) => s + m, 0) / sorted.reduce((s, m) => s + m, 0);
    // σ = 1.5: the busiest fifth carries about 70 % of the rate.
    expect(top).toBeGreaterThan(0.55);
    expect(top).toBeLessThan(0.85);
    expect(generateScript('uniform', 50, T0, T0 + HOUR, 7).multipliers.every((m) => m === 1)).toBe(true);
    expect(a.changes.map((c) => c.at)).toEqual([...a.changes.map((c) => c.at)].sort((x, y) => x - y));
    const raised = a.changes.filter((c) => c.kind === 'alert-raised');
    for (const c of raised) {
      expect(c.activeMs).toBeGreaterThanOrEqual(5 * 60_000);
      expect(c.activeMs).toBeLessThanOrEqual(6 * HOUR);
    }
  });

  it('draws the daily curve: night 0.2×, rush hours 3×, else 1×', () => {
    const at = (h: number) => dailyCurve(Date.parse(`2026-01-15T${String(h).padStart(2, '0')}:30:00.000Z`));
    expect([0, 5, 6, 7, 8, 9, 16, 17, 18, 19, 21, 22].map(at)).toEqual([
      0.2, 0.2, 1, 3, 3, 1, 1, 3, 3, 1, 1, 0.2,
    ]);
  });

  it('computes the known-rates bound: the fair order on equal rates, less with skewed ones', () => {
    // 212 equal vehicles at 106 reads a minute: every 2 minutes, a mean wait of 1 minute.
    expect(knownRatesBound(Array(212).fill(1), 106, 15)).toEqual({
      boundMeanSeconds: 60,
      fairMeanSeconds: 60,
    });
    // Skewed: the square-root allocation beats the fair order.
    const skewed = [...Array(20).fill(50), ...Array(192).fill(0.5)];
    const b = knownRatesBound(skewed, 106, 15);
    expect(b.fairMeanSeconds).toBe(60);
    expect(b.boundMeanSeconds).toBeLessThan(45);
    // Under the quota: everyone every minute (capped at one read a minute), 30 s.
    expect(knownRatesBound([1, 2, 3], 106, 15).boundMeanSeconds).toBe(30);
    expect(knownRatesBound([], 106, 15)).toEqual({ boundMeanSeconds: 0, fairMeanSeconds: 0 });
  });

  it('charts mean and p95 per strategy, and the bound beside the means', () => {
    const rows = chartRows([
      {
        world: 'mixed',
        vehicles: 100,
        runs: [
          { strategy: 'carhook', lagSeconds: { mean: 10, p50: 9, p95: 20, max: 30 }, boundMeanSeconds: 8 },
        ],
      },
    ]);
    expect(rows.map((r) => `${r.series}:${r.metric}:${r.seconds}`)).toEqual([
      'carhook:mean lag (s):10',
      'carhook:p95 lag (s):20',
      'known-rates bound:mean lag (s):8',
    ]);
  });

  it('reproduces: the same seed gives the same figures (all but the timings)', async () => {
    const once = async () => {
      const r = await run({
        worlds: ['mixed'],
        sizes: [8],
        hours: 0.25,
        warmupMinutes: 5,
        drainMinutes: 20,
        seed: 7,
        strategies: ['carhook'],
        log: () => {},
        timePlanning: false,
      });
      // Wall and CPU times are the machine's, not the experiment's.
      return JSON.parse(
        JSON.stringify(r.results, (k, v) =>
          ['wallSeconds', 'cpuSeconds', 'planMsP99'].includes(k) ? undefined : v,
        ),
      ) as unknown;
    };
    const a = await once();
    expect(await once()).toEqual(a);
    const runs = (a as { runs: { changes: { made: number; detected: number } }[] }[])[0]?.runs ?? [];
    expect(runs).toHaveLength(1);
    expect(runs[0]?.changes.made).toBeGreaterThan(0);
    expect(runs[0]?.changes.detected).toBe(runs[0]?.changes.made);
  }, 120_000);
});
