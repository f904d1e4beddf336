import { describe, expect, it } from 'vitest';
import {
  CarhookApiError,
  createCarClient,
  createOAuthTokenProvider,
  createTokenEndpoint,
  type TokenEndpoint,
  unwrap,
} from '../../functions/core/api';
import { fakeFetch, fakeTime, json, testClient } from './support';

const vehicle = { id: 'v1', vin: 'VF3ABCDEF12345678' };
const OLD = 'old-access-token-1111';
const NEW = 'new-access-token-2222';

describe('401 and refresh', () => {
  it('refreshes once on a 401 and replays the request with the new token', async () => {
    let refreshes = 0;
    const { client, requests } = testClient(
      (req) => (req.headers.get('authorization') === `Bearer ${NEW}` ? json(vehicle) : json({}, 401)),
      {
        tokenProvider: {
          getAccessToken: async () => OLD,
          refreshAccessToken: async (rejected) => {
            refreshes++;
            expect(rejected).toBe(OLD);
            return NEW;
          },
        },
      },
    );
    const r = await client.v2.vehicle('v1');
    expect(r).toMatchObject({ ok: true, requests: 2 });
    expect(refreshes).toBe(1);
    expect(requests.map((q) => q.headers.get('authorization'))).toEqual([`Bearer ${OLD}`, `Bearer ${NEW}`]);
  });

  it('surfaces Unauthorized when the refreshed token is refused too', async () => {
    const { client, requests } = testClient(() => json({}, 401));
    const r = await client.v2.vehicle('v1');
    expect(r).toMatchObject({ ok: false, requests: 2, error: { kind: 'Unauthorized', status: 401 } });
    expect(requests).toHaveLength(2);
  });

  it('shares one refresh between concurrent calls rejected with the same token', async () => {
    let refreshes = 0;
    let release: (token: string) => void = () => {};
    const { client } = testClient(
      (req) => (req.headers.get('authorization') === `Bearer ${NEW}` ? json(vehicle) : json({}, 401)),
      {
        tokenProvider: {
          getAccessToken: async () => OLD,
          refreshAccessToken: () => {
            refreshes++;
            return new Promise<string>((resolve) => {
              release = resolve;
            });
          },
        },
      },
    );
    const calls = Array.from({ length: 5 }, () => client.v2.vehicle('v1'));
    // Let all five see their 401 before the refresh completes.
    await new Promise((r) => setTimeout(r, 20));
    release(NEW);
    const results = await Promise.all(calls);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(refreshes).toBe(1);
    expect(client.stats().refreshes).toBe(1);
  });

  it('returns InvalidGrant when the provider cannot refresh (the enrollment is paused on it)', async () => {
    const { client } = testClient(() => json({}, 401), {
      tokenProvider: {
        getAccessToken: async () => OLD,
        refreshAccessToken: async () => {
          throw new CarhookApiError({ kind: 'InvalidGrant', operation: 'auth.token', message: 'refused' });
        },
      },
    });
    const r = await client.v2.vehicle('v1');
    expect(r).toMatchObject({ ok: false, error: { kind: 'InvalidGrant' } });
  });

  it('refuses a bearer call without a token provider, before any request', async () => {
    const { client, requests } = testClient(() => json(vehicle), { tokenProvider: undefined });
    const r = await client.v2.vehicle('v1');
    expect(r).toMatchObject({ ok: false, requests: 0, error: { kind: 'Unauthorized' } });
    expect(requests).toHaveLength(0);
  });
});

function endpoint(
  handler: Parameters<typeof fakeFetch>[0],
  clientAuth?: 'client_secret_basic' | 'client_secret_post',
) {
  const ff = fakeFetch(handler);
  const time = fakeTime();
  const ep = createTokenEndpoint({
    authUrl: 'http://127.0.0.1:9/auth',
    clientId: 'client-1',
    clientSecret: 'super-secret-value',
    brand: 'brand-c',
    fetch: ff.fetch,
    now: time.now,
    sleep: time.sleep,
    random: () => 0,
    ...(clientAuth ? { clientAuth } : {}),
  });
  return { ep, requests: ff.requests, time };
}

const tokenBody = (access: string, refresh?: string) => ({
  token_type: 'bearer',
  access_token: access,
  expires_in: 3600,
  scope: 'public',
  ...(refresh ? { refresh_token: refresh } : {}),
});

describe('token endpoint (oauth4webapi)', () => {
  it('exchanges a code with client_secret_basic and PKCE', async () => {
    const { ep, requests, time } = endpoint(() => json(tokenBody('at-1', 'rt-1')), 'client_secret_basic');
    const r = await ep.exchangeCode({
      code: 'the-code',
      redirectUri: 'http://127.0.0.1:5000/cb',
      codeVerifier: 'v'.repeat(43),
    });
    expect(r).toMatchObject({
      ok: true,
      value: { accessToken: 'at-1', refreshToken: 'rt-1', scope: 'public' },
    });
    if (r.ok) expect(r.value.expiresAt?.getTime()).toBe(time.now() + 3_600_000);
    const req = requests[0];
    expect(req?.url.pathname).toBe('/auth/accounts/signin/v1/brand-c/oauth2/token');
    expect(req?.headers.get('authorization')).toMatch(/^Basic /);
    const form = new URLSearchParams(req?.body);
    expect(Object.fromEntries(form)).toMatchObject({
      grant_type: 'authorization_code',
      code: 'the-code',
      redirect_uri: 'http://127.0.0.1:5000/cb',
      code_verifier: 'v'.repeat(43),
    });
  });

  it('refreshes with client_secret_post, the default', async () => {
    const { ep, requests } = endpoint(() => json(tokenBody('at-2', 'rt-2')));
    const r = await ep.refresh('rt-1');
    expect(r).toMatchObject({ ok: true, value: { accessToken: 'at-2', refreshToken: 'rt-2' } });
    const form = Object.fromEntries(new URLSearchParams(requests[0]?.body));
    expect(form).toMatchObject({
      grant_type: 'refresh_token',
      refresh_token: 'rt-1',
      client_id: 'client-1',
      client_secret: 'super-secret-value',
    });
    expect(requests[0]?.headers.get('authorization')).toBeNull();
  });

  it.each([
    ['RFC 6749', { error: 'invalid_grant', error_description: 'revoked' }],
    ['nested', { error: { status: 400, code: 'invalid_grant', message: 'revoked' } }],
  ])('maps an %s invalid_grant to InvalidGrant', async (_n, body) => {
    const { ep } = endpoint(() => json(body, 400));
    const r = await ep.refresh('rt-1');
    expect(r).toMatchObject({
      ok: false,
      error: { kind: 'InvalidGrant', operation: 'auth.token', status: 400 },
    });
  });

  it('retries a token endpoint 5xx', async () => {
    const { ep, requests } = endpoint((_r, n) => (n === 1 ? json({}, 503) : json(tokenBody('at-3'))));
    const r = await ep.refresh('rt-1');
    expect(r).toMatchObject({ ok: true, value: { accessToken: 'at-3' } });
    expect(requests).toHaveLength(2);
  });

  it('builds the authorize URL of the authorization-code flow', () => {
    const { ep } = endpoint(() => json({}));
    const url = new URL(ep.authorizeUrl({ redirectUri: 'http://127.0.0.1/cb', state: 's1' }));
    expect(url.pathname).toBe('/auth/accounts/signin/v1/brand-c/oauth2/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      scope: 'public',
      redirect_uri: 'http://127.0.0.1/cb',
      client_id: 'client-1',
      state: 's1',
    });
  });
});

describe('InMemoryTokenProvider', () => {
  function fakeEndpoint(results?: () => ReturnType<TokenEndpoint['refresh']>) {
    const calls: string[] = [];
    let n = 0;
    const ep: TokenEndpoint = {
      authorizeUrl: () => '',
      exchangeCode: async () => {
        throw new Error('unused');
      },
      refresh: async (rt) => {
        calls.push(rt);
        n++;
        if (results) return results();
        await new Promise((r) => setTimeout(r, 5));
        return {
          ok: true,
          requests: 1,
          value: {
            accessToken: `at-${n}`,
            refreshToken: `rt-${n}`,
            tokenType: 'bearer',
            expiresAt: new Date(Date.now() + 3_600_000),
          },
        };
      },
      requests: () => n,
    };
    return { ep, calls };
  }

  it('refreshes before expiry, single-flight, and stores the rotated refresh token', async () => {
    const { ep, calls } = fakeEndpoint();
    const stored: string[] = [];
    const time = fakeTime();
    const provider = createOAuthTokenProvider({
      endpoint: ep,
      tokens: {
        accessToken: 'at-0',
        refreshToken: 'rt-0',
        tokenType: 'bearer',
        expiresAt: new Date(time.now() + 30_000),
      },
      now: time.now,
      onTokens: (t) => {
        stored.push(t.refreshToken ?? '');
      },
    });
    const tokens = await Promise.all([
      provider.getAccessToken(),
      provider.getAccessToken(),
      provider.getAccessToken(),
    ]);
    expect(tokens).toEqual(['at-1', 'at-1', 'at-1']);
    expect(calls).toEqual(['rt-0']);
    expect(stored).toEqual(['rt-1']);
    // A late 401 on the old token reuses the new one instead of refreshing again.
    expect(await provider.refreshAccessToken('at-0')).toBe('at-1');
    expect(calls).toHaveLength(1);
    expect(await provider.refreshAccessToken('at-1')).toBe('at-2');
    expect(calls).toEqual(['rt-0', 'rt-1']);
    expect(JSON.stringify(provider)).not.toContain('rt-2');
  });

  it('throws a CarhookApiError of kind InvalidGrant when the refresh is refused', async () => {
    const { ep } = fakeEndpoint(async () => ({
      ok: false,
      requests: 1,
      error: { kind: 'InvalidGrant', operation: 'auth.token', message: 'revoked' },
    }));
    const provider = createOAuthTokenProvider({
      endpoint: ep,
      tokens: { accessToken: 'a', refreshToken: 'r', tokenType: 'bearer' },
    });
    await expect(provider.refreshAccessToken('a')).rejects.toMatchObject({ kind: 'InvalidGrant' });
  });
});

describe('redaction', () => {
  it('never lets a token, secret or code reach the logger, errors or their JSON', async () => {
    const lines: string[] = [];
    const logger = {
      debug: (m: string, d: Record<string, unknown>) => lines.push(m + JSON.stringify(d)),
      warn: (m: string, d: Record<string, unknown>) => lines.push(m + JSON.stringify(d)),
    };
    const SECRET = 'super-secret-value';
    const CODE = 'auth-code-XYZ987';
    const ff = fakeFetch((req, n) => {
      if (req.url.pathname.endsWith('/token')) {
        return json({
          token_type: 'bearer',
          access_token: OLD,
          refresh_token: 'refresh-RRRR',
          expires_in: 60,
        });
      }
      // Errors echoing credentials back, as a careless server might.
      if (n === 2) return json({ error: { message: `bad token ${OLD} secret ${SECRET} code=${CODE}` } }, 500);
      if (n === 3) return new Response(`not json ${OLD} Bearer ${OLD} ${SECRET}`, { status: 200 });
      return json({}, 401);
    });
    const time = fakeTime();
    const client = createCarClient({
      baseUrl: 'http://127.0.0.1:1',
      authUrl: 'http://127.0.0.1:1',
      clientId: 'client-1',
      clientSecret: SECRET,
      brand: 'b',
      fetch: ff.fetch,
      logger,
      now: time.now,
      sleep: time.sleep,
      random: () => 0,
      retry: { maxAttempts: 2 },
    });
    const tokens = unwrap(await client.auth.exchangeCode({ code: CODE, redirectUri: 'http://127.0.0.1/cb' }));
    const provider = createOAuthTokenProvider({ endpoint: client.auth, tokens });
    const authed = createCarClient({
      baseUrl: 'http://127.0.0.1:1',
      authUrl: 'http://127.0.0.1:1',
      clientId: 'client-1',
      clientSecret: SECRET,
      brand: 'b',
      fetch: ff.fetch,
      logger,
      tokenProvider: provider,
      now: time.now,
      sleep: time.sleep,
      random: () => 0,
      retry: { maxAttempts: 2 },
    });
    const r = await authed.v2.vehicle('v1');
    const r2 = await authed.v2.vehicle('v1');
    expect(r.ok || r2.ok).toBe(false);
    const outputs = [
      ...lines,
      JSON.stringify(r),
      JSON.stringify(r2),
      r.ok ? '' : new CarhookApiError(r.error).message,
      r2.ok ? '' : String(new CarhookApiError(r2.error)),
    ];
    expect(lines.length).toBeGreaterThan(0);
    for (const out of outputs) {
      expect(out).not.toContain(OLD);
      expect(out).not.toContain(SECRET);
      expect(out).not.toContain(CODE);
      expect(out).not.toContain('refresh-RRRR');
    }
  });
});
