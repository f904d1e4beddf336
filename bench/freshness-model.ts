/**
 * The planner alone against a generated world, in seconds instead of the pipeline's minutes: each
 * simulated minute `plan()` runs over the fleet with its memory, a booked events read reveals every
 * scripted change of that vehicle since its last read (lag = read time − change time), and the
 * learned rates are written exactly as a poll would (with a change, `observe`). Nothing else is
 * modelled: no alert reads or fixes, no follow-ups, no eco-driving wait, no HTTP. It isolates the
 * estimator and the index from the rest of the pipeline (bench/freshness.ts measures the whole).
 *
 * `--oracle rates` gives the planner each vehicle's true rate (its multiplier × the base rate),
 * `--oracle curve` the true rate times the daily curve at that minute: what learning costs, and
 * what a time-of-day profile would buy.
 *
 * The vehicles have a past (`--history`, minutes, default a day, as in the pipeline bench): a
 * first read finds the records of its look-back and counts them as the estimator's first poll does.
 *
 *   npx tsx bench/freshness-model.ts --world mixed --vehicles 200,400 --hours 6 [--warmup 60] \
 *     [--strategies carhook,round-robin] [--oracle none|rates|curve] [--seed 7] [--history 1440] \
 *     [--config '{"rateHalfLifeMs":14400000}']
 */
import { writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createPlannerMemory, type PollStrategy, plan, remember } from '../functions/core/polling';
import { DEFAULT_POLLING_CONFIG, type PollingConfig } from '../functions/core/polling/config';
import { decodeRates, encodeRates, observe } from '../functions/core/polling/rates';
import { guaranteeMs } from '../functions/core/polling/selection';
import type { VehicleRecord } from '../functions/core/store/records';
import { knownRatesBound } from './freshness';
import { type ChartResult, renderChart } from './freshness-chart';
import {
  alertFixItems,
  BASE_RATE_PER_HOUR,
  dailyCurve,
  generateScript,
  WORLD_HISTORY_MS,
  type World,
} from './support/freshness-world';
import { percentile, round } from './support/stats';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export type Oracle = 'none' | 'rates' | 'curve';

export interface ModelRun {
  readonly strategy: PollStrategy;
  readonly changes: number;
  readonly mean: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
  /** Mean lag of the changes made in each measured hour. */
  readonly meanByHour: readonly number[];
  /** Alert fixes (seen by an alert read, or with the raise by an events read): count and lags. */
  readonly fixes: {
    readonly count: number;
    readonly mean: number;
    readonly p95: number;
    readonly max: number;
  };
  /** Every measured change, fixes included (as the pipeline bench counts them). */
  readonly all: { readonly mean: number; readonly p95: number; readonly max: number };
}

/** One world and size: every strategy on the same script, and the known-rates bound. */
export function modelRun(
  world: World,
  vehicles: number,
  o: {
    hours: number;
    warmupMinutes: number;
    seed: number;
    strategies: readonly PollStrategy[];
    oracle: Oracle;
    /** The vehicles' past before the start (ms), found by a first read's look-back (default a day). */
    historyMs?: number;
    /** Polling configuration overrides (the planner's and the estimator's). */
    config?: Partial<PollingConfig>;
    /**
     * Follow-up reads as the worker makes them: a trip (and a maintenance change, which comes
     * with one) costs two more reads (eco-driving, maintenance) from the cycle's 108; once a cycle's
     * budget is spent, the rest of its jobs are refused (the planner counted them as made) and a
     * change whose follow-ups are refused waits for the vehicle's next read.
     */
    followUps?: boolean;
  },
): { runs: ModelRun[]; boundMeanSeconds: number; fairMeanSeconds: number; boundAllMeanSeconds: number } {
  // The measured window starts at 06:00 UTC, as in bench/freshness.ts.
  const start = Date.UTC(2026, 0, 5, 6) - o.warmupMinutes * MINUTE;
  const measureFrom = start + o.warmupMinutes * MINUTE;
  const stopAt = measureFrom + o.hours * HOUR;
  // Without follow-ups modelled there is nothing to reserve for: the learned reserve would only
  // take reads away (the fixed share stays, as in the pipeline).
  const config: PollingConfig = {
    ...DEFAULT_POLLING_CONFIG,
    ...(o.followUps ? {} : { followUpsPerChange: 0 }),
    ...o.config,
  };
  const script = generateScript(world, vehicles, start, stopAt, o.seed, o.historyMs ?? WORLD_HISTORY_MS);
  const changesOf: number[][] = Array.from({ length: vehicles }, () => []);
  const followUpsOf: number[][] = Array.from({ length: vehicles }, () => []);
  for (const c of script.changes) {
    changesOf[c.vehicle]?.push(c.at);
    followUpsOf[c.vehicle]?.push(c.kind === 'trip' || c.kind === 'maintenance' ? 2 : 0);
  }
  const historyOf: number[][] = Array.from({ length: vehicles }, () => []);
  for (const c of script.history) historyOf[c.vehicle]?.push(c.at);
  // Alerts raised (the past's and the run's), each fixed after its active time unless that falls
  // at or after the end of the changes (the pipeline's driver makes no change then).
  const alertsOf: { raisedAt: number; fixAt: number }[][] = Array.from({ length: vehicles }, () => []);
  for (const c of [...script.history, ...script.changes]) {
    if (c.kind !== 'alert-raised') continue;
    const fixAt = c.at + Math.max(MINUTE, Math.round(c.activeMs ?? MINUTE));
    alertsOf[c.vehicle]?.push({ raisedAt: c.at, fixAt: fixAt < stopAt ? fixAt : Number.POSITIVE_INFINITY });
  }
  const runs = o.strategies.map((strategy) => {
    const iso = (ms: number) => new Date(ms).toISOString();
    let records: VehicleRecord[] = Array.from({ length: vehicles }, (_, i) => ({
      id: `e:v${i}`,
      enrollmentId: 'e',
      vin: `VIN${i}`,
      apiVehicleId: `v${i}`,
      paused: false,
      nextPollAt: iso(start),
      hints: { activeAlerts: false, priority: 0 },
      resourcePolledAt: {},
      createdAt: iso(start),
      updatedAt: iso(start),
    }));
    const memory = createPlannerMemory();
    const next = new Array<number>(vehicles).fill(0);
    const lastEventsRead = new Array<number | undefined>(vehicles).fill(undefined);
    const known: Set<{ raisedAt: number; fixAt: number }>[] = Array.from(
      { length: vehicles },
      () => new Set(),
    );
    const fixLags: number[] = [];
    const lags: number[] = [];
    // Changes seen whose follow-ups were refused: told at the vehicle's next read that pays them.
    const waiting: { at: number; cost: number }[][] = Array.from({ length: vehicles }, () => []);
    const byHour: number[][] = [];
    // A drain of one hour: every read within G, so every change is seen.
    for (let now = start; now < stopAt + HOUR; now += MINUTE) {
      // Periodic reads are not modelled: every one was just made.
      const polled = { alerts: iso(now), maintenance: iso(now), services: iso(now), map: iso(now) };
      records = records.map((r, i) => {
        const m = script.multipliers[i] ?? 1;
        const curve = o.oracle === 'curve' && world === 'mixed' ? dailyCurve(now) : 1;
        const rates =
          o.oracle === 'none' ? r.hints.rates : `r1:${now}:${BASE_RATE_PER_HOUR * m * curve * 1e6}:1e6:0:0:0`;
        const hints = { ...r.hints, activeAlerts: (known[i]?.size ?? 0) > 0, ...(rates ? { rates } : {}) };
        return { ...r, resourcePolledAt: polled, hints };
      });
      const planned = plan({ vehicles: records, budget: 108, now, memory, strategy, config });
      remember(memory, records, planned, now);
      let spent = 0;
      const cap = 108;
      const told = (at: number): void => {
        if (at < measureFrom || at >= stopAt) return;
        lags.push((now - at) / 1000);
        const h = Math.floor((at - measureFrom) / HOUR);
        const hour = byHour[h] ?? [];
        hour.push((now - at) / 1000);
        byHour[h] = hour;
      };
      for (const job of planned.jobs) {
        if (job.kind !== 'poll-vehicle') continue;
        if (o.followUps) {
          // The budget refuses the requests of a job past the cycle's capacity: it sends nothing.
          if (spent + job.resources.length > cap) continue;
          spent += job.resources.length;
        }
        const i = Number(job.vehicleId.slice('e:v'.length));
        const active = known[i] as Set<{ raisedAt: number; fixAt: number }>;
        const activeBefore = active.size;
        let fixes = 0;
        const fixed = (a: { raisedAt: number; fixAt: number }): void => {
          active.delete(a);
          fixes++;
          if (a.fixAt >= measureFrom) fixLags.push((now - a.fixAt) / 1000);
        };
        if (job.resources.includes('events')) {
          // The raises the feed reveals: a first read (with its baseline alert read) knows every
          // alert active then; a later one the raises since the last read, an alert already fixed
          // seen fixed with its raise (the feed embeds the alert as it is now).
          const from = lastEventsRead[i];
          for (const a of alertsOf[i] ?? []) {
            if (a.raisedAt >= now || (from !== undefined && a.raisedAt < from)) continue;
            if (a.fixAt >= now) active.add(a);
            else if (from !== undefined) fixed(a);
          }
          lastEventsRead[i] = now;
        }
        if (job.resources.includes('alerts')) {
          for (const a of [...active]) if (a.fixAt < now) fixed(a);
        }
        const reads = job.resources.includes('events');
        const times = reads ? (changesOf[i] ?? []) : [];
        let seen = 0;
        const seenAt: number[] = [];
        const pending = waiting[i] as { at: number; cost: number }[];
        const pay = (at: number, cost: number): void => {
          if (o.followUps && cost > 0 && spent + cost > cap) {
            pending.push({ at, cost });
            return;
          }
          spent += o.followUps ? cost : 0;
          told(at);
        };
        if (reads && pending.length > 0) for (const w of pending.splice(0)) pay(w.at, w.cost);
        for (
          ;
          (next[i] ?? 0) < times.length && (times[next[i] ?? 0] ?? 0) < now;
          next[i] = (next[i] ?? 0) + 1
        ) {
          const at = times[next[i] ?? 0] ?? 0;
          seen++;
          seenAt.push(at);
          pay(at, followUpsOf[i]?.[next[i] ?? 0] ?? 0);
        }
        const record = records[i] as VehicleRecord;
        const before = decodeRates(record.hints.rates);
        // A poll writes its rates only with a change (the first poll always writes). A first read
        // finds the look-back's records (history and changes made before it) as history.
        const changed = seen > 0 || fixes > 0 || active.size !== activeBefore;
        if (o.oracle === 'none' && (changed || before === undefined)) {
          const events = [
            ...Array.from({ length: seen }, () => ({ type: 'vehicle.trip.completed' as const })),
            ...Array.from({ length: fixes }, () => ({ type: 'vehicle.alert.fixed' as const })),
          ];
          const since = now - config.initialEventsLookbackMs;
          const lookBack =
            before === undefined
              ? { since, at: [...(historyOf[i] ?? []), ...seenAt].filter((at) => at >= since) }
              : undefined;
          const rates = encodeRates(
            observe(
              before,
              now,
              { events, activeAlerts: active.size, ...(lookBack ? { lookBack } : {}) },
              config,
            ),
          );
          records[i] = { ...record, hints: { ...record.hints, rates } };
        }
      }
    }
    const sorted = [...lags].sort((a, b) => a - b);
    const sortedFixes = [...fixLags].sort((a, b) => a - b);
    const sortedAll = [...lags, ...fixLags].sort((a, b) => a - b);
    const mean = (xs: readonly number[]) => round(xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length), 1);
    return {
      strategy,
      changes: lags.length,
      mean: mean(lags),
      p50: round(percentile(sorted, 50), 1),
      p95: round(percentile(sorted, 95), 1),
      max: round(sorted.at(-1) ?? 0, 1),
      meanByHour: byHour.map(mean),
      fixes: {
        count: fixLags.length,
        mean: mean(fixLags),
        p95: round(percentile(sortedFixes, 95), 1),
        max: round(sortedFixes.at(-1) ?? 0, 1),
      },
      all: {
        mean: mean([...lags, ...fixLags]),
        p95: round(percentile(sortedAll, 95), 1),
        max: round(sortedAll.at(-1) ?? 0, 1),
      },
    };
  });
  let curveMinutes = 0;
  for (let t = measureFrom; t < stopAt; t += MINUTE) curveMinutes += world === 'uniform' ? 1 : dailyCurve(t);
  const expected = script.multipliers.map((m) => (BASE_RATE_PER_HOUR * m * curveMinutes) / 60);
  const reads = 108 - Math.floor(108 * DEFAULT_POLLING_CONFIG.followUpReserveRatio);
  const g = guaranteeMs(DEFAULT_POLLING_CONFIG.maxStalenessMs, vehicles, reads, MINUTE) / MINUTE;
  // The bound over every change, fixes included: the active alerts as items beside the vehicles.
  const fixItems = alertFixItems(script, measureFrom, stopAt);
  const all = knownRatesBound([...expected, ...fixItems], reads, g);
  return { runs, ...knownRatesBound(expected, reads, g), boundAllMeanSeconds: all.boundMeanSeconds };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      world: { type: 'string', default: 'mixed' },
      vehicles: { type: 'string', default: '200,400,800' },
      hours: { type: 'string', default: '6' },
      warmup: { type: 'string', default: '60' },
      seed: { type: 'string', default: '7' },
      strategies: { type: 'string', default: 'carhook,round-robin' },
      oracle: { type: 'string', default: 'none' },
      /** Minutes of the vehicles' past before the warm-up (a first read's look-back finds it). */
      history: { type: 'string', default: String(WORLD_HISTORY_MS / MINUTE) },
      /** Polling configuration overrides, JSON (e.g. '{"initialEventsLookbackMs":86400000}'). */
      config: { type: 'string', default: '{}' },
      /** Model the follow-up reads and the budget's refusals (see `modelRun`). */
      'follow-ups': { type: 'boolean', default: false },
      /** Writes the chart (SVG) of mean and p95 lag against fleet size, per world. */
      svg: { type: 'string' },
    },
  });
  const charted: ChartResult[] = [];
  const worldsOf = String(values.world).split(',') as World[];
  for (const world of worldsOf) {
    for (const n of String(values.vehicles).split(',').map(Number)) {
      const r = modelRun(world, n, {
        hours: Number(values.hours),
        warmupMinutes: Number(values.warmup),
        seed: Number(values.seed),
        strategies: String(values.strategies).split(',') as PollStrategy[],
        oracle: values.oracle as Oracle,
        historyMs: Number(values.history) * MINUTE,
        config: JSON.parse(String(values.config)) as Partial<PollingConfig>,
        followUps: values['follow-ups'] === true,
      });
      charted.push({
        world,
        vehicles: n,
        runs: r.runs.map((x) => ({
          strategy: x.strategy,
          lagSeconds: { mean: x.mean, p50: x.p50, p95: x.p95, max: x.max },
          boundMeanSeconds: r.boundMeanSeconds,
        })),
      });
      const rr = r.runs.find((x) => x.strategy === 'round-robin');
      for (const x of r.runs) {
        process.stdout.write(
          `| ${world} | ${n} | ${x.strategy} | ${values.oracle} | ${x.changes} | ${x.mean} | ${x.p95} | ${x.max} | ${r.boundMeanSeconds} | ${round(x.mean / r.boundMeanSeconds, 2)} | ${rr ? round(x.mean / rr.mean, 2) : ''} | ${rr ? round(x.p95 / rr.p95, 2) : ''} | ${x.fixes.count} | ${x.fixes.mean} | ${x.fixes.p95} | ${x.fixes.max} | ${x.all.mean} | ${x.all.p95} | ${r.boundAllMeanSeconds} | ${round(x.all.mean / r.boundAllMeanSeconds, 2)} | ${rr ? round(x.all.mean / rr.all.mean, 2) : ''} | ${rr ? round(x.all.p95 / rr.all.p95, 2) : ''} | ${x.meanByHour.join(' ')} |\n`,
        );
      }
    }
  }
  if (typeof values.svg === 'string') {
    const title = `Planner alone (bench/freshness-model.ts), ${values.hours} h, seed ${values.seed}: lag against fleet size`;
    await writeFile(values.svg, await renderChart(charted, title));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  });
}
