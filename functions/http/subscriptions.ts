import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
// The smallest router preset (same API): the HttpApi bundle stays under its size target.
import { Hono } from 'hono/tiny';
import type { ServiceError, SubscriptionService } from '../core/delivery/management';
import type { Result } from '../core/webhooks/result';

/**
 * The management routes of webhook subscriptions (issue 6), as a Hono sub-app the local server and
 * the API Gateway Lambda both mount. Authentication is the mounting app's job (IAM on AWS,
 * `adminAuth` locally). Every error is JSON `{error: {code, message, field?, issues?}}`; bad input is a 400
 * naming the field, an unknown id a 404; only create and rotate-secret ever return a secret.
 */
export const MAX_BODY_BYTES = 64 * 1024;

export interface SubscriptionRoutesDeps {
  readonly service: SubscriptionService;
  /** Called with unexpected failures (storage down…) before the 500 goes out. */
  readonly onError?: (error: unknown) => void;
}

type Json = Record<string, unknown>;

/**
 * The HTTP API's one error shape (functions/http/errors.ts): `{ error: { code, message, field?,
 * issues? } }`, `field` naming the first offending field.
 */
function errorBody(error: ServiceError | { kind: string; message: string }): Json {
  const { kind, ...rest } = error;
  const issues = 'issues' in error ? (error.issues as readonly { field?: string }[] | undefined) : undefined;
  const field = issues?.[0]?.field;
  return { error: { code: kind, ...(field !== undefined ? { field } : {}), ...rest } };
}

function statusOf(error: ServiceError): 400 | 404 | 409 {
  return error.kind === 'NotFound' ? 404 : error.kind === 'Conflict' ? 409 : 400;
}

function reply<T>(
  c: Context,
  result: Result<T, ServiceError>,
  status: 200 | 201 | 202 = 200,
  shape?: (v: T) => unknown,
) {
  if (!result.ok) return c.json(errorBody(result.error), statusOf(result.error));
  return c.json((shape ? shape(result.value) : result.value) as Json, status);
}

const malformedBody = (reason: string) => ({
  kind: 'Malformed' as const,
  message: `(body): ${reason}`,
  issues: [{ field: '(body)', reason }],
});

/** Reads a JSON body; malformed JSON or an oversized body is a 400/413, never an exception. */
async function readJson(
  c: Context,
): Promise<Result<unknown, ReturnType<typeof malformedBody> & { status: 400 | 413 }>> {
  const length = Number(c.req.header('content-length') ?? '0');
  if (length > MAX_BODY_BYTES)
    return { ok: false, error: { ...malformedBody(`is larger than ${MAX_BODY_BYTES} bytes`), status: 413 } };
  let text: string;
  try {
    text = await c.req.text();
  } catch {
    return { ok: false, error: { ...malformedBody('could not be read'), status: 400 } };
  }
  if (Buffer.byteLength(text) > MAX_BODY_BYTES)
    return { ok: false, error: { ...malformedBody(`is larger than ${MAX_BODY_BYTES} bytes`), status: 413 } };
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const why = error instanceof Error ? error.message : 'invalid';
    return { ok: false, error: { ...malformedBody(`is not valid JSON (${why})`), status: 400 } };
  }
}

/** A body is required (create, patch, replay): an empty one is named as such. */
async function requiredJson(c: Context) {
  const body = await readJson(c);
  if (body.ok && body.value === undefined)
    return {
      ok: false as const,
      error: { ...malformedBody('is required (a JSON object)'), status: 400 as const },
    };
  return body;
}

export function createSubscriptionRoutes(deps: SubscriptionRoutesDeps): Hono {
  const { service } = deps;
  const app = new Hono();

  app.onError((error, c) => {
    deps.onError?.(error);
    return c.json(errorBody({ kind: 'Internal', message: 'internal error; see the server log' }), 500);
  });
  app.notFound((c) =>
    c.json(errorBody({ kind: 'NotFound', message: `no route ${c.req.method} ${c.req.path}` }), 404),
  );

  const page = (c: Context) => ({ limit: c.req.query('limit'), cursor: c.req.query('cursor') });

  app.post('/subscriptions', async (c) => {
    const body = await requiredJson(c);
    if (!body.ok) return c.json(errorBody(body.error), body.error.status);
    return reply(c, await service.create(body.value), 201);
  });
  app.get('/subscriptions', async (c) => reply(c, await service.list(page(c))));
  app.get('/subscriptions/:id', async (c) => reply(c, await service.get(c.req.param('id'))));
  app.patch('/subscriptions/:id', async (c) => {
    const body = await requiredJson(c);
    if (!body.ok) return c.json(errorBody(body.error), body.error.status);
    return reply(c, await service.patch(c.req.param('id'), body.value));
  });
  app.delete('/subscriptions/:id', async (c) => {
    const result = await service.remove(c.req.param('id'));
    if (!result.ok) return c.json(errorBody(result.error), statusOf(result.error));
    return c.body(null, 204);
  });
  app.post('/subscriptions/:id/rotate-secret', async (c) =>
    reply(c, await service.rotateSecret(c.req.param('id'))),
  );
  app.post('/subscriptions/:id/test', async (c) => reply(c, await service.test(c.req.param('id')), 200));
  app.post('/subscriptions/:id/enable', async (c) => reply(c, await service.enable(c.req.param('id'))));
  app.post('/subscriptions/:id/disable', async (c) => reply(c, await service.disable(c.req.param('id'))));
  app.get('/subscriptions/:id/deliveries', async (c) =>
    reply(c, await service.deliveries(c.req.param('id'), page(c))),
  );
  app.get('/subscriptions/:id/dead-letters', async (c) =>
    reply(c, await service.deadLetters(c.req.param('id'), page(c))),
  );
  app.post('/subscriptions/:id/replay', async (c) => {
    const body = await requiredJson(c);
    if (!body.ok) return c.json(errorBody(body.error), body.error.status);
    return reply(c, await service.replay(c.req.param('id'), body.value), 202);
  });
  return app;
}

export class AdminAuthConfigError extends Error {
  override readonly name = 'AdminAuthConfigError';
  readonly kind = 'Malformed' as const;
  readonly field = 'adminToken';
}

/** At least this long: the admin token guards every subscription (and so every secret it rotates). */
export const MIN_ADMIN_TOKEN_LENGTH = 16;

/**
 * Bearer admin token for the local runtime (`CARHOOK_ADMIN_TOKEN`). Constant-time: both sides are
 * hashed to 32 bytes first, so neither content nor length leaks through timing. 401 JSON otherwise.
 */
export function adminAuth(token: string): MiddlewareHandler {
  if (typeof token !== 'string' || token.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new AdminAuthConfigError(`adminToken: must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters`);
  }
  const expected = createHash('sha256').update(token).digest();
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer ([^\s]+)$/i.exec(header.trim());
    const given = createHash('sha256')
      .update(match?.[1] ?? '')
      .digest();
    if (!match || !timingSafeEqual(given, expected)) {
      c.header('WWW-Authenticate', 'Bearer realm="carhook"');
      return c.json(
        {
          error: {
            code: 'Unauthorized',
            message: match ? 'the admin token is not valid' : 'missing "Authorization: Bearer <admin token>"',
          },
        },
        401,
      );
    }
    await next();
  };
}
