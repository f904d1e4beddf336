/**
 * Enrolling an API user through the OAuth 2.0 authorization code flow, with PKCE S256 and a
 * signed, expiring, single-use `state` (./oauth-state.ts).
 *
 * `startAuthorization` builds the brand's authorize URL. `completeAuthorization` (the callback)
 * checks the state — a forged, replayed or expired one is refused with `InvalidState` and NOTHING
 * is stored — exchanges the code, identifies the user (GET /user), stores the encrypted tokens
 * (a new enrollment, or the re-authorization of the user's existing one, which resumes its paused
 * vehicles), then lists the user's vehicles and enrolls them (`enrollment.vehicle.added` each).
 *
 * Single use: the state's nonce takes a "once" lease in the LeaseStore (a conditional write),
 * held until the state expires; the lease is the only record, so no new port is needed.
 */
import { createHash, randomUUID } from 'node:crypto';
import { type ApiError, staticTokenProvider, type TokenEndpoint } from '../api';
import { createTokenSet, type TokenCipher } from '../crypto/token-cipher';
import type { PublishTuning } from '../polling/commit';
import { type ApiAccess, createMeteredClient } from '../polling/metered-client';
import type { EventBus } from '../publishing/ports';
import type { RateBudget } from '../ratelimit/budget';
import { resumeAfterReauthorization } from '../store/lifecycle';
import type { Stores } from '../store/ports';
import type { OAuthUserEnrollment } from '../store/records';
import { type DiscoveryResult, syncVehicleList } from './discovery';
import {
  codeChallengeOf,
  codeVerifierFor,
  type InvalidState,
  newNonce,
  requireStateKey,
  signState,
  verifyState,
} from './oauth-state';

export interface OAuthEnrollmentDeps {
  readonly stores: Stores;
  readonly cipher: TokenCipher;
  readonly bus: EventBus;
  readonly access: ApiAccess;
  /** The token endpoint of a brand (`<brand_path_segment>`). */
  readonly endpointFor: (brand: string) => TokenEndpoint;
  /** HMAC key of the state (≥ 32 bytes), from Secrets Manager / env. */
  readonly stateKey: Uint8Array | string;
  /** How long a started authorization may take (default 10 min). */
  readonly stateTtlMs?: number;
  /** API requests of the callback (GET /user, GET /vehicles) are drawn from it when given. */
  readonly budget?: RateBudget;
  readonly now: () => number;
  readonly publish?: PublishTuning;
  /** Brands (`<brand_path_segment>`) accepted; all when absent. */
  readonly brands?: readonly string[];
}

export const DEFAULT_STATE_TTL_MS = 10 * 60_000;

export interface InvalidAuthorizationRequest {
  readonly kind: 'InvalidRequest';
  readonly field: string;
  readonly message: string;
}

export type StartAuthorizationResult =
  | { readonly kind: 'Started'; readonly url: string; readonly state: string; readonly expiresAt: string }
  | InvalidAuthorizationRequest;

const BRAND_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;

function checkRedirectUri(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return undefined;
  try {
    const u = new URL(uri);
    return (u.protocol === 'https:' || u.protocol === 'http:') && !u.hash ? uri : undefined;
  } catch {
    return undefined;
  }
}

export function startAuthorization(
  deps: OAuthEnrollmentDeps,
  input: { readonly brand: unknown; readonly redirectUri: unknown },
): StartAuthorizationResult {
  const key = requireStateKey(deps.stateKey);
  if (typeof input.brand !== 'string' || !BRAND_PATTERN.test(input.brand)) {
    return {
      kind: 'InvalidRequest',
      field: 'brand',
      message: 'brand: must be the brand path segment, e.g. "cielo"',
    };
  }
  if (deps.brands && !deps.brands.includes(input.brand)) {
    return {
      kind: 'InvalidRequest',
      field: 'brand',
      message: `brand: must be one of ${deps.brands.join(', ')}`,
    };
  }
  const redirectUri = checkRedirectUri(input.redirectUri);
  if (!redirectUri) {
    return {
      kind: 'InvalidRequest',
      field: 'redirectUri',
      message: 'redirectUri: must be an absolute http(s) URL',
    };
  }
  const nonce = newNonce();
  const expiresAt = deps.now() + (deps.stateTtlMs ?? DEFAULT_STATE_TTL_MS);
  const state = signState(key, { nonce, brand: input.brand, redirectUri, expiresAt });
  const url = deps.endpointFor(input.brand).authorizeUrl({
    redirectUri,
    state,
    codeChallenge: codeChallengeOf(codeVerifierFor(key, nonce)),
  });
  return { kind: 'Started', url, state, expiresAt: new Date(expiresAt).toISOString() };
}

export type CompleteAuthorizationResult =
  | {
      readonly kind: 'Enrolled';
      readonly enrollmentId: string;
      readonly userId: string;
      /** A new enrollment (false: the re-authorization of an existing one). */
      readonly created: boolean;
      /** It was `reauthorization_required` and is active again. */
      readonly reactivated: boolean;
      readonly vehiclesResumed: number;
      readonly discovery: DiscoveryResult;
    }
  | InvalidState
  | InvalidAuthorizationRequest
  /** The token endpoint refused the code (expired, used, wrong verifier…): nothing stored. */
  | { readonly kind: 'ExchangeFailed'; readonly error: ApiError }
  /** GET /user failed: the user cannot be identified, nothing stored. */
  | { readonly kind: 'UserLookupFailed'; readonly error: ApiError };

/** The enrollment id of a user: stable, so a re-authorization finds it; a new one after unenroll. */
export function enrollmentIdOf(brand: string, userId: string, generation = 0): string {
  const h = createHash('sha256').update(`${brand}\u001f${userId}`).digest('base64url').slice(0, 22);
  return generation === 0 ? `enr_${h}` : `enr_${h}_${generation}`;
}

const MAX_GENERATIONS = 100;

export async function completeAuthorization(
  deps: OAuthEnrollmentDeps,
  input: { readonly state: unknown; readonly code: unknown; readonly redirectUri?: string },
): Promise<CompleteAuthorizationResult> {
  const key = requireStateKey(deps.stateKey);
  const { stores } = deps;
  const verified = verifyState(key, input.state, deps.now());
  if (!verified.ok) return verified.error;
  const { nonce, brand, redirectUri, expiresAt } = verified.payload;
  if (input.redirectUri !== undefined && input.redirectUri !== redirectUri) {
    return {
      kind: 'InvalidState',
      reason: 'redirect_mismatch',
      message: 'state: issued for another redirect URI',
    };
  }
  if (typeof input.code !== 'string' || input.code.length === 0 || input.code.length > 2048) {
    return { kind: 'InvalidRequest', field: 'code', message: 'code: missing authorization code' };
  }
  // Once: the first callback with this state takes the lease until the state expires.
  const ttl = Math.max(1, Math.ceil(expiresAt - deps.now()) + 60_000);
  if (!(await stores.leases.acquire(`oauth-state:${nonce}`, `cb-${randomUUID()}`, ttl, deps.now()))) {
    return { kind: 'InvalidState', reason: 'replayed', message: 'state: already used (replayed callback)' };
  }

  const exchanged = await deps
    .endpointFor(brand)
    .exchangeCode({ code: input.code, redirectUri, codeVerifier: codeVerifierFor(key, nonce) });
  if (!exchanged.ok) return { kind: 'ExchangeFailed', error: exchanged.error };
  const t = exchanged.value;

  const metered = createMeteredClient(deps.access, {
    brand,
    tokenProvider: staticTokenProvider(t.accessToken),
    ...(deps.budget ? { budget: deps.budget } : {}),
    now: deps.now,
  });
  const user = await metered.client.v2.user();
  if (!user.ok) return { kind: 'UserLookupFailed', error: user.error };
  const userId = user.value.id;

  // Only what a refresh needs is stored: the API always answers scope `public` and type `bearer`.
  const tokens = createTokenSet({
    accessToken: t.accessToken,
    ...(t.refreshToken ? { refreshToken: t.refreshToken } : {}),
    expiresAt: (t.expiresAt ?? new Date(deps.now() + 3_600_000)).toISOString(),
  });

  let enrollmentId: string | undefined;
  let created = false;
  let reactivated = false;
  for (let generation = 0; generation < MAX_GENERATIONS && enrollmentId === undefined; generation++) {
    const id = enrollmentIdOf(brand, userId, generation);
    const now = deps.now();
    const ciphertext = deps.cipher.encryptTokens(tokens, id);
    const existing = await stores.enrollments.get(id);
    if (existing?.status === 'unenrolled') continue; // unenrolled stays closed: a new enrollment
    if (!existing) {
      const at = new Date(now).toISOString();
      const enrollment: OAuthUserEnrollment = {
        kind: 'oauth-user',
        id,
        brand,
        status: 'active',
        userId,
        tokenCiphertext: ciphertext,
        tokenExpiresAt: tokens.expiresAt,
        createdAt: at,
        updatedAt: at,
      };
      const r = await stores.enrollments.create(enrollment);
      if (r.kind === 'Created') {
        enrollmentId = id;
        created = true;
        continue;
      }
      // A concurrent callback of the same user created it: store our tokens on it.
    }
    const saved = await stores.enrollments.saveTokens(
      id,
      { tokenCiphertext: ciphertext, tokenExpiresAt: tokens.expiresAt, userId },
      now,
    );
    if (saved.kind === 'Saved') {
      enrollmentId = id;
      reactivated = saved.reactivated;
    }
  }
  if (enrollmentId === undefined) {
    return {
      kind: 'InvalidRequest',
      field: 'userId',
      message: `user ${userId} was unenrolled ${MAX_GENERATIONS} times; contact the operator`,
    };
  }
  // Resumes vehicles paused by an invalid_grant (repeated safely: a no-op when none is paused).
  const vehiclesResumed = await resumeAfterReauthorization(stores, enrollmentId, deps.now());
  const discovery = await syncVehicleList(
    { stores, bus: deps.bus, now: deps.now, ...(deps.publish ? { publish: deps.publish } : {}) },
    { id: enrollmentId },
    metered.client,
  );
  return { kind: 'Enrolled', enrollmentId, userId, created, reactivated, vehiclesResumed, discovery };
}
