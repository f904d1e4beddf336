import { createHash, randomBytes } from 'node:crypto';
import type { World } from '../world/world';

/** The API states no authorization-code lifetime; 60 s of world time is a common choice. */
export const CODE_TTL_MS = 60_000;
export const DEFAULT_ACCESS_TTL_S = 3600;

interface CodeGrant {
  readonly clientId: string;
  readonly userId: string;
  readonly redirectUri: string;
  readonly expiresAt: number;
  readonly codeChallenge?: string;
  used: boolean;
}

interface AccessGrant {
  readonly clientId: string;
  readonly userId: string;
  readonly expiresAt: number;
}

interface RefreshGrant {
  readonly clientId: string;
  readonly userId: string;
  valid: boolean;
}

export interface TokenResponse {
  readonly token_type: 'bearer';
  readonly access_token: string;
  readonly expires_in: number;
  readonly scope: 'public';
  readonly refresh_token: string;
}

/** RFC 6749 5.2 error codes. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'server_error';

export interface OAuthError {
  readonly kind: 'OAuth';
  readonly error: OAuthErrorCode;
  readonly description: string;
}

export type TokenOutcome = { ok: true; value: TokenResponse } | { ok: false; error: OAuthError };

export type AccessCheck =
  | { ok: true; clientId: string; userId: string }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' };

const grantError = (description: string): TokenOutcome => ({
  ok: false,
  error: { kind: 'OAuth', error: 'invalid_grant', description },
});

function opaque(prefix: string): string {
  return `${prefix}${randomBytes(24).toString('base64url')}`;
}

/** PKCE S256 (RFC 7636 4.6): BASE64URL(SHA256(verifier)). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** Codes, access and refresh tokens, all timed on the world clock. Tokens are opaque random strings. */
export class TokenStore {
  private readonly codes = new Map<string, CodeGrant>();
  private readonly access = new Map<string, AccessGrant>();
  private readonly refresh = new Map<string, RefreshGrant>();

  constructor(private readonly world: World) {}

  issueCode(grant: Omit<CodeGrant, 'expiresAt' | 'used'>): string {
    const code = opaque('c_');
    this.codes.set(code, { ...grant, expiresAt: this.world.now() + CODE_TTL_MS, used: false });
    return code;
  }

  redeemCode(
    code: string,
    clientId: string,
    redirectUri: string | undefined,
    verifier: string | undefined,
    ttlS: number,
  ): TokenOutcome {
    const grant = this.codes.get(code);
    if (!grant) return grantError('unknown authorization code');
    if (grant.used) {
      // RFC 6749 4.1.2: a code used twice is refused (and should revoke what it issued).
      this.revokeFor(grant.clientId, grant.userId);
      return grantError('authorization code already used');
    }
    grant.used = true;
    if (grant.expiresAt <= this.world.now()) return grantError('authorization code expired');
    if (grant.clientId !== clientId) return grantError('authorization code was issued to another client');
    if (redirectUri !== grant.redirectUri) {
      return grantError('redirect_uri does not match the one of the authorize request');
    }
    if (grant.codeChallenge !== undefined) {
      if (!verifier) return grantError('code_verifier is required (PKCE)');
      if (s256(verifier) !== grant.codeChallenge)
        return grantError('code_verifier does not match code_challenge');
    }
    return { ok: true, value: this.issueTokens(grant.clientId, grant.userId, ttlS) };
  }

  /** RFC 6749 6, with rotation: the refresh token used becomes invalid. */
  useRefresh(token: string, clientId: string, ttlS: number): TokenOutcome {
    const grant = this.refresh.get(token);
    if (!grant?.valid) return grantError('refresh token is invalid or was already used');
    if (grant.clientId !== clientId) return grantError('refresh token was issued to another client');
    const user = this.world.user(grant.userId);
    if (!user || user.revoked) {
      grant.valid = false;
      return grantError('the user revoked the access of this application');
    }
    grant.valid = false;
    return { ok: true, value: this.issueTokens(grant.clientId, grant.userId, ttlS) };
  }

  private issueTokens(clientId: string, userId: string, ttlS: number): TokenResponse {
    const accessToken = opaque('at_');
    const refreshToken = opaque('rt_');
    this.access.set(accessToken, { clientId, userId, expiresAt: this.world.now() + ttlS * 1000 });
    this.refresh.set(refreshToken, { clientId, userId, valid: true });
    return {
      token_type: 'bearer',
      access_token: accessToken,
      expires_in: ttlS,
      scope: 'public',
      refresh_token: refreshToken,
    };
  }

  /** The user an access or refresh token was issued to, whether or not it is still valid. */
  ownerOf(token: string): string | undefined {
    return this.access.get(token)?.userId ?? this.refresh.get(token)?.userId;
  }

  checkAccess(token: string): AccessCheck {
    const grant = this.access.get(token);
    if (!grant) return { ok: false, reason: 'unknown' };
    if (grant.expiresAt <= this.world.now()) return { ok: false, reason: 'expired' };
    if (this.world.user(grant.userId)?.revoked !== false) return { ok: false, reason: 'revoked' };
    return { ok: true, clientId: grant.clientId, userId: grant.userId };
  }

  private revokeFor(clientId: string, userId: string): void {
    for (const [k, g] of this.access)
      if (g.clientId === clientId && g.userId === userId) this.access.delete(k);
    for (const g of this.refresh.values())
      if (g.clientId === clientId && g.userId === userId) g.valid = false;
  }

  /** Issues tokens directly (control API / tests that skip the browser step). */
  issueFor(clientId: string, userId: string, ttlS: number): TokenResponse {
    return this.issueTokens(clientId, userId, ttlS);
  }

  clear(): void {
    this.codes.clear();
    this.access.clear();
    this.refresh.clear();
  }
}
