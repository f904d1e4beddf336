/**
 * `carhook events tail` prints events in the order Carhook detected them (not the order they
 * occurred, nor the order a page lists them), and `carhook metrics` shows the detection lag apart
 * from the history a first poll found at enrollment. The commands run in this process; their fetch
 * is served by a fixed answer (tail) or by the HTTP app over a metrics window (metrics).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildProgram } from '../../bin/cli/program';
import type { StoredEventView } from '../../functions/http/contract';
import { CARHOOK_METRIC_NAMES as M } from '../../functions/runtime/metric-names';
import { createMetricsWindow } from '../../functions/runtime/metrics-window';
import { DOCUMENT_TOKEN, documentedApp } from '../http/document-support';

let written = '';
beforeEach(() => {
  written = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written += String(chunk);
    return true;
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const run = (...args: string[]) =>
  buildProgram().parseAsync(['--url', 'http://127.0.0.1:8080', '--token', DOCUMENT_TOKEN, ...args], {
    from: 'user',
  });

const event = (id: string, detectedAt: string, occurredAt: string, sequence: number): StoredEventView => ({
  id,
  type: 'vehicle.alert.raised',
  schemaVersion: 1,
  occurredAt,
  detectedAt,
  sequence,
  vehicle: { id: 'veh-1' },
  source: { api: 'v2' },
  data: {},
  published: true,
});

describe('carhook events tail', () => {
  it('prints the events in detection order, whatever order they occurred or are listed in', async () => {
    // An alert active since last year, found at 10:00:05; two changes detected before it.
    const page = [
      event('evt_history', '2026-11-22T10:00:05.000Z', '2025-11-01T08:00:00.000Z', 3),
      event('evt_second', '2026-11-22T10:00:03.000Z', '2026-11-22T10:00:02.000Z', 2),
      event('evt_first', '2026-11-22T10:00:01.000Z', '2026-11-22T10:00:00.000Z', 1),
    ];
    const asked: string[] = [];
    vi.stubGlobal('fetch', async (url: URL | string) => {
      asked.push(String(url));
      return new Response(JSON.stringify({ events: page }), {
        headers: { 'content-type': 'application/json' },
      });
    });
    await run('events', 'tail', '--once');
    expect(asked).toHaveLength(1);
    expect(new URL(asked[0] ?? '').pathname).toBe('/events');
    const lines = written.trim().split('\n');
    expect(lines.map((l) => /evt_\w+/.exec(l)?.[0])).toEqual(['evt_first', 'evt_second', 'evt_history']);
    expect(lines.map((l) => l.slice(0, 24))).toEqual([
      '2026-11-22T10:00:01.000Z',
      '2026-11-22T10:00:03.000Z',
      '2026-11-22T10:00:05.000Z',
    ]);
    expect(lines[2]).toContain('occurred 2025-11-01T08:00:00.000Z');
  });
});

describe('carhook metrics', () => {
  it('shows the detection lag of the changes apart from the history found at enrollment', async () => {
    let now = 0;
    const recent = createMetricsWindow({ now: () => now, quota: { limit: 120, windowSeconds: 60 } });
    const env = await documentedApp({ recentMetrics: recent.snapshot });
    try {
      now = env.s.runtime.now();
      // Two changes detected 20 s and 30 s after they occurred; three alerts already there at enrollment.
      recent.sink.record(M.detectionLagMs, 'Milliseconds', 20_000);
      recent.sink.record(M.detectionLagMs, 'Milliseconds', 30_000);
      recent.sink.record(M.historyFound, 'Count', 3);
      vi.stubGlobal('fetch', (url: URL | string, init?: RequestInit) => env.app.request(String(url), init));
      await run('metrics');
    } finally {
      await env.close();
    }
    const lines = written.trim().split('\n');
    const header = lines.find((l) => l.startsWith('minute'));
    expect(header?.split(/\s{2,}/)).toEqual([
      'minute',
      'requests',
      '429',
      'events',
      'delivered/failed',
      'lag p95',
      'history',
    ]);
    const minute = new Date(now).toISOString().slice(11, 16);
    const row = lines.find((l) => l.startsWith(minute));
    expect(row?.split(/\s{2,}/).slice(-2)).toEqual(['30 s', '3']);
    expect(written).toContain('history: what a first poll found already there');
  });
});
