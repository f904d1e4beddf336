import type { Context, MiddlewareHandler } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { HTTPException } from 'hono/http-exception';
import { auth as basicAuthOf } from 'hono/utils/basic-auth';
import { type Answer, withoutOneItem } from './answers';
import { NO_FLAGS } from './chaos';
import type { SimEnv, SimServices } from './context';
import { simError } from './errors';
import { allowedMethods, matchOperation } from './operations';
import { Stats } from './stats';

/** `user:password` of the request's HTTP Basic header, if well formed (Hono's parser). */
export function basicCredentials(req: Request): { user: string; password: string } | undefined {
  const credentials = basicAuthOf(req);
  return credentials ? { user: credentials.username, password: credentials.password } : undefined;
}

/** The token of a `Bearer` header, for stats (the check itself is Hono's bearer middleware). */
function bearer(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m?.[1];
}

const BEARER_CHALLENGE = 'Bearer realm="connectedcar", error="invalid_token"';

function unauthorized(c: Context, message: string, field?: string, challenge = BEARER_CHALLENGE): Response {
  c.header('WWW-Authenticate', challenge);
  return simError(c, 401, 'unauthorized', message, field);
}

/**
 * The API gateway in front of every API area (v2, services, map, v1): operation matching, rate
 * limit (per client), client authentication, chaos, and stats. The token endpoint and `/_sim`
 * never pass through it.
 */
export function gateway(svc: SimServices): MiddlewareHandler<SimEnv> {
  return async (c, next) => {
    svc.world.tick();
    const url = new URL(c.req.url);
    const match = matchOperation(c.req.method, url.pathname);
    const basic = basicCredentials(c.req.raw);
    const claimed = url.searchParams.get('client_id') ?? (match?.op.area === 'C' ? basic?.user : undefined);
    const client = svc.clients.get(claimed ?? undefined);
    const clientKey = client ? client.clientId : claimed ? Stats.UNKNOWN_CLIENT : Stats.NO_CLIENT;
    // Quotas count per client; requests naming no known client cannot be attributed to a quota.
    const rate = client ? svc.limiter.hit(client.clientId) : svc.limiter.peek(undefined);
    c.set('op', match?.op);
    c.set('clientId', client?.clientId);
    c.set('userId', undefined);
    c.set('chaos', NO_FLAGS);

    let res: Response;
    if (!rate.allowed) {
      c.header('X-RateLimit-Reset', String(rate.resetSeconds));
      c.header('Retry-After', String(rate.resetSeconds));
      res = simError(c, 429, 'rate_limited', `Rate limit of ${rate.limit} requests exceeded; retry later`);
    } else {
      res = await handle(c, next, svc, match, basic);
    }
    res = withHeaders(res, {
      'X-RateLimit-Limit': String(rate.limit),
      'X-RateLimit-Remaining': String(rate.remaining),
    });
    svc.stats.record(match?.op.id ?? 'unknown', clientKey, res.status);
    const token = bearer(c.req.header('authorization'));
    const owner = token ? svc.tokens.ownerOf(token) : undefined;
    if (owner) svc.stats.recordUser(owner);
    // After next() Hono ignores a returned response: replace c.res, without merging the old headers.
    c.res = undefined;
    c.res = res;
    return res;
  };
}

async function handle(
  c: Context<SimEnv>,
  next: () => Promise<void>,
  svc: SimServices,
  match: ReturnType<typeof matchOperation>,
  basic: ReturnType<typeof basicCredentials>,
): Promise<Response> {
  if (!match) {
    const path = new URL(c.req.url).pathname;
    const allowed = allowedMethods(path);
    if (allowed.length > 0) {
      c.header('Allow', allowed.join(', '));
      return simError(c, 405, 'method_not_allowed', `${c.req.method} is not allowed on ${path}`);
    }
    return simError(c, 404, 'not_found', `No operation matches ${c.req.method} ${path}`);
  }
  const denied = await authenticate(c, svc, match.op.area, basic);
  if (denied) return denied;

  const flags = svc.chaos.draw();
  c.set('chaos', flags);
  if (flags.hung) {
    await svc.pending.wait(undefined, c.req.raw.signal);
    return simError(c, 503, 'server_error', 'The simulator is shutting down');
  }
  if (flags.serverError) return simError(c, 500, 'server_error', 'Internal server error (simulated)');
  if (flags.rateLimited) {
    const reset = svc.limiter.quotaOf(c.get('clientId') ?? '').windowSeconds;
    c.header('X-RateLimit-Reset', String(reset));
    c.header('Retry-After', String(reset));
    return simError(c, 429, 'rate_limited', 'Rate limit exceeded (simulated)');
  }
  if (flags.slow) {
    const r = await svc.pending.wait(svc.chaos.config.slowMs, c.req.raw.signal);
    if (r === 'released') return simError(c, 503, 'server_error', 'The simulator is shutting down');
  }
  const key = svc.chaos.keepsAnswers ? await answerKey(c) : undefined;
  await next();
  let res = c.res;
  if (key !== undefined && (res.status === 200 || res.status === 404)) {
    // A cache in front of the API: the answer this very request got `staleSeconds` ago, when there
    // is one that old; else the fresh answer, remembered for later draws.
    const now = svc.world.now();
    const old = flags.stale
      ? svc.answers.givenBy(key, now - svc.chaos.config.staleSeconds * 1000)
      : undefined;
    if (old !== undefined) {
      res = replay(old);
      svc.stats.recordChaos('stale');
    } else {
      const body = await res.clone().text();
      const answer = { at: now, status: res.status, contentType: res.headers.get('content-type'), body };
      svc.answers.record(key, answer, svc.chaos.config.staleSeconds * 1000);
    }
  }
  if (flags.flap && res.status === 200) {
    const cut = await withoutOne(res, (n) => svc.chaos.pickItem(n));
    if (cut !== undefined) {
      res = cut;
      svc.stats.recordChaos('flap');
    }
  }
  if (flags.malformedJson && res.status === 200) return malformed(res);
  return res;
}

/** What identifies a request to a cache: method, path, query, the token's user and the body. */
async function answerKey(c: Context<SimEnv>): Promise<string> {
  const url = new URL(c.req.url);
  const query = [...url.searchParams.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const body = c.req.method === 'GET' ? '' : await c.req.raw.clone().text();
  return JSON.stringify([c.req.method, url.pathname, query, c.get('userId') ?? '', body]);
}

function replay(answer: Answer): Response {
  const headers = new Headers();
  if (answer.contentType !== null) headers.set('Content-Type', answer.contentType);
  return new Response(answer.body, { status: answer.status, headers });
}

/** The answer with one list item dropped, or undefined when it is not a JSON list answer. */
async function withoutOne(res: Response, pick: (n: number) => number): Promise<Response | undefined> {
  const text = await res.clone().text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const cut = withoutOneItem(body, pick);
  if (cut === undefined) return undefined;
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(cut), { status: res.status, headers });
}

async function authenticate(
  c: Context<SimEnv>,
  svc: SimServices,
  area: string,
  basic: ReturnType<typeof basicCredentials>,
): Promise<Response | undefined> {
  const url = new URL(c.req.url);
  const claimed = url.searchParams.get('client_id');
  if (area === 'C') {
    // The map API takes HTTP basic (client id and secret) plus client_id in the query.
    const challenge = 'Basic realm="map"';
    if (!basic) return unauthorized(c, 'HTTP basic authentication is required', 'authorization', challenge);
    const client = svc.clients.get(basic.user);
    if (!client || client.clientSecret !== basic.password) {
      return unauthorized(c, 'Invalid client credentials', 'authorization', challenge);
    }
    if (!claimed) return unauthorized(c, 'Query parameter client_id is required', 'client_id', challenge);
    if (claimed !== client.clientId) {
      return unauthorized(c, 'client_id does not match the basic credentials', 'client_id', challenge);
    }
    return undefined;
  }
  if (!claimed) return unauthorized(c, 'Query parameter client_id is required', 'client_id');
  if (!svc.clients.get(claimed)) return unauthorized(c, `Unknown client_id '${claimed}'`, 'client_id');
  const header = c.req.header('authorization');
  if (area === 'A' || (area === 'B' && header !== undefined)) {
    // The vehicle data API takes a bearer token plus client_id on every request; the services
    // lookups accept client_id alone, but a token sent must be valid.
    return await checkBearer(c, svc, claimed);
  }
  return undefined;
}

const WHY: Readonly<Record<'expired' | 'revoked' | 'unknown', string>> = {
  expired: 'The access token has expired',
  revoked: 'The user revoked the access of this application',
  unknown: 'The access token is invalid',
};

/**
 * Checks the bearer token with Hono's bearer middleware: a missing or malformed header, an unknown,
 * expired or revoked token, or a token of another client answer 401 with the simulator's error body;
 * a valid token sets `userId`.
 */
async function checkBearer(
  c: Context<SimEnv>,
  svc: SimServices,
  clientId: string,
): Promise<Response | undefined> {
  let refusal = WHY.unknown;
  const missing = () => unauthorized(c, 'A bearer access token is required', 'authorization');
  const middleware = bearerAuth<SimEnv>({
    noAuthenticationHeader: { message: missing, wwwAuthenticateHeader: BEARER_CHALLENGE },
    invalidAuthenticationHeader: { message: missing, wwwAuthenticateHeader: BEARER_CHALLENGE },
    invalidToken: {
      message: () => unauthorized(c, refusal, 'authorization'),
      wwwAuthenticateHeader: BEARER_CHALLENGE,
    },
    verifyToken: (token) => {
      const check = svc.tokens.checkAccess(token);
      if (!check.ok) {
        refusal = WHY[check.reason];
        return false;
      }
      if (check.clientId !== clientId) {
        refusal = 'The access token was issued to another client';
        return false;
      }
      c.set('userId', check.userId);
      return true;
    },
  });
  try {
    await middleware(c, async () => {});
    return undefined;
  } catch (error) {
    if (error instanceof HTTPException) return error.getResponse();
    throw error;
  }
}

function withHeaders(res: Response, headers: Record<string, string>): Response {
  try {
    for (const [k, v] of Object.entries(headers)) res.headers.set(k, v);
    return res;
  } catch {
    // Immutable headers (a fetched response): copy.
    const copy = new Response(res.body, res);
    for (const [k, v] of Object.entries(headers)) copy.headers.set(k, v);
    return copy;
  }
}

async function malformed(res: Response): Promise<Response> {
  const text = await res.text();
  let cut = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
  try {
    JSON.parse(cut);
    cut += ',{';
  } catch {
    // Already invalid, as intended.
  }
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  return new Response(cut, { status: 200, headers });
}
