/**
 * User tokens of oauth-user enrollments: a `TokenProvider` for the
 * API client backed by the EnrollmentStore and the TokenCipher.
 *
 * - Tokens live encrypted in the enrollment; they are decrypted only in memory and never logged
 *   (the token sets of the cipher module redact themselves in JSON and `util.inspect`).
 * - Refresh happens BEFORE expiry (skew) and is single-flight per enrollment across workers: a
 *   lease `token-refresh:<enrollmentId>` in the LeaseStore. Refresh tokens rotate (the simulator
 *   invalidates a used one), so two workers must never both spend one: the loser of the lease
 *   waits and re-reads the stored tokens instead of refreshing.
 * - `invalid_grant` marks the enrollment `reauthorization_required` with its
 *   `enrollment.reauthorization_required` event in the same write (emitted once), pauses its
 *   vehicles, and surfaces as a typed `InvalidGrant` error so the poll stops at once.
 * - A worker killed after the token endpoint answered a refresh and before the new tokens were
 *   stored took the only copy of the rotated refresh token with it; the next refresh presents the
 *   spent one and gets `invalid_grant`. No client can close that window (the API documents no
 *   refresh flow, so a server-side reuse grace period cannot be assumed). What the manager does is
 *   say so: before spending a refresh token it records the attempt (a lease named after a hash of
 *   the token, cleared once the answer is stored), and an `invalid_grant` for a token whose attempt
 *   is still recorded by another worker is reported as a lost refresh answer, not a revocation
 *   (test/polling/kill.test.ts pins the whole behaviour).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { InvalidGrantError, TokenEndpoint, TokenProvider } from '../api';
// From its module, not the index: the Lambdas that only refresh tokens do not carry the client.
import { CarhookApiError } from '../api/errors';
import { createTokenSet, type TokenCipher, type TokenSet } from '../crypto/token-cipher';
import { buildEvent } from '../events/catalogue';
import type { EventEnvelope } from '../events/envelope';
import { eventId } from '../events/ids';
import { requireReauthorization } from '../store/lifecycle';
import type { EnrollmentStore, LeaseStore, VehicleStore } from '../store/ports';
import type { OAuthUserEnrollment } from '../store/records';

export interface TokenManagerConfig {
  /** Refresh this long before the access token expires (default 60 s). */
  readonly refreshSkewMs: number;
  /** How long a refresh lease is held at most (default 30 s: a token request has a 10 s timeout). */
  readonly leaseTtlMs: number;
  /** A worker that lost the lease waits this long before re-reading the stored tokens (default 250 ms). */
  readonly leaseWaitMs: number;
  /** Re-reads before giving up on a refresh held by another worker (default 40, i.e. ~10 s). */
  readonly leaseWaitAttempts: number;
  /**
   * How long an unfinished refresh attempt stays recorded (default 24 h): the next refresh with the
   * same token (a redelivered job, the next cycle) must still find it.
   */
  readonly refreshAttemptTtlMs: number;
}

export const DEFAULT_TOKEN_MANAGER_CONFIG: TokenManagerConfig = {
  refreshSkewMs: 60_000,
  leaseTtlMs: 30_000,
  leaseWaitMs: 250,
  leaseWaitAttempts: 40,
  refreshAttemptTtlMs: 24 * 3_600_000,
};

export interface TokenManagerDeps {
  readonly enrollments: EnrollmentStore;
  readonly vehicles: VehicleStore;
  readonly leases: LeaseStore;
  readonly cipher: TokenCipher;
  /** The token endpoint of an enrollment's brand (`<brand_path_segment>` of its OAuth addresses). */
  readonly endpointFor: (brand: string) => TokenEndpoint;
  /** Epoch ms (world clock in tests). */
  readonly now: () => number;
  /** Real waiting between lease re-reads (injectable for tests). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Lease owner of this worker (default a random id). */
  readonly workerId?: string;
  /**
   * Carhook's authorize link for a brand (`<public URL>/oauth/<brand>/authorize`), put in
   * `enrollment.reauthorization_required` so the consumer can send the user there. Absent when the
   * public URL of the HTTP API is not configured.
   */
  readonly authorizeUrl?: (brand: string) => string;
  readonly config?: Partial<TokenManagerConfig>;
}

/** Why a provider could not give a token; the poll stops without further requests. */
export type TokenOutcome =
  | {
      readonly kind: 'ReauthorizationRequired';
      readonly enrollmentId: string;
      /** True for the worker that made the transition (and wrote the event). */
      readonly transitioned: boolean;
      readonly vehiclesPaused: number;
      /** The event logged with the transition (for the transitioning worker to publish). */
      readonly event?: EventEnvelope;
    }
  | { readonly kind: 'NotActive'; readonly enrollmentId: string; readonly status: string };

/** A `TokenProvider` of one enrollment, with the outcome that stopped it, if any. */
export interface EnrollmentTokenProvider extends TokenProvider {
  readonly enrollmentId: string;
  /** Set once the enrollment needs re-authorization (or is not active): make no further request. */
  outcome(): TokenOutcome | undefined;
  /** Token endpoint requests this provider made (refreshes). */
  refreshes(): number;
}

export interface TokenManager {
  /** A provider for one oauth-user enrollment; `snapshot` avoids one read when the caller has it. */
  providerFor(enrollmentId: string, snapshot?: OAuthUserEnrollment): EnrollmentTokenProvider;
  /** Encrypts a token set as the enrollment stores it (for enrollment and re-authorization). */
  seal(enrollmentId: string, tokens: TokenSet): string;
}

/** The lease that makes refresh single-flight per enrollment across workers. */
export const refreshLeaseName = (enrollmentId: string): string => `token-refresh:${enrollmentId}`;

/**
 * The record of one refresh attempt: held from before the refresh token is sent until its answer
 * is stored. Named after a hash of the token (never the token itself).
 */
export const refreshAttemptName = (enrollmentId: string, refreshToken: string): string =>
  `token-refresh-attempt:${enrollmentId}:${createHash('sha256').update(refreshToken).digest('base64url').slice(0, 22)}`;

/** The `invalid_grant` description when the refresh token was spent by a refresh whose answer was lost. */
export const LOST_REFRESH_ANSWER =
  'the refresh token was spent by an earlier refresh whose answer was never stored (a worker stopped between the token endpoint answer and the token write): the user must authorize again';

/**
 * The `enrollment.reauthorization_required` event. Its id is keyed on the enrollment's last token
 * write (`updatedAt`), so every worker that sees the same `invalid_grant` builds the same event,
 * and a later episode (after a re-authorization) gets a new one.
 */
export function reauthorizationEvent(
  enrollment: Pick<OAuthUserEnrollment, 'id' | 'updatedAt'>,
  now: number,
  description?: string,
  affected?: {
    /** The enrollment's vehicles, paused until the user authorizes again. */
    readonly vehicles?: readonly { readonly id: string; readonly vin: string }[];
    /** Carhook's authorize link for the enrollment's brand, when its public URL is known. */
    readonly authorizeUrl?: string;
  },
): EventEnvelope {
  const vehicles = [...(affected?.vehicles ?? [])].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const at = new Date(now).toISOString();
  return buildEvent('enrollment.reauthorization_required', {
    id: eventId({
      scope: enrollment.id,
      type: 'enrollment.reauthorization_required',
      key: enrollment.updatedAt,
      transition: 'required',
    }),
    occurredAt: at,
    detectedAt: at,
    sequence: 0,
    enrollment: { id: enrollment.id, kind: 'oauth-user' },
    source: { api: 'v2', operation: 'auth.token' },
    data: {
      enrollmentId: enrollment.id,
      reason: 'invalid_grant',
      ...(description ? { description: description.slice(0, 500) } : {}),
      pausedAt: at,
      ...(vehicles.length > 0
        ? { vehicleIds: vehicles.map((v) => v.id), vins: vehicles.map((v) => v.vin) }
        : {}),
      ...(affected?.authorizeUrl ? { authorizeUrl: affected.authorizeUrl } : {}),
    },
  });
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function createTokenManager(deps: TokenManagerDeps): TokenManager {
  const config: TokenManagerConfig = { ...DEFAULT_TOKEN_MANAGER_CONFIG, ...deps.config };
  const sleep = deps.sleep ?? defaultSleep;
  const workerId = deps.workerId ?? `worker-${randomUUID()}`;

  return {
    seal: (enrollmentId, tokens) => deps.cipher.encryptTokens(tokens, enrollmentId),
    providerFor(enrollmentId, snapshot) {
      let enrollment: OAuthUserEnrollment | undefined = snapshot;
      let tokens: TokenSet | undefined;
      let tokensOf: string | undefined;
      let stopped: TokenOutcome | undefined;
      let inflight: Promise<string> | undefined;
      let refreshCount = 0;

      const grantError = (message: string): CarhookApiError => {
        const error: InvalidGrantError = { kind: 'InvalidGrant', operation: 'auth.token', message };
        return new CarhookApiError(error);
      };

      const stop = (): never => {
        const s = stopped;
        throw grantError(
          s?.kind === 'NotActive'
            ? `enrollment ${enrollmentId} is ${s.status}: no token is used`
            : `enrollment ${enrollmentId} needs re-authorization`,
        );
      };

      /** Reads the enrollment (fresh) and decrypts its tokens; stops on a non-active enrollment. */
      const load = async (fresh: boolean): Promise<TokenSet> => {
        if (fresh || enrollment === undefined) {
          const found = await deps.enrollments.get(enrollmentId);
          if (found?.kind !== 'oauth-user') {
            stopped = { kind: 'NotActive', enrollmentId, status: found ? found.kind : 'missing' };
            return stop();
          }
          enrollment = found;
        }
        if (enrollment.status !== 'active') {
          stopped =
            enrollment.status === 'reauthorization_required'
              ? { kind: 'ReauthorizationRequired', enrollmentId, transitioned: false, vehiclesPaused: 0 }
              : { kind: 'NotActive', enrollmentId, status: enrollment.status };
          return stop();
        }
        const ciphertext = enrollment.tokenCiphertext;
        if (ciphertext === undefined) {
          stopped = { kind: 'NotActive', enrollmentId, status: 'no-tokens' };
          return stop();
        }
        if (tokens === undefined || tokensOf !== ciphertext) {
          tokens = deps.cipher.decryptTokens(ciphertext, enrollmentId);
          tokensOf = ciphertext;
        }
        return tokens;
      };

      const fresh = (t: TokenSet): boolean => Date.parse(t.expiresAt) - config.refreshSkewMs > deps.now();

      const invalidGrant = async (message: string): Promise<never> => {
        const current = enrollment ?? (await deps.enrollments.get(enrollmentId));
        const updatedAt = current?.updatedAt ?? new Date(deps.now()).toISOString();
        const now = deps.now();
        // The event names what the user must act on: the paused vehicles and where to re-authorize.
        const vehicles = await deps.vehicles.listByEnrollment(enrollmentId);
        const brand = current?.brand;
        const event = reauthorizationEvent({ id: enrollmentId, updatedAt }, now, message, {
          vehicles,
          ...(brand !== undefined && deps.authorizeUrl ? { authorizeUrl: deps.authorizeUrl(brand) } : {}),
        });
        const r = await requireReauthorization(deps, enrollmentId, now, event);
        stopped = {
          kind: 'ReauthorizationRequired',
          enrollmentId,
          ...r,
          ...(r.transitioned ? { event } : {}),
        };
        throw grantError(message);
      };

      /** One refresh under the lease; the lease holder re-checks the stored tokens first. */
      const refreshUnderLease = async (rejected: string | undefined): Promise<string> => {
        const lease = refreshLeaseName(enrollmentId);
        for (let attempt = 0; attempt <= config.leaseWaitAttempts; attempt++) {
          if (await deps.leases.acquire(lease, workerId, config.leaseTtlMs, deps.now())) {
            try {
              const stored = await load(true);
              // Another worker refreshed while we waited: use its token.
              if (fresh(stored) && stored.accessToken !== rejected) return stored.accessToken;
              const refreshToken = stored.refreshToken;
              if (!refreshToken)
                return await invalidGrant('no refresh token stored: the user must authorize again');
              // Recorded before the token is spent: if this worker dies before storing the answer,
              // the next refresh finds the record held by another owner.
              const attempt = refreshAttemptName(enrollmentId, refreshToken);
              const interrupted = !(await deps.leases.acquire(
                attempt,
                workerId,
                config.refreshAttemptTtlMs,
                deps.now(),
              ));
              refreshCount++;
              const r = await deps.endpointFor(enrollment?.brand ?? '').refresh(refreshToken);
              if (!r.ok) {
                if (r.error.kind === 'InvalidGrant') {
                  return await invalidGrant(
                    interrupted ? `${LOST_REFRESH_ANSWER} (${r.error.message})` : r.error.message,
                  );
                }
                // The record stays: the request may have reached the server and spent the token.
                throw new CarhookApiError(r.error);
              }
              // Scope and token type are not stored (always `public`, `bearer`; keeps the ciphertext small).
              const next = createTokenSet({
                accessToken: r.value.accessToken,
                // RFC 6749 6: the server may keep the refresh token (no rotation).
                refreshToken: r.value.refreshToken ?? refreshToken,
                expiresAt: (r.value.expiresAt ?? new Date(deps.now() + 3_600_000)).toISOString(),
              });
              const ciphertext = deps.cipher.encryptTokens(next, enrollmentId);
              const saved = await deps.enrollments.saveTokens(
                enrollmentId,
                { tokenCiphertext: ciphertext, tokenExpiresAt: next.expiresAt },
                deps.now(),
              );
              if (saved.kind !== 'Saved') {
                stopped = {
                  kind: 'NotActive',
                  enrollmentId,
                  status: saved.kind === 'NotAllowed' ? saved.status : 'missing',
                };
                return stop();
              }
              tokens = next;
              tokensOf = ciphertext;
              enrollment = undefined; // re-read on the next load: updatedAt moved
              // The answer is stored: the attempt is over (left to expire if this write fails).
              await deps.leases.release(attempt, workerId).catch(() => false);
              return next.accessToken;
            } finally {
              await deps.leases.release(lease, workerId).catch(() => false);
            }
          }
          // Someone else refreshes: wait, then look at what it stored.
          await sleep(config.leaseWaitMs);
          const stored = await load(true);
          if (fresh(stored) && stored.accessToken !== rejected) return stored.accessToken;
        }
        throw new CarhookApiError({
          kind: 'Timeout',
          operation: 'auth.token',
          aborted: false,
          message: `another worker held the token refresh of enrollment ${enrollmentId} for too long`,
        });
      };

      const refresh = (rejected: string | undefined): Promise<string> => {
        inflight ??= refreshUnderLease(rejected).finally(() => {
          inflight = undefined;
        });
        return inflight;
      };

      return {
        enrollmentId,
        outcome: () => stopped,
        refreshes: () => refreshCount,
        async getAccessToken() {
          if (stopped) return stop();
          const t = await load(false);
          if (fresh(t)) return t.accessToken;
          return refresh(undefined);
        },
        async refreshAccessToken(rejected) {
          if (stopped) return stop();
          const t = await load(true);
          if (t.accessToken !== rejected && fresh(t)) return t.accessToken;
          return refresh(rejected);
        },
      };
    },
  };
}
