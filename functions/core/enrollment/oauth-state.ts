/**
 * The OAuth `state` of the enrollment's authorization code flow (RFC 6749 10.12 CSRF protection): a signed,
 * expiring value, so the callback needs no server-side session.
 *
 * `state` = base64url(JSON payload) "." base64url(HMAC-SHA256(key, that first part)); the payload is
 * `{ v, n (nonce), b (brand), r (redirectUri), e (expiry, epoch ms) }`. The PKCE verifier (S256,
 * RFC 7636) is derived from the nonce with the same key, so it is never stored nor sent anywhere
 * but the token endpoint: only who holds the key can turn a state into its verifier.
 *
 * Single use is enforced by the caller (a "once" lease per nonce, see oauth.ts).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const STATE_VERSION = 1;
export const MIN_STATE_KEY_BYTES = 32;

export type InvalidStateReason = 'malformed' | 'forged' | 'expired' | 'replayed' | 'redirect_mismatch';

/** A forged, replayed, expired or malformed `state`: the HTTP layer answers 400 with `message`. */
export interface InvalidState {
  readonly kind: 'InvalidState';
  readonly reason: InvalidStateReason;
  readonly message: string;
}

export interface StatePayload {
  readonly nonce: string;
  readonly brand: string;
  readonly redirectUri: string;
  /** Epoch ms after which the state is refused. */
  readonly expiresAt: number;
}

export class StateKeyError extends Error {
  override readonly name = 'StateKeyError';
  readonly kind = 'InvalidConfig';
  readonly field = 'stateKey';
}

/** Validates the signing key (config): at least 32 bytes. */
export function requireStateKey(key: Uint8Array | string): Buffer {
  const bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : Buffer.from(key);
  if (bytes.length < MIN_STATE_KEY_BYTES) {
    throw new StateKeyError(`stateKey: must be at least ${MIN_STATE_KEY_BYTES} bytes, got ${bytes.length}`);
  }
  return bytes;
}

const b64 = (b: Buffer | string): string => Buffer.from(b).toString('base64url');
const mac = (key: Buffer, data: string): Buffer => createHmac('sha256', key).update(data).digest();

export function signState(key: Buffer, payload: StatePayload): string {
  const body = b64(
    JSON.stringify({
      v: STATE_VERSION,
      n: payload.nonce,
      b: payload.brand,
      r: payload.redirectUri,
      e: payload.expiresAt,
    }),
  );
  return `${body}.${b64(mac(key, body))}`;
}

export function newNonce(): string {
  return randomBytes(18).toString('base64url');
}

/** RFC 7636 4.1: 43 characters of the unreserved set (base64url of 32 bytes). */
export function codeVerifierFor(key: Buffer, nonce: string): string {
  return b64(mac(key, `pkce\u001f${nonce}`));
}

/** RFC 7636 4.2 S256. */
export function codeChallengeOf(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

const invalid = (reason: InvalidStateReason, message: string): InvalidState => ({
  kind: 'InvalidState',
  reason,
  message,
});

/** Checks format, signature and expiry (single use is checked by the caller). */
export function verifyState(
  key: Buffer,
  state: unknown,
  now: number,
):
  | { readonly ok: true; readonly payload: StatePayload }
  | { readonly ok: false; readonly error: InvalidState } {
  if (typeof state !== 'string' || state.length === 0 || state.length > 2048) {
    return { ok: false, error: invalid('malformed', 'state: missing or not a state issued by Carhook') };
  }
  const [body, signature, extra] = state.split('.');
  if (!body || !signature || extra !== undefined) {
    return {
      ok: false,
      error: invalid('malformed', 'state: not a state issued by Carhook (expected two parts)'),
    };
  }
  const expected = mac(key, body);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return {
      ok: false,
      error: invalid('forged', 'state: signature does not match (forged or tampered state)'),
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, error: invalid('malformed', 'state: payload is not JSON') };
  }
  const p = parsed as { v?: unknown; n?: unknown; b?: unknown; r?: unknown; e?: unknown };
  if (
    p.v !== STATE_VERSION ||
    typeof p.n !== 'string' ||
    typeof p.b !== 'string' ||
    typeof p.r !== 'string' ||
    typeof p.e !== 'number'
  ) {
    return {
      ok: false,
      error: invalid('malformed', 'state: payload lacks nonce, brand, redirect URI or expiry'),
    };
  }
  if (now >= p.e) {
    return {
      ok: false,
      error: invalid(
        'expired',
        `state: expired at ${new Date(p.e).toISOString()}; start the authorization again`,
      ),
    };
  }
  return { ok: true, payload: { nonce: p.n, brand: p.b, redirectUri: p.r, expiresAt: p.e } };
}
