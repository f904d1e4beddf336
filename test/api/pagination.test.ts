import { describe, expect, it } from 'vitest';
import { createCarClient } from '../../functions/core/api';
import { fakeFetch, hal, json, testClient } from './support';

const alerts = Array.from({ length: 15 }, (_, i) => ({ id: `a${i}`, active: true, message: 'espFault' }));

/** A server paging `items` honestly by limit/offset. */
function pagingServer(items: unknown[], name = 'alerts') {
  return (req: { url: URL }) => {
    const limit = Number(req.url.searchParams.get('limit') ?? 10);
    const offset = Number(req.url.searchParams.get('offset') ?? 0);
    return json(hal(name, items.slice(offset, offset + limit), items.length));
  };
}

describe('HAL lists', () => {
  it('marks a single page complete only when it holds every item', async () => {
    const { client } = testClient(pagingServer(alerts));
    const first = await client.v2.alerts({ vehicleId: 'v1', limit: 5 });
    expect(first.ok && first.value).toMatchObject({ total: 15, offset: 0, complete: false });
    const whole = await client.v2.alerts({ vehicleId: 'v1', limit: 20 });
    expect(whole.ok && whole.value).toMatchObject({ total: 15, complete: true });
    expect(whole.ok && whole.value.items).toHaveLength(15);
  });

  it('iterates offsets 0, 5, 10 until total (15 items, limit 5)', async () => {
    const { client, requests } = testClient(pagingServer(alerts));
    const offsets: number[] = [];
    for await (const page of client.v2.alerts.pages({ vehicleId: 'v1', limit: 5 })) {
      expect(page.ok).toBe(true);
      if (page.ok) offsets.push(page.value.offset);
    }
    expect(offsets).toEqual([0, 5, 10]);
    expect(requests.map((r) => r.url.searchParams.get('offset'))).toEqual(['0', '5', '10']);
  });

  it('collects every page with all(), summing the requests', async () => {
    const { client } = testClient(pagingServer(alerts));
    const r = await client.v2.alerts.all({ vehicleId: 'v1', limit: 4 });
    expect(r).toMatchObject({ ok: true, requests: 4, value: { total: 15, complete: true, pages: 4 } });
    expect(r.ok && r.value.items.map((a) => a.id)).toEqual(alerts.map((a) => a.id));
  });

  it('fails the whole list when a page fails mid-iteration, never a short list', async () => {
    const honest = pagingServer(alerts);
    const { client } = testClient((req, n) => (n === 2 ? json({}, 403) : honest(req)), {
      retry: { maxAttempts: 1 },
    });
    const r = await client.v2.alerts.all({ vehicleId: 'v1', limit: 5 });
    expect(r).toMatchObject({ ok: false, requests: 2, error: { kind: 'AccessDenied' } });
  });

  it('yields the failing page last and stops', async () => {
    const honest = pagingServer(alerts);
    const { client } = testClient((req, n) => (n === 2 ? json({}, 500) : honest(req)), {
      retry: { maxAttempts: 1 },
    });
    const pages = [];
    for await (const page of client.v2.alerts.pages({ vehicleId: 'v1', limit: 5 })) pages.push(page.ok);
    expect(pages).toEqual([true, false]);
  });

  it('stops on an empty page even if total claims more', async () => {
    const { client, requests } = testClient((req) => {
      const offset = Number(req.url.searchParams.get('offset'));
      return json(hal('alerts', offset === 0 ? alerts.slice(0, 5) : [], 999));
    });
    const r = await client.v2.alerts.all({ vehicleId: 'v1', limit: 5 });
    expect(r).toMatchObject({ ok: true, value: { pages: 2 } });
    expect(r.ok && r.value.items).toHaveLength(5);
    expect(requests).toHaveLength(2);
  });

  it('bounds the pages followed when the server lies about total', async () => {
    const ff = fakeFetch(() => json(hal('alerts', alerts.slice(0, 5), 1_000_000)));
    const client = createCarClient({
      baseUrl: 'http://127.0.0.1:1',
      authUrl: 'http://127.0.0.1:1',
      clientId: 'c',
      clientSecret: 'secret-xyz',
      brand: 'b',
      fetch: ff.fetch,
      maxPages: 7,
      tokenProvider: { getAccessToken: async () => 't', refreshAccessToken: async () => 't' },
    });
    const r = await client.v2.alerts.all({ vehicleId: 'v1', limit: 5 });
    expect(r).toMatchObject({ ok: false, requests: 7, error: { kind: 'Malformed' } });
    expect(ff.requests).toHaveLength(7);
  });

  it('keeps following pages when the server sends no total', async () => {
    const { client, requests } = testClient((req) => {
      const limit = Number(req.url.searchParams.get('limit'));
      const offset = Number(req.url.searchParams.get('offset'));
      return json({ _embedded: { alerts: alerts.slice(offset, offset + limit) } });
    });
    const first = await client.v2.alerts({ vehicleId: 'v1', limit: 5 });
    expect(first.ok && first.value.complete).toBe(false);
    const r = await client.v2.alerts.all({ vehicleId: 'v1', limit: 5 });
    expect(r.ok && r.value.items).toHaveLength(15);
    // 0, 5, 10 full; 15 empty ends it.
    expect(requests.slice(1).map((q) => q.url.searchParams.get('offset'))).toEqual(['0', '5', '10', '15']);
  });

  it('drops the duplicate an insertion between two page reads causes', async () => {
    const newest = { id: 'new', active: true, message: 'espFault' };
    const { client } = testClient((req) => {
      const offset = Number(req.url.searchParams.get('offset'));
      // After the first page, a new alert appears at the head (newest first).
      const list = offset === 0 ? alerts : [newest, ...alerts];
      return json(hal('alerts', list.slice(offset, offset + 5), list.length));
    });
    const r = await client.v2.alerts.all({ vehicleId: 'v1', limit: 5 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const ids = r.value.items.map((a) => a.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(alerts.map((a) => a.id));
  });

  it('reads a 404 page as the empty end of an iteration', async () => {
    const { client } = testClient(() => json({}, 404));
    const r = await client.v2.events.all({ vehicleId: 'v1' });
    expect(r).toMatchObject({ ok: true, value: { items: [], total: 0, complete: true, pages: 1 } });
  });

  it('lets params be left out only where nothing is required', async () => {
    const { client, requests } = testClient(() =>
      json(hal('vehicles', [{ id: 'v1', vin: 'VF3ABCDEF12345678' }])),
    );
    const page = await client.v2.vehicles();
    const all = await client.v2.vehicles.all();
    expect(page.ok && all.ok).toBe(true);
    expect(requests[0]?.url.searchParams.get('limit')).toBeNull();
    // @ts-expect-error a vehicle's alerts need its id
    const missing = await client.v2.alerts();
    expect(missing).toMatchObject({
      ok: false,
      requests: 0,
      error: { kind: 'InvalidRequest', field: 'vehicleId' },
    });
  });

  it('uses the default limit of 60 for telemetry', async () => {
    const { client, requests } = testClient(() => json(hal('telemetries', [])));
    await client.v2.telemetry.all({ vehicleId: 'v1' });
    expect(requests[0]?.url.searchParams.get('limit')).toBe('60');
  });
});
