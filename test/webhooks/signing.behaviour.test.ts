import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  activeSecrets,
  generateSecret,
  parseSecret,
  ROTATION_GRACE_MS,
  retiredSecrets,
  rotateSecrets,
  sign,
  verify,
  webhookHeaders,
} from '../../functions/core/webhooks/signing';

/**
 * Signing stated exactly: signatures for fixed inputs (checked against the standardwebhooks
 * reference package, not against our own code), every boundary on both sides (secret byte
 * lengths, rotation expiry at 24 h, timestamp tolerance at 300 s) and how headers are read.
 */

const vector = JSON.parse(readFileSync('/work/shared/reference/standard-webhooks-vector.json', 'utf8')) as {
  secret: string;
  id: string;
  timestamp: number;
  body: string;
  signature: string;
};

/** A `whsec_` secret whose key is exactly `bytes` bytes (each of value `fill`). */
function secretOf(bytes: number, fill = 7): string {
  return `whsec_${Buffer.alloc(bytes, fill).toString('base64')}`;
}

/** The signature the reference package computes (an independent oracle). */
function referenceSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  return new Webhook(secret).sign(id, new Date(timestampSeconds * 1000), body);
}

function keyLength(secret: string): number | string {
  const r = parseSecret(secret);
  return r.ok ? r.value.length : r.error.message;
}

function reason(r: ReturnType<typeof verify>): string {
  return r.ok ? 'ok' : r.error.reason;
}

const vectorHeaders = {
  'webhook-id': vector.id,
  'webhook-timestamp': String(vector.timestamp),
  'webhook-signature': vector.signature,
};
const atVector = new Date(vector.timestamp * 1000);

describe('secret generation', () => {
  it('generates 32 bytes by default, and for 0, NaN or a non-number count', () => {
    expect(keyLength(generateSecret())).toBe(32);
    expect(keyLength(generateSecret(0))).toBe(32);
    expect(keyLength(generateSecret(Number.NaN))).toBe(32);
  });

  it('keeps a byte count inside 24-64 as asked (rounded down) and clamps those outside', () => {
    expect(keyLength(generateSecret(23))).toBe(24);
    expect(keyLength(generateSecret(24))).toBe(24);
    expect(keyLength(generateSecret(25.9))).toBe(25);
    expect(keyLength(generateSecret(40))).toBe(40);
    expect(keyLength(generateSecret(64))).toBe(64);
    expect(keyLength(generateSecret(65))).toBe(64);
    expect(keyLength(generateSecret(-5))).toBe(24);
  });
});

describe('secret parsing', () => {
  it('decodes the key bytes of a secret', () => {
    const r = parseSecret(vector.secret);
    expect(r.ok && r.value.toString('base64')).toBe('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
  });

  it('accepts 24 and 64 bytes, refuses 23 and 65 with the byte count in the message', () => {
    expect(keyLength(secretOf(24))).toBe(24);
    expect(keyLength(secretOf(64))).toBe(64);
    expect(keyLength(secretOf(23))).toBe('secret: decodes to 23 bytes; expected 24 to 64');
    expect(keyLength(secretOf(65))).toBe('secret: decodes to 65 bytes; expected 24 to 64');
    expect(parseSecret(secretOf(23))).toEqual({
      ok: false,
      error: {
        kind: 'Malformed',
        field: 'secret',
        message: 'secret: decodes to 23 bytes; expected 24 to 64',
      },
    });
  });

  it('refuses a secret without the whsec_ prefix, or not a string, naming the prefix', () => {
    const message = 'secret: must start with "whsec_"';
    expect(keyLength('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toBe(message);
    expect(keyLength(`xwhsec_${Buffer.alloc(32).toString('base64')}`)).toBe(message);
    expect(keyLength(undefined as unknown as string)).toBe(message);
    expect(keyLength(42 as unknown as string)).toBe(message);
  });

  it('refuses characters outside base64 anywhere in the key, and a length no base64 text has', () => {
    const message = 'secret: the part after whsec_ is not base64';
    const valid = Buffer.alloc(33, 1).toString('base64'); // 44 characters, no padding
    expect(keyLength(`whsec_${valid}`)).toBe(33);
    expect(keyLength(`whsec_!${valid}`)).toBe(message);
    expect(keyLength(`whsec_${valid}!`)).toBe(message);
    expect(keyLength(`whsec_${valid.slice(0, 20)}-${valid.slice(21)}`)).toBe(message);
    expect(keyLength(`whsec_${valid}===`)).toBe(message);
    // 45 characters: one character more than a whole group, which no encoder produces (a
    // decoder would silently drop it and accept the 33 bytes before it).
    expect(keyLength(`whsec_${valid}A`)).toBe(message);
    expect(keyLength(`whsec_${valid}AAA`)).toBe(35);
  });

  it('accepts padded and unpadded encodings of the same key', () => {
    const key = Buffer.alloc(25, 3); // 25 bytes: "==" padding
    const padded = key.toString('base64');
    expect(padded.endsWith('==')).toBe(true);
    expect(keyLength(`whsec_${padded}`)).toBe(25);
    expect(keyLength(`whsec_${padded.replace(/=+$/, '')}`)).toBe(25);
    const key26 = Buffer.alloc(26, 3).toString('base64'); // one "="
    expect(keyLength(`whsec_${key26}`)).toBe(26);
    expect(keyLength(`whsec_${key26.replace(/=+$/, '')}`)).toBe(26);
  });
});

describe('signing fixed inputs', () => {
  it('signs the reference vector, and another fixed case exactly as the reference package does', () => {
    expect(sign(vector.secret, vector.id, vector.timestamp, vector.body)).toEqual({
      ok: true,
      value: vector.signature,
    });
    const secret = secretOf(32, 9);
    expect(sign(secret, 'evt_fixed', 1_800_000_000, '{"a":1}')).toEqual({
      ok: true,
      value: referenceSignature(secret, 'evt_fixed', 1_800_000_000, '{"a":1}'),
    });
  });

  it('signs bytes the same as the same text', () => {
    expect(sign(vector.secret, vector.id, vector.timestamp, Buffer.from(vector.body))).toEqual({
      ok: true,
      value: vector.signature,
    });
  });

  it('returns the secret error instead of a signature for a malformed secret', () => {
    expect(sign('whsec_!!', 'evt', 1, '')).toEqual({
      ok: false,
      error: { kind: 'Malformed', field: 'secret', message: 'secret: the part after whsec_ is not base64' },
    });
  });
});

describe('webhook headers', () => {
  it('carries the id, the attempt time in whole seconds (rounded down) and the exact signature', () => {
    const now = new Date(vector.timestamp * 1000 + 999);
    expect(
      webhookHeaders({ id: vector.id, body: vector.body, secrets: { current: vector.secret }, now }),
    ).toEqual({
      ok: true,
      value: {
        'webhook-id': vector.id,
        'webhook-timestamp': '1614265330',
        'webhook-signature': vector.signature,
      },
    });
  });

  it('lists the current signature first, then each retired one, separated by one space', () => {
    const current = secretOf(32, 1);
    const retired = secretOf(32, 2);
    const now = new Date('2026-11-22T10:00:00.000Z');
    const ts = now.getTime() / 1000;
    const headers = webhookHeaders({
      id: 'evt_two',
      body: '{}',
      secrets: { current, retired: [{ secret: retired, expiresAt: '2026-11-23T09:00:00.000Z' }] },
      now,
    });
    expect(headers.ok && headers.value['webhook-signature']).toBe(
      `${referenceSignature(current, 'evt_two', ts, '{}')} ${referenceSignature(retired, 'evt_two', ts, '{}')}`,
    );
  });

  it('refuses to build headers when a signing secret is malformed', () => {
    const r = webhookHeaders({ id: 'evt', body: '{}', secrets: { current: 'nope' }, now: atVector });
    expect(r).toEqual({
      ok: false,
      error: { kind: 'Malformed', field: 'secret', message: 'secret: must start with "whsec_"' },
    });
  });
});

describe('retired secrets and rotation', () => {
  const t0 = new Date('2026-11-22T10:00:00.000Z');
  const plus = (ms: number) => new Date(t0.getTime() + ms);
  const [a, b, c, d] = [secretOf(32, 1), secretOf(32, 2), secretOf(32, 3), secretOf(32, 4)];

  it('keeps a retired secret until one millisecond before its expiry, not at it', () => {
    const secrets = { current: a, retired: [{ secret: b, expiresAt: plus(1000).toISOString() }] };
    expect(activeSecrets(secrets, plus(999))).toEqual([a, b]);
    expect(activeSecrets(secrets, plus(1000))).toEqual([a]);
  });

  it('reads the older one-previous shape as retired until rotatedAt + exactly 24 h', () => {
    const secrets = { current: a, previous: { secret: b, rotatedAt: t0.toISOString() } };
    expect(retiredSecrets(secrets, t0)).toEqual([
      { secret: b, expiresAt: plus(ROTATION_GRACE_MS).toISOString() },
    ]);
    expect(ROTATION_GRACE_MS).toBe(86_400_000);
    expect(activeSecrets(secrets, plus(ROTATION_GRACE_MS - 1))).toEqual([a, b]);
    expect(activeSecrets(secrets, plus(ROTATION_GRACE_MS))).toEqual([a]);
  });

  it('reads both shapes together, newest expiry first whatever the stored order', () => {
    const secrets = {
      current: a,
      retired: [
        { secret: b, expiresAt: plus(1000).toISOString() },
        { secret: c, expiresAt: plus(3000).toISOString() },
      ],
      previous: { secret: d, rotatedAt: plus(2000 - ROTATION_GRACE_MS).toISOString() },
    };
    expect(retiredSecrets(secrets, t0).map((r) => r.secret)).toEqual([c, d, b]);
    expect(activeSecrets(secrets, t0)).toEqual([a, c, d, b]);
  });

  it('keeps the stored order of retired secrets that expire at the same time', () => {
    const at = plus(5000).toISOString();
    const secrets = {
      current: a,
      retired: [
        { secret: b, expiresAt: at },
        { secret: c, expiresAt: at },
        { secret: d, expiresAt: at },
      ],
    };
    expect(activeSecrets(secrets, t0)).toEqual([a, b, c, d]);
  });

  it('drops a retired entry whose expiry is unparseable, and one equal to the current secret', () => {
    const secrets = {
      current: a,
      retired: [
        { secret: b, expiresAt: 'tomorrow' },
        { secret: a, expiresAt: plus(1000).toISOString() },
        { secret: c, expiresAt: plus(1000).toISOString() },
      ],
    };
    expect(activeSecrets(secrets, t0)).toEqual([a, c]);
  });

  it('rotation: the old current expires exactly 24 h after the rotation; expired ones are dropped', () => {
    const before = {
      current: a,
      retired: [
        { secret: b, expiresAt: plus(60_000).toISOString() },
        { secret: c, expiresAt: t0.toISOString() },
      ],
    };
    expect(rotateSecrets(before, t0, d)).toEqual({
      current: d,
      retired: [
        { secret: a, expiresAt: '2026-11-23T10:00:00.000Z' },
        { secret: b, expiresAt: '2026-11-22T10:01:00.000Z' },
      ],
    });
  });

  it('rotation without a next secret generates a fresh 32-byte one', () => {
    const rotated = rotateSecrets({ current: a }, t0);
    expect(rotated.current).not.toBe(a);
    expect(keyLength(rotated.current)).toBe(32);
    expect(rotated.retired).toEqual([{ secret: a, expiresAt: '2026-11-23T10:00:00.000Z' }]);
  });
});

describe('verification', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('returns the id and the timestamp of a verified webhook', () => {
    expect(verify(vectorHeaders, vector.body, vector.secret, { now: atVector })).toEqual({
      ok: true,
      value: { id: vector.id, timestamp: vector.timestamp },
    });
  });

  it('accepts a timestamp exactly 300 s old or 300 s ahead, refuses 301 s either way with the age', () => {
    const at = (s: number) => ({ now: new Date((vector.timestamp + s) * 1000) });
    expect(reason(verify(vectorHeaders, vector.body, vector.secret, at(300)))).toBe('ok');
    expect(reason(verify(vectorHeaders, vector.body, vector.secret, at(-300)))).toBe('ok');
    const old = verify(vectorHeaders, vector.body, vector.secret, at(301));
    expect(old).toEqual({
      ok: false,
      error: {
        kind: 'Unauthorized',
        reason: 'timestamp-too-old',
        message: 'webhook-timestamp is 301 s old (tolerance 300 s)',
      },
    });
    const early = verify(vectorHeaders, vector.body, vector.secret, at(-301));
    expect(early).toEqual({
      ok: false,
      error: {
        kind: 'Unauthorized',
        reason: 'timestamp-too-new',
        message: 'webhook-timestamp is 301 s in the future (tolerance 300 s)',
      },
    });
  });

  it('uses a given tolerance on both sides', () => {
    const at = (s: number) => ({ now: new Date((vector.timestamp + s) * 1000), toleranceSeconds: 10 });
    expect(reason(verify(vectorHeaders, vector.body, vector.secret, at(10)))).toBe('ok');
    expect(reason(verify(vectorHeaders, vector.body, vector.secret, at(-10)))).toBe('ok');
    expect(reason(verify(vectorHeaders, vector.body, vector.secret, at(11)))).toBe('timestamp-too-old');
    expect(reason(verify(vectorHeaders, vector.body, vector.secret, at(-11)))).toBe('timestamp-too-new');
  });

  it('checks against the current clock when no time is given', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date((vector.timestamp + 300) * 1000 + 999));
    expect(reason(verify(vectorHeaders, vector.body, vector.secret))).toBe('ok');
    vi.setSystemTime(new Date((vector.timestamp + 301) * 1000));
    expect(reason(verify(vectorHeaders, vector.body, vector.secret))).toBe('timestamp-too-old');
  });

  it('names exactly the missing headers', () => {
    const message = (h: Record<string, string>) => {
      const r = verify(h, vector.body, vector.secret, { now: atVector });
      return r.ok ? 'ok' : `${r.error.reason}: ${r.error.message}`;
    };
    expect(message({})).toBe(
      'missing-header: missing header(s): webhook-id, webhook-timestamp, webhook-signature',
    );
    const { 'webhook-id': _id, ...noId } = vectorHeaders;
    expect(message(noId)).toBe('missing-header: missing header(s): webhook-id');
    const { 'webhook-signature': _sig, ...noSig } = vectorHeaders;
    expect(message(noSig)).toBe('missing-header: missing header(s): webhook-signature');
    expect(message({ ...vectorHeaders, 'webhook-timestamp': '' })).toBe(
      'missing-header: missing header(s): webhook-timestamp',
    );
  });

  it('reads headers in any case, from a fetch Headers, and joins repeated signature headers', () => {
    const upper = {
      'WEBHOOK-ID': vector.id,
      'Webhook-Timestamp': String(vector.timestamp),
      'webhook-SIGNATURE': vector.signature,
    };
    expect(reason(verify(upper, vector.body, vector.secret, { now: atVector }))).toBe('ok');
    expect(reason(verify(new Headers(vectorHeaders), vector.body, vector.secret, { now: atVector }))).toBe(
      'ok',
    );
    const missing = verify(new Headers({ 'webhook-id': vector.id }), vector.body, vector.secret, {
      now: atVector,
    });
    expect(missing.ok ? '' : missing.error.message).toBe(
      'missing header(s): webhook-timestamp, webhook-signature',
    );
    const repeated = { ...vectorHeaders, 'webhook-signature': ['v1,AAAA', vector.signature] };
    expect(reason(verify(repeated, vector.body, vector.secret, { now: atVector }))).toBe('ok');
  });

  it('accepts a timestamp of up to 12 digits with surrounding spaces, and refuses anything else', () => {
    const withTimestamp = (t: string) =>
      verify({ ...vectorHeaders, 'webhook-timestamp': t }, vector.body, vector.secret, { now: atVector });
    expect(reason(withTimestamp(` ${vector.timestamp} `))).toBe('ok');
    expect(reason(withTimestamp(`0${vector.timestamp}`))).toBe('ok'); // 11 digits
    expect(reason(withTimestamp(`00${vector.timestamp}`))).toBe('ok'); // 12 digits
    expect(withTimestamp(`000${vector.timestamp}`)).toEqual({
      ok: false,
      error: {
        kind: 'Unauthorized',
        reason: 'invalid-timestamp',
        message: 'webhook-timestamp "0001614265330" is not a Unix time in seconds',
      },
    });
    for (const bad of [`x${vector.timestamp}`, `${vector.timestamp}x`, '-1614265330', '1614265330.5']) {
      expect(reason(withTimestamp(bad))).toBe('invalid-timestamp');
    }
  });

  it('refuses a malformed secret as invalid-secret, after the timestamp check', () => {
    expect(verify(vectorHeaders, vector.body, 'whsec_!!', { now: atVector })).toEqual({
      ok: false,
      error: {
        kind: 'Unauthorized',
        reason: 'invalid-secret',
        message: 'secret: the part after whsec_ is not base64',
      },
    });
  });

  it('finds the matching v1 entry among other schemes, short or garbled entries, in any position', () => {
    const withSignature = (s: string) =>
      verify({ ...vectorHeaders, 'webhook-signature': s }, vector.body, vector.secret, { now: atVector });
    const good = vector.signature;
    const bare = good.slice(3);
    expect(reason(withSignature(`v1,AAAA ${good}`))).toBe('ok');
    expect(reason(withSignature(`${good} v1,AAAA`))).toBe('ok');
    expect(reason(withSignature(`nocomma ${good} v2,${bare}`))).toBe('ok');
    expect(reason(withSignature(`v1a,${bare}`))).toBe('no-matching-signature');
    expect(reason(withSignature(`v2,${bare}`))).toBe('no-matching-signature');
    expect(reason(withSignature(`,${bare}`))).toBe('no-matching-signature');
    expect(reason(withSignature(`v1${bare}`))).toBe('no-matching-signature');
    expect(reason(withSignature(`v1,${bare}`.replace('g', 'h')))).toBe('no-matching-signature');
    expect(withSignature('v1,AAAA')).toEqual({
      ok: false,
      error: {
        kind: 'Unauthorized',
        reason: 'no-matching-signature',
        message: 'no v1 signature matches this secret',
      },
    });
  });

  it('verifies a signature the reference package made over bytes', () => {
    const secret = secretOf(40, 5);
    const body = '{"é":"ü"}';
    const headers = {
      'webhook-id': 'evt_bytes',
      'webhook-timestamp': '1800000000',
      'webhook-signature': referenceSignature(secret, 'evt_bytes', 1_800_000_000, body),
    };
    expect(
      verify(headers, new TextEncoder().encode(body), secret, { now: new Date(1_800_000_000_000) }),
    ).toEqual({ ok: true, value: { id: 'evt_bytes', timestamp: 1_800_000_000 } });
  });
});
