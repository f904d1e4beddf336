import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
// The smallest router preset (same API): the HttpApi bundle stays under its size target.
import { Hono } from 'hono/tiny';
import type { ServiceError, SubscriptionService } from '../core/delivery/management';
import type { Result } from '../core/webhooks/result';
import { bodyPolicy, jsonBody } from './body';
import { type CursorCodec, createCursorCodec } from './cursor';

/**
 * The management routes of webhook subscriptions (issue 6), as a Hono sub-app the local server and
 * the API Gateway Lambda both mount. Authentication is the mounting app's job (IAM on AWS,
 * `adminAuth` locally). Every error is JSON `{error: {code, message, field?, issues?}}`; bad input is a 400
 * naming the field, an unknown id a 404; only create and rotate-secret ever return a secret.
 */
export interface SubscriptionRoutesDeps {
  readonly service: SubscriptionService;
  /**
   * Seals and opens page cursors (functions/http/cursor.ts). Default: a codec with a random key,
   * so cursors hold for this process's life (the mounting app passes one every instance shares).
   */
  readonly cursors?: () => Promise<CursorCodec>;
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

  const fallback = createCursorCodec(randomBytes(32));
  const cursors = deps.cursors ?? (async () => fallback);
  const body = { create: jsonBody(service.schemas.create, { code: 'Malformed' }) };
  const patchBody = jsonBody(service.schemas.patch, { code: 'Malformed' });
  const replayBody = jsonBody(service.schemas.replay, { code: 'Malformed' });

  /**
   * A list route: the client's cursor is opened (authenticated) before the service sees it, and
   * the next page's cursor is sealed on the way out.
   */
  function listed<T>(
    list: (c: Context) => string,
    run: (
      c: Context,
      page: { limit?: string; cursor?: string },
    ) => Promise<Result<{ items: readonly T[]; cursor?: string }, ServiceError>>,
  ) {
    return async (c: Context) => {
      const codec = await cursors();
      const name = list(c);
      const opened = codec.open(name, c.req.query('cursor'));
      if (!opened.ok) {
        return c.json(
          errorBody({
            kind: 'Malformed',
            message: opened.message,
            issues: [{ field: 'cursor', reason: opened.message.replace(/^cursor: /, '') }],
          }),
          400,
        );
      }
      const limit = c.req.query('limit');
      const result = await run(c, {
        ...(limit !== undefined ? { limit } : {}),
        ...(opened.value !== undefined ? { cursor: opened.value } : {}),
      });
      if (!result.ok) return c.json(errorBody(result.error), statusOf(result.error));
      const next = codec.seal(name, result.value.cursor);
      const { cursor: _store, ...rest } = result.value;
      return c.json({ ...rest, ...(next ? { cursor: next } : {}) } as Json, 200);
    };
  }

  // Standalone (tests, other hosts) the same body rules hold as under the main app.
  app.use('*', bodyPolicy());

  app.post('/subscriptions', body.create, async (c) =>
    reply(c, await service.create(c.req.valid('json')), 201),
  );
  app.get(
    '/subscriptions',
    listed(
      () => 'subscriptions',
      (_c, page) => service.list(page),
    ),
  );
  app.get('/subscriptions/:id', async (c) => reply(c, await service.get(c.req.param('id'))));
  app.patch('/subscriptions/:id', patchBody, async (c) =>
    reply(c, await service.patch(c.req.param('id'), c.req.valid('json'))),
  );
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
  app.get(
    '/subscriptions/:id/deliveries',
    listed(
      (c) => `deliveries ${c.req.param('id')}`,
      (c, page) => service.deliveries(c.req.param('id') ?? '', page),
    ),
  );
  app.get(
    '/subscriptions/:id/dead-letters',
    listed(
      (c) => `dead-letters ${c.req.param('id')}`,
      (c, page) => service.deadLetters(c.req.param('id') ?? '', page),
    ),
  );
  app.post('/subscriptions/:id/replay', replayBody, async (c) =>
    reply(c, await service.replay(c.req.param('id'), c.req.valid('json')), 202),
  );
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
