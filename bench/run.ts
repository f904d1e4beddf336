/**
 * The benchmark suite: `npm run bench` runs every area in ONE process, side by side on
 * the same machine state, prints progress on stderr and writes BENCHMARKS.md (machine, command,
 * date, one section per area with its ratios and targets marked met / not met).
 *
 *   npm run bench                          every area, full sizes
 *   npm run bench -- --quick               smaller sizes
 *   npm run bench -- --only pipeline,sim   some areas
 *   npm run bench -- --out /tmp/b.md       write elsewhere (default: BENCHMARKS.md at the root)
 *   npm run bench -- --faults              every area and the long fault-injection run (--only faults: alone)
 *   npm run bench -- --only freshness      the freshness sweep (sizes 50–800 × both worlds × 3 strategies);
 *     with --world uniform|mixed --vehicles N --hours H --seed S --strategies carhook,round-robin,naive
 *     --json file: one world and size, its figures written as JSON (also --warmup M, --drain M)
 *
 * An area that fails is reported in the file (and the exit code is 1); the others still run. The
 * file keeps what this run did not measure: only the sections (and Summary rows) of the areas run
 * are replaced, each with a line saying which command measured it and when.
 */

import { readFile, writeFile } from 'node:fs/promises';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import * as delivery from './delivery';
import * as detection from './detection';
import * as faults from './faults';
import * as fleet from './fleet';
import * as freshness from './freshness';
import * as pipeline from './pipeline';
import * as sim from './sim';
import * as freshnessReport from './support/freshness-report';
import { mergeReport } from './support/report-merge';
import * as throughput from './throughput';
import * as webhooks from './webhooks';

export const AREAS = [
  'sim',
  'detection',
  'webhooks',
  'delivery',
  'bundles',
  'pipeline',
  'fleet',
  'throughput',
  'faults',
  'freshness',
] as const;
export type Area = (typeof AREAS)[number];
/**
 * What a plain `npm run bench` runs: the fault suite's long run only with `--faults` (or `--only`),
 * the freshness sweep (tens of minutes) only with `--only freshness`.
 */
export const DEFAULT_AREAS: readonly Area[] = AREAS.filter((a) => a !== 'faults' && a !== 'freshness');

/** The freshness area's own flags (bench/freshness.ts). */
const FRESHNESS_FLAGS = [
  'world',
  'vehicles',
  'hours',
  'seed',
  'strategies',
  'json',
  'warmup',
  'drain',
  'transport',
] as const;

export interface BenchArgs {
  readonly quick: boolean;
  readonly only: readonly Area[];
  readonly out: string;
  /** The freshness area's settings, and its flags as given (for the command line). */
  readonly freshness?: freshness.FreshnessOptions;
  readonly freshnessFlags?: readonly string[];
  /** Revisions whose bundles the bundles area measures beside this one's. */
  readonly bundleRefs?: readonly string[];
}

export type ArgsResult =
  | { readonly ok: true; readonly args: BenchArgs }
  | { readonly ok: false; readonly kind: 'InvalidArgs'; readonly field: string; readonly message: string };

const DEFAULT_OUT = fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url));

/** Parses the command line; a bad flag is a value naming it, never a throw. */
export function parseBenchArgs(argv: readonly string[]): ArgsResult {
  const bad = (field: string, message: string): ArgsResult => ({
    ok: false,
    kind: 'InvalidArgs',
    field,
    message,
  });
  let parsed: ReturnType<
    typeof parseArgs<{
      options: {
        quick: { type: 'boolean' };
        faults: { type: 'boolean' };
        only: { type: 'string' };
        out: { type: 'string' };
        'bundles-ref': { type: 'string'; multiple: true };
      } & Record<(typeof FRESHNESS_FLAGS)[number], { type: 'string' }>;
    }>
  >;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        quick: { type: 'boolean' },
        faults: { type: 'boolean' },
        only: { type: 'string' },
        out: { type: 'string' },
        'bundles-ref': { type: 'string', multiple: true },
        ...(Object.fromEntries(FRESHNESS_FLAGS.map((f) => [f, { type: 'string' }])) as Record<
          (typeof FRESHNESS_FLAGS)[number],
          { type: 'string' }
        >),
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    return bad(
      'argv',
      `${error instanceof Error ? error.message : String(error)} (flags: --quick, --faults, --only <${AREAS.join(',')}>, --out <file>, --bundles-ref <git ref> (repeatable); freshness: ${FRESHNESS_FLAGS.map((f) => `--${f}`).join(' ')})`,
    );
  }
  let only: Area[] = [...DEFAULT_AREAS];
  if (parsed.values.only !== undefined) {
    const names = parsed.values.only
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
    const unknown = names.filter((n) => !(AREAS as readonly string[]).includes(n));
    if (names.length === 0 || unknown.length > 0) {
      return bad(
        '--only',
        `${names.length === 0 ? 'no area given' : `unknown area ${unknown.map((u) => `'${u}'`).join(', ')}`}; areas: ${AREAS.join(', ')}`,
      );
    }
    only = AREAS.filter((a) => names.includes(a));
  }
  if (parsed.values.faults && !only.includes('faults')) only.push('faults');
  const out = parsed.values.out ?? DEFAULT_OUT;
  if (out.trim() === '') return bad('--out', 'must be a file path');
  const quick = parsed.values.quick ?? false;
  const freshnessFlags = FRESHNESS_FLAGS.flatMap((f) => {
    const v = parsed.values[f];
    return v === undefined ? [] : [`--${f}`, v];
  });
  if (freshnessFlags.length > 0 && !only.includes('freshness')) {
    return bad(freshnessFlags[0] as string, 'is a flag of the freshness area: add --only freshness');
  }
  const f = freshness.parseFreshnessArgs([...freshnessFlags, ...(quick ? ['--quick'] : [])]);
  if (!f.ok) return bad(f.field, f.message);
  const bundleRefs = parsed.values['bundles-ref'] ?? [];
  if (bundleRefs.length > 0 && !only.includes('bundles')) {
    return bad('--bundles-ref', 'is a flag of the bundles area: add --only bundles');
  }
  return { ok: true, args: { quick, only, out, freshness: f.options, freshnessFlags, bundleRefs } };
}

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly freeMemoryGiB: number;
  readonly node: string;
  readonly platform: string;
  readonly loadAverage: readonly number[];
}

export function machine(): Machine {
  const c = cpus();
  return {
    cpu: c[0]?.model.trim() ?? 'unknown',
    cores: c.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    freeMemoryGiB: Math.round((freemem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    loadAverage: loadavg().map((n) => Math.round(n * 100) / 100),
  };
}

type SimResult = Awaited<ReturnType<typeof sim.run>>;
type DetectionResult = ReturnType<typeof detection.run>;
type WebhooksResult = Awaited<ReturnType<typeof webhooks.run>>;
type DeliveryResult = delivery.DeliveryBenchResult;
type PipelineResult = pipeline.PipelineBenchResult;
/** The scenario as Carhook runs it, and the same scenario without confirming absences. */
type FaultsResult = faults.FaultReport & {
  readonly stores: string;
  readonly unconfirmed?: faults.FaultReport;
};
type ThroughputResult = throughput.ThroughputBenchResult;
type FleetResult = fleet.FleetBenchResult;

export type AreaOutcome =
  | { readonly area: 'sim'; readonly ok: true; readonly seconds: number; readonly result: SimResult }
  | {
      readonly area: 'detection';
      readonly ok: true;
      readonly seconds: number;
      readonly result: DetectionResult;
    }
  | {
      readonly area: 'webhooks';
      readonly ok: true;
      readonly seconds: number;
      readonly result: WebhooksResult;
    }
  | {
      readonly area: 'delivery';
      readonly ok: true;
      readonly seconds: number;
      readonly result: DeliveryResult;
    }
  | {
      readonly area: 'pipeline';
      readonly ok: true;
      readonly seconds: number;
      readonly result: PipelineResult;
    }
  | { readonly area: 'faults'; readonly ok: true; readonly seconds: number; readonly result: FaultsResult }
  | { readonly area: 'fleet'; readonly ok: true; readonly seconds: number; readonly result: FleetResult }
  | {
      readonly area: 'throughput';
      readonly ok: true;
      readonly seconds: number;
      readonly result: ThroughputResult;
    }
  /** bench/bundles.ts renders its own section. */
  | { readonly area: 'bundles'; readonly ok: true; readonly seconds: number; readonly markdown: string }
  | {
      readonly area: 'freshness';
      readonly ok: true;
      readonly seconds: number;
      readonly result: freshnessReport.FreshnessSweep;
    }
  | { readonly area: Area; readonly ok: false; readonly seconds: number; readonly error: string };

const met = (ok: boolean): string => (ok ? '**met**' : '**not met**');
const n = (x: number): string => x.toLocaleString('en-US');

function simSection(r: SimResult): string {
  return [
    sim.toMarkdown(r),
    '',
    `Target: start-up under 1 s for 20 vehicles: ${met(r.startup20Ms < 1000)} (${r.startup20Ms} ms); 1,000 vehicles served with no error: ${met(r.errors === 0)}.`,
  ].join('\n');
}

function detectionSection(r: DetectionResult): string {
  const row = (x: DetectionResult['steady']) =>
    `| ${x.label} | ${n(x.diffsPerSecond)} | ${x.microsPerDiff.toFixed(2)} µs | ${n(x.wallDiffsPerSecond)} | ${n(x.iterations)} |`;
  return [
    '| diff | diffs per CPU-second (one core) | CPU time per diff | diffs per wall-second | iterations |',
    '|---|---|---|---|---|',
    row(r.steady),
    row(r.news),
    '',
    `Steady state vs target: ${(r.steady.diffsPerSecond / r.target).toFixed(1)}× the ${n(r.target)} diffs/s target: ${met(r.meetsTarget)}.`,
  ].join('\n');
}

function webhooksSection(r: WebhooksResult): string {
  const t = r.throughput;
  const l = r.latency;
  const ratio = Math.round((t.deliveriesPerSecond / t.bareRequestsPerSecond) * 100) / 100;
  return [
    `| webhook sender (${n(t.deliveries)} deliveries, concurrency ${t.concurrency}, local receiver) | Carhook sender | bare http.request | sender / bare |`,
    '|---|---|---|---|',
    `| deliveries per second | ${n(t.deliveriesPerSecond)} | ${n(t.bareRequestsPerSecond)} | ${ratio} |`,
    `| process CPU per delivery | ${t.senderCpuMicrosPerDelivery} µs | ${t.bareCpuMicrosPerRequest} µs | ${Math.round((t.senderCpuMicrosPerDelivery / t.bareCpuMicrosPerRequest) * 100) / 100} |`,
    `| latency p50 (one at a time, ${n(l.samples)} samples) | ${l.senderP50Ms} ms | ${l.bareP50Ms} ms | ${l.ratioP50} |`,
    `| latency p99 | ${l.senderP99Ms} ms | ${l.bareP99Ms} ms | ${l.ratioP99} |`,
    '',
    `Succeeded: ${n(t.succeeded)} / ${n(t.deliveries)}. Added by Carhook (sender − bare): p50 ${l.addedP50Ms} ms, p99 ${l.addedP99Ms} ms.`,
    `Targets: ≥ 500 deliveries/s: ${met(t.deliveriesPerSecond >= 500)}; p99 added latency < 50 ms: ${met(l.addedP99Ms < 50)}.`,
  ].join('\n');
}

const TITLES: Record<Area, string> = {
  sim: 'Simulator',
  detection: 'Detection engine',
  webhooks: 'Webhook sender',
  delivery: 'Webhook delivery, bus → receiver',
  bundles: 'Lambda bundles',
  pipeline: 'Poll pipeline',
  fleet: 'Fleet contracts, v1 bulk lists',
  throughput: 'Throughput with the quota lifted',
  faults: 'Fault-injection suite, long run',
  freshness: 'Freshness at scale: carhook, round-robin, naive',
};

function faultsSection(r: FaultsResult): string {
  const lines = [
    `${n(r.options.vehicles)} vehicles, ${n(r.options.changes)} scripted changes, seed ${r.options.seed}, ${r.stores}, default quota; bench/faults.ts (the CI-sized run, 30 vehicles and 200 changes on DynamoDB Local, is test/faults in \`npm test\`). Everything runs on the simulator's manual clock; worker kills, fault draws and changes are seeded.`,
    '',
    r.table,
    '',
    `Assertions: every change exactly one event id, no event without a change, every signature verifies, the quota never exceeded, the revoked user one reauthorization event and no further request: ${met(r.violations.length === 0)}.`,
  ];
  const off = r.unconfirmed;
  if (off !== undefined) lines.push('', ...confirmationTable(r.counts, off.counts));
  return lines.join('\n');
}

/** What confirming absences costs and saves: the same scenario, confirmation on and off. */
function confirmationTable(on: faults.FaultCounts, off: faults.FaultCounts): string[] {
  const perFix = (c: faults.FaultCounts) =>
    c.fixes === 0 ? 'n/a' : (c.confirmationRequests / c.fixes).toFixed(2);
  const row = (label: string, a: string, b: string) => `| ${label} | ${a} | ${b} |`;
  return [
    '### Confirming absences: the same scenario with and without it',
    '',
    'The second run turns confirmation off (`confirmAbsences: false`, a switch only this benchmark sets): an alert is told fixed at the first complete list that misses it, a services change at its first read. Same seed, same script, same chaos rates; the draws fall on different requests once the two runs read differently.',
    '',
    '| | confirmation on (Carhook) | off (before) |',
    '|---|---|---|',
    row('false events', n(on.falseEvents), n(off.falseEvents)),
    row(
      'changes seen as exactly one event id',
      `${n(on.changesDetected)} / ${n(on.changesExpected)}`,
      `${n(off.changesDetected)} / ${n(off.changesExpected)}`,
    ),
    row(
      'stale / flapping answers served',
      `${n(on.staleServed)} / ${n(on.flapServed)}`,
      `${n(off.staleServed)} / ${n(off.flapServed)}`,
    ),
    row('answers the polls found stale', n(on.staleCounted), n(off.staleCounted)),
    row('scripted alert fixes seen', n(on.fixes), n(off.fixes)),
    row(
      'fix lag p50 / p95 (simulated)',
      `${on.fixLagP50S} s / ${on.fixLagP95S} s`,
      `${off.fixLagP50S} s / ${off.fixLagP95S} s`,
    ),
    row(
      'confirmation requests (per scripted fix)',
      `${n(on.confirmationRequests)} (${perFix(on)})`,
      `${n(off.confirmationRequests)} (${perFix(off)})`,
    ),
    row('API requests (simulator count)', n(on.apiRequests), n(off.apiRequests)),
  ];
}

/** The command line that reproduces a run with these arguments. */
export function benchCommand(args: Pick<BenchArgs, 'quick' | 'only' | 'freshnessFlags'>): string {
  const withoutFaults: readonly Area[] = args.only.filter((a) => a !== 'faults');
  const allDefault =
    withoutFaults.length === DEFAULT_AREAS.length && DEFAULT_AREAS.every((a) => withoutFaults.includes(a));
  const flags: string[] = [];
  if (args.quick) flags.push('--quick');
  if (!allDefault) flags.push(`--only ${args.only.join(',')}`);
  else if (args.only.includes('faults')) flags.push('--faults');
  flags.push(...(args.freshnessFlags ?? []));
  return `npm run bench${flags.length > 0 ? ` -- ${flags.join(' ')}` : ''}`;
}

export function renderReport(input: {
  readonly machine: Machine;
  readonly args: BenchArgs;
  readonly startedAt: Date;
  readonly seconds: number;
  readonly peakRssMiB: number;
  readonly outcomes: readonly AreaOutcome[];
}): string {
  const m = input.machine;
  const command = benchCommand(input.args);
  const lines: string[] = [
    '# Benchmarks',
    '',
    `Produced by \`${command}\` (\`tsx bench/run.ts\`) on ${input.startedAt.toISOString()}, every area in one process, one after the other, so the figures compared in a table were measured side by side on the same machine state. Regenerate with the same command; the machine is shared and noisy, so compare ratios rather than absolute figures. The poll pipeline runs on the simulator's manual clock: its request counts and lags (in simulated time) do not depend on machine load, only its wall time does.`,
    '',
    '| machine | |',
    '|---|---|',
    `| CPU | ${m.cpu} |`,
    `| cores | ${m.cores} |`,
    `| memory | ${m.memoryGiB} GiB (${m.freeMemoryGiB} GiB free at start) |`,
    `| Node | ${m.node} (${m.platform}) |`,
    `| load average at start (1, 5, 15 min) | ${m.loadAverage.join(', ')} |`,
    `| whole run | ${input.seconds} s wall, peak RSS of the bench process ${input.peakRssMiB} MiB |`,
    '',
    '## Summary',
    '',
    '| area | status | wall time |',
    '|---|---|---|',
    ...input.outcomes.map((o) => `| ${TITLES[o.area]} | ${o.ok ? 'ran' : '**failed**'} | ${o.seconds} s |`),
    '',
  ];
  // Each section says where it comes from: a partial run later replaces only its own sections.
  const provenance = `Measured by \`${command}\` on ${input.startedAt.toISOString()} (${m.cores} cores, load ${m.loadAverage.join(', ')} at start).`;
  for (const o of input.outcomes) {
    lines.push(`## ${TITLES[o.area]}`, '', provenance, '');
    if (!o.ok) {
      lines.push(`**This area failed:** ${o.error}`, '');
      continue;
    }
    switch (o.area) {
      case 'sim':
        lines.push(simSection(o.result));
        break;
      case 'freshness':
        lines.push(
          freshnessReport
            .toMarkdown(o.result, benchCommand(input.args))
            .replace(/^## [^\n]*\n+/, '')
            .trimEnd(),
        );
        break;
      case 'detection':
        lines.push(detectionSection(o.result));
        break;
      case 'webhooks':
        lines.push(webhooksSection(o.result));
        break;
      case 'delivery':
        // Targets are marked per store inside the section.
        lines.push(delivery.toMarkdown(o.result));
        break;
      case 'pipeline':
        lines.push(pipeline.toMarkdown(o.result));
        break;
      case 'faults':
        lines.push(faultsSection(o.result));
        break;
      case 'throughput':
        lines.push(throughput.toMarkdown(o.result));
        break;
      case 'fleet':
        lines.push(fleet.toMarkdown(o.result));
        break;
      case 'bundles':
        // Its own "## …" heading is replaced by ours.
        lines.push(o.markdown.replace(/^## [^\n]*\n+/, '').trimEnd());
        break;
    }
    lines.push('');
  }
  return lines.join('\n');
}

const describeError = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

/** Runs one area, catching its failure as a value. */
async function runArea(
  area: Area,
  quick: boolean,
  log: (line: string) => void,
  args?: BenchArgs,
): Promise<AreaOutcome> {
  const t0 = performance.now();
  const seconds = () => Math.round((performance.now() - t0) / 100) / 10;
  try {
    switch (area) {
      case 'sim': {
        const result = await sim.run(quick ? { requests: 1000 } : {});
        return { area, ok: true, seconds: seconds(), result };
      }
      case 'detection': {
        const result = detection.run();
        return { area, ok: true, seconds: seconds(), result };
      }
      case 'webhooks': {
        const result = await webhooks.run(quick ? { deliveries: 1000, latencySamples: 200 } : {});
        return { area, ok: true, seconds: seconds(), result };
      }
      case 'delivery': {
        const result = await delivery.run(
          quick
            ? { idleSamples: 100, fixedSeconds: 2, saturationSeconds: 2, ceilingSeconds: 1, log }
            : { log },
        );
        return { area, ok: true, seconds: seconds(), result };
      }
      case 'freshness': {
        const options = args?.freshness;
        if (!options) throw new Error('freshness: no options');
        const result = await freshness.run({ ...options, log });
        return { area, ok: true, seconds: seconds(), result };
      }
      case 'pipeline': {
        const result = await pipeline.run({ quick, log });
        return { area, ok: true, seconds: seconds(), result };
      }
      case 'fleet': {
        const result = await fleet.run({ quick, log });
        return { area, ok: true, seconds: seconds(), result };
      }
      case 'throughput': {
        // Full: 1k to 10k vehicles, about 11 min here; warm-ups of up to 10 min (10k vehicles' first
        // polls on DynamoDB Local), sizes past the 25 min budget reported as not run.
        const full = { budgetSeconds: 1500, warmupTimeoutSeconds: 600, cycleTimeoutSeconds: 300 };
        const result = await throughput.run(quick ? { quick, log } : { log, ...full });
        return { area, ok: true, seconds: seconds(), result };
      }
      case 'faults': {
        const size = quick ? faults.CI_SIZE : faults.LONG_SIZE;
        const report = await faults.runFaultScenario({ ...size, log });
        // The same scenario without confirming absences: what confirmation costs and saves.
        const unconfirmed = await faults.runFaultScenario({ ...size, log, confirmAbsences: false });
        return {
          area,
          ok: true,
          seconds: seconds(),
          result: { ...report, stores: 'memory stores', unconfirmed },
        };
      }
      case 'bundles': {
        // Loaded here so that a problem in it (CDK synthesis, esbuild) fails this area only.
        const bundles = await import('./bundles');
        const markdown = bundles.markdown(
          await bundles.run({ runs: quick ? 3 : 10, refs: args?.bundleRefs ?? [] }),
        );
        return { area, ok: true, seconds: seconds(), markdown };
      }
    }
  } catch (error) {
    return { area, ok: false, seconds: seconds(), error: describeError(error) };
  }
}

export async function main(argv: readonly string[]): Promise<number> {
  const parsed = parseBenchArgs(argv);
  if (!parsed.ok) {
    console.error(`bench: ${parsed.field}: ${parsed.message}`);
    return 2;
  }
  const { args } = parsed;
  const startedAt = new Date();
  const m = machine();
  const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
  log(
    `bench: ${args.only.join(', ')}${args.quick ? ' (quick)' : ''} on ${m.cpu}, ${m.cores} cores, load ${m.loadAverage.join(' ')}`,
  );
  const t0 = performance.now();
  const outcomes: AreaOutcome[] = [];
  for (const area of args.only) {
    log(`${area}: start`);
    const outcome = await runArea(area, args.quick, log, args);
    log(`${area}: ${outcome.ok ? 'done' : `FAILED (${outcome.error})`} in ${outcome.seconds} s`);
    outcomes.push(outcome);
  }
  const report = renderReport({
    machine: m,
    args,
    startedAt,
    seconds: Math.round((performance.now() - t0) / 100) / 10,
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    outcomes,
  });
  // Sections of areas not run this time stay as they were (./support/report-merge.ts).
  const existing = await readFile(args.out, 'utf8').catch(() => '');
  await writeFile(
    args.out,
    mergeReport(
      existing,
      report,
      outcomes.map((o) => TITLES[o.area]),
    ),
  );
  log(`wrote ${args.out}`);
  return outcomes.every((o) => o.ok) ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(`bench: ${describeError(error)}`);
      process.exitCode = 1;
    },
  );
}
