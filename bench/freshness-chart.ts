/**
 * Draws the freshness chart (mean and p95 lag against fleet size, per strategy and world, with the
 * known-rates bound) as SVG from the benchmark's JSON files, with Vega-Lite (no native dependency).
 *
 *   npx tsx bench/freshness-chart.ts out.svg mixed.json uniform.json
 */
import { readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import * as vega from 'vega';
import * as vl from 'vega-lite';
import type { FreshnessResult, FreshnessSweep } from './freshness';

export interface ChartRow {
  readonly world: string;
  readonly vehicles: number;
  readonly series: string;
  readonly metric: 'mean lag (s)' | 'p95 lag (s)';
  readonly seconds: number;
}

/** The rows of the chart: one per world, size, strategy and metric, plus the bound (mean only). */
export function chartRows(results: readonly FreshnessResult[]): ChartRow[] {
  const rows: ChartRow[] = [];
  for (const r of results) {
    for (const run of r.runs) {
      const base = { world: r.world, vehicles: r.vehicles, series: run.strategy };
      rows.push({ ...base, metric: 'mean lag (s)', seconds: run.lagSeconds.mean });
      rows.push({ ...base, metric: 'p95 lag (s)', seconds: run.lagSeconds.p95 });
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

export async function renderChart(results: readonly FreshnessResult[]): Promise<string> {
  const spec: vl.TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: 'Detection lag against fleet size (default quota, 108 usable requests a minute)',
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
  for (const file of inputs) {
    const body = JSON.parse(await readFile(file, 'utf8')) as FreshnessSweep | FreshnessResult;
    if ('results' in body) results.push(...body.results);
    else results.push(body);
  }
  await writeFile(out, await renderChart(results));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  });
}
