import type { Context, MiddlewareHandler } from 'hono';
import { NO_FLAGS } from './chaos';
import type { SimEnv, SimServices } from './context';
import { simError } from './errors';
import { allowedMethods, matchOperation } from './operations';
import { Stats } from './stats';

/** `user:password` of an HTTP Basic header, if well formed. */
export function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=._~-]+)\s*$/i.exec(header ?? '');
  if (!m?.[1]) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return undefined;
  return { user: decoded.slice(0, i), password: decoded.slice(i + 1) };
}

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
 * limit (spec 8), client authentication (spec 5), chaos, and stats. The token endpoint and `/_sim`
 * never pass through it.
 */
export function gateway(svc: SimServices): MiddlewareHandler<SimEnv> {
  return async (c, next) => {
    svc.world.tick();
    const url = new URL(c.req.url);
    const match = matchOperation(c.req.method, url.pathname);
    const basic = basicCredentials(c.req.header('authorization'));
    const claimed = url.searchParams.get('client_id') ?? (match?.op.area === 'C' ? basic?.user : undefined);
    const client = svc.clients.get(claimed ?? undefined);
    const clientKey = client ? client.clientId : claimed ? Stats.UNKNOWN_CLIENT : Stats.NO_CLIENT;
    // spec 8: counted per client; requests naming no known client cannot be attributed to a quota.
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
  const denied = authenticate(c, svc, match.op.area, basic);
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
  await next();
  const res = c.res;
  if (flags.malformedJson && res.status === 200) return malformed(res);
  return res;
}

function authenticate(
  c: Context<SimEnv>,
  svc: SimServices,
  area: string,
  basic: ReturnType<typeof basicCredentials>,
): Response | undefined {
  const url = new URL(c.req.url);
  const claimed = url.searchParams.get('client_id');
  if (area === 'C') {
    // spec 4.3: HTTP basic (client id and secret) plus client_id in the query.
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
  const token = bearer(header);
  if (area === 'A' || (area === 'B' && header !== undefined)) {
    // spec 4.1: bearer token + client_id on every v2 request (services accept client_id alone).
    if (!token) return unauthorized(c, 'A bearer access token is required', 'authorization');
    const check = svc.tokens.checkAccess(token);
    if (!check.ok) {
      const why =
        check.reason === 'expired'
          ? 'The access token has expired'
          : check.reason === 'revoked'
            ? 'The user revoked the access of this application'
            : 'The access token is invalid';
      return unauthorized(c, why, 'authorization');
    }
    if (check.clientId !== claimed) {
      return unauthorized(c, 'The access token was issued to another client', 'authorization');
    }
    c.set('userId', check.userId);
  }
  return undefined;
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
