import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { systemDate } from '../clock';
import { err, ok, type Result } from '../result';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com, scheme `v1`): HMAC-SHA256 over
 * `${webhook-id}.${webhook-timestamp}.${body}`, keyed with the base64-decoded part of the secret
 * after `whsec_`. `webhook-signature` carries one `v1,<base64>` entry per active secret, space
 * separated, so a receiver holding any of them verifies during a rotation.
 */
export const SECRET_PREFIX = 'whsec_';
export const SECRET_MIN_BYTES = 24;
export const SECRET_MAX_BYTES = 64;
export const DEFAULT_SECRET_BYTES = 32;
/** After a rotation the previous secret still signs for this long (24 h). */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_TOLERANCE_SECONDS = 300;

export const HEADER_ID = 'webhook-id';
export const HEADER_TIMESTAMP = 'webhook-timestamp';
export const HEADER_SIGNATURE = 'webhook-signature';

export interface SecretError {
  readonly kind: 'Malformed';
  readonly field: 'secret';
  readonly message: string;
}

/** A fresh `whsec_` secret; `bytes` is clamped to the scheme's 24–64 byte range. */
export function generateSecret(bytes: number = DEFAULT_SECRET_BYTES): string {
  const n = Math.min(SECRET_MAX_BYTES, Math.max(SECRET_MIN_BYTES, Math.floor(bytes) || DEFAULT_SECRET_BYTES));
  return `${SECRET_PREFIX}${randomBytes(n).toString('base64')}`;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decodes a `whsec_` secret to its key bytes, refusing anything the scheme does not allow. */
export function parseSecret(secret: string): Result<Buffer, SecretError> {
  if (typeof secret !== 'string' || !secret.startsWith(SECRET_PREFIX)) {
    return err({ kind: 'Malformed', field: 'secret', message: `secret: must start with "${SECRET_PREFIX}"` });
  }
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!BASE64.test(encoded) || encoded.length % 4 === 1) {
    return err({
      kind: 'Malformed',
      field: 'secret',
      message: 'secret: the part after whsec_ is not base64',
    });
  }
  const key = Buffer.from(encoded, 'base64');
  if (key.length < SECRET_MIN_BYTES || key.length > SECRET_MAX_BYTES) {
    return err({
      kind: 'Malformed',
      field: 'secret',
      message: `secret: decodes to ${key.length} bytes; expected ${SECRET_MIN_BYTES} to ${SECRET_MAX_BYTES}`,
    });
  }
  return ok(key);
}

function hmac(key: Buffer, id: string, timestampSeconds: number, body: string | Uint8Array): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestampSeconds}.`).update(body).digest();
}

/** One `v1,<base64>` signature entry. */
export function sign(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string | Uint8Array,
): Result<string, SecretError> {
  const key = parseSecret(secret);
  if (!key.ok) return key;
  return ok(`v1,${hmac(key.value, id, timestampSeconds, body).toString('base64')}`);
}

/** A secret rotated out that still signs until its own expiry (the overlap window). */
export interface RetiredSecret {
  readonly secret: string;
  /** ISO 8601: rotation time + 24 h. */
  readonly expiresAt: string;
}

/**
 * At most this many rotated-out secrets sign at once: every one adds a signature to every
 * delivery, so an eleventh rotation within 24 h is refused until the oldest expires.
 */
export const MAX_RETIRED_SECRETS = 10;

/**
 * A subscription's signing secrets: the current one and every secret rotated out within the last
 * 24 h, each with its own expiry, so rotating twice in a day never cuts off a receiver still on
 * the first secret.
 */
export interface SubscriptionSecrets {
  readonly current: string;
  readonly retired?: readonly RetiredSecret[];
  /**
   * The stored shape before `retired` (one previous secret): still read, as a retired secret
   * expiring at `rotatedAt + 24 h`.
   */
  readonly previous?: {
    readonly secret: string;
    readonly rotatedAt: string;
  };
}

/** The rotated-out secrets still within their window at `now`, newest first. */
export function retiredSecrets(secrets: SubscriptionSecrets, now: Date): readonly RetiredSecret[] {
  // Stryker disable next-line ArrayDeclaration: a placeholder element in the fallback list has no parseable expiresAt, so the filter below drops it
  const all: RetiredSecret[] = [...(secrets.retired ?? [])];
  const previous = secrets.previous;
  if (previous) {
    const rotatedAt = Date.parse(previous.rotatedAt);
    // An unparseable rotation time must not keep a secret alive forever: treat it as expired.
    if (!Number.isNaN(rotatedAt)) {
      all.push({ secret: previous.secret, expiresAt: new Date(rotatedAt + ROTATION_GRACE_MS).toISOString() });
    }
  }
  return all
    .filter((r) => {
      const expires = Date.parse(r.expiresAt);
      return !Number.isNaN(expires) && now.getTime() < expires && r.secret !== secrets.current;
    })
    .sort((a, b) => (a.expiresAt < b.expiresAt ? 1 : a.expiresAt > b.expiresAt ? -1 : 0));
}

/** The secrets that sign at `now`: current first, then every retired one still within its window. */
export function activeSecrets(secrets: SubscriptionSecrets, now: Date): readonly string[] {
  return [secrets.current, ...retiredSecrets(secrets, now).map((r) => r.secret)];
}

/**
 * Rotation: the new secret becomes current; the old one joins the retired list for 24 h, and the
 * ones retired earlier keep their own expiries (expired ones are dropped).
 */
export function rotateSecrets(
  secrets: SubscriptionSecrets,
  now: Date,
  next = generateSecret(),
): SubscriptionSecrets {
  const retired: RetiredSecret[] = [
    { secret: secrets.current, expiresAt: new Date(now.getTime() + ROTATION_GRACE_MS).toISOString() },
    ...retiredSecrets(secrets, now),
  ];
  return { current: next, retired };
}

// A type alias (not an interface) so it is assignable to header records with an index signature.
export type WebhookHeaders = {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
};

/**
 * The three Standard Webhooks headers for one attempt. `now` is the attempt time: the timestamp is
 * re-signed on every retry (receivers reject stale timestamps), while id and body stay the same.
 */
export function webhookHeaders(input: {
  readonly id: string;
  readonly body: string | Uint8Array;
  readonly secrets: SubscriptionSecrets;
  readonly now: Date;
}): Result<WebhookHeaders, SecretError> {
  const timestamp = Math.floor(input.now.getTime() / 1000);
  const signatures: string[] = [];
  for (const secret of activeSecrets(input.secrets, input.now)) {
    const signed = sign(secret, input.id, timestamp, input.body);
    if (!signed.ok) return signed;
    signatures.push(signed.value);
  }
  return ok({
    [HEADER_ID]: input.id,
    [HEADER_TIMESTAMP]: String(timestamp),
    [HEADER_SIGNATURE]: signatures.join(' '),
  });
}

export type VerifyFailure =
  | 'missing-header'
  | 'invalid-timestamp'
  | 'timestamp-too-old'
  | 'timestamp-too-new'
  | 'no-matching-signature'
  | 'invalid-secret';

export interface VerifyError {
  readonly kind: 'Unauthorized';
  readonly reason: VerifyFailure;
  readonly message: string;
}

export interface VerifyOptions {
  /** Accepted clock skew both ways, in seconds (default 300, as the reference libraries). */
  readonly toleranceSeconds?: number;
  readonly now?: Date;
}

/** Node's IncomingHttpHeaders, a plain record (any case) or a fetch Headers. */
export type HeaderBag = Readonly<Record<string, string | readonly string[] | undefined>> | Headers;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [k, v] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? v.join(' ') : (v as string | undefined);
  }
  return undefined;
}

function unauthorized(reason: VerifyFailure, message: string): { ok: false; error: VerifyError } {
  return err({ kind: 'Unauthorized', reason, message });
}

/**
 * Verifies a received webhook (for the CLI and receivers). Constant-time comparison of each `v1`
 * entry; timestamps outside `now ± tolerance` are refused (replay protection).
 */
export function verify(
  headers: HeaderBag,
  body: string | Uint8Array,
  secret: string,
  options: VerifyOptions = {},
): Result<{ readonly id: string; readonly timestamp: number }, VerifyError> {
  const id = header(headers, HEADER_ID);
  const timestampText = header(headers, HEADER_TIMESTAMP);
  const signature = header(headers, HEADER_SIGNATURE);
  if (!id || !timestampText || !signature) {
    const missing = [
      !id && HEADER_ID,
      !timestampText && HEADER_TIMESTAMP,
      !signature && HEADER_SIGNATURE,
    ].filter(Boolean);
    return unauthorized('missing-header', `missing header(s): ${missing.join(', ')}`);
  }
  if (!/^\d{1,12}$/.test(timestampText.trim())) {
    return unauthorized(
      'invalid-timestamp',
      `${HEADER_TIMESTAMP} "${timestampText}" is not a Unix time in seconds`,
    );
  }
  // Stryker disable next-line MethodExpression: Number() ignores surrounding whitespace itself, so trimming first changes nothing
  const timestamp = Number(timestampText.trim());
  const now = Math.floor((options.now ?? systemDate()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (now - timestamp > tolerance) {
    return unauthorized(
      'timestamp-too-old',
      `${HEADER_TIMESTAMP} is ${now - timestamp} s old (tolerance ${tolerance} s)`,
    );
  }
  if (timestamp - now > tolerance) {
    return unauthorized(
      'timestamp-too-new',
      `${HEADER_TIMESTAMP} is ${timestamp - now} s in the future (tolerance ${tolerance} s)`,
    );
  }
  const key = parseSecret(secret);
  if (!key.ok) return unauthorized('invalid-secret', key.error.message);
  const expected = hmac(key.value, id, timestamp, body);
  let matched = false;
  for (const entry of signature.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
    const candidate = Buffer.from(entry.slice(comma + 1), 'base64');
    // Compare every entry (no early exit) so timing does not reveal which one matched.
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
  }
  if (!matched) return unauthorized('no-matching-signature', 'no v1 signature matches this secret');
  return ok({ id, timestamp });
}
