import { type Context, Hono } from 'hono';
import type { SimServices } from '../http/context';
import { simError } from '../http/errors';
import { basicCredentials } from '../http/gateway';
import { BRANDS, brandBySegment } from '../world/catalog';
import type { BrandInfo, SimUser } from '../world/types';
import type { SimClientConfig } from './clients';
import type { OAuthErrorCode } from './tokens';

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function oauthError(
  c: Context,
  status: 400 | 401 | 500,
  error: OAuthErrorCode,
  description: string,
): Response {
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
  return c.json({ error, error_description: description }, status);
}

/** RFC 6749 4.1.2.1: errors after a valid client and redirect URI go back to the client. */
function redirectError(
  c: Context,
  redirectUri: string,
  error: string,
  description: string,
  state?: string,
): Response {
  const u = new URL(redirectUri);
  u.searchParams.set('error', error);
  u.searchParams.set('error_description', description);
  if (state !== undefined) u.searchParams.set('state', state);
  return c.redirect(u.toString(), 302);
}

interface AuthorizeRequest {
  readonly brand: BrandInfo;
  readonly client: SimClientConfig;
  readonly redirectUri: string;
  readonly state?: string;
  readonly codeChallenge?: string;
}

/**
 * Validates an authorize request: response_type=code, scope=public, a registered
 * client_id and redirect_uri; PKCE S256 optional. Answers 400 (client or redirect URI wrong) or a
 * redirect with `error=` (anything else wrong), per RFC 6749 4.1.2.1.
 */
function validateAuthorize(
  c: Context,
  svc: SimServices,
  params: URLSearchParams,
): AuthorizeRequest | Response {
  const brand = brandBySegment(c.req.param('brand') ?? '');
  if (!brand) {
    const known = Object.values(BRANDS)
      .map((b) => b.authSegment)
      .join(', ');
    return simError(c, 404, 'not_found', `Unknown brand '${c.req.param('brand')}'; known: ${known}`);
  }
  const clientId = params.get('client_id');
  if (!clientId) return simError(c, 400, 'invalid_request', 'client_id is required', 'client_id');
  const client = svc.clients.get(clientId);
  if (!client) return simError(c, 400, 'invalid_client', `Unknown client_id '${clientId}'`, 'client_id');
  const redirectUri = params.get('redirect_uri');
  if (!redirectUri) return simError(c, 400, 'invalid_request', 'redirect_uri is required', 'redirect_uri');
  if (!svc.clients.acceptsRedirect(client, redirectUri)) {
    return simError(
      c,
      400,
      'invalid_request',
      client.redirectUris
        ? `redirect_uri is not registered for client '${clientId}'`
        : 'redirect_uri must be a loopback URI (127.0.0.1, localhost or [::1])',
      'redirect_uri',
    );
  }
  const state = params.get('state') ?? undefined;
  const responseType = params.get('response_type');
  if (responseType !== 'code') {
    return redirectError(c, redirectUri, 'unsupported_response_type', "response_type must be 'code'", state);
  }
  const scope = params.get('scope');
  if (scope !== 'public')
    return redirectError(c, redirectUri, 'invalid_scope', "scope must be 'public'", state);
  const challenge = params.get('code_challenge') ?? undefined;
  const method = params.get('code_challenge_method') ?? undefined;
  if (challenge !== undefined || method !== undefined) {
    if (method !== 'S256') {
      return redirectError(c, redirectUri, 'invalid_request', 'code_challenge_method must be S256', state);
    }
    if (!challenge || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
      return redirectError(
        c,
        redirectUri,
        'invalid_request',
        'code_challenge must be a base64url SHA-256',
        state,
      );
    }
  }
  return {
    brand,
    client,
    redirectUri,
    state,
    codeChallenge: challenge,
  };
}

function loginPage(brand: BrandInfo, users: readonly SimUser[], action: string, clientId: string): string {
  const rows = users
    .map(
      (u) =>
        `<li><label><input type="radio" name="user" value="${escapeHtml(u.id)}" required> ${escapeHtml(u.firstName)} ${escapeHtml(u.lastName)} &lt;${escapeHtml(u.email)}&gt; — ${u.vehicleIds.length} vehicle(s)</label></li>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(brand.name)} — sign in</title></head>
<body>
<h1>${escapeHtml(brand.name)} account (simulated)</h1>
<p>The application <strong>${escapeHtml(clientId)}</strong> asks for the scope <strong>public</strong>: read-only access to your account and vehicles.</p>
<form method="post" action="${escapeHtml(action)}">
<ul class="users">
${rows}
</ul>
<button type="submit" name="action" value="approve">Sign in and allow</button>
<button type="submit" name="action" value="deny" formnovalidate>Deny</button>
</form>
</body></html>`;
}

/** OAuth 2.0 authorization-code flow (one per brand) under `/accounts/signin/v1/{brand}/oauth2`. */
export function createAuthRoutes(svc: SimServices): Hono {
  const app = new Hono({ strict: false });
  const usersOf = (brand: BrandInfo): SimUser[] => svc.world.users().filter((u) => u.brand === brand.code);

  app.get('/:brand/oauth2/authorize', (c) => {
    const url = new URL(c.req.url);
    const req = validateAuthorize(c, svc, url.searchParams);
    if (req instanceof Response) return req;
    return c.html(
      loginPage(req.brand, usersOf(req.brand), `${url.pathname}${url.search}`, req.client.clientId),
    );
  });

  app.post('/:brand/oauth2/authorize', async (c) => {
    const url = new URL(c.req.url);
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    // The original query travels in the form action; form fields fill in what the query lacks.
    const params = new URLSearchParams(url.search);
    for (const [k, v] of Object.entries(form)) if (typeof v === 'string' && !params.has(k)) params.set(k, v);
    const req = validateAuthorize(c, svc, params);
    if (req instanceof Response) return req;
    if (params.get('action') === 'deny') {
      return redirectError(c, req.redirectUri, 'access_denied', 'The user denied the request', req.state);
    }
    const userId = typeof form.user === 'string' ? form.user : params.get('user');
    if (!userId) return simError(c, 400, 'invalid_request', 'Form field user is required', 'user');
    const user = svc.world.user(userId);
    if (!user || user.brand !== req.brand.code) {
      return simError(c, 400, 'invalid_request', `No ${req.brand.name} user with id '${userId}'`, 'user');
    }
    if (user.revoked) {
      // Signing in again gives consent again.
      user.revoked = false;
      user.updatedAt = svc.world.now();
    }
    const code = svc.tokens.issueCode({
      clientId: req.client.clientId,
      userId: user.id,
      redirectUri: req.redirectUri,
      codeChallenge: req.codeChallenge,
    });
    const target = new URL(req.redirectUri);
    target.searchParams.set('code', code);
    if (req.state !== undefined) target.searchParams.set('state', req.state);
    return c.redirect(target.toString(), 302);
  });

  app.post('/:brand/oauth2/token', async (c) => {
    if (!brandBySegment(c.req.param('brand'))) {
      return oauthError(c, 400, 'invalid_request', `Unknown brand '${c.req.param('brand')}'`);
    }
    if (svc.chaos.drawToken()) return oauthError(c, 500, 'server_error', 'Token service failure (simulated)');
    const type = c.req.header('content-type') ?? '';
    if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
      return oauthError(c, 400, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded');
    }
    const form = new URLSearchParams(await c.req.text());
    // RFC 6749 2.3.1: HTTP Basic or client_id + client_secret in the body.
    const basic = formDecodedCredentials(basicCredentials(c.req.raw));
    const formId = form.get('client_id') ?? undefined;
    if (basic && formId !== undefined && formId !== basic.user) {
      return oauthError(c, 400, 'invalid_request', 'client_id differs from the HTTP basic credentials');
    }
    const clientId = basic?.user ?? formId;
    const secret = basic?.password ?? form.get('client_secret') ?? undefined;
    const client = svc.clients.get(clientId);
    if (!client || secret === undefined || client.clientSecret !== secret) {
      if (basic) c.header('WWW-Authenticate', 'Basic realm="oauth2"');
      return oauthError(
        c,
        401,
        'invalid_client',
        !clientId
          ? 'client authentication is required'
          : !client
            ? `unknown client '${clientId}'`
            : 'client authentication failed',
      );
    }
    const ttl = client.accessTokenTtlSeconds ?? svc.accessTtlSeconds;
    const grantType = form.get('grant_type');
    let outcome: ReturnType<typeof svc.tokens.useRefresh>;
    if (grantType === 'authorization_code') {
      const code = form.get('code');
      if (!code) return oauthError(c, 400, 'invalid_request', 'code is required');
      outcome = svc.tokens.redeemCode(
        code,
        client.clientId,
        form.get('redirect_uri') ?? undefined,
        form.get('code_verifier') ?? undefined,
        ttl,
      );
    } else if (grantType === 'refresh_token') {
      const token = form.get('refresh_token');
      if (!token) return oauthError(c, 400, 'invalid_request', 'refresh_token is required');
      const scope = form.get('scope');
      if (scope !== null && scope !== 'public')
        return oauthError(c, 400, 'invalid_scope', "scope must be 'public'");
      const owner = svc.tokens.ownerOf(token);
      if (owner) svc.stats.recordUser(owner);
      outcome = svc.tokens.useRefresh(token, client.clientId, ttl);
    } else if (!grantType) {
      return oauthError(c, 400, 'invalid_request', 'grant_type is required');
    } else {
      return oauthError(c, 400, 'unsupported_grant_type', `grant_type '${grantType}' is not supported`);
    }
    if (!outcome.ok) return oauthError(c, 400, outcome.error.error, outcome.error.description);
    c.header('Cache-Control', 'no-store');
    c.header('Pragma', 'no-cache');
    return c.json(outcome.value);
  });

  return app;
}

/**
 * RFC 6749 2.3.1: the client id and secret are form-urlencoded before HTTP Basic encoding
 * (oauth4webapi sends `carhook%2Dsim`), so the token endpoint decodes them.
 */
function formDecodedCredentials(
  basic: ReturnType<typeof basicCredentials>,
): ReturnType<typeof basicCredentials> {
  if (!basic) return undefined;
  const decode = (value: string): string => {
    try {
      return decodeURIComponent(value.replace(/\+/g, ' '));
    } catch {
      return value;
    }
  };
  return { user: decode(basic.user), password: decode(basic.password) };
}
