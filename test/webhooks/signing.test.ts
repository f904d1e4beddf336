import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  activeSecrets,
  generateSecret,
  parseSecret,
  ROTATION_GRACE_MS,
  rotateSecrets,
  sign,
  verify,
  webhookHeaders,
} from '../../functions/core/webhooks/signing';

const vector = JSON.parse(readFileSync('/work/shared/reference/standard-webhooks-vector.json', 'utf8')) as {
  secret: string;
  id: string;
  timestamp: number;
  body: string;
  signature: string;
};

function unwrap<T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe('signing', () => {
  it('reproduces the Standard Webhooks published test vector exactly', () => {
    expect(unwrap(sign(vector.secret, vector.id, vector.timestamp, vector.body))).toBe(vector.signature);
  });

  it('verifies the published test vector at its own time, and refuses it 5 minutes and 1 second later', () => {
    const headers = {
      'webhook-id': vector.id,
      'webhook-timestamp': String(vector.timestamp),
      'webhook-signature': vector.signature,
    };
    const at = new Date(vector.timestamp * 1000);
    expect(verify(headers, vector.body, vector.secret, { now: at }).ok).toBe(true);
    const late = verify(headers, vector.body, vector.secret, {
      now: new Date((vector.timestamp + 301) * 1000),
    });
    expect(late.ok ? 'ok' : late.error.reason).toBe('timestamp-too-old');
    const early = verify(headers, vector.body, vector.secret, {
      now: new Date((vector.timestamp - 301) * 1000),
    });
    expect(early.ok ? 'ok' : early.error.reason).toBe('timestamp-too-new');
  });

  it('generates whsec_ secrets of 24 to 64 random bytes that parse back', () => {
    const a = generateSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(unwrap(parseSecret(a)).length).toBe(32);
    expect(unwrap(parseSecret(generateSecret(8))).length).toBe(24);
    expect(unwrap(parseSecret(generateSecret(1000))).length).toBe(64);
    expect(generateSecret()).not.toBe(a);
  });

  it('refuses malformed secrets with a message naming the secret', () => {
    for (const bad of [
      'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'whsec_',
      'whsec_!!!!',
      `whsec_${Buffer.alloc(8).toString('base64')}`,
    ]) {
      const r = parseSecret(bad);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.message).toMatch(/^secret: /);
    }
  });

  it('signs with ours and verifies with the standardwebhooks package', () => {
    const secret = generateSecret();
    const body = '{"type":"vehicle.alert.raised","timestamp":"2026-11-22T10:00:00.000Z","data":{"é":"ü"}}';
    const headers = unwrap(
      webhookHeaders({ id: 'evt_1', body, secrets: { current: secret }, now: new Date() }),
    );
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it('verifies with ours what the standardwebhooks package signed', () => {
    const secret = generateSecret();
    const body = '{"hello":"world"}';
    const now = new Date();
    const signature = new Webhook(secret).sign('msg_42', now, body);
    const headers = {
      'Webhook-Id': 'msg_42',
      'Webhook-Timestamp': String(Math.floor(now.getTime() / 1000)),
      'Webhook-Signature': signature,
    };
    expect(verify(headers, body, secret, { now })).toEqual({
      ok: true,
      value: { id: 'msg_42', timestamp: Math.floor(now.getTime() / 1000) },
    });
    expect(verify(new Headers(headers), Buffer.from(body), secret, { now }).ok).toBe(true);
  });

  it('refuses a tampered body, a different id and the wrong secret', () => {
    const secret = generateSecret();
    const now = new Date();
    const headers = unwrap(
      webhookHeaders({ id: 'evt_1', body: '{"a":1}', secrets: { current: secret }, now }),
    );
    const reason = (r: ReturnType<typeof verify>) => (r.ok ? 'ok' : r.error.reason);
    expect(reason(verify(headers, '{"a":2}', secret, { now }))).toBe('no-matching-signature');
    expect(reason(verify({ ...headers, 'webhook-id': 'evt_2' }, '{"a":1}', secret, { now }))).toBe(
      'no-matching-signature',
    );
    expect(reason(verify(headers, '{"a":1}', generateSecret(), { now }))).toBe('no-matching-signature');
    expect(reason(verify({ ...headers, 'webhook-signature': 'v2,abc' }, '{"a":1}', secret, { now }))).toBe(
      'no-matching-signature',
    );
  });

  it('names the missing headers and a non-numeric timestamp', () => {
    const r = verify({ 'webhook-id': 'x' }, '', generateSecret());
    expect(r.ok ? '' : r.error.message).toBe('missing header(s): webhook-timestamp, webhook-signature');
    const t = verify(
      { 'webhook-id': 'x', 'webhook-timestamp': '2026-11-22', 'webhook-signature': 'v1,x' },
      '',
      generateSecret(),
    );
    expect(t.ok ? 'ok' : t.error.reason).toBe('invalid-timestamp');
  });
});

describe('secret rotation', () => {
  const rotationTime = new Date('2026-11-22T10:00:00.000Z');
  const old = generateSecret();
  const fresh = generateSecret();
  const rotated = rotateSecrets({ current: old }, rotationTime, fresh);

  it('sends both signatures during the 24 h grace, and either secret verifies (standardwebhooks)', () => {
    const now = new Date();
    const during = { current: fresh, previous: { secret: old, rotatedAt: now.toISOString() } };
    const body = '{"x":1}';
    const headers = unwrap(webhookHeaders({ id: 'evt_r', body, secrets: during, now }));
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(fresh).verify(body, { ...headers })).toEqual({ x: 1 });
    expect(new Webhook(old).verify(body, { ...headers })).toEqual({ x: 1 });
  });

  it('drops the previous secret once its 24 h grace is over', () => {
    expect(activeSecrets(rotated, new Date(rotationTime.getTime() + ROTATION_GRACE_MS - 1))).toEqual([
      fresh,
      old,
    ]);
    const after = new Date(rotationTime.getTime() + ROTATION_GRACE_MS);
    expect(activeSecrets(rotated, after)).toEqual([fresh]);
    const headers = unwrap(webhookHeaders({ id: 'evt_r', body: '{}', secrets: rotated, now: after }));
    expect(headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(verify(headers, '{}', old, { now: after }).ok).toBe(false);
    expect(verify(headers, '{}', fresh, { now: after }).ok).toBe(true);
  });

  it('keeps every secret rotated within the window until its own expiry: three verify after a double rotation', () => {
    const third = generateSecret();
    const twoHoursLater = new Date(rotationTime.getTime() + 2 * 3600_000);
    const twice = rotateSecrets(rotated, twoHoursLater, third);
    expect(twice.retired?.map((r) => [r.secret, r.expiresAt])).toEqual([
      [fresh, new Date(twoHoursLater.getTime() + ROTATION_GRACE_MS).toISOString()],
      [old, new Date(rotationTime.getTime() + ROTATION_GRACE_MS).toISOString()],
    ]);
    const at = new Date(twoHoursLater.getTime() + 60_000);
    const body = '{"n":3}';
    const headers = unwrap(webhookHeaders({ id: 'evt_2r', body, secrets: twice, now: at }));
    expect(headers['webhook-signature'].split(' ')).toHaveLength(3);
    for (const secret of [third, fresh, old]) {
      // standardwebhooks checks the timestamp against the real clock: verify the signatures at `at`.
      expect(verify(headers, body, secret, { now: at }).ok).toBe(true);
    }
    // The first secret goes at its own expiry; the second stays until its own.
    const firstGone = new Date(rotationTime.getTime() + ROTATION_GRACE_MS);
    expect(activeSecrets(twice, firstGone)).toEqual([third, fresh]);
    expect(activeSecrets(twice, new Date(twoHoursLater.getTime() + ROTATION_GRACE_MS))).toEqual([third]);
  });

  it('signs with all three secrets after a double rotation, each verifying with standardwebhooks', () => {
    const [a, b, c] = [generateSecret(), generateSecret(), generateSecret()];
    const now = new Date();
    const twice = rotateSecrets(rotateSecrets({ current: a }, now, b), now, c);
    const body = '{"ok":true}';
    const headers = unwrap(webhookHeaders({ id: 'evt_sw', body, secrets: twice, now }));
    for (const secret of [a, b, c])
      expect(new Webhook(secret).verify(body, { ...headers })).toEqual({ ok: true });
  });

  it('treats an unparseable rotation time as expired rather than keeping the old secret forever', () => {
    expect(
      activeSecrets({ current: fresh, previous: { secret: old, rotatedAt: 'yesterday' } }, new Date()),
    ).toEqual([fresh]);
  });
});
