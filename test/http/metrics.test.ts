import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../functions/http/app';
import { CARHOOK_METRIC_NAMES as M } from '../../functions/runtime/metric-names';
import { createMetricsWindow } from '../../functions/runtime/metrics-window';
import { type SimRuntime, startSimRuntime } from '../runtime/support';

const TOKEN = 'admin-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}` };

describe('GET /metrics/recent', () => {
  let s: SimRuntime;
  beforeEach(async () => {
    s = await startSimRuntime();
  });
  afterEach(() => s.close());

  it("answers the runtime's last hour behind the admin token", async () => {
    const now = Date.parse('2026-01-15T10:00:30.000Z');
    const recent = createMetricsWindow({ now: () => now, quota: { limit: 120, windowSeconds: 60 } });
    recent.sink.record(M.apiRequests, 'Count', 5);
    const app = createHttpApp(
      { runtime: s.runtime, recentMetrics: recent.snapshot },
      { auth: { kind: 'admin-token', token: TOKEN } },
    );
    expect((await app.request('/metrics/recent')).status).toBe(401);
    const res = await app.request('/metrics/recent', { headers: auth });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { quota: unknown; minutes: { minute: string; apiRequests: number }[] };
    expect(body.quota).toEqual({ limit: 120, windowSeconds: 60 });
    expect(body.minutes).toHaveLength(60);
    expect(body.minutes.at(-1)).toMatchObject({ minute: '2026-01-15T10:00:00.000Z', apiRequests: 5 });
  });

  it('says where the figures are when the runtime keeps none in process (AWS)', async () => {
    const app = createHttpApp({ runtime: s.runtime }, { auth: { kind: 'admin-token', token: TOKEN } });
    const res = await app.request('/metrics/recent', { headers: auth });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({
      error: { code: 'NotAvailable', message: expect.stringContaining('CloudWatch') },
    });
  });
});
