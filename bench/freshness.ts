/**
 * Freshness at scale: detection lag of generated changes under the default quota, per strategy
 * (`carhook`, `round-robin`, `naive`), world (`uniform`, `mixed`) and fleet size, on the
 * simulator's manual clock with in-memory stores (it measures scheduling, not DynamoDB).
 *
 * One run: enroll every user, a warm-up (changes made but not measured, so the rates settle),
 * the measured hours, then a drain until every change was seen (or `drainMinutes`). A planner
 * cycle every simulated minute, its jobs run one after the other; lag = simulated time the bus
 * accepted the event − simulated time of the change. Beside each run: the known-rates bound
 * (square-root allocation of the usable reads over the generated rates, capped at one read a
 * minute and at the guarantee G), and the planner's time per cycle.
 *
 *   npm run bench -- --only freshness --world mixed --vehicles 400 --hours 6 --seed 7 \
 *     --strategies carhook,round-robin,naive --json freshness.json
 *   npx tsx bench/freshness.ts [same flags]
 *
 * `--json` is rewritten after every finished run (`partial: true` until the last), so a killed
 * sweep keeps the runs it finished; every change never detected is named there (`undetected`:
 * kind, vehicle, time made) and in the log. bench/freshness-chart.ts draws the SVG from the files.
 * `--trace PREFIX` writes every poll and change of each run (./support/freshness-trace.ts).
 *
 * Speed: the simulated clock only moves when the loop advances it, so a run costs the CPU time of
 * its work, nothing waits on the wall clock. That work is about a hundred API requests per
 * simulated minute through the real client, worker, detection and stores; what made it slow was
 * not the scheduling but the plumbing around each request: every job's client rebuilt the zod
 * schemas of every list operation (now built once, functions/core/api/wire/common.ts), and every
 * request went through HTTP/1.1 over a loopback socket (encoding, parsing, sockets, timers on both
 * sides). By default requests now reach the simulator's handler in this process
 * (`--transport in-process`): the same Request and Response objects, routes, quota and counters,
 * the same figures as `--transport socket` for the same seed (compared in the test and by hand).
 * Measured side by side on the shared 2-core machine (load average 10-18), `--world mixed
 * --vehicles 400 --hours 6 --seed 7 --strategies carhook`: 265 s of CPU (30 min wall) before,
 * 99 s of CPU (9 min wall) after, the JSON identical but for the timings. Each change at 200
 * vehicles over 140 simulated minutes: 60 s of CPU before, 33 s with the schemas built once (run
 * one after the other); then side by side, 48 s over the socket against 29 s in process (CPU time
 * too grows with the machine's load). On a quiet core a 6 h run of one strategy at 400 vehicles
 * should take under two minutes; each run's `cpuSeconds` is in the JSON.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { sqrtAllocation } from '../functions/core/capacity/lag';
import { predictFleet } from '../functions/core/capacity/model';
import { capacityVehicles } from '../functions/core/capacity/report';
import { runPollJob } from '../functions/core/jobs/worker';
import {
  createPlannerMemory,
  type PollStrategy,
  pollStrategies,
  runPlanner,
} from '../functions/core/polling';
import { DEFAULT_POLLING_CONFIG } from '../functions/core/polling/config';
import { guaranteeMs } from '../functions/core/polling/selection';
import { capacityOf, DEFAULT_RATE_BUDGET } from '../functions/core/ratelimit/bucket';
import type { VehicleRecord } from '../functions/core/store/records';
import {
  type FreshnessResult,
  type FreshnessSweep,
  fileBody,
  type KindFigures,
  kindFigures,
  type RunFigures,
  toMarkdown,
  type UndetectedChange,
  writeJsonFile,
} from './support/freshness-report';
import { FreshnessTrace } from './support/freshness-trace';
import {
  alertFixItems,
  BASE_RATE_PER_HOUR,
  dailyCurve,
  type FreshnessKind,
  freshnessKinds,
  generateScript,
  WORLD_HISTORY_MS,
  type World,
  WorldDriver,
  worlds,
} from './support/freshness-world';
import { BenchError, type BenchPipeline, startBenchPipeline } from './support/pipeline';
import { planTiming } from './support/plan-timing';
import { percentile, round } from './support/stats';

const MINUTE = 60_000;

export const transports = ['in-process', 'socket'] as const;
export type Transport = (typeof transports)[number];

export interface FreshnessOptions {
  readonly worlds: readonly World[];
  readonly sizes: readonly number[];
  readonly hours: number;
  readonly warmupMinutes: number;
  readonly drainMinutes: number;
  readonly seed: number;
  readonly strategies: readonly PollStrategy[];
  /** The JSON file, rewritten after every finished run. */
  readonly json?: string;
  /**
   * How requests reach the simulator: `in-process` (its handler called in this process; the
   * default) or `socket` (HTTP over a loopback socket). Same requests, answers and figures.
   */
  readonly transport?: Transport;
  readonly log?: (line: string) => void;
  /** Time `plan()` over a synthetic 10,000-vehicle fleet first (default true). */
  readonly timePlanning?: boolean;
  /** Writes a trace of each run to `<trace>-<world>-<vehicles>-<strategy>.jsonl` (./support/freshness-trace.ts). */
  readonly trace?: string;
}

const usablePerMinute = (): number =>
  Math.floor((capacityOf(DEFAULT_RATE_BUDGET) * MINUTE) / DEFAULT_RATE_BUDGET.windowMs);

/**
 * The known-rates bound and the fair order's mean, from the expected changes per vehicle over the
 * measured window: reads x_i per minute = clamp(k √E_i, 1/G, 1) with Σ x_i = R (k by bisection);
 * a change waits on average half its vehicle's interval, so mean = Σ E_i / (2 x_i) / Σ E_i.
 */
export function knownRatesBound(
  expected: readonly number[],
  readsPerMinute: number,
  guaranteeMinutes: number,
): { boundMeanSeconds: number; fairMeanSeconds: number } {
  const total = expected.reduce((a, b) => a + b, 0);
  const n = expected.length;
  if (total === 0 || n === 0) return { boundMeanSeconds: 0, fairMeanSeconds: 0 };
  // The planner's model of lag (functions/core/capacity/lag.ts), with one-minute cycles.
  const { perCycle } = sqrtAllocation(expected, readsPerMinute, 1 / guaranteeMinutes);
  const bound = expected.reduce((a, e, i) => a + e / (2 * (perCycle[i] ?? 1)), 0) / total;
  const fairInterval = Math.max(1, n / readsPerMinute);
  return { boundMeanSeconds: round(bound * 60, 1), fairMeanSeconds: round((fairInterval / 2) * 60, 1) };
}

/** What `GET /capacity`'s model predicts for every change of the fleet at `at`, from its records. */
async function predicted(p: BenchPipeline, at: number): Promise<NonNullable<RunFigures['model']>> {
  const records: VehicleRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await p.stores.vehicles.listDue({
      now: at + 365 * 24 * 60 * MINUTE,
      limit: 1000,
      ...(cursor ? { cursor } : {}),
    });
    records.push(...page.items);
    cursor = page.cursor;
  } while (cursor);
  const config = { ...DEFAULT_POLLING_CONFIG, ...p.config };
  const f = predictFleet(capacityVehicles(records, at, config), DEFAULT_RATE_BUDGET, config);
  return { meanSeconds: round(f.all.meanMs / 1000, 1), p95Seconds: round(f.all.p95Ms / 1000, 1) };
}

async function oneRun(
  world: World,
  vehicles: number,
  strategy: PollStrategy,
  o: FreshnessOptions,
): Promise<{ run: RunFigures; expected: number[]; madePerVehicle: number[] }> {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const p: BenchPipeline = await startBenchPipeline({
    sim: { vehicles, seed: o.seed },
    config: { strategy },
    inProcess: o.transport !== 'socket',
  });
  try {
    await p.enrollAll();
    // The measured window starts at 06:00 UTC of the simulated clock (a night before, rush hours
    // after). The world's past (a day) is made before the first poll, after the simulator's own
    // generated history, so a first poll's look-back finds this world's past only.
    const day = 24 * 60 * MINUTE;
    let start = Math.floor(p.now() / day) * day + 6 * 60 * MINUTE - o.warmupMinutes * MINUTE;
    while (start - WORLD_HISTORY_MS <= p.now()) start += day;
    await p.advance(start - WORLD_HISTORY_MS - p.now());
    // The generator drives every change: alerts the generated world starts with are fixed first.
    for (const v of p.sim.world.vehicles()) {
      for (const a of p.sim.world.alerts(v.id)) if (a.active) p.sim.world.fixAlert(v.id, a.id);
    }
    const measureFrom = start + o.warmupMinutes * MINUTE;
    const stopAt = measureFrom + o.hours * 60 * MINUTE;
    const script = generateScript(world, vehicles, start, stopAt, o.seed, WORLD_HISTORY_MS);
    const fleet = p.sim.world.vehicles();
    const driver = new WorldDriver(p, script, fleet, measureFrom, stopAt);
    await driver.runHistory(start);
    const memory = createPlannerMemory();
    const trace = o.trace === undefined ? undefined : new FreshnessTrace();
    const planMs: number[] = [];
    let drained = 0;
    let statsReset = false;
    // The capacity model's prediction from what the planner learned by the end of the measured
    // hours (the product's inputs: the vehicles' rates, the quota, the configuration).
    let model: RunFigures['model'];
    for (let minute = 0; ; minute++) {
      const cycleStart = start + minute * MINUTE;
      if (!statsReset && cycleStart >= measureFrom) {
        await p.control('POST', '/stats/reset');
        statsReset = true;
      }
      // CPU time, as for `plan()` alone: nothing else runs in this process while the planner does.
      const cpu = process.cpuUsage();
      await runPlanner({
        ...p.stores,
        queue: p.queue,
        now: p.now,
        config: p.config,
        rateBudget: p.rate,
        memory,
      });
      const spent = process.cpuUsage(cpu);
      planMs.push((spent.user + spent.system) / 1000);
      for (const job of p.queue.drain()) {
        const at = p.now();
        const result = await runPollJob(p.pollDeps, job);
        const vin =
          trace && job.kind === 'poll-vehicle' ? (await p.stores.vehicles.get(job.vehicleId))?.vin : '';
        trace?.poll(at, vin, job.kind === 'poll-vehicle' ? job.resources : [], result);
      }
      driver.match();
      await driver.runUntil(cycleStart + MINUTE);
      await p.advance(cycleStart + MINUTE - p.now());
      if (cycleStart + MINUTE >= stopAt) {
        if (model === undefined) model = await predicted(p, stopAt);
        const pending = driver.made.some((c) => c.measured && c.detectedAt === undefined);
        if (!pending || drained >= o.drainMinutes) break;
        drained++;
      }
    }
    driver.match();
    const measured = driver.made.filter((c) => c.measured);
    if (trace) {
      const listed = await p.stores.vehicles.listDue({ now: p.now() + 365 * 24 * 60 * MINUTE, limit: 1000 });
      trace.end(measured, listed.items, new Map(fleet.map((v, i) => [v.vin, script.multipliers[i] ?? 1])));
      await trace.write(`${o.trace}-${world}-${vehicles}-${strategy}.jsonl`);
    }
    const all = kindFigures(measured);
    const lags = measured
      .filter((c) => c.detectedAt !== undefined)
      .map((c) => ((c.detectedAt as number) - c.changedAt) / 1000)
      .sort((a, b) => a - b);
    const byKind = Object.fromEntries(
      freshnessKinds
        .map((k) => [k, kindFigures(measured.filter((c) => c.kind === k))] as const)
        .filter(([, f]) => f.made > 0),
    ) as Record<FreshnessKind, KindFigures>;
    const stats = (await p.stats()).clients[p.sim.clientId];
    if (!stats) throw new BenchError('read simulator stats', `no counters for ${p.sim.clientId}`);
    // Expected changes per vehicle over the measured window (the generator's rates, known here only).
    let curveMinutes = 0;
    for (let t = measureFrom; t < stopAt; t += MINUTE)
      curveMinutes += world === 'uniform' ? 1 : dailyCurve(t);
    const expected = script.multipliers.map((m) => (BASE_RATE_PER_HOUR * m * curveMinutes) / 60);
    const reads = usablePerMinute() - Math.floor(usablePerMinute() * 0.02);
    const g = guaranteeMs(15 * MINUTE, vehicles, reads, MINUTE) / MINUTE;
    const bound = knownRatesBound(expected, reads, g);
    const boundAll = knownRatesBound([...expected, ...alertFixItems(script, measureFrom, stopAt)], reads, g);
    const madePerVehicle = new Array<number>(vehicles).fill(0);
    for (const c of measured) madePerVehicle[c.vehicle] = (madePerVehicle[c.vehicle] ?? 0) + 1;
    const sortedMs = [...planMs].sort((a, b) => a - b);
    const undetected: UndetectedChange[] = measured
      .filter((c) => c.detectedAt === undefined)
      .map((c) => ({
        kind: c.kind,
        vehicle: c.vehicle,
        vin: c.vin,
        madeAt: new Date(c.changedAt).toISOString(),
      }));
    return {
      expected,
      madePerVehicle,
      run: {
        strategy,
        changes: { made: all.made, detected: all.detected },
        lagSeconds: {
          mean: all.mean,
          p50: round(percentile(lags, 50), 1),
          p95: all.p95,
          max: all.max,
        },
        boundMeanSeconds: bound.boundMeanSeconds,
        fairMeanSeconds: bound.fairMeanSeconds,
        boundAllMeanSeconds: boundAll.boundMeanSeconds,
        ...(model ? { model } : {}),
        byKind,
        maxRequestsInWindow: stats.maxInWindow,
        http429: stats.tooManyRequests,
        planMsP99: round(percentile(sortedMs, 99), 2),
        undetected,
        guaranteeMinutes: g,
        drainMinutes: drained,
        wallSeconds: round((performance.now() - t0) / 1000, 1),
        cpuSeconds: (({ user, system }) => round((user + system) / 1e6, 1))(process.cpuUsage(cpu0)),
      },
    };
  } finally {
    await p.close();
  }
}

/**
 * Every world, size and strategy of `o`, one run after the other. The JSON file is rewritten after
 * every finished run (`partial` until the last), so a long sweep killed half-way keeps its runs.
 */
export async function run(o: FreshnessOptions): Promise<FreshnessSweep> {
  const t0 = performance.now();
  const log = o.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const plan10kMsP99 = o.timePlanning === false ? Number.NaN : planTiming(10_000, 50);
  if (o.timePlanning !== false) log(`freshness: plan() of 10,000 vehicles, p99 ${plan10kMsP99} ms`);
  const results: FreshnessResult[] = [];
  const single = o.worlds.length === 1 && o.sizes.length === 1;
  const sweepSoFar = (): FreshnessSweep => ({
    seed: o.seed,
    hours: o.hours,
    plan10kMsP99,
    results,
    wallSeconds: round((performance.now() - t0) / 1000, 1),
  });
  for (const world of o.worlds) {
    for (const vehicles of o.sizes) {
      const runs: RunFigures[] = [];
      const result = (share: number): FreshnessResult => ({
        world,
        seed: o.seed,
        vehicles,
        simulatedMinutes: Math.round(o.hours * 60),
        warmupMinutes: o.warmupMinutes,
        quota: {
          limit: DEFAULT_RATE_BUDGET.limit,
          windowSeconds: DEFAULT_RATE_BUDGET.windowMs / 1000,
          usablePerMinute: usablePerMinute(),
        },
        changesPerVehicle: { shareOfTop20PercentVehicles: share },
        runs,
      });
      const at = results.length;
      for (const strategy of o.strategies) {
        const r = await oneRun(world, vehicles, strategy, o);
        // The share of the changes the busiest fifth of the fleet is expected to make (generated rates).
        const sorted = [...r.expected].sort((a, b) => b - a);
        const total = sorted.reduce((a, b) => a + b, 0);
        const top = sorted.slice(0, Math.ceil(vehicles / 5)).reduce((a, b) => a + b, 0);
        results[at] = result(total === 0 ? 0 : round(top / total, 2));
        runs.push(r.run);
        const x = r.run;
        log(
          `freshness: ${world} ${vehicles} ${strategy}: mean ${x.lagSeconds.mean} s, p95 ${x.lagSeconds.p95} s, ` +
            `max ${x.lagSeconds.max} s, ${x.changes.detected}/${x.changes.made} (bound ${x.boundMeanSeconds} s, ` +
            `max ${x.maxRequestsInWindow} requests in a window, ${x.http429} × 429, ${x.wallSeconds} s wall, ${x.cpuSeconds} s CPU)`,
        );
        // Each change never seen by name, so the log says it even if the file is lost.
        for (const u of x.undetected) {
          log(
            `freshness: ${world} ${vehicles} ${strategy}: never detected: ${u.kind} of vehicle ${u.vehicle} (${u.vin}) made ${u.madeAt}`,
          );
        }
        if (o.json) await writeJsonFile(o.json, fileBody(sweepSoFar(), single, true));
      }
    }
  }
  const sweep = sweepSoFar();
  if (o.json) await writeJsonFile(o.json, fileBody(sweep, single, false));
  return sweep;
}

export const SWEEP_SIZES = [50, 100, 200, 400, 800] as const;

/** Flags of the area (also accepted by bench/run.ts); a bad one is a value naming it. */
export function parseFreshnessArgs(
  argv: readonly string[],
): { ok: true; options: FreshnessOptions } | { ok: false; field: string; message: string } {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: false,
      options: {
        world: { type: 'string' },
        vehicles: { type: 'string' },
        hours: { type: 'string' },
        seed: { type: 'string' },
        strategies: { type: 'string' },
        json: { type: 'string' },
        warmup: { type: 'string' },
        drain: { type: 'string' },
        transport: { type: 'string' },
        trace: { type: 'string' },
        quick: { type: 'boolean' },
      },
    });
  } catch (e) {
    return { ok: false, field: 'flags', message: e instanceof Error ? e.message : String(e) };
  }
  const v = parsed.values as Record<string, string | boolean | undefined>;
  const num = (name: string, min: number, max: number, fallback: number): number | string => {
    const raw = v[name];
    if (raw === undefined) return fallback;
    const n = Number(raw);
    return Number.isFinite(n) && n >= min && n <= max
      ? n
      : `--${name}: must be a number from ${min} to ${max}`;
  };
  const quick = v.quick === true;
  const world = v.world;
  if (world !== undefined && !(worlds as readonly string[]).includes(String(world))) {
    return { ok: false, field: '--world', message: `--world: must be one of ${worlds.join(', ')}` };
  }
  const transport = v.transport;
  if (transport !== undefined && !(transports as readonly string[]).includes(String(transport))) {
    return {
      ok: false,
      field: '--transport',
      message: `--transport: must be one of ${transports.join(', ')}`,
    };
  }
  // One size, or a comma-separated list of sizes.
  const sizeList = String(v.vehicles ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)
    .map(Number);
  if (sizeList.some((n) => !Number.isInteger(n) || n < 1 || n > 10_000)) {
    return {
      ok: false,
      field: '--vehicles',
      message: '--vehicles: whole numbers from 1 to 10000, comma-separated',
    };
  }
  const hours = num('hours', 0.1, 48, quick ? 0.5 : 2);
  const seed = num('seed', 0, 2 ** 31, 7);
  const warmup = num('warmup', 0, 600, quick ? 20 : 60);
  const drain = num('drain', 0, 600, 60);
  for (const [field, x] of Object.entries({ hours, seed, warmup, drain })) {
    if (typeof x === 'string') return { ok: false, field: `--${field}`, message: x };
  }
  const strategies = String(v.strategies ?? pollStrategies.join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = strategies.filter((s) => !(pollStrategies as readonly string[]).includes(s));
  if (strategies.length === 0 || unknown.length > 0) {
    return {
      ok: false,
      field: '--strategies',
      message: `--strategies: ${unknown.length ? `unknown ${unknown.join(', ')}` : 'none given'}; strategies: ${pollStrategies.join(', ')}`,
    };
  }
  return {
    ok: true,
    options: {
      worlds: world === undefined ? worlds : [world as World],
      sizes: sizeList.length > 0 ? sizeList : quick ? [50, 100] : SWEEP_SIZES,
      hours: hours as number,
      warmupMinutes: warmup as number,
      drainMinutes: drain as number,
      seed: seed as number,
      strategies: strategies as PollStrategy[],
      ...(typeof v.json === 'string' ? { json: v.json } : {}),
      ...(transport !== undefined ? { transport: transport as Transport } : {}),
      ...(typeof v.trace === 'string' ? { trace: v.trace } : {}),
    },
  };
}

async function main(): Promise<void> {
  const parsed = parseFreshnessArgs(process.argv.slice(2));
  if (!parsed.ok) {
    process.stderr.write(`${parsed.message}\n`);
    process.exitCode = 2;
    return;
  }
  const r = await run(parsed.options);
  process.stdout.write(toMarkdown(r, `npx tsx bench/freshness.ts ${process.argv.slice(2).join(' ')}`));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  });
}
