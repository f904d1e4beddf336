import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemorySubscriptionStores } from '../../functions/adapters/memory/subscriptions';
import type { DeliveryJob } from '../../functions/core/delivery/engine';
import { createHttpApp } from '../../functions/http/app';
import { findBadString, MAX_JSON_BODY_BYTES } from '../../functions/http/body';
import { createCursorCodec, MAX_CURSOR_LENGTH } from '../../functions/http/cursor';
import { createWebhooks } from '../../functions/runtime/webhooks';
import { MemoryQueue } from '../polling/support';
import { type SimRuntime, startSimRuntime } from '../runtime/support';
import { loopbackAllowList } from '../webhooks/receiver';

const TOKEN = 'admin-token-0123456789abcdef';
// biome-ignore lint/suspicious/noExplicitAny: JSON responses, read freely by tests.
type Json = any;

/** A body that arrives as a stream with no Content-Length (chunked on the wire). */
function streamOf(bytes: number): ReadableStream<Uint8Array> {
  let sent = 0;
  const chunk = new Uint8Array(16 * 1024).fill(0x20);
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
}

describe('HTTP edge limits, the same on every route', () => {
  let s: SimRuntime;
  let app: ReturnType<typeof createHttpApp>;
  let subscriptionId = '';

  beforeEach(async () => {
    s = await startSimRuntime();
    const webhooks = await createWebhooks(s.runtime, {
      ...createMemorySubscriptionStores(),
      deliveryQueue: new MemoryQueue<DeliveryJob>(),
      senderOptions: { allowInsecureLoopback: true, allowList: loopbackAllowList() },
    });
    app = createHttpApp(
      { runtime: s.runtime, subscriptions: webhooks.service },
      { auth: { kind: 'admin-token', token: TOKEN } },
    );
    const created = await call('POST', '/subscriptions', JSON.stringify({ url: 'http://127.0.0.1:8999/h' }));
    subscriptionId = created.body.id;
  });
  afterEach(() => s.close());

  async function call(
    method: string,
    path: string,
    body?: string | ReadableStream<Uint8Array>,
    headers: Record<string, string> = {},
  ) {
    const res = await app.request(path, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
      ...(body !== undefined ? { body, duplex: 'half' } : {}),
    } as RequestInit);
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Json };
  }

  const routes = () =>
    [
      ['POST', '/enrollments/contracts'],
      ['POST', '/subscriptions'],
      ['PATCH', `/subscriptions/${subscriptionId}`],
      ['POST', `/subscriptions/${subscriptionId}/replay`],
      ['POST', `/subscriptions/${subscriptionId}/rotate-secret`],
    ] as const;

  it('answers 413 PayloadTooLarge naming body, whether the size is declared or streamed', async () => {
    for (const [method, path] of routes()) {
      const declared = await call(method, path, `{"pad":"${'x'.repeat(MAX_JSON_BODY_BYTES)}"}`, {
        'content-length': String(MAX_JSON_BODY_BYTES + 10),
      });
      const streamed = await call(method, path, streamOf(10 * MAX_JSON_BODY_BYTES));
      for (const res of [declared, streamed]) {
        expect(res.status, `${method} ${path}`).toBe(413);
        expect(res.body.error).toMatchObject({ code: 'PayloadTooLarge', field: 'body' });
      }
    }
  });

  it('answers 415 naming content-type to a body that is not declared JSON', async () => {
    for (const [method, path] of routes()) {
      for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
        const res = await call(method, path, '{}', { 'content-type': type });
        expect(res.status, `${method} ${path} ${type}`).toBe(415);
        expect(res.body.error).toMatchObject({ code: 'UnsupportedMediaType', field: 'content-type' });
      }
    }
    // +json media types and parameters are JSON.
    const car = s.sim.world.vehicles()[0];
    const vendor = await call(
      'POST',
      '/enrollments/contracts',
      JSON.stringify({ vin: car?.vin, contract: car?.contract, brand: car?.brand }),
      { 'content-type': 'application/vnd.carhook+json; charset=utf-8' },
    );
    expect(vendor.status).toBe(201);
  });

  it('names an unknown field of the fleet contract body', async () => {
    const res = await call(
      'POST',
      '/enrollments/contracts',
      JSON.stringify({ vin: 'VF1AB000000000778', contract: 'K', brand: 'C', owner: 'x' }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'InvalidInput', field: 'owner' });
  });

  it('refuses NUL and lone surrogates wherever they are, naming the field', async () => {
    const nul = await call(
      'POST',
      '/subscriptions',
      JSON.stringify({ url: 'http://127.0.0.1:8999/a\u0000' }),
    );
    expect(nul.body.error).toMatchObject({ code: 'Malformed', field: 'url' });
    const surrogate = await call(
      'PATCH',
      `/subscriptions/${subscriptionId}`,
      '{"description":"ok","vehicleIds":["a","\\udbff"]}',
    );
    expect(surrogate.status).toBe(400);
    expect(surrogate.body.error).toMatchObject({ field: 'vehicleIds[1]' });
    expect(surrogate.body.error.message).toMatch(/lone UTF-16 surrogate/);
    // A valid pair (an emoji) is fine.
    expect(findBadString({ description: 'car \ud83d\ude97' })).toBeUndefined();
  });

  it('hands out cursors only it can open: a forged, edited or other-list cursor is a 400', async () => {
    for (let i = 0; i < 3; i++) {
      await call('POST', '/subscriptions', JSON.stringify({ url: `http://127.0.0.1:8999/h${i}` }));
    }
    const first = await call('GET', '/subscriptions?limit=2');
    const cursor: string = first.body.cursor;
    expect(cursor).toMatch(/^[\w-]+\.[\w-]{22}$/);
    const second = await call('GET', `/subscriptions?limit=2&cursor=${cursor}`);
    expect(second.status).toBe(200);
    expect(second.body.items).toHaveLength(2);
    for (const forged of [
      `${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`,
      Buffer.from('{"pk":"x"}').toString('base64url'),
      'x'.repeat(MAX_CURSOR_LENGTH + 1),
    ]) {
      const res = await call('GET', `/subscriptions?cursor=${forged}`);
      expect(res.status).toBe(400);
      expect(res.body.error.field).toBe('cursor');
    }
    const elsewhere = await call('GET', `/enrollments?cursor=${cursor}`);
    expect(elsewhere.body.error).toMatchObject({ code: 'InvalidInput', field: 'cursor' });
  });
});

describe('cursor codec', () => {
  const codec = createCursorCodec(Buffer.alloc(32, 7));

  it('round-trips a store cursor for the same list only', () => {
    const sealed = codec.seal('events', '{"pk":"a","sk":"b"}');
    expect(codec.open('events', sealed)).toEqual({ ok: true, value: '{"pk":"a","sk":"b"}' });
    expect(codec.open('enrollments', sealed).ok).toBe(false);
    expect(codec.seal('events', undefined)).toBeUndefined();
    expect(codec.open('events', undefined)).toEqual({ ok: true, value: undefined });
  });

  it('refuses a cursor sealed with another key', () => {
    const other = createCursorCodec(Buffer.alloc(32, 8));
    expect(codec.open('events', other.seal('events', 'k')).ok).toBe(false);
  });
});
