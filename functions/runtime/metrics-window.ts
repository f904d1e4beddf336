/**
 * The runtime's own metrics over the last hour, minute by minute, kept in memory: what the console's
 * quota and lag page shows for a runtime that lives in one process (`carhook dev`). On AWS each
 * Lambda instance sees only its share, so there the figures come from CloudWatch instead.
 */
import { CARHOOK_METRIC_NAMES, type CarhookMetric } from './metric-names';
import type { MetricSink } from './observability';

export interface MinuteFigures {
  /** Start of the minute (ISO 8601). */
  readonly minute: string;
  readonly apiRequests: number;
  readonly apiRateLimited: number;
  readonly pollsCompleted: number;
  readonly eventsPublished: number;
  readonly deliveriesSucceeded: number;
  readonly deliveriesFailed: number;
  /** Events of that minute telling what was already there at enrollment (not in the lag). */
  readonly historyFound: number;
  /** Detection lag of the changes detected in that minute (from `occurredAt` to `detectedAt`). */
  readonly lagMs: {
    readonly count: number;
    readonly p50?: number;
    readonly p95?: number;
    readonly max?: number;
  };
}

export interface RecentMetrics {
  readonly quota: { readonly limit: number; readonly windowSeconds: number };
  /** Oldest first, one entry per minute of the window, minutes without figures included as zeros. */
  readonly minutes: readonly MinuteFigures[];
}

const COUNTED = {
  [CARHOOK_METRIC_NAMES.apiRequests]: 'apiRequests',
  [CARHOOK_METRIC_NAMES.apiRateLimited]: 'apiRateLimited',
  [CARHOOK_METRIC_NAMES.pollsCompleted]: 'pollsCompleted',
  [CARHOOK_METRIC_NAMES.eventsPublished]: 'eventsPublished',
  [CARHOOK_METRIC_NAMES.deliveriesSucceeded]: 'deliveriesSucceeded',
  [CARHOOK_METRIC_NAMES.deliveriesFailed]: 'deliveriesFailed',
  [CARHOOK_METRIC_NAMES.historyFound]: 'historyFound',
} as const satisfies Partial<Record<CarhookMetric, string>>;

type Counter = (typeof COUNTED)[keyof typeof COUNTED];

interface Bucket {
  counts: Record<Counter, number>;
  lags: number[];
}

/** Lag samples kept per minute: enough for a p95, bounded whatever the fleet's size. */
const MAX_LAG_SAMPLES = 1000;
const MINUTE_MS = 60_000;

const emptyCounts = (): Record<Counter, number> => ({
  apiRequests: 0,
  apiRateLimited: 0,
  pollsCompleted: 0,
  eventsPublished: 0,
  deliveriesSucceeded: 0,
  deliveriesFailed: 0,
  historyFound: 0,
});

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function createMetricsWindow(options: {
  readonly now: () => number;
  readonly quota: RecentMetrics['quota'];
  readonly minutes?: number;
}) {
  const span = options.minutes ?? 60;
  const buckets = new Map<number, Bucket>();
  const minuteOf = (t: number) => Math.floor(t / MINUTE_MS) * MINUTE_MS;
  const prune = (current: number) => {
    for (const key of buckets.keys()) if (key <= current - span * MINUTE_MS) buckets.delete(key);
  };
  const bucketAt = (t: number): Bucket => {
    const key = minuteOf(t);
    let b = buckets.get(key);
    if (!b) {
      prune(key);
      b = { counts: emptyCounts(), lags: [] };
      buckets.set(key, b);
    }
    return b;
  };

  const sink: MetricSink = {
    record(name, _unit, value) {
      if (!Number.isFinite(value)) return;
      if (name === CARHOOK_METRIC_NAMES.detectionLagMs) {
        const lags = bucketAt(options.now()).lags;
        // Past the bound, a sample replaces a random one: the minute's distribution stays fair.
        if (lags.length < MAX_LAG_SAMPLES) lags.push(value);
        else lags[Math.floor(Math.random() * MAX_LAG_SAMPLES)] = value;
        return;
      }
      const counter = (COUNTED as Partial<Record<string, Counter>>)[name];
      if (counter !== undefined) bucketAt(options.now()).counts[counter] += value;
    },
  };

  function snapshot(): RecentMetrics {
    const current = minuteOf(options.now());
    prune(current);
    const minutes: MinuteFigures[] = [];
    for (let m = current - (span - 1) * MINUTE_MS; m <= current; m += MINUTE_MS) {
      const b = buckets.get(m);
      const sorted = [...(b?.lags ?? [])].sort((x, y) => x - y);
      const p50 = percentile(sorted, 50);
      const p95 = percentile(sorted, 95);
      const max = sorted.at(-1);
      minutes.push({
        minute: new Date(m).toISOString(),
        ...(b?.counts ?? emptyCounts()),
        lagMs: {
          count: sorted.length,
          ...(p50 === undefined ? {} : { p50 }),
          ...(p95 === undefined ? {} : { p95 }),
          ...(max === undefined ? {} : { max }),
        },
      });
    }
    return { quota: options.quota, minutes };
  }

  return { sink, snapshot };
}
