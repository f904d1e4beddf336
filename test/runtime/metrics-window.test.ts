import { describe, expect, it } from 'vitest';
import { CARHOOK_METRIC_NAMES as M } from '../../functions/runtime/metric-names';
import { createMetricsWindow } from '../../functions/runtime/metrics-window';

const T0 = Date.parse('2026-01-15T10:00:00.000Z');

describe('metrics window', () => {
  it('sums counts per minute and reports lag percentiles of the minute, oldest minute first', () => {
    let now = T0 + 5_000;
    const w = createMetricsWindow({ now: () => now, quota: { limit: 120, windowSeconds: 60 }, minutes: 3 });
    w.sink.record(M.apiRequests, 'Count', 1);
    w.sink.record(M.apiRequests, 'Count', 1);
    w.sink.record(M.apiRateLimited, 'Count', 1);
    for (const lag of [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000])
      w.sink.record(M.detectionLagMs, 'Milliseconds', lag);
    now = T0 + 65_000;
    w.sink.record(M.apiRequests, 'Count', 3);
    w.sink.record(M.eventsPublished, 'Count', 2);
    w.sink.record(M.deliveriesSucceeded, 'Count', 1);
    w.sink.record(M.deliveriesFailed, 'Count', 1);
    w.sink.record(M.pollsCompleted, 'Count', 4);
    w.sink.record(M.historyFound, 'Count', 2);
    w.sink.record(M.quotaRemaining, 'Count', 50); // a gauge: not summed
    w.sink.record(M.apiRequests, 'Count', Number.NaN);
    const snap = w.snapshot();
    expect(snap.quota).toEqual({ limit: 120, windowSeconds: 60 });
    expect(snap.minutes.map((m) => m.minute)).toEqual([
      '2026-01-15T09:59:00.000Z',
      '2026-01-15T10:00:00.000Z',
      '2026-01-15T10:01:00.000Z',
    ]);
    expect(snap.minutes[0]).toMatchObject({ apiRequests: 0, lagMs: { count: 0 } });
    expect(snap.minutes[1]).toEqual({
      minute: '2026-01-15T10:00:00.000Z',
      apiRequests: 2,
      apiRateLimited: 1,
      pollsCompleted: 0,
      eventsPublished: 0,
      deliveriesSucceeded: 0,
      deliveriesFailed: 0,
      historyFound: 0,
      lagMs: { count: 10, p50: 500, p95: 1000, max: 1000 },
    });
    expect(snap.minutes[2]).toMatchObject({
      apiRequests: 3,
      pollsCompleted: 4,
      eventsPublished: 2,
      deliveriesSucceeded: 1,
      deliveriesFailed: 1,
      historyFound: 2,
      lagMs: { count: 0 },
    });
  });

  it('forgets minutes older than the window and bounds the lag samples of a minute', () => {
    let now = T0;
    const w = createMetricsWindow({ now: () => now, quota: { limit: 120, windowSeconds: 60 }, minutes: 2 });
    w.sink.record(M.apiRequests, 'Count', 7);
    for (let i = 0; i < 5000; i += 1) w.sink.record(M.detectionLagMs, 'Milliseconds', 10);
    expect(w.snapshot().minutes[1]?.lagMs).toEqual({ count: 1000, p50: 10, p95: 10, max: 10 });
    now = T0 + 2 * 60_000;
    const later = w.snapshot();
    expect(later.minutes).toHaveLength(2);
    expect(later.minutes.every((m) => m.apiRequests === 0)).toBe(true);
  });
});
