import { afterEach, describe, expect, it } from 'vitest';
import { parseSavedRequest, verifySaved } from '../../bin/cli/verify';
import { generateSecret, sign } from '../../functions/core/webhooks/signing';
import {
  describeBody,
  type ReceivedWebhook,
  type RunningReceiver,
  startReceiver,
} from '../../functions/local/receiver';

const body = JSON.stringify({
  type: 'vehicle.alert.raised',
  timestamp: '2026-11-22T03:00:00.000Z',
  data: { id: 'evt_1', vehicle: { id: 'veh-1' } },
});

function signed(secret: string, id = 'evt_1', at = new Date()) {
  const ts = Math.floor(at.getTime() / 1000);
  const sig = sign(secret, id, ts, body);
  if (!sig.ok) throw new Error(sig.error.message);
  return { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': sig.value };
}

describe('the verifying receiver', () => {
  let receiver: RunningReceiver | undefined;
  afterEach(async () => receiver?.close());

  it('answers 204 to a correctly signed webhook and 401 otherwise, printing one line each', async () => {
    const secret = generateSecret();
    const got: ReceivedWebhook[] = [];
    const lines: string[] = [];
    receiver = await startReceiver({
      port: 0,
      secret,
      out: { write: (l: string) => lines.push(l) },
      onWebhook: (w) => got.push(w),
    });
    const post = (headers: Record<string, string>) =>
      fetch(receiver?.url ?? '', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    expect((await post(signed(secret))).status).toBe(204);
    expect((await post(signed(generateSecret()))).status).toBe(401);
    expect((await post({})).status).toBe(401);
    expect(got.map((w) => w.verified)).toEqual([true, false, false]);
    expect(got[0]).toMatchObject({ id: 'evt_1', type: 'vehicle.alert.raised', vehicleId: 'veh-1' });
    expect(lines[0]).toMatch(/^webhook ✓ vehicle\.alert\.raised\s+veh-1\s+evt_1/);
    expect(lines[2]).toMatch(/missing header/);
  });

  it('refuses everything until a secret is set', async () => {
    const secret = generateSecret();
    receiver = await startReceiver({ port: 0, out: null });
    const post = () => fetch(receiver?.url ?? '', { method: 'POST', headers: signed(secret), body });
    expect((await post()).status).toBe(401);
    receiver.setSecret(secret);
    expect((await post()).status).toBe(204);
  });

  it('names a busy port', async () => {
    receiver = await startReceiver({ port: 0, out: null });
    await expect(startReceiver({ port: receiver.port, out: null })).rejects.toMatchObject({
      kind: 'PortInUse',
    });
  });

  it('describes bodies that are not Carhook payloads without failing', () => {
    expect(describeBody('not json')).toEqual({ type: '(not JSON)' });
    expect(describeBody('{"x":1}')).toEqual({ type: '(no type)' });
  });
});

describe('carhook verify (saved requests)', () => {
  const secret = generateSecret();
  it('verifies a saved JSON request, and refuses another secret or a changed body', () => {
    const saved = parseSavedRequest(
      JSON.stringify({ headers: signed(secret, 'evt_9', new Date(Date.UTC(2020, 0, 1))), body }),
    );
    if (!saved.ok) throw new Error(saved.message);
    expect(verifySaved(saved.value, secret, true)).toMatchObject({ valid: true, id: 'evt_9' });
    // Old timestamps are refused unless asked otherwise.
    expect(verifySaved(saved.value, secret, false)).toMatchObject({ valid: false });
    expect(verifySaved(saved.value, generateSecret(), true)).toMatchObject({ valid: false });
    expect(verifySaved({ ...saved.value, body: `${body} ` }, secret, true)).toMatchObject({ valid: false });
  });

  it('reads raw HTTP: request line, headers, blank line, body', () => {
    const h = signed(secret, 'evt_raw');
    const raw = `POST /hooks HTTP/1.1\r\nHost: x\r\nWebhook-Id: ${h['webhook-id']}\r\nwebhook-timestamp: ${h['webhook-timestamp']}\r\nwebhook-signature: ${h['webhook-signature']}\r\n\r\n${body}`;
    const saved = parseSavedRequest(raw);
    if (!saved.ok) throw new Error(saved.message);
    expect(verifySaved(saved.value, secret, false)).toMatchObject({ valid: true, id: 'evt_raw' });
  });

  it.each([
    ['{"headers": 1, "body": ""}', 'headers: must be an object'],
    ['{"headers": {}, "body": 3}', 'body: must be the raw body as a string'],
    ['{ nope', 'looks like JSON but does not parse'],
    ['just one line', 'raw HTTP needs headers, a blank line, then the body'],
  ])('names what is wrong with %s', (text, message) => {
    expect(parseSavedRequest(text)).toEqual({ ok: false, message });
  });
});
