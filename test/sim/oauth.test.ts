import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { s256 } from '../../sim/auth/tokens';
import { BRANDS } from '../../sim/world/catalog';
import type { SimUser } from '../../sim/world/types';
import { basicAuth, startTestSim, type TestSim } from './support';

const REDIRECT = 'http://127.0.0.1:8765/callback';

describe('OAuth 2.0 authorization-code flow', () => {
  let t: TestSim;
  let user: SimUser;
  let segment: string;

  const authorizeUrl = (extra: Record<string, string> = {}): string => {
    const q = new URLSearchParams({
      response_type: 'code',
      scope: 'public',
      client_id: 'carhook-sim',
      redirect_uri: REDIRECT,
      state: 'st-42',
      ...extra,
    });
    return `/accounts/signin/v1/${segment}/oauth2/authorize?${q}`;
  };

  const approve = async (extra: Record<string, string> = {}, who = user.id): Promise<Response> =>
    t.fetch(authorizeUrl(extra), {
      method: 'POST',
      body: new URLSearchParams({ user: who }),
      redirect: 'manual',
    });

  const codeOf = (res: Response): string => {
    expect(res.status).toBe(302);
    const loc = new URL(res.headers.get('location') as string);
    expect(`${loc.origin}${loc.pathname}`).toBe(REDIRECT);
    expect(loc.searchParams.get('state')).toBe('st-42');
    return loc.searchParams.get('code') as string;
  };

  const token = (
    form: Record<string, string>,
    auth: 'basic' | 'form' | 'none' = 'basic',
  ): Promise<Response> => {
    const body = new URLSearchParams(form);
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (auth === 'basic') headers.authorization = basicAuth('carhook-sim', 'carhook-sim-secret');
    if (auth === 'form') {
      body.set('client_id', 'carhook-sim');
      body.set('client_secret', 'carhook-sim-secret');
    }
    return t.fetch(`/accounts/signin/v1/${segment}/oauth2/token`, { method: 'POST', headers, body });
  };

  const exchange = (code: string, extra: Record<string, string> = {}): Promise<Response> =>
    token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, ...extra });

  beforeEach(async () => {
    t = await startTestSim({ vehicles: 20, seed: 5 });
    user = t.sim.world.users()[0] as SimUser;
    segment = BRANDS[user.brand].authSegment;
  });
  afterEach(() => t.close());

  it('shows a login page listing the users of the brand only', async () => {
    const res = await t.fetch(authorizeUrl());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    for (const u of t.sim.world.users()) {
      if (u.brand === user.brand) expect(html).toContain(`value="${u.id}"`);
      else expect(html).not.toContain(`value="${u.id}"`);
    }
    expect(html).toContain('<form method="post"');
  });

  it('approves with the form field user, redirects with code and state, and the code gives tokens', async () => {
    const code = codeOf(await approve());
    const res = await exchange(code);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual([
      'access_token',
      'expires_in',
      'refresh_token',
      'scope',
      'token_type',
    ]);
    expect(body).toMatchObject({ token_type: 'bearer', scope: 'public', expires_in: 3600 });
    const me = await t.v2('/user', body.access_token as string);
    expect(me.status).toBe(200);
    expect(((await me.json()) as { id: string }).id).toBe(user.id);
  });

  it('accepts client_secret in the form as well as HTTP basic (RFC 6749 2.3.1)', async () => {
    const code = codeOf(await approve());
    const res = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, 'form');
    expect(res.status).toBe(200);
  });

  it('refuses a client without credentials or with a wrong secret: 401 invalid_client', async () => {
    const code = codeOf(await approve());
    const none = await token(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: 'carhook-sim' },
      'none',
    );
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error: 'invalid_client' });
    const wrong = await t.fetch(`/accounts/signin/v1/${segment}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth('carhook-sim', 'x'),
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('uses a code once only', async () => {
    const code = codeOf(await approve());
    expect((await exchange(code)).status).toBe(200);
    const again = await exchange(code);
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('expires a code after 60 s of world time', async () => {
    const code = codeOf(await approve());
    await t.control('POST', '/clock/advance', { seconds: 61 });
    const res = await exchange(code);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_grant');
    expect(body.error_description).toMatch(/expired/);
  });

  it('requires the same redirect_uri at the token endpoint', async () => {
    const code = codeOf(await approve());
    const res = await exchange(code, { redirect_uri: 'http://127.0.0.1:8765/other' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('checks PKCE S256: the verifier is required and must match', async () => {
    const verifier = 'a-very-long-verifier-of-at-least-forty-three-characters-123';
    const challenge = s256(verifier);
    const missing = await exchange(
      codeOf(await approve({ code_challenge: challenge, code_challenge_method: 'S256' })),
    );
    expect(missing.status).toBe(400);
    const wrong = await exchange(
      codeOf(await approve({ code_challenge: challenge, code_challenge_method: 'S256' })),
      {
        code_verifier: `${verifier}x`,
      },
    );
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_grant' });
    const right = await exchange(
      codeOf(await approve({ code_challenge: challenge, code_challenge_method: 'S256' })),
      {
        code_verifier: verifier,
      },
    );
    expect(right.status).toBe(200);
  });

  it('rotates refresh tokens: the new one works, the old one is invalid_grant', async () => {
    const first = (await (await exchange(codeOf(await approve()))).json()) as { refresh_token: string };
    const r1 = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(r1.status).toBe(200);
    const second = (await r1.json()) as { refresh_token: string; access_token: string };
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await t.v2('/user', second.access_token)).status).toBe(200);
    const old = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(old.status).toBe(400);
    expect(await old.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await token({ grant_type: 'refresh_token', refresh_token: second.refresh_token })).status).toBe(
      200,
    );
  });

  it('answers invalid_grant to a refresh after POST /_sim/users/{id}/revoke, and 401 to the access token', async () => {
    const tokens = (await (await exchange(codeOf(await approve()))).json()) as {
      refresh_token: string;
      access_token: string;
    };
    const revoke = await t.control('POST', `/users/${user.id}/revoke`);
    expect(revoke.status).toBe(200);
    expect(revoke.body.revoked).toBe(true);
    const res = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await t.v2('/user', tokens.access_token)).status).toBe(401);
  });

  it('rejects unknown grant types, missing fields and non-form bodies', async () => {
    expect(await (await token({ grant_type: 'password' })).json()).toMatchObject({
      error: 'unsupported_grant_type',
    });
    expect(await (await token({})).json()).toMatchObject({ error: 'invalid_request' });
    expect(await (await token({ grant_type: 'authorization_code' })).json()).toMatchObject({
      error: 'invalid_request',
    });
    const json = await t.fetch(`/accounts/signin/v1/${segment}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: basicAuth('carhook-sim', 'carhook-sim-secret'),
      },
      body: '{"grant_type":"refresh_token"}',
    });
    expect(json.status).toBe(400);
  });

  it('validates the authorize request: client and redirect_uri get 400, the rest a redirect with error', async () => {
    expect((await t.fetch(authorizeUrl({ client_id: 'nope' }))).status).toBe(400);
    const external = await t.fetch(authorizeUrl({ redirect_uri: 'https://evil.example/cb' }));
    expect(external.status).toBe(400);
    expect(((await external.json()) as { error: { field: string } }).error.field).toBe('redirect_uri');
    const scope = await t.fetch(authorizeUrl({ scope: 'admin' }), { redirect: 'manual' });
    expect(scope.status).toBe(302);
    expect(new URL(scope.headers.get('location') as string).searchParams.get('error')).toBe('invalid_scope');
    const type = await t.fetch(authorizeUrl({ response_type: 'token' }), { redirect: 'manual' });
    expect(new URL(type.headers.get('location') as string).searchParams.get('error')).toBe(
      'unsupported_response_type',
    );
    expect((await t.fetch('/accounts/signin/v1/unknownbrand/oauth2/authorize')).status).toBe(404);
  });

  it('accepts any loopback redirect URI for the default client (localhost, [::1], any port)', async () => {
    for (const uri of ['http://localhost:1234/cb', 'http://[::1]:9/x', 'http://127.0.0.1/']) {
      expect((await t.fetch(authorizeUrl({ redirect_uri: uri }))).status).toBe(200);
    }
  });

  it('refuses to sign in a user of another brand, and a deny sends error=access_denied', async () => {
    const other = t.sim.world.users().find((u) => u.brand !== user.brand) as SimUser;
    const res = await approve({}, other.id);
    expect(res.status).toBe(400);
    const deny = await t.fetch(authorizeUrl(), {
      method: 'POST',
      body: new URLSearchParams({ user: user.id, action: 'deny' }),
      redirect: 'manual',
    });
    expect(new URL(deny.headers.get('location') as string).searchParams.get('error')).toBe('access_denied');
  });

  it('compares redirect URIs exactly for a client with registered URIs', async () => {
    await t.close();
    t = await startTestSim({
      vehicles: 4,
      clients: [{ clientId: 'web', clientSecret: 's', redirectUris: ['https://app.example/cb'] }],
    });
    user = t.sim.world.users()[0] as SimUser;
    segment = BRANDS[user.brand].authSegment;
    const ok = await t.fetch(authorizeUrl({ client_id: 'web', redirect_uri: 'https://app.example/cb' }));
    expect(ok.status).toBe(200);
    const loop = await t.fetch(authorizeUrl({ client_id: 'web', redirect_uri: REDIRECT }));
    expect(loop.status).toBe(400);
  });
});
