/**
 * Logger and metrics, created once for the process (Powertools example app), and the metric
 * helpers. Metric names: ./metric-names.ts (shared with the CDK alarms and dashboard). The tracer
 * is in ./tracing.ts: only bundles built with tracing carry it.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { EventEnvelope } from '../core/events/envelope';
import type { JobResult } from '../core/jobs/worker';
import type { EventBus } from '../core/publishing/ports';
import { CARHOOK_METRIC_NAMES, type CarhookMetric, METRICS_NAMESPACE } from './metric-names';

export { CARHOOK_METRIC_NAMES, type CarhookMetric, METRICS_NAMESPACE };

const SERVICE = process.env.POWERTOOLS_SERVICE_NAME || 'carhook';

export const logger = new Logger({ serviceName: SERVICE });
export const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE });

/** Where the runtime records metrics: Powertools on Lambda, a no-op or a log locally, a list in tests. */
export interface MetricSink {
  record(
    name: CarhookMetric,
    unit: 'Count' | 'Milliseconds',
    value: number,
    dimensions?: Readonly<Record<string, string>>,
  ): void;
}

export const noMetrics: MetricSink = { record: () => {} };

/** The Powertools `Metrics` as a sink; dimensioned values go out as single metrics (own EMF blob). */
export function powertoolsMetricSink(m: Metrics = metrics): MetricSink {
  return {
    record(name, unit, value, dimensions) {
      const u = unit === 'Count' ? MetricUnit.Count : MetricUnit.Milliseconds;
      if (dimensions && Object.keys(dimensions).length > 0) {
        const single = m.singleMetric();
        for (const [k, v] of Object.entries(dimensions)) single.addDimension(k, v);
        single.addMetric(name, u, value);
        return;
      }
      m.addMetric(name, u, value);
    },
  };
}

/**
 * A `fetch` for the API client that passes the invocation's AbortSignal down (a slow upstream never
 * eats the Lambda timeout) and records `ApiRequests`, `ApiRateLimited` (429, rate limited) and
 * `QuotaRemaining` (`X-RateLimit-Remaining`, the requests left in the window).
 */
export function observingFetch(
  sink: MetricSink,
  options: { readonly signal?: AbortSignal; readonly fetch?: typeof fetch } = {},
): typeof fetch {
  const base: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return async (input, init) => {
    const signals = [init?.signal, options.signal].filter((s): s is AbortSignal => s instanceof AbortSignal);
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    sink.record(CARHOOK_METRIC_NAMES.apiRequests, 'Count', 1);
    const response = await base(input, { ...init, ...(signal ? { signal } : {}) });
    if (response.status === 429) sink.record(CARHOOK_METRIC_NAMES.apiRateLimited, 'Count', 1);
    const remaining = Number(response.headers.get('x-ratelimit-remaining') ?? Number.NaN);
    if (Number.isFinite(remaining) && remaining >= 0) {
      sink.record(CARHOOK_METRIC_NAMES.quotaRemaining, 'Count', remaining);
    }
    return response;
  };
}

/**
 * An `EventBus` that records what it published: `EventsPublished` per `type`, and for events
 * published by the poll that detected them (`firstPublish`) the `DetectionLagMs` (or `HistoryFound`
 * for what the first poll found already there) and, for
 * `enrollment.reauthorization_required`, `ReauthorizationRequired` (the sweeper's re-publishing
 * would count them twice).
 */
export function meteredBus(
  bus: EventBus,
  sink: MetricSink,
  options: { readonly firstPublish: boolean },
): EventBus {
  return {
    ...(bus.entrySize ? { entrySize: (e: EventEnvelope) => bus.entrySize?.(e) ?? 0 } : {}),
    async publish(events) {
      const result = await bus.publish(events);
      const byId = new Map(events.map((e) => [e.id, e]));
      const perType = new Map<string, number>();
      for (const id of result.published) {
        const event = byId.get(id);
        if (!event) continue;
        perType.set(event.type, (perType.get(event.type) ?? 0) + 1);
        if (!options.firstPublish) continue;
        // What a first poll found already there (an alert active since last year) is history, not
        // a detection lag: counted apart.
        if ((event.data as { initial?: unknown } | undefined)?.initial === true) {
          sink.record(CARHOOK_METRIC_NAMES.historyFound, 'Count', 1);
        } else {
          const lag = Date.parse(event.detectedAt) - Date.parse(event.occurredAt);
          if (Number.isFinite(lag) && lag >= 0)
            sink.record(CARHOOK_METRIC_NAMES.detectionLagMs, 'Milliseconds', lag);
        }
        if (event.type === 'enrollment.reauthorization_required') {
          sink.record(CARHOOK_METRIC_NAMES.reauthorizationRequired, 'Count', 1);
        }
      }
      for (const [type, n] of perType)
        sink.record(CARHOOK_METRIC_NAMES.eventsPublished, 'Count', n, { type });
      return result;
    },
  };
}

/** `PollsCompleted` for one poll job: one per vehicle actually polled. */
export function recordJobResult(sink: MetricSink, result: JobResult): void {
  const polled =
    result.kind === 'poll-vehicle'
      ? result.summary.outcome === 'polled'
        ? 1
        : 0
      : result.kind === 'poll-fleet'
        ? result.summary.polled
        : 0;
  if (polled > 0) sink.record(CARHOOK_METRIC_NAMES.pollsCompleted, 'Count', polled);
  const stale = result.kind === 'poll-vehicle' || result.kind === 'poll-fleet' ? result.summary.stale : 0;
  if (stale > 0) sink.record(CARHOOK_METRIC_NAMES.staleAnswers, 'Count', stale);
}

/** A short, token-free line about a job for the log. */
export function describeJobResult(result: JobResult): Record<string, unknown> {
  switch (result.kind) {
    case 'poll-vehicle': {
      const s = result.summary;
      return {
        job: result.kind,
        vehicleId: s.vehicleId,
        outcome: s.outcome,
        requests: s.requests,
        events: s.eventsWritten.length,
        unpublished: s.unpublished.length,
        failures: s.failures.map((f) => `${f.resource}:${f.kind}`),
      };
    }
    case 'poll-fleet':
    case 'poll-map': {
      const s = result.summary;
      return {
        job: result.kind,
        vehicles: s.vehicleIds.length,
        polled: s.polled,
        requests: s.requests,
        events: s.eventsWritten.length,
        unpublished: s.unpublished.length,
        failures: s.failures.map((f) => `${f.resource}:${f.kind}`),
      };
    }
    case 'discover-vehicles':
      return {
        job: result.kind,
        enrollmentId: result.enrollmentId,
        result: result.result.kind,
        requests: result.requests,
      };
  }
}
