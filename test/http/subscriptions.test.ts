import type http from 'node:http';
import fc from 'fast-check';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { adminAuth, createSubscriptionRoutes } from '../../functions/http/subscriptions';
import { event, harness, T0 } from '../delivery/harness';
import { type ReceivedRequest, type Receiver, startReceiver } from '../webhooks/receiver';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function receiver(
  handler?: (req: ReceivedRequest, res: http.ServerResponse) => void,
): Promise<Receiver> {
  const r = await startReceiver(handler);
  cleanups.push(r.close);
  return r;
}

/** Names resolve through this map; anything else is "public". */
function setup(options: { strict?: boolean } = {}) {
  const dns: Record<string, string> = {
    'metadata.example.com': '169.254.169.254',
    'internal.example.com': '10.1.2.3',
    'loop.example.com': '127.0.0.1',
    'v6loop.example.com': '::1',
    'mapped.example.com': '::ffff:127.0.0.1',
  };
  const h = harness({
    ...(options.strict ? { allowList: null, allowInsecureLoopback: false } : {}),
    resolve: async (host) => {
      const address = dns[host] ?? '93.184.216.34';
      return [{ address, family: address.includes(':') ? 6 : 4 }];
    },
  });
  cleanups.push(h.sender.close);
  const errors: unknown[] = [];
  const app = createSubscriptionRoutes({ service: h.service, onError: (e) => errors.push(e) });
  const call = async (method: string, path: string, body?: unknown, raw?: string) => {
    const init: RequestInit = { method, headers: { 'content-type': 'application/json' } };
    if (raw !== undefined) init.body = raw;
    else if (body !== undefined) init.body = JSON.stringify(body);
    const res = await app.request(path, init);
    const text = await res.text();
    // biome-ignore lint/suspicious/noExplicitAny: parsing boundary: tests read arbitrary JSON answers
    return { status: res.status, text, json: text ? (JSON.parse(text) as Record<string, any>) : undefined };
  };
  return { h, app, call, errors };
}

type Call = ReturnType<typeof setup>['call'];

async function create(call: Call, url: string, extra: Record<string, unknown> = {}) {
  const res = await call('POST', '/subscriptions', { url, ...extra });
  expect(res.status).toBe(201);
  return res.json as { id: string; secret: string };
}

describe('management routes', () => {
  it('creates a subscription: 201, an id and a whsec_ secret shown once; reads never show a secret', async () => {
    const { call } = setup();
    const rx = await receiver();
    const created = await create(call, rx.url(), { eventTypes: ['vehicle.alert.*'], description: 'ops' });
    expect(created.id).toMatch(/^sub_/);
    expect(created.secret).toMatch(/^whsec_/);
    const got = await call('GET', `/subscriptions/${created.id}`);
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({
      id: created.id,
      url: rx.url(),
      status: 'active',
      eventTypes: ['vehicle.alert.*'],
    });
    const list = await call('GET', '/subscriptions');
    expect(list.json?.items.map((s: { id: string }) => s.id)).toEqual([created.id]);
    for (const text of [got.text, list.text]) {
      expect(text).not.toContain('whsec_');
      expect(text).not.toContain('secret');
      expect(text).not.toContain(created.secret.slice(6, 20));
    }
  });

  it('paginates the list', async () => {
    const { call, h } = setup();
    const rx = await receiver();
    const ids = [];
    for (let i = 0; i < 3; i++) {
      h.clock.advance(1);
      ids.push((await create(call, rx.url(`/h${i}`))).id);
    }
    const first = await call('GET', '/subscriptions?limit=2');
    expect(first.json?.items).toHaveLength(2);
    const second = await call('GET', `/subscriptions?limit=2&cursor=${first.json?.cursor}`);
    expect(
      [...(first.json?.items ?? []), ...(second.json?.items ?? [])].map((s: { id: string }) => s.id),
    ).toEqual(ids);
    expect(second.json?.cursor).toBeUndefined();
  });

  it('patches (URL re-validated, null clears a filter), deletes, then 404s', async () => {
    const { call } = setup();
    const rx = await receiver();
    const { id } = await create(call, rx.url(), { vehicleIds: ['veh_1'] });
    const patched = await call('PATCH', `/subscriptions/${id}`, { vehicleIds: null, description: 'new' });
    expect(patched.status).toBe(200);
    expect(patched.json?.vehicleIds).toBeUndefined();
    expect(patched.json?.description).toBe('new');
    const bad = await call('PATCH', `/subscriptions/${id}`, { url: 'https://metadata.example.com/x' });
    expect(bad.status).toBe(400);
    expect(bad.json?.error.issues[0].field).toBe('url');
    expect(bad.json?.error.message).toMatch(/metadata/);
    expect((await call('DELETE', `/subscriptions/${id}`)).status).toBe(204);
    expect((await call('DELETE', `/subscriptions/${id}`)).status).toBe(404);
    expect((await call('GET', `/subscriptions/${id}`)).status).toBe(404);
  });

  it('rotates the secret: the new one is returned once, the old one stays valid 24 h', async () => {
    const { call } = setup();
    const rx = await receiver();
    const { id, secret } = await create(call, rx.url());
    const rotated = await call('POST', `/subscriptions/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.json?.secret).toMatch(/^whsec_/);
    expect(rotated.json?.secret).not.toBe(secret);
    expect(rotated.json?.previousSecretExpiresAt).toBe(new Date(T0 + 24 * 3600_000).toISOString());
    expect((await call('GET', `/subscriptions/${id}`)).text).not.toContain('whsec_');
  });

  it('refuses an eleventh rotation with 409 while ten rotated secrets are valid, and allows it once the oldest expires', async () => {
    const { call, h } = setup();
    const rx = await receiver();
    const { id } = await create(call, rx.url());
    for (let i = 0; i < 10; i++) {
      expect((await call('POST', `/subscriptions/${id}/rotate-secret`)).status).toBe(200);
      h.clock.advance(60_000);
    }
    const refused = await call('POST', `/subscriptions/${id}/rotate-secret`);
    expect(refused.status).toBe(409);
    expect(refused.json?.error.message).toContain('already has 10 rotated secrets still valid');
    // The first rotated secret was retired at T0 and expires 24 h later; one minute after that,
    // nine remain valid and the rotation goes through.
    h.clock.set(T0 + 24 * 3600_000 + 60_000);
    const again = await call('POST', `/subscriptions/${id}/rotate-secret`);
    expect(again.status).toBe(200);
    expect(again.json?.secret).toMatch(/^whsec_/);
  });

  it('tests, lists the attempt log newest first, enables and replays', async () => {
    const { call, h } = setup();
    let status = 500;
    const rx = await receiver((_req, res) => res.writeHead(status).end('{"ok":false}'));
    const { id } = await create(call, rx.url());
    const tested = await call('POST', `/subscriptions/${id}/test`);
    expect(tested.status).toBe(200);
    expect(tested.json?.attempt).toMatchObject({ statusCode: 500, outcome: 'failure', decision: 'retry' });
    status = 200;
    h.clock.advance(1000);
    expect((await call('POST', `/subscriptions/${id}/test`)).json?.attempt.statusCode).toBe(200);
    const log = await call('GET', `/subscriptions/${id}/deliveries?limit=1`);
    expect(log.json?.items).toHaveLength(1);
    expect(log.json?.items[0]).toMatchObject({ statusCode: 200, responseExcerpt: '{"ok":false}' });
    expect(typeof log.json?.items[0].durationMs).toBe('number');
    const older = await call('GET', `/subscriptions/${id}/deliveries?limit=1&cursor=${log.json?.cursor}`);
    expect(older.json?.items[0].statusCode).toBe(500);

    const enabled = await call('POST', `/subscriptions/${id}/enable`);
    expect(enabled.status).toBe(200);
    expect(enabled.json).toMatchObject({ resumed: 0, subscription: { status: 'active' } });

    const e = event({}, T0 + 500);
    await h.log.append([e], T0);
    const replay = await call('POST', `/subscriptions/${id}/replay`, { since: new Date(T0).toISOString() });
    expect(replay.status).toBe(202);
    expect(replay.json).toMatchObject({ events: 1, eventIds: [e.id] });
    await h.drain();
    expect(rx.requests.filter((r) => r.headers['webhook-id'] === e.id)).toHaveLength(1);
  });

  it('disables (parking new deliveries) and re-enables; replays only the chosen event ids', async () => {
    const { call, h } = setup();
    const rx = await receiver((_req, res) => res.writeHead(204).end());
    const { id } = await create(call, rx.url());
    const disabled = await call('POST', `/subscriptions/${id}/disable`);
    expect(disabled.status).toBe(200);
    expect(disabled.json).toMatchObject({
      id,
      status: 'disabled',
      disabledReason: 'disabled by an operator',
    });
    expect((await call('POST', `/subscriptions/${id}/disable`)).json?.status).toBe('disabled');
    expect((await call('POST', `/subscriptions/${id}/test`)).status).toBe(409);
    expect((await call('POST', `/subscriptions/${id}/enable`)).json?.subscription.status).toBe('active');

    const [a, b] = [event({}, T0 + 500), event({}, T0 + 600)];
    expect(a?.id).not.toBe(b?.id);
    await h.log.append([a, b], T0 + 1000);
    h.clock.advance(2000);
    const since = new Date(T0).toISOString();
    const one = await call('POST', `/subscriptions/${id}/replay`, { since, eventIds: [b.id] });
    expect(one.status).toBe(202);
    expect(one.json).toMatchObject({ events: 1, eventIds: [b.id] });
    await h.drain();
    expect(rx.requests.map((r) => r.headers['webhook-id'])).toEqual([b.id]);
    const bad = await call('POST', `/subscriptions/${id}/replay`, { since, eventIds: ['not-an-event'] });
    expect(bad.status).toBe(400);
    expect(bad.json?.error.field).toBe('eventIds[0]');
  });

  it('shows the backlog before enable, and enables with it delivered or discarded', async () => {
    const { call, h } = setup();
    const rx = await receiver((_req, res) => res.writeHead(204).end());
    const { id } = await create(call, rx.url());
    expect((await call('GET', `/subscriptions/${id}/backlog`)).json).toEqual({
      subscriptionId: id,
      status: 'active',
      events: 0,
      more: false,
      limit: 10_000,
      parked: 0,
    });
    await call('POST', `/subscriptions/${id}/disable`);
    h.clock.advance(1000);
    const missed = event({}, h.clock.ms());
    await h.publish(missed);
    const backlog = await call('GET', `/subscriptions/${id}/backlog`);
    expect(backlog.status).toBe(200);
    expect(backlog.json).toMatchObject({ status: 'disabled', events: 1, window: { truncated: false } });
    const bad = await call('POST', `/subscriptions/${id}/enable`, { backlog: 'later' });
    expect(bad.status).toBe(400);
    expect(bad.json?.error).toMatchObject({ code: 'Malformed', field: 'backlog' });
    const unknown = await call('POST', `/subscriptions/${id}/enable`, { recover: true });
    expect(unknown.json?.error.field).toBe('recover');
    const enabled = await call('POST', `/subscriptions/${id}/enable`, { backlog: 'discard' });
    expect(enabled.status).toBe(200);
    expect(enabled.json?.backlog).toMatchObject({
      action: 'discard',
      matched: 1,
      discarded: 1,
      recovered: 0,
    });
    await h.drain();
    expect(rx.requests).toEqual([]);
  });

  it('filters the attempt log by status, event type and event id; each line has its request and answer', async () => {
    const { call, h } = setup();
    let status = 500;
    const rx = await receiver((_req, res) => res.writeHead(status, { 'x-receiver': 'rx' }).end('nope'));
    const { id } = await create(call, rx.url());
    const [a, b] = [event({}, T0), event({ type: 'vehicle.trip.completed' }, T0)];
    await h.publish(a);
    status = 200;
    h.clock.advance(1000);
    await h.publish(b);
    const all = await call('GET', `/subscriptions/${id}/deliveries`);
    expect(all.json?.items.map((x: { eventId: string }) => x.eventId)).toEqual([b.id, a.id]);
    const failed = await call('GET', `/subscriptions/${id}/deliveries?status=failed`);
    expect(failed.json?.items).toHaveLength(1);
    expect(failed.json?.items[0]).toMatchObject({
      eventId: a.id,
      statusCode: 500,
      errorClass: 'http',
      responseExcerpt: 'nope',
      responseHeaders: { 'x-receiver': 'rx' },
      requestHeaders: { 'webhook-id': a.id, 'content-type': 'application/json' },
    });
    expect(
      (await call('GET', `/subscriptions/${id}/deliveries?eventType=vehicle.trip.completed`)).json?.items,
    ).toMatchObject([{ eventId: b.id, outcome: 'success' }]);
    expect((await call('GET', `/subscriptions/${id}/deliveries?eventId=${a.id}`)).json?.items).toHaveLength(
      1,
    );
    const since = new Date(T0 + 500).toISOString();
    expect((await call('GET', `/subscriptions/${id}/deliveries?since=${since}`)).json?.items).toMatchObject([
      { eventId: b.id },
    ]);
    const bad = await call('GET', `/subscriptions/${id}/deliveries?status=sometimes`);
    expect(bad.status).toBe(400);
    expect(bad.json?.error.field).toBe('status');
  });

  it('recovers the dead letters since a time, as new deliveries of the same events', async () => {
    const { call, h } = setup();
    const rx = await receiver((_req, res) => res.writeHead(204).end());
    const { id } = await create(call, rx.url());
    const dead = (e: ReturnType<typeof event>, at: number) =>
      h.stores.deliveries.create({
        id: `dlv_dead_${e.id}`,
        subscriptionId: id,
        eventId: e.id,
        eventType: e.type,
        envelope: e,
        origin: 'event',
        status: 'dead',
        attempts: 8,
        nextAttemptAt: new Date(at).toISOString(),
        createdAt: new Date(T0).toISOString(),
        updatedAt: new Date(at).toISOString(),
        lastAttemptAt: new Date(at).toISOString(),
      });
    const [old, recent] = [event({}, T0), event({}, T0)];
    await dead(old, T0 - 86_400_000);
    await dead(recent, T0 - 60_000);
    const recovered = await call('POST', `/subscriptions/${id}/recover`, {
      since: new Date(T0 - 3_600_000).toISOString(),
    });
    expect(recovered.status).toBe(202);
    expect(recovered.json).toMatchObject({ deliveries: 1, eventIds: [recent.id] });
    await h.drain();
    expect(rx.requests.map((r) => r.headers['webhook-id'])).toEqual([recent.id]);
    expect((await call('POST', `/subscriptions/${id}/recover`, {})).json?.error.field).toBe('since');
  });

  it('shows an event with its delivery to each subscription; 404 for an unknown one', async () => {
    const { call, h } = setup();
    const rx = await receiver((_req, res) => res.writeHead(204).end());
    const one = await create(call, rx.url());
    const other = await create(call, rx.url(), { eventTypes: ['vehicle.trip.completed'] });
    const e = event();
    await h.publish(e);
    const got = await call('GET', `/events/${e.id}`);
    expect(got.status).toBe(200);
    expect(got.json?.event).toMatchObject({ id: e.id, type: e.type, published: false });
    expect(got.json?.deliveries).toEqual([
      expect.objectContaining({
        subscriptionId: one.id,
        url: rx.url(),
        delivery: expect.objectContaining({ status: 'succeeded', attempts: 1, eventId: e.id }),
      }),
    ]);
    expect(got.json?.deliveries[0].delivery.envelope).toBeUndefined();
    expect(other.id).not.toBe(one.id);
    expect((await call('GET', '/events/evt_missing')).status).toBe(404);
  });

  it('404s unknown ids on every route', async () => {
    const { call } = setup();
    const id = 'sub_0000000000aaaaaaaaaaaaaaaaaaaa';
    for (const [method, path, body] of [
      ['GET', `/subscriptions/${id}`],
      ['PATCH', `/subscriptions/${id}`, { description: 'x' }],
      ['DELETE', `/subscriptions/${id}`],
      ['POST', `/subscriptions/${id}/rotate-secret`],
      ['POST', `/subscriptions/${id}/test`],
      ['GET', `/subscriptions/${id}/backlog`],
      ['POST', `/subscriptions/${id}/enable`],
      ['POST', `/subscriptions/${id}/disable`],
      ['GET', `/subscriptions/${id}/deliveries`],
      ['POST', `/subscriptions/${id}/replay`, { since: '2026-11-22T00:00:00Z' }],
      ['POST', `/subscriptions/${id}/recover`, { since: '2026-11-22T00:00:00Z' }],
      ['GET', '/subscriptions/not-an-id'],
    ] as const) {
      const res = await call(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json?.error.code).toBe('NotFound');
    }
  });
});

describe('bad input', () => {
  it.each([
    ['malformed JSON', '{"url": ', 'body', /not valid JSON/],
    ['an empty body', '', 'body', /required/],
    ['a wrong type', JSON.stringify({ url: 42 }), 'url', /./],
    ['a missing url', JSON.stringify({ eventTypes: ['vehicle.alert.*'] }), 'url', /required/],
    [
      'an unknown event type',
      JSON.stringify({ url: 'https://ok.example.com/h', eventTypes: ['vehicle.nope'] }),
      'eventTypes[0]',
      /unknown event type/,
    ],
    [
      'an unknown operational type',
      JSON.stringify({ url: 'https://ok.example.com/h', eventTypes: ['webhook.test.x'] }),
      'eventTypes[0]',
      /unknown event type/,
    ],
    [
      'an unknown field',
      JSON.stringify({ url: 'https://ok.example.com/h', secret: 'whsec_x' }),
      'secret',
      /unknown field/,
    ],
    ['plain http to a public host', JSON.stringify({ url: 'http://ok.example.com/h' }), 'url', /https/],
    ['credentials in the URL', JSON.stringify({ url: 'https://u:p@ok.example.com/h' }), 'url', /credential/i],
    [
      'a URL over 2,048 characters',
      JSON.stringify({ url: `https://ok.example.com/${'a'.repeat(2100)}` }),
      'url',
      /2048|2,048/,
    ],
    ['an IP literal in a private range', JSON.stringify({ url: 'https://10.0.0.1/h' }), 'url', /private/],
    ['the metadata address', JSON.stringify({ url: 'https://169.254.169.254/latest' }), 'url', /metadata/],
    ['a decimal IP (127.0.0.1)', JSON.stringify({ url: 'https://2130706433/h' }), 'url', /loopback/],
    ['IPv6 loopback', JSON.stringify({ url: 'https://[::1]/h' }), 'url', /loopback/],
    ['IPv4-mapped IPv6 loopback', JSON.stringify({ url: 'https://[::ffff:127.0.0.1]/h' }), 'url', /loopback/],
    [
      'a name resolving to 127.0.0.1',
      JSON.stringify({ url: 'https://loop.example.com/h' }),
      'url',
      /loopback/,
    ],
    ['a name resolving to 10.x', JSON.stringify({ url: 'https://internal.example.com/h' }), 'url', /private/],
    [
      'a name resolving to the metadata address',
      JSON.stringify({ url: 'https://metadata.example.com/h' }),
      'url',
      /metadata/,
    ],
    ['a name resolving to ::1', JSON.stringify({ url: 'https://v6loop.example.com/h' }), 'url', /loopback/],
    [
      'a name resolving to ::ffff:127.0.0.1',
      JSON.stringify({ url: 'https://mapped.example.com/h' }),
      'url',
      /loopback/,
    ],
  ])('POST /subscriptions refuses %s with a 400 naming the field', async (_what, raw, field, reason) => {
    // No allow-list here: what local mode admits for loopback receivers is exactly what this refuses.
    const { call } = setup({ strict: true });
    const res = await call('POST', '/subscriptions', undefined, raw);
    expect(res.status).toBe(400);
    expect(res.json?.error.code).toBe('Malformed');
    expect(res.json?.error.field).toEqual(expect.any(String));
    const issue = res.json?.error.issues.find((i: { field: string }) => i.field === field);
    expect(issue, res.text).toBeDefined();
    expect(issue.reason).toMatch(reason);
  });

  it('refuses bad pagination and replay bodies naming the field', async () => {
    const { call } = setup();
    const rx = await receiver();
    const { id } = await create(call, rx.url());
    for (const [path, field] of [
      ['/subscriptions?limit=0', 'limit'],
      ['/subscriptions?limit=abc', 'limit'],
      ['/subscriptions?cursor=forged', 'cursor'],
      [`/subscriptions/${id}/deliveries?limit=1000`, 'limit'],
      [`/subscriptions/${id}/deliveries?cursor=%7B%7D`, 'cursor'],
    ] as const) {
      const res = await call('GET', path);
      expect(res.status, path).toBe(400);
      expect(res.json?.error.issues[0].field).toBe(field);
    }
    for (const [body, field] of [
      [{}, 'since'],
      [{ since: 'yesterday' }, 'since'],
      [{ since: '2026-11-22T10:00:00Z', until: '2026-11-21T10:00:00Z' }, 'until'],
      [{ since: '2026-11-22T10:00:00Z', eventTypes: ['nope.*'] }, 'eventTypes[0]'],
    ] as const) {
      const res = await call('POST', `/subscriptions/${id}/replay`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json?.error.issues.map((i: { field: string }) => i.field)).toContain(field);
    }
    const empty = await call('PATCH', `/subscriptions/${id}`, {});
    expect(empty.status).toBe(400);
  });

  it('answers 413 to an oversized body', async () => {
    const { call } = setup();
    const res = await call(
      'POST',
      '/subscriptions',
      undefined,
      JSON.stringify({ url: 'https://a.example.com', description: 'x'.repeat(70_000) }),
    );
    expect(res.status).toBe(413);
    expect(res.json?.error).toMatchObject({ code: 'PayloadTooLarge', field: 'body' });
  });

  it('never answers 5xx to random bodies on any route, and names the problem', async () => {
    const { call, errors } = setup();
    const rx = await receiver();
    const { id } = await create(call, rx.url());
    const routes: [string, string][] = [
      ['POST', '/subscriptions'],
      ['PATCH', `/subscriptions/${id}`],
      ['POST', `/subscriptions/${id}/replay`],
      ['POST', `/subscriptions/${id}/rotate-secret`],
      ['POST', `/subscriptions/${id}/enable`],
      ['GET', `/subscriptions/${id}`],
      ['GET', `/subscriptions/${id}/deliveries`],
      ['DELETE', '/subscriptions/sub_0000000000aaaaaaaaaaaaaaaaaaaa'],
    ];
    const body = fc.oneof(
      fc.string(),
      fc.json(),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc
        .record(
          {
            url: fc.oneof(fc.webUrl(), fc.string(), fc.integer(), fc.constant(null)),
            eventTypes: fc.oneof(
              fc.array(fc.constantFrom('vehicle.alert.*', '*', 'x', 'webhook.test', '')),
              fc.string(),
            ),
            vehicleIds: fc.anything(),
            since: fc.oneof(
              fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
              fc.string(),
            ),
            until: fc.anything(),
            description: fc.anything(),
          },
          { requiredKeys: [] },
        )
        .map((v) => JSON.stringify(v)),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), body, async ([method, path], raw) => {
        const out = await call(method, path, undefined, method === 'GET' ? undefined : raw);
        expect(out.status).toBeLessThan(500);
        if (out.status >= 400) {
          expect(typeof out.json?.error.message).toBe('string');
          expect(out.json?.error.message.length).toBeGreaterThan(0);
        }
        expect(out.text).not.toContain('secretCiphertext');
      }),
      { numRuns: 150 },
    );
    expect(errors).toEqual([]);
  });
});

describe('adminAuth', () => {
  const token = 'local-admin-token-0123456789';
  function app() {
    const a = new Hono();
    a.use('*', adminAuth(token));
    a.get('/subscriptions', (c) => c.json({ items: [] }));
    return a;
  }

  it('lets the right bearer token through', async () => {
    const res = await app().request('/subscriptions', { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
  });

  it.each([
    ['no header', undefined],
    ['a wrong token', 'Bearer local-admin-token-0123456780'],
    ['a prefix of the token', `Bearer ${token.slice(0, 10)}`],
    ['another scheme', `Basic ${token}`],
    ['an empty bearer', 'Bearer '],
  ])('answers 401 JSON to %s', async (_what, header) => {
    const res = await app().request('/subscriptions', header ? { headers: { authorization: header } } : {});
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('Unauthorized');
  });

  it('refuses to start with a short or empty token', () => {
    expect(() => adminAuth('')).toThrow(/adminToken/);
    expect(() => adminAuth('short')).toThrow(/at least 16/);
  });
});
