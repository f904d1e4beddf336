/**
 * The OAuth 2.0 side: the authorize URL, the token endpoint (authorization code with
 * optional PKCE, and the `refresh_token` grant, RFC 6749 section 6, since the API does not document
 * the refresh request) and a ready token provider with refresh-before-expiry, rotation and
 * single-flight refresh.
 *
 * `oauth4webapi` builds the token requests (client authentication, form encoding, PKCE) and
 * validates successful token responses. Error responses are mapped here before it sees them: the
 * API does not document their shape, so both the RFC 6749 form (`{"error":"invalid_grant"}`)
 * and a nested `{"error":{"code":"invalid_grant"}}` are understood.
 */
import * as oauth from 'oauth4webapi';
import { backoffCeiling, fullJitter } from '../backoff';
import { systemNow } from '../clock';
import { type ApiError, CarhookApiError, fail, ok, type Result, redact } from './errors';
import type { TokenProvider } from './ports';
import { DEFAULT_RETRY, DEFAULT_TIMEOUT_MS, type Sleep, type TransportOptions } from './transport';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post';

/**
 * The token endpoint's options: the client's credentials and the same HTTP knobs as the API
 * transport (fetch, timeout, retry budget, injected randomness, sleep, clock, logger).
 */
export interface OAuthOptions
  extends Pick<TransportOptions, 'fetch' | 'timeoutMs' | 'retry' | 'random' | 'sleep' | 'now' | 'logger'> {
  readonly authUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The brand's path segment in the OAuth addresses. */
  readonly brand: string;
  /**
   * Default `client_secret_post`: the token endpoint takes `client_id` among the form fields. With `client_secret_basic`, oauth4webapi form-encodes id and
   * secret before base64 as RFC 6749 2.3.1 requires (`carhook-sim` → `carhook%2Dsim`).
   */
  readonly clientAuth?: ClientAuthMethod;
}

export interface TokenSet {
  readonly accessToken: string;
  readonly refreshToken?: string;
  /** When the access token expires (from `expires_in`). */
  readonly expiresAt?: Date;
  readonly scope?: string;
  readonly tokenType: string;
}

export interface AuthorizeUrlParams {
  readonly redirectUri: string;
  readonly state?: string;
  /** PKCE S256 challenge (`calculatePKCECodeChallenge(verifier)`). */
  readonly codeChallenge?: string;
  /** `public` is the only scope the API grants. */
  readonly scope?: string;
}

export interface CodeExchange {
  readonly code: string;
  readonly redirectUri: string;
  readonly codeVerifier?: string;
  readonly signal?: AbortSignal;
}

export interface TokenEndpoint {
  readonly authorizeUrl: (params: AuthorizeUrlParams) => string;
  readonly exchangeCode: (params: CodeExchange) => Promise<Result<TokenSet>>;
  readonly refresh: (refreshToken: string, options?: { signal?: AbortSignal }) => Promise<Result<TokenSet>>;
  /** Requests sent to the token endpoint so far. */
  readonly requests: () => number;
}

/** PKCE helpers re-exported from oauth4webapi. */
export const pkce = {
  verifier: (): string => oauth.generateRandomCodeVerifier(),
  challenge: (verifier: string): Promise<string> => oauth.calculatePKCECodeChallenge(verifier),
  state: (): string => oauth.generateRandomState(),
};

/** The largest epoch ms a Date holds (ECMA-262 21.4.1.1). */
const MAX_DATE_MS = 8.64e15;

function authBase(authUrl: string, brand: string): string {
  return `${authUrl.replace(/\/+$/, '')}/accounts/signin/v1/${encodeURIComponent(brand)}/oauth2`;
}

export function createTokenEndpoint(options: OAuthOptions): TokenEndpoint {
  const base = authBase(options.authUrl, options.brand);
  const as: oauth.AuthorizationServer = {
    issuer: options.authUrl,
    authorization_endpoint: `${base}/authorize`,
    token_endpoint: `${base}/token`,
  };
  const client: oauth.Client = { client_id: options.clientId };
  const clientAuth =
    options.clientAuth === 'client_secret_basic'
      ? oauth.ClientSecretBasic(options.clientSecret)
      : oauth.ClientSecretPost(options.clientSecret);
  const retry = { ...DEFAULT_RETRY, ...options.retry };
  const fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const sleep: Sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  const now = options.now ?? systemNow;
  const random = options.random ?? Math.random;
  const secrets = new Set<string>([options.clientSecret]);
  let requests = 0;

  const scrub = (text: string): string => redact(text, secrets);

  /** Sends one token request with retries on 5xx/timeout/network, mapping error responses. */
  async function post(
    operation: string,
    send: (opts: oauth.TokenEndpointRequestOptions) => Promise<Response>,
    signal: AbortSignal | undefined,
  ): Promise<Result<Response>> {
    const started = now();
    for (let attempt = 1; ; attempt++) {
      const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      const composite = signal ? AbortSignal.any([signal, timeout]) : timeout;
      let error: ApiError;
      try {
        requests++;
        const response = await send({
          signal: composite,
          [oauth.customFetch]: (url: string, init: RequestInit) => fetchFn(url, init),
          [oauth.allowInsecureRequests]: as.token_endpoint?.startsWith('http:') ?? false,
        });
        options.logger?.debug('car api token request', { operation, status: response.status, attempt });
        if (response.status === 200) return ok(response, attempt);
        const mapped = await tokenError(operation, response);
        if (mapped.kind !== 'Upstream') return fail(mapped, attempt);
        error = mapped;
      } catch (cause) {
        if (signal?.aborted) {
          return fail(
            { kind: 'Timeout', operation, aborted: true, message: 'the caller aborted the request' },
            attempt,
          );
        }
        error = timeout.aborted
          ? { kind: 'Timeout', operation, aborted: false, message: 'the token request timed out' }
          : {
              kind: 'Network',
              operation,
              message: `network error: ${scrub(cause instanceof Error ? cause.message : String(cause)).slice(0, 200)}`,
            };
      }
      if (attempt >= retry.maxAttempts) return fail(error, attempt);
      const delay = fullJitter(backoffCeiling(attempt, retry.baseDelayMs, retry.maxDelayMs), random);
      if (now() - started + delay > retry.maxTotalMs) return fail(error, attempt);
      await sleep(delay, signal);
    }
  }

  async function tokenError(operation: string, response: Response): Promise<ApiError> {
    const text = await response.text().catch(() => '');
    let code: string | undefined;
    let description: string | undefined;
    try {
      const body = JSON.parse(text) as { error?: unknown; error_description?: unknown };
      if (typeof body.error === 'string') code = body.error;
      else if (typeof body.error === 'object' && body.error !== null) {
        const inner = body.error as { code?: unknown; message?: unknown };
        if (typeof inner.code === 'string') code = inner.code;
        if (typeof inner.message === 'string') description = inner.message;
      }
      if (typeof body.error_description === 'string') description = body.error_description;
    } catch {
      // Not JSON: the status decides.
    }
    const status = response.status;
    const why = scrub(`${status}${code ? ` ${code}` : ''}${description ? `: ${description}` : ''}`).slice(
      0,
      240,
    );
    if (code === 'invalid_grant') {
      return { kind: 'InvalidGrant', operation, status, message: `the grant was refused (${why})` };
    }
    if (code === 'invalid_client' || status === 401) {
      return { kind: 'Unauthorized', operation, status, message: `client authentication failed (${why})` };
    }
    if (status === 429)
      return { kind: 'RateLimited', operation, status, message: `token endpoint rate limited (${why})` };
    if (status >= 500)
      return { kind: 'Upstream', operation, status, message: `token endpoint error (${why})` };
    return { kind: 'InvalidRequest', operation, status, message: `token request refused (${why})` };
  }

  async function toTokenSet(
    operation: string,
    response: Response,
    process: (r: Response) => Promise<oauth.TokenEndpointResponse>,
  ): Promise<Result<TokenSet>> {
    try {
      const t = await process(response);
      secrets.add(t.access_token);
      if (t.refresh_token) secrets.add(t.refresh_token);
      // A lifetime no Date can hold (`expires_in: 1e308`) would give an Invalid Date: the provider
      // would then never refresh, and storing it (`toISOString`) throws.
      if (t.expires_in !== undefined && !(now() + t.expires_in * 1000 <= MAX_DATE_MS)) {
        return fail(
          {
            kind: 'Malformed',
            operation,
            message: `invalid token response: expires_in ${t.expires_in} seconds is beyond any date`,
            excerpt: '',
          },
          1,
        );
      }
      return ok(
        {
          accessToken: t.access_token,
          tokenType: t.token_type,
          ...(t.refresh_token ? { refreshToken: t.refresh_token } : {}),
          ...(t.expires_in !== undefined ? { expiresAt: new Date(now() + t.expires_in * 1000) } : {}),
          ...(t.scope ? { scope: t.scope } : {}),
        },
        1,
      );
    } catch (cause) {
      // oauth4webapi's errors may carry the body (tokens): keep only a scrubbed message.
      const message = scrub(cause instanceof Error ? cause.message : String(cause)).slice(0, 200);
      return fail(
        { kind: 'Malformed', operation, message: `invalid token response: ${message}`, excerpt: '' },
        1,
      );
    }
  }

  return {
    authorizeUrl(params) {
      const url = new URL(`${base}/authorize`);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('scope', params.scope ?? 'public');
      url.searchParams.set('redirect_uri', params.redirectUri);
      url.searchParams.set('client_id', options.clientId);
      if (params.state) url.searchParams.set('state', params.state);
      if (params.codeChallenge) {
        url.searchParams.set('code_challenge', params.codeChallenge);
        url.searchParams.set('code_challenge_method', 'S256');
      }
      return url.toString();
    },

    async exchangeCode({ code, redirectUri, codeVerifier, signal }) {
      const operation = 'auth.token';
      if (!code)
        return fail({ kind: 'InvalidRequest', operation, field: 'code', message: 'code is empty' }, 0);
      secrets.add(code);
      // validateAuthResponse brands the callback parameters as oauth4webapi requires.
      const params = oauth.validateAuthResponse(
        as,
        client,
        new URLSearchParams({ code }),
        oauth.skipStateCheck,
      );
      const sent = await post(
        operation,
        (opts) =>
          oauth.authorizationCodeGrantRequest(
            as,
            client,
            clientAuth,
            params,
            redirectUri,
            codeVerifier ?? oauth.nopkce,
            opts,
          ),
        signal,
      );
      if (!sent.ok) return sent;
      const r = await toTokenSet(operation, sent.value, (res) =>
        oauth.processAuthorizationCodeResponse(as, client, res),
      );
      return r.ok ? ok(r.value, sent.requests) : fail(r.error, sent.requests);
    },

    async refresh(refreshToken, opts = {}) {
      const operation = 'auth.token';
      if (!refreshToken) {
        return fail(
          { kind: 'InvalidGrant', operation, message: 'no refresh token: the user must authorize again' },
          0,
        );
      }
      secrets.add(refreshToken);
      const sent = await post(
        operation,
        (o) => oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshToken, o),
        opts.signal,
      );
      if (!sent.ok) return sent;
      const r = await toTokenSet(operation, sent.value, (res) =>
        oauth.processRefreshTokenResponse(as, client, res),
      );
      return r.ok ? ok(r.value, sent.requests) : fail(r.error, sent.requests);
    },

    requests: () => requests,
  };
}

export interface OAuthTokenProviderOptions {
  readonly endpoint: TokenEndpoint;
  readonly tokens: TokenSet;
  /** Refresh this long before `expiresAt` (default 60 s). */
  readonly refreshSkewMs?: number;
  readonly now?: () => number;
  /** Called with every new token set (refresh tokens rotate): store it. Failures are ignored. */
  readonly onTokens?: (tokens: TokenSet) => void | Promise<void>;
}

/**
 * A token provider holding one user's tokens in memory: refreshes before expiry, stores the
 * rotated refresh token, and shares one in-flight refresh between concurrent callers. Failures
 * are thrown as `CarhookApiError` (kind `InvalidGrant` when the user must authorize again).
 */
export class InMemoryTokenProvider implements TokenProvider {
  #tokens: TokenSet;
  #inflight: Promise<string> | undefined;
  readonly #o: OAuthTokenProviderOptions;
  readonly #now: () => number;

  constructor(options: OAuthTokenProviderOptions) {
    this.#o = options;
    this.#tokens = options.tokens;
    this.#now = options.now ?? systemNow;
  }

  /** The current token set (to persist it). */
  get tokens(): TokenSet {
    return this.#tokens;
  }

  async getAccessToken(): Promise<string> {
    const { expiresAt, refreshToken, accessToken } = this.#tokens;
    const skew = this.#o.refreshSkewMs ?? 60_000;
    if (expiresAt && refreshToken && expiresAt.getTime() - skew <= this.#now()) return this.#refresh();
    return accessToken;
  }

  async refreshAccessToken(rejected: string): Promise<string> {
    // Someone already replaced the rejected token: use the new one.
    if (this.#tokens.accessToken !== rejected) return this.#tokens.accessToken;
    return this.#refresh();
  }

  #refresh(): Promise<string> {
    this.#inflight ??= (async () => {
      try {
        const refreshToken = this.#tokens.refreshToken ?? '';
        const r = await this.#o.endpoint.refresh(refreshToken);
        if (!r.ok) throw new CarhookApiError(r.error);
        // RFC 6749 section 6: the server may keep the old refresh token (no rotation).
        const next: TokenSet = { ...r.value, refreshToken: r.value.refreshToken ?? refreshToken };
        this.#tokens = next;
        try {
          await this.#o.onTokens?.(next);
        } catch {
          // Storing is the owner's concern; the token is valid either way.
        }
        return next.accessToken;
      } finally {
        this.#inflight = undefined;
      }
    })();
    return this.#inflight;
  }

  /** Never reveals the tokens when logged or serialized. */
  toJSON(): Record<string, unknown> {
    return { expiresAt: this.#tokens.expiresAt?.toISOString(), hasRefreshToken: !!this.#tokens.refreshToken };
  }
}

export function createOAuthTokenProvider(options: OAuthTokenProviderOptions): InMemoryTokenProvider {
  return new InMemoryTokenProvider(options);
}

/** A provider for a fixed token (tests, one-off scripts): refresh is impossible, so it fails. */
export function staticTokenProvider(token: string): TokenProvider {
  return {
    getAccessToken: async () => token,
    refreshAccessToken: async () => {
      throw new CarhookApiError({
        kind: 'Unauthorized',
        operation: 'auth.token',
        message: 'static token rejected',
      });
    },
  };
}
