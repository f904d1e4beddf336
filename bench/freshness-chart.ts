/**
 * Draws the freshness chart (mean and p95 lag against fleet size, per strategy and world, with the
 * known-rates bound) as SVG from the benchmark's JSON files, with Vega-Lite (no native dependency).
 *
 *   npx tsx bench/freshness-chart.ts out.svg mixed.json uniform.json
 *
 * It also prints the tables of the files together (bench/freshness.ts `toMarkdown`), for a sweep
 * run in several processes (one per world and group of sizes).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import * as vega from 'vega';
import * as vl from 'vega-lite';
import {
  type FreshnessResult,
  parseFreshnessFile,
  type RunFigures,
  resultsOf,
  toMarkdown,
} from './support/freshness-report';

/** What the chart needs of a result (bench/freshness.ts and bench/freshness-model.ts both give it). */
export interface ChartResult {
  readonly world: FreshnessResult['world'];
  readonly vehicles: number;
  readonly runs: readonly Pick<RunFigures, 'strategy' | 'lagSeconds' | 'boundMeanSeconds'>[];
}

export interface ChartRow {
  readonly world: string;
  readonly vehicles: number;
  readonly series: string;
  readonly metric: 'mean lag (s)' | 'p95 lag (s)';
  readonly seconds: number;
}

/** The rows of the chart: one per world, size, strategy and metric, plus the bound (mean only). */
export function chartRows(results: readonly ChartResult[]): ChartRow[] {
  const rows: ChartRow[] = [];
  for (const r of results) {
    for (const run of r.runs) {
      const base = { world: r.world, vehicles: r.vehicles, series: run.strategy };
      // A lag that is not finite (changes never detected) has no point on a log axis: the
      // tables say "never" for it.
      if (Number.isFinite(run.lagSeconds.mean)) {
        rows.push({ ...base, metric: 'mean lag (s)', seconds: run.lagSeconds.mean });
      }
      if (Number.isFinite(run.lagSeconds.p95)) {
        rows.push({ ...base, metric: 'p95 lag (s)', seconds: run.lagSeconds.p95 });
      }
    }
    const bound = r.runs[0]?.boundMeanSeconds;
    if (bound !== undefined) {
      rows.push({
        world: r.world,
        vehicles: r.vehicles,
        series: 'known-rates bound',
        metric: 'mean lag (s)',
        seconds: bound,
      });
    }
  }
  return rows;
}

export async function renderChart(
  results: readonly ChartResult[],
  title = 'Detection lag against fleet size (default quota, 108 usable requests a minute)',
): Promise<string> {
  const spec: vl.TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    data: { values: chartRows(results) as unknown as Record<string, unknown>[] },
    facet: {
      row: { field: 'metric', type: 'nominal', title: null },
      column: { field: 'world', type: 'nominal', title: 'world' },
    },
    spec: {
      width: 300,
      height: 200,
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'vehicles', type: 'quantitative', scale: { type: 'log', base: 2 }, title: 'vehicles' },
        y: { field: 'seconds', type: 'quantitative', scale: { type: 'log' }, title: 'seconds' },
        color: { field: 'series', type: 'nominal', title: 'strategy' },
        strokeDash: {
          condition: { test: "datum.series === 'known-rates bound'", value: [4, 3] },
          value: [1, 0],
        },
      },
    },
    resolve: { scale: { y: 'independent' } },
  };
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' });
  return view.toSVG();
}

async function main(): Promise<void> {
  const [out, ...inputs] = process.argv.slice(2);
  if (!out || inputs.length === 0) {
    process.stderr.write('usage: tsx bench/freshness-chart.ts out.svg results.json [more.json…]\n');
    process.exitCode = 2;
    return;
  }
  const results: FreshnessResult[] = [];
  let plan10kMsP99 = 0;
  let wallSeconds = 0;
  let hours = 0;
  for (const name of inputs) {
    const read = parseFreshnessFile(await readFile(name, 'utf8'), name);
    if (!read.ok) {
      process.stderr.write(`${read.message}\n`);
      process.exitCode = 2;
      return;
    }
    const file = read.file;
    if (file.partial) process.stderr.write(`${name}: partial (the run that wrote it did not finish)\n`);
    const got = resultsOf(file);
    results.push(...got.results);
    if (Number.isFinite(got.plan10kMsP99)) plan10kMsP99 = Math.max(plan10kMsP99, got.plan10kMsP99);
    wallSeconds +=
      'results' in file ? file.wallSeconds : file.runs.reduce((a, r) => a + (r.wallSeconds || 0), 0);
    hours = 'results' in file ? file.hours : file.simulatedMinutes / 60;
  }
  // Uniform first, then by size.
  results.sort((a, b) => (a.world === b.world ? a.vehicles - b.vehicles : a.world === 'uniform' ? -1 : 1));
  await writeFile(out, await renderChart(results));
  const seed = results[0]?.seed ?? 0;
  process.stdout.write(
    toMarkdown(
      { seed, hours, plan10kMsP99, results, wallSeconds },
      `npx tsx bench/freshness-chart.ts ${process.argv.slice(2).join(' ')}`,
    ),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  });
}
