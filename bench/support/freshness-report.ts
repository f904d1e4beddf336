/**
 * What the freshness benchmark (bench/freshness.ts) reports: the figures of a run, the JSON file
 * (one world and fleet size: the result itself; several: the sweep), rewritten after every
 * finished run so a killed process keeps what it measured, and the Markdown tables.
 */
import { rename, writeFile } from 'node:fs/promises';
import * as z from 'zod';
import { type PollStrategy, pollStrategies } from '../../functions/core/polling';
import {
  type FreshnessKind,
  freshnessKinds,
  type MadeFreshnessChange,
  type World,
  worlds,
} from './freshness-world';
import { percentile, round } from './stats';

export interface KindFigures {
  readonly made: number;
  readonly detected: number;
  readonly mean: number;
  readonly p95: number;
  readonly max: number;
}

/** A measured change the bus never accepted an event for, by the end of the drain. */
export interface UndetectedChange {
  readonly kind: FreshnessKind;
  /** The vehicle's index in the generated fleet (the script's numbering) and its VIN. */
  readonly vehicle: number;
  readonly vin: string;
  /** Simulated time the change was made (ISO 8601). */
  readonly madeAt: string;
}

export interface RunFigures {
  readonly strategy: PollStrategy;
  readonly changes: { readonly made: number; readonly detected: number };
  readonly lagSeconds: {
    readonly mean: number;
    readonly p50: number;
    readonly p95: number;
    readonly max: number;
  };
  readonly boundMeanSeconds: number;
  /** Round-robin's mean on the same rates, computed (every vehicle every N/R minutes). */
  readonly fairMeanSeconds: number;
  /** The known-rates bound over every change, alert fixes included (active alerts as items). */
  readonly boundAllMeanSeconds?: number;
  /**
   * The capacity model's mean and p95 over every change (functions/core/capacity), from the rates
   * the planner learned by the end of the measured hours: `GET /capacity`'s figures for this fleet.
   */
  readonly model?: { readonly meanSeconds: number; readonly p95Seconds: number };
  readonly byKind: Readonly<Record<string, KindFigures>>;
  readonly maxRequestsInWindow: number;
  readonly http429: number;
  /** p99 of one planner run per simulated cycle (store listing included), CPU ms. */
  readonly planMsP99: number;
  /** Every measured change never detected (empty when all were). */
  readonly undetected: readonly UndetectedChange[];
  readonly guaranteeMinutes: number;
  readonly drainMinutes: number;
  readonly wallSeconds: number;
  /** CPU time of this process during the run (user + system): on a shared machine, its cost. */
  readonly cpuSeconds: number;
}

export interface FreshnessResult {
  readonly world: World;
  readonly seed: number;
  readonly vehicles: number;
  /** Measured simulated minutes (the warm-up before and the drain after are not counted). */
  readonly simulatedMinutes: number;
  readonly warmupMinutes: number;
  readonly quota: {
    readonly limit: number;
    readonly windowSeconds: number;
    readonly usablePerMinute: number;
  };
  readonly changesPerVehicle: { readonly shareOfTop20PercentVehicles: number };
  readonly runs: readonly RunFigures[];
}

export interface FreshnessSweep {
  readonly seed: number;
  readonly hours: number;
  /** p99 of `plan()` alone over a synthetic 10,000-vehicle fleet (CPU ms, one core). */
  readonly plan10kMsP99: number;
  readonly results: readonly FreshnessResult[];
  readonly wallSeconds: number;
}

/** A sweep's file, or one result's (the shape the issue names) when it holds one world and size. */
export type FreshnessFile =
  | (FreshnessSweep & { readonly partial: boolean })
  | (FreshnessResult & { readonly plan10kMsP99: number; readonly partial: boolean });

/**
 * The file's body: the lone result with `plan10kMsP99` beside it when the command asked for one
 * world and one fleet size, else the sweep. `partial` stays true until the last run is in.
 */
export function fileBody(sweep: FreshnessSweep, single: boolean, partial: boolean): FreshnessFile {
  const only = sweep.results[0];
  return single && only ? { ...only, plan10kMsP99: sweep.plan10kMsP99, partial } : { ...sweep, partial };
}

/**
 * Writes the file whole or not at all: into a sibling temporary file, then renamed over the
 * target (a rename within one directory replaces the file atomically on POSIX file systems), so a
 * process killed mid-write leaves the previous complete version.
 */
export async function writeJsonFile(path: string, body: unknown): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(body, null, 2)}\n`);
  await rename(temporary, path);
}

/** The results of a file written by `run` (a sweep or a lone result), for the chart and tables. */
export function resultsOf(body: FreshnessFile): { results: FreshnessResult[]; plan10kMsP99: number } {
  if ('results' in body) return { results: [...body.results], plan10kMsP99: body.plan10kMsP99 };
  const { plan10kMsP99, partial: _partial, ...result } = body;
  return { results: [result], plan10kMsP99 };
}

/** Made, detected and lag figures of a set of changes (a change never seen: an infinite lag). */
export function kindFigures(changes: readonly MadeFreshnessChange[]): KindFigures {
  const lags = changes
    .map((c) => (c.detectedAt === undefined ? Number.POSITIVE_INFINITY : (c.detectedAt - c.changedAt) / 1000))
    .sort((a, b) => a - b);
  const seen = lags.filter(Number.isFinite);
  return {
    made: changes.length,
    detected: seen.length,
    mean: round(seen.reduce((a, b) => a + b, 0) / Math.max(1, seen.length), 1),
    p95: round(percentile(lags, 95), 1),
    max: round(lags.at(-1) ?? Number.NaN, 1),
  };
}

const fmt = (s: number): string => (Number.isFinite(s) ? `${round(s, 1)}` : 'never');

const kindCell = (f: KindFigures | undefined): string =>
  f ? `${fmt(f.mean)} / ${fmt(f.p95)} / ${fmt(f.max)} (${f.detected}/${f.made})` : '–';

export function toMarkdown(r: FreshnessSweep, command: string): string {
  const lines: string[] = [];
  lines.push('## Freshness at scale (carhook vs round-robin vs naive)', '');
  lines.push(
    `Reproduce: \`${command}\` (seed ${r.seed}, ${r.hours} h measured after a warm-up, wall ${r.wallSeconds} s).`,
    '',
  );
  lines.push(
    `Planning cost: \`plan()\` for a synthetic fleet of 10,000 vehicles, p99 **${r.plan10kMsP99} ms** of CPU time per cycle (target < 100 ms, one core). \`plan ms p99\` in the table: the planner run of each simulated cycle (in-memory store listing included), CPU ms.`,
    '',
  );
  lines.push(
    '| world | vehicles | top-20 % share | strategy | made | detected | mean s | p50 s | p95 s | max s | bound mean s | mean / round-robin | p95 / round-robin | G min | max in window | 429 | plan ms p99 |',
    '| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const res of r.results) {
    const rr = res.runs.find((x) => x.strategy === 'round-robin');
    for (const x of res.runs) {
      lines.push(
        `| ${res.world} | ${res.vehicles} | ${res.changesPerVehicle.shareOfTop20PercentVehicles} | ${x.strategy} | ${x.changes.made} | ${x.changes.detected} | ${fmt(x.lagSeconds.mean)} | ${fmt(x.lagSeconds.p50)} | ${fmt(x.lagSeconds.p95)} | ${fmt(x.lagSeconds.max)} | ${x.boundMeanSeconds} | ${rr ? round(x.lagSeconds.mean / rr.lagSeconds.mean, 2) : ''} | ${rr ? round(x.lagSeconds.p95 / rr.lagSeconds.p95, 2) : ''} | ${x.guaranteeMinutes} | ${x.maxRequestsInWindow} | ${x.http429} | ${x.planMsP99} |`,
      );
    }
  }
  const modelled = r.results.flatMap((res) => res.runs.filter((x) => x.model).map((x) => ({ res, x })));
  if (modelled.length > 0) {
    lines.push('');
    lines.push(
      'The capacity model (`GET /capacity`, functions/core/capacity) against the measurement, every change, from the rates learned by the end of the measured hours (goal: within 15 %):',
      '',
      '| world | vehicles | strategy | measured mean s | model mean s | model / measured | measured p95 s | model p95 s | model / measured |',
      '| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    );
    for (const { res, x } of modelled) {
      const m = x.model as NonNullable<RunFigures['model']>;
      lines.push(
        `| ${res.world} | ${res.vehicles} | ${x.strategy} | ${fmt(x.lagSeconds.mean)} | ${m.meanSeconds} | ${round(m.meanSeconds / x.lagSeconds.mean, 2)} | ${fmt(x.lagSeconds.p95)} | ${m.p95Seconds} | ${round(m.p95Seconds / x.lagSeconds.p95, 2)} |`,
      );
    }
  }
  lines.push('');
  lines.push('Lag per kind of change (mean / p95 / max s, detected of made):', '');
  lines.push(
    `| world | vehicles | strategy | ${freshnessKinds.join(' | ')} |`,
    `| --- | ---: | --- |${freshnessKinds.map(() => ' --- |').join('')}`,
  );
  for (const res of r.results) {
    for (const x of res.runs) {
      lines.push(
        `| ${res.world} | ${res.vehicles} | ${x.strategy} | ${freshnessKinds.map((k) => kindCell(x.byKind[k])).join(' | ')} |`,
      );
    }
  }
  lines.push('');
  const missed = r.results.flatMap((res) =>
    res.runs.flatMap((x) => (x.undetected ?? []).map((u) => ({ res, x, u }))),
  );
  if (missed.length > 0) {
    lines.push('Changes never detected:', '');
    lines.push(
      '| world | vehicles | strategy | kind | vehicle | VIN | made at |',
      '| --- | ---: | --- | --- | ---: | --- | --- |',
    );
    for (const { res, x, u } of missed) {
      lines.push(
        `| ${res.world} | ${res.vehicles} | ${x.strategy} | ${u.kind} | ${u.vehicle} | ${u.vin} | ${u.madeAt} |`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}

// JSON writes Infinity and NaN (a p95 or max over changes never detected, timings not taken) as
// null: read back, null is "not finite" again.
const seconds = z
  .number()
  .nullable()
  .transform((n) => n ?? Number.POSITIVE_INFINITY);
const kindSchema = z.looseObject({
  made: z.number(),
  detected: z.number(),
  mean: seconds,
  p95: seconds,
  max: seconds,
});
const runSchema = z.looseObject({
  strategy: z.enum(pollStrategies),
  changes: z.looseObject({ made: z.number(), detected: z.number() }),
  lagSeconds: z.looseObject({ mean: seconds, p50: seconds, p95: seconds, max: seconds }),
  boundMeanSeconds: z.number(),
  fairMeanSeconds: z.number().optional().default(Number.NaN),
  byKind: z.record(z.string(), kindSchema),
  maxRequestsInWindow: z.number(),
  http429: z.number(),
  planMsP99: seconds,
  undetected: z
    .array(
      z.looseObject({
        kind: z.enum(freshnessKinds),
        vehicle: z.number(),
        vin: z.string(),
        madeAt: z.string(),
      }),
    )
    .optional()
    .default([]),
  guaranteeMinutes: z.number().optional().default(Number.NaN),
  drainMinutes: z.number().optional().default(Number.NaN),
  wallSeconds: z.number().optional().default(Number.NaN),
  cpuSeconds: z.number().optional().default(Number.NaN),
});
const resultSchema = z.looseObject({
  world: z.enum(worlds),
  seed: z.number(),
  vehicles: z.number().int().positive(),
  simulatedMinutes: z.number(),
  warmupMinutes: z.number().optional().default(0),
  quota: z.looseObject({ limit: z.number(), windowSeconds: z.number(), usablePerMinute: z.number() }),
  changesPerVehicle: z.looseObject({ shareOfTop20PercentVehicles: z.number() }),
  runs: z.array(runSchema),
});
const fileSchema = z.union([
  z.looseObject({
    seed: z.number(),
    hours: z.number(),
    plan10kMsP99: seconds,
    results: z.array(resultSchema),
    wallSeconds: z.number(),
    partial: z.boolean().optional().default(false),
  }),
  resultSchema.extend({ plan10kMsP99: seconds, partial: z.boolean().optional().default(false) }),
]);

/** A results file read back, or an error naming the file and the first field that is wrong. */
export function parseFreshnessFile(
  text: string,
  name: string,
): { ok: true; file: FreshnessFile } | { ok: false; message: string } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `${name}: not JSON (${e instanceof Error ? e.message : String(e)})` };
  }
  const parsed = fileSchema.safeParse(body);
  if (parsed.success) return { ok: true, file: parsed.data as FreshnessFile };
  // The union's own issue nests the branches' issues: name the branch that got furthest.
  const issues = parsed.error.issues.flatMap((i) => (i.code === 'invalid_union' ? i.errors.flat() : [i]));
  const first = [...issues].sort((a, b) => b.path.length - a.path.length)[0];
  return {
    ok: false,
    message: `${name}: not a freshness results file: ${first ? `${first.path.join('.') || '(root)'}: ${first.message}` : 'unknown shape'}`,
  };
}
