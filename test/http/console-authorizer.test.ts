import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { withoutConsolePrefix } from '../../functions/handlers/http-api';
import { consoleRoutes } from '../../functions/http/console';
import {
  bearerToken,
  CONSOLE_API_PREFIX,
  createConsoleAuthorizer,
} from '../../functions/http/console-authorizer';

const TOKEN = 'console-token-0123456789abcdef';
const ROTATED = 'rotated-token-fedcba9876543210';

/** A secret store with a value an operator can change, counting reads; a clock the test moves. */
function setup(initial: string | undefined = TOKEN) {
  let value: string | undefined = initial;
  let now = Date.parse('2026-01-15T10:00:00Z');
  const reads: boolean[] = [];
  const authorize = createConsoleAuthorizer({
    now: () => now,
    maxAgeMs: 60_000,
    refreshAfterMs: 10_000,
    loadToken: async ({ fresh }) => {
      reads.push(fresh);
      return value;
    },
  });
  const call = (authorization?: string) =>
    authorize({ headers: authorization === undefined ? {} : { authorization } });
  return {
    call,
    reads,
    rotate: (next: string | undefined) => {
      value = next;
    },
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('console authorizer (admin token in Secrets Manager)', () => {
  it('authorizes the stored token as a bearer, and reads the secret once while it is fresh', async () => {
    const s = setup();
    expect(await s.call(`Bearer ${TOKEN}`)).toEqual({ isAuthorized: true, context: { caller: 'console' } });
    expect(await s.call(`bearer   ${TOKEN}  `)).toMatchObject({ isAuthorized: true });
    expect(s.reads).toEqual([false]);
  });

  it('refuses a request without a token, or not as a bearer, without reading the secret', async () => {
    const s = setup();
    expect(await s.call()).toEqual({ isAuthorized: false });
    expect(await s.call('')).toEqual({ isAuthorized: false });
    expect(await s.call(TOKEN)).toEqual({ isAuthorized: false });
    expect(await s.call(`Basic ${TOKEN}`)).toEqual({ isAuthorized: false });
    expect(s.reads).toEqual([]);
  });

  it('refuses a wrong token, a prefix of the token and the token with a suffix', async () => {
    const s = setup();
    for (const wrong of ['not-the-token-0123456789', TOKEN.slice(0, -1), `${TOKEN}x`, TOKEN.toUpperCase()]) {
      expect(await s.call(`Bearer ${wrong}`), wrong).toEqual({ isAuthorized: false });
    }
    // A flood of wrong tokens reads the secret once, not once per request.
    expect(s.reads).toEqual([false]);
  });

  it('accepts a rotated token at once and refuses the previous one once its cached value expires', async () => {
    const s = setup();
    expect((await s.call(`Bearer ${TOKEN}`)).isAuthorized).toBe(true);
    s.rotate(ROTATED);
    s.advance(10_000);
    // The new token does not match the cached value: one fresh read, then it is accepted.
    expect((await s.call(`Bearer ${ROTATED}`)).isAuthorized).toBe(true);
    expect(s.reads).toEqual([false, true]);
    // The fresh read replaced the cached value: the previous token is refused from now on.
    expect((await s.call(`Bearer ${TOKEN}`)).isAuthorized).toBe(false);
    s.advance(60_000);
    expect((await s.call(`Bearer ${TOKEN}`)).isAuthorized).toBe(false);
    expect((await s.call(`Bearer ${ROTATED}`)).isAuthorized).toBe(true);
  });

  it('keeps refusing the previous token after a rotation even when nobody used the new one yet', async () => {
    const s = setup();
    expect((await s.call(`Bearer ${TOKEN}`)).isAuthorized).toBe(true);
    s.rotate(ROTATED);
    s.advance(59_000);
    expect((await s.call(`Bearer ${TOKEN}`)).isAuthorized).toBe(true); // cached: at most maxAge
    s.advance(1_000);
    expect((await s.call(`Bearer ${TOKEN}`)).isAuthorized).toBe(false);
  });

  it('authorizes nobody while the secret is blank or too short', async () => {
    for (const value of [undefined, '', '   ', 'short']) {
      const s = setup(value);
      expect((await s.call(`Bearer ${value ?? 'x'}`)).isAuthorized, String(value)).toBe(false);
      expect((await s.call('Bearer ')).isAuthorized).toBe(false);
    }
  });

  it('reads the bearer from either header spelling', () => {
    expect(bearerToken({ authorization: 'Bearer abc' })).toBe('abc');
    expect(bearerToken({ Authorization: 'Bearer abc' })).toBe('abc');
    expect(bearerToken({ authorization: 'Bearer a b' })).toBeUndefined();
    expect(bearerToken(null)).toBeUndefined();
  });
});

describe('console routes on AWS (/console-api/…)', () => {
  const event = (rawPath: string) =>
    ({
      rawPath,
      rawQueryString: 'limit=5',
      requestContext: { http: { method: 'GET', path: rawPath } },
    }) as unknown as APIGatewayProxyEventV2;

  it('serves /console-api/<route> as <route>, and leaves every other path alone', () => {
    const stripped = withoutConsolePrefix(event('/console-api/subscriptions/sub_1/deliveries'));
    expect(stripped.rawPath).toBe('/subscriptions/sub_1/deliveries');
    expect(stripped.requestContext.http.path).toBe('/subscriptions/sub_1/deliveries');
    expect(stripped.rawQueryString).toBe('limit=5');
    for (const path of ['/subscriptions', '/console-apix/events', '/console/app.js', '/console-api']) {
      expect(withoutConsolePrefix(event(path)).rawPath, path).toBe(path);
    }
  });

  it('tells the console page where its calls go', async () => {
    const page = await consoleRoutes({ apiBase: CONSOLE_API_PREFIX }).request('/');
    expect(await page.text()).toContain('<meta name="carhook-api-base" content="/console-api">');
    const local = await consoleRoutes().request('/');
    expect(await local.text()).toContain('<meta name="carhook-api-base" content="">');
  });
});
