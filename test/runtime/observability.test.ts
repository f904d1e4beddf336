import { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it, vi } from 'vitest';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import type { EventBus } from '../../functions/core/publishing/ports';
import {
  meteredBus,
  observingFetch,
  powertoolsMetricSink,
  recordJobResult,
} from '../../functions/runtime/observability';
import { recordingSink } from './support';

const event = (id: string, type: string, occurredAt: string, detectedAt: string) =>
  ({ id, type, occurredAt, detectedAt }) as unknown as EventEnvelope;

describe('metrics the runtime emits', () => {
  it('counts API requests, 429s and the remaining quota, and passes the invocation signal down', async () => {
    const sink = recordingSink();
    const controller = new AbortController();
    const seen: (AbortSignal | undefined)[] = [];
    const responses = [
      new Response('{}', { status: 200, headers: { 'X-RateLimit-Remaining': '57' } }),
      new Response('{}', { status: 429, headers: { 'X-RateLimit-Remaining': '0' } }),
    ];
    const f = observingFetch(sink, {
      signal: controller.signal,
      fetch: async (_input, init) => {
        seen.push(init?.signal ?? undefined);
        return responses.shift() as Response;
      },
    });
    await f('http://127.0.0.1:9/a');
    await f('http://127.0.0.1:9/b', { signal: new AbortController().signal });
    expect(sink.total('ApiRequests')).toBe(2);
    expect(sink.total('ApiRateLimited')).toBe(1);
    expect(sink.recorded.filter((r) => r.name === 'QuotaRemaining').map((r) => r.value)).toEqual([57, 0]);
    controller.abort();
    expect(seen.every((s) => s?.aborted)).toBe(true);
  });

  it('counts published events per type, their detection lag (history apart), and re-authorizations once', async () => {
    const inner: EventBus = {
      publish: async (events) => ({
        published: events.filter((e) => e.id !== 'failed').map((e) => e.id),
        failed: [{ id: 'failed', retryable: true, code: 'InternalFailure', message: 'x' }],
      }),
    };
    const sink = recordingSink();
    const bus = meteredBus(inner, sink, { firstPublish: true });
    await bus.publish([
      event('a', 'vehicle.alert.raised', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:30.000Z'),
      event('b', 'vehicle.alert.raised', '2026-01-01T00:00:00.000Z', '2026-01-01T00:01:00.000Z'),
      event(
        'c',
        'enrollment.reauthorization_required',
        '2026-01-01T00:00:00.000Z',
        '2026-01-01T00:00:00.000Z',
      ),
      event('failed', 'vehicle.alert.fixed', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'),
      // Found already active at enrollment: history (a year old), not a lag.
      {
        ...event('old', 'vehicle.alert.raised', '2025-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'),
        data: { initial: true },
      },
    ]);
    expect(sink.total('HistoryFound')).toBe(1);
    const published = sink.recorded.filter((r) => r.name === 'EventsPublished');
    expect(published).toEqual(
      expect.arrayContaining([
        { name: 'EventsPublished', unit: 'Count', value: 3, dimensions: { type: 'vehicle.alert.raised' } },
        {
          name: 'EventsPublished',
          unit: 'Count',
          value: 1,
          dimensions: { type: 'enrollment.reauthorization_required' },
        },
      ]),
    );
    expect(published).toHaveLength(2);
    expect(sink.recorded.filter((r) => r.name === 'DetectionLagMs').map((r) => r.value)).toEqual([
      30_000, 60_000, 0,
    ]);
    expect(sink.total('ReauthorizationRequired')).toBe(1);

    const sweep = recordingSink();
    await meteredBus(inner, sweep, { firstPublish: false }).publish([
      event(
        'c',
        'enrollment.reauthorization_required',
        '2026-01-01T00:00:00.000Z',
        '2026-01-01T00:00:00.000Z',
      ),
    ]);
    expect(sweep.total('EventsPublished')).toBe(1);
    expect(sweep.total('ReauthorizationRequired')).toBe(0);
    expect(sweep.total('DetectionLagMs')).toBe(0);
  });

  it('emits Embedded Metric Format on stdout through Powertools: stored metrics in one document, dimensioned values as their own', () => {
    const lines: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      // Powertools binds its own Console to process.stdout when the instance is created.
      const m = new Metrics({ namespace: 'Carhook', serviceName: 'carhook-test' });
      const sink = powertoolsMetricSink(m);
      sink.record('PollsCompleted', 'Count', 2);
      sink.record('DetectionLagMs', 'Milliseconds', 1500);
      sink.record('EventsPublished', 'Count', 1, { type: 'vehicle.alert.raised' });
      m.publishStoredMetrics();
    } finally {
      write.mockRestore();
    }
    const docs = lines
      .join('')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown> & { _aws: { CloudWatchMetrics: unknown[] } });
    expect(docs).toHaveLength(2);
    // A single metric is flushed as soon as its value is added: it comes first, with its dimension.
    const [single, stored] = docs as [(typeof docs)[number], (typeof docs)[number]];
    expect(single._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'Carhook',
        Dimensions: [['service', 'type']],
        Metrics: [{ Name: 'EventsPublished', Unit: 'Count' }],
      },
    ]);
    expect(single).toMatchObject({
      service: 'carhook-test',
      type: 'vehicle.alert.raised',
      EventsPublished: 1,
    });
    expect(stored._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'Carhook',
        Dimensions: [['service']],
        Metrics: [
          { Name: 'PollsCompleted', Unit: 'Count' },
          { Name: 'DetectionLagMs', Unit: 'Milliseconds' },
        ],
      },
    ]);
    expect(stored).toMatchObject({ service: 'carhook-test', PollsCompleted: 2, DetectionLagMs: 1500 });
    expect(stored).not.toHaveProperty('EventsPublished');
  });

  it('counts one completed poll per vehicle polled', () => {
    const sink = recordingSink();
    const summary = { vehicleId: 'v', outcome: 'polled' } as never;
    recordJobResult(sink, { kind: 'poll-vehicle', summary });
    recordJobResult(sink, { kind: 'poll-vehicle', summary: { vehicleId: 'v', outcome: 'skipped' } as never });
    recordJobResult(sink, { kind: 'poll-fleet', summary: { polled: 3 } as never });
    expect(sink.total('PollsCompleted')).toBe(4);
  });

  it('counts the answers a poll found stale, vehicle and fleet jobs alike; none recorded when there were none', () => {
    const sink = recordingSink();
    recordJobResult(sink, {
      kind: 'poll-vehicle',
      summary: { vehicleId: 'v', outcome: 'polled', stale: 2 } as never,
    });
    recordJobResult(sink, { kind: 'poll-fleet', summary: { polled: 3, stale: 1 } as never });
    recordJobResult(sink, {
      kind: 'poll-vehicle',
      summary: { vehicleId: 'w', outcome: 'polled', stale: 0 } as never,
    });
    expect(sink.total('StaleAnswers')).toBe(3);
    expect(sink.recorded.filter((r) => r.name === 'StaleAnswers')).toHaveLength(2);
  });
});
