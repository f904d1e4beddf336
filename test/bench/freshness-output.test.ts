import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../bench/freshness';
import { chartRows } from '../../bench/freshness-chart';
import { parseFreshnessFile, resultsOf } from '../../bench/support/freshness-report';
import { freshnessKinds } from '../../bench/support/freshness-world';

const runKeys = [
  'boundAllMeanSeconds',
  'boundMeanSeconds',
  'byKind',
  'changes',
  'cpuSeconds',
  'drainMinutes',
  'fairMeanSeconds',
  'guaranteeMinutes',
  'http429',
  'lagSeconds',
  'maxRequestsInWindow',
  'planMsP99',
  'strategy',
  'undetected',
  'wallSeconds',
];

describe('freshness bench output', () => {
  let dir: string;
  let file: string;
  /** What the file held when the second run ended (the first run already written). */
  let afterFirstRun: string | undefined;
  let log: string[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'freshness-'));
    file = join(dir, 'freshness.json');
    log = [];
    let lines = 0;
    await run({
      worlds: ['mixed'],
      sizes: [30],
      hours: 0.5,
      warmupMinutes: 5,
      // No drain: a change of the last minute is never polled for. Seed 35 makes one (an alert
      // raised 48 s before the end), so the run has a change to name.
      drainMinutes: 0,
      seed: 35,
      strategies: ['carhook', 'round-robin'],
      json: file,
      log: (l) => {
        log.push(l);
        // The second run's summary line comes after the first run's file was written.
        if (/ round-robin: mean /.test(l) && lines++ === 0) {
          afterFirstRun = readFileSync(file, 'utf8');
        }
      },
      timePlanning: false,
    });
  }, 120_000);

  it('gives the same figures over a loopback socket as in process', async () => {
    const socket = await run({
      worlds: ['mixed'],
      sizes: [30],
      hours: 0.5,
      warmupMinutes: 5,
      drainMinutes: 0,
      seed: 35,
      strategies: ['carhook'],
      transport: 'socket',
      log: () => {},
      timePlanning: false,
    });
    // Wall and CPU times are the machine's, not the experiment's.
    const figures = (r: unknown): unknown =>
      JSON.parse(
        JSON.stringify(r, (k, v) => (['wallSeconds', 'cpuSeconds', 'planMsP99'].includes(k) ? undefined : v)),
      );
    const body = JSON.parse(await readFile(file, 'utf8'));
    expect(figures(socket.results[0]?.runs[0])).toEqual(figures(body.runs[0]));
  }, 120_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the result in the documented shape, the quota kept by every strategy', async () => {
    const body = JSON.parse(await readFile(file, 'utf8'));
    expect(body).toMatchObject({
      world: 'mixed',
      seed: 35,
      vehicles: 30,
      simulatedMinutes: 30,
      quota: { limit: 120, windowSeconds: 60, usablePerMinute: 108 },
      partial: false,
    });
    expect(typeof body.changesPerVehicle.shareOfTop20PercentVehicles).toBe('number');
    expect(body.changesPerVehicle.shareOfTop20PercentVehicles).toBeGreaterThan(0.2);
    expect(body.runs.map((r: { strategy: string }) => r.strategy)).toEqual(['carhook', 'round-robin']);
    for (const r of body.runs) {
      // The documented keys; others may be added.
      expect(Object.keys(r)).toEqual(expect.arrayContaining(runKeys));
      expect(Object.keys(r.lagSeconds).sort()).toEqual(['max', 'mean', 'p50', 'p95']);
      for (const key of runKeys) expect(r[key], key).not.toBeUndefined();
      expect(r.changes.made).toBeGreaterThan(0);
      expect(r.maxRequestsInWindow).toBeGreaterThan(0);
      expect(r.maxRequestsInWindow).toBeLessThanOrEqual(body.quota.usablePerMinute);
      expect(r.http429).toBe(0);
      expect(typeof r.planMsP99).toBe('number');
      for (const [kind, k] of Object.entries(r.byKind) as [string, Record<string, number>][]) {
        expect(freshnessKinds).toContain(kind);
        expect(Object.keys(k).sort()).toEqual(['detected', 'made', 'max', 'mean', 'p95']);
      }
      const made = Object.values(r.byKind as Record<string, { made: number }>).reduce(
        (a, k) => a + k.made,
        0,
      );
      expect(made).toBe(r.changes.made);
    }
  });

  it('names every change never detected (kind, vehicle, time made) in the file and the log', async () => {
    const body = JSON.parse(await readFile(file, 'utf8'));
    const measuredFrom = Date.parse(body.runs[0].undetected[0]?.madeAt ?? '') - 30 * 60_000;
    for (const r of body.runs) {
      expect(r.changes.detected).toBeLessThan(r.changes.made);
      expect(r.undetected).toHaveLength(r.changes.made - r.changes.detected);
      for (const u of r.undetected) {
        expect(freshnessKinds).toContain(u.kind);
        expect(u.vehicle).toBeGreaterThanOrEqual(0);
        expect(u.vehicle).toBeLessThan(30);
        expect(u.vin).toMatch(/^[A-Z0-9]{17}$/);
        expect(new Date(u.madeAt).toISOString()).toBe(u.madeAt);
        expect(Date.parse(u.madeAt)).toBeGreaterThanOrEqual(measuredFrom);
        expect(log).toContain(
          `freshness: mixed 30 ${r.strategy}: never detected: ${u.kind} of vehicle ${u.vehicle} (${u.vin}) made ${u.madeAt}`,
        );
      }
      // Changes never seen have no finite p95 or max: JSON writes them as null.
      expect(r.lagSeconds.max).toBeNull();
    }
  });

  it('rewrites the file after every finished run, partial until the last', () => {
    expect(afterFirstRun).toBeDefined();
    const first = JSON.parse(afterFirstRun as string);
    expect(first.partial).toBe(true);
    expect(first.runs.map((r: { strategy: string }) => r.strategy)).toEqual(['carhook']);
  });

  it('reads its own file back for the chart, a lag never reached drawn as no point', async () => {
    const read = parseFreshnessFile(await readFile(file, 'utf8'), file);
    if (!read.ok) throw new Error(read.message);
    const { results } = resultsOf(read.file);
    expect(results).toHaveLength(1);
    expect(results[0]?.runs[0]?.lagSeconds.max).toBe(Number.POSITIVE_INFINITY);
    const rows = chartRows(results);
    expect(rows.every((row) => Number.isFinite(row.seconds))).toBe(true);
    expect(rows.filter((row) => row.metric === 'mean lag (s)').map((row) => row.series)).toEqual([
      'carhook',
      'round-robin',
      'known-rates bound',
    ]);
  });

  it('names the file and the field of a results file it cannot read', async () => {
    const bad = join(dir, 'bad.json');
    const body = JSON.parse(await readFile(file, 'utf8'));
    body.runs[1].lagSeconds.mean = 'fast';
    await writeFile(bad, JSON.stringify(body));
    const read = parseFreshnessFile(await readFile(bad, 'utf8'), bad);
    expect(read).toEqual({
      ok: false,
      message: expect.stringContaining(`${bad}: not a freshness results file`),
    });
    expect(!read.ok && read.message).toContain('runs.1.lagSeconds.mean');
    expect(parseFreshnessFile('{"world":', 'cut.json')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^cut\.json: not JSON/),
    });
  });
});
