import type { CarhookEvent } from '@carhook/events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createReceiver } from '../../examples/webhook-receiver/src/app';
import { buildPayload, canonicalJson } from '../../functions/core/webhooks/payload';
import { generateSecret, sign } from '../../functions/core/webhooks/signing';

const NOW = new Date('2026-01-15T10:00:00.000Z');
const secret = generateSecret();

function request(event: Record<string, unknown>, signWith = secret): Request {
  const body = canonicalJson(buildPayload(event as never));
  if (!body.ok) throw new Error(body.error.message);
  const ts = Math.floor(NOW.getTime() / 1000);
  const sig = sign(signWith, String(event.id), ts, body.value);
  if (!sig.ok) throw new Error(sig.error.message);
  return new Request('http://receiver/webhooks', {
    method: 'POST',
    headers: {
      'webhook-id': String(event.id),
      'webhook-timestamp': String(ts),
      'webhook-signature': sig.value,
    },
    body: body.value,
  });
}

const event = (id: string, type = 'webhook.test') => ({
  id,
  type,
  schemaVersion: 1,
  occurredAt: NOW.toISOString(),
  detectedAt: NOW.toISOString(),
  sequence: 0,
  source: { api: 'carhook' },
  data: {},
});

describe('example receiver app', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('hands each event id to the handler once, and again after the handler failed', async () => {
    vi.useFakeTimers({ now: NOW });
    const got: string[] = [];
    let fail = true;
    const app = createReceiver({
      secrets: () => [secret],
      onEvent: (e: CarhookEvent) => {
        if (fail) throw new Error('database down');
        got.push(e.id);
      },
    });
    expect((await app.request(request(event('evt_a')))).status).toBe(500);
    fail = false;
    expect((await app.request(request(event('evt_a')))).status).toBe(204);
    expect((await app.request(request(event('evt_a')))).status).toBe(204);
    expect((await app.request(request(event('evt_b')))).status).toBe(204);
    expect(got).toEqual(['evt_a', 'evt_b']);
  });

  it('answers 401 to a wrong secret, 400 naming the field to a signed non-Carhook body, and passes newer types to onUnknown', async () => {
    vi.useFakeTimers({ now: NOW });
    const got: string[] = [];
    const unknown: string[] = [];
    const app = createReceiver({
      secrets: () => [secret],
      onEvent: (e) => void got.push(e.id),
      onUnknown: (e) => void unknown.push(`${e.type} ${e.id}`),
      rememberIds: 1,
    });
    expect((await app.request(request(event('evt_c'), generateSecret()))).status).toBe(401);
    const bad = await app.request(request({ ...event('evt_d'), data: undefined, type: 'webhook.test' }));
    expect(bad.status).toBe(204);
    const notCarhook = request({ id: 'evt_e', type: 'x' });
    const answer = await app.request(notCarhook);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ field: 'timestamp' });
    expect((await app.request(request(event('evt_f', 'vehicle.teleported')))).status).toBe(204);
    expect(unknown).toEqual(['vehicle.teleported evt_f']);
    // rememberIds 1: evt_d was forgotten when evt_f was remembered, so it is handed over again.
    expect((await app.request(request({ ...event('evt_d'), data: undefined }))).status).toBe(204);
    expect(got).toEqual(['evt_d', 'evt_d']);
  });
});
