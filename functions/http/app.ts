/**
 * The HTTP API: the same Hono app behind API Gateway HTTP API (IAM on the
 * management routes, functions/handlers/http-api.ts) and the local server (bearer admin token).
 *
 * Public: `GET /health`, `GET /openapi.json`, `GET /oauth/:brand/authorize`, `GET /oauth/callback`,
 * the console (`GET /`, its assets). Management: `/enrollments…`, `/events`, `/metrics/recent`
 * (management-routes.ts), `/vehicles/{id}…` (vehicle-routes.ts), `/event-types`
 * (catalogue-routes.ts), `/capacity` (capacity-routes.ts), `/subscriptions…` (subscriptions.ts).
 * Every route is declared once
 * through a RouteBook (openapi.ts): validated by its zod schemas and documented from them.
 * Every bad input is a 4xx `{ error: { code, message, field? } }` naming the field; a 500 only for
 * what is really broken (and it is logged).
 */

import type { Context, MiddlewareHandler } from 'hono';
// The smallest router preset (same API): the HttpApi bundle stays under its size target.
import { Hono } from 'hono/tiny';
import { SecretError } from '../adapters/secrets/types';
import { StoreError } from '../core/store/errors';
import type { SubscriptionService } from '../core/subscriptions/service';
import type { RecentMetrics } from '../runtime/metrics-window';
import type { Runtime } from '../runtime/runtime';
import { bearerAuth, HttpAppConfigError } from './auth';
import { bodyPolicy } from './body';
import { addCapacityRoutes } from './capacity-routes';
import { addCatalogueRoutes } from './catalogue-routes';
import { addConsoleRoutes } from './console';
import { openApiDocumentSchema, serviceHealthSchema } from './contract';
import { type CursorCodec, createCursorCodec, cursorKeyFrom } from './cursor';
import { sendError } from './errors';
import { addManagementRoutes } from './management-routes';
import { addOAuthRoutes } from './oauth-routes';
import { RouteBook } from './openapi';
import { createSubscriptionRoutes } from './subscriptions';
import { addVehicleRoutes } from './vehicle-routes';

export { bearerAuth, HttpAppConfigError, MIN_ADMIN_TOKEN_LENGTH } from './auth';
export { publicEnrollment, publicVehicle } from './views';

export type HttpAuth = { readonly kind: 'admin-token'; readonly token: string } | { readonly kind: 'iam' };

export interface HttpAppDeps {
  readonly runtime: Pick<
    Runtime,
    'ports' | 'now' | 'settings' | 'oauthDeps' | 'pollingConfig' | 'rateBudgetConfig' | 'plannerMemory'
  >;
  /** The webhook subscription service; its routes are mounted when given. */
  readonly subscriptions?: SubscriptionService;
  /** Unexpected failures, before the 500 goes out (the Powertools logger on Lambda). */
  readonly onError?: (error: unknown, context: { method: string; path: string }) => void;
  /** The invocation's AbortSignal for a request (Lambda: from the handler), passed to API calls. */
  readonly signalOf?: (c: Context) => AbortSignal | undefined;
  /** The last hour's requests, quota and detection lag, where one process sees them all (local). */
  readonly recentMetrics?: () => RecentMetrics;
  /**
   * Authenticates page cursors (HMAC, at least 32 bytes). Default: derived from the runtime's
   * OAuth state key, or from the key ring's current key, so every instance agrees without a
   * further secret.
   */
  readonly cursorKey?: Uint8Array;
}

export interface HttpAppOptions {
  readonly auth: HttpAuth;
  /**
   * Origins, besides the API's own, that the OAuth authorize route may send the user back to
   * through its `redirect` parameter (`https://console.example.com`). Default: none, only the
   * API's own origin (its callback route).
   */
  readonly oauthRedirectOrigins?: readonly string[];
  /**
   * Where the console sends its management calls: `''` (default) the routes themselves; on AWS
   * `/console-api`, the copy of the management routes API Gateway guards with the admin-token
   * authorizer (IAM, which a browser cannot sign, stays on the routes themselves).
   */
  readonly consoleApiBase?: string;
}

export function createHttpApp(deps: HttpAppDeps, options: HttpAppOptions): Hono {
  const { runtime } = deps;
  const redirectOrigins = (options.oauthRedirectOrigins ?? []).map((origin, i) => {
    try {
      return new URL(origin).origin;
    } catch {
      throw new HttpAppConfigError(`oauthRedirectOrigins[${i}]`, `"${origin}" is not an absolute URL`);
    }
  });
  const { stores } = runtime.ports;
  const app = new Hono();
  const book = new RouteBook();
  const signalOf = (c: Context) => deps.signalOf?.(c);
  let codec: Promise<CursorCodec> | undefined;
  const cursors = (): Promise<CursorCodec> => {
    codec ??= (async () => {
      if (deps.cursorKey) return createCursorCodec(deps.cursorKey);
      const stateKey = runtime.settings.stateKey;
      if (stateKey !== undefined) {
        return createCursorCodec(
          cursorKeyFrom(typeof stateKey === 'string' ? Buffer.from(stateKey) : stateKey),
        );
      }
      const ring = await runtime.ports.secrets.keyRing.load();
      const key = ring.keys.get(ring.currentKeyId);
      if (!key)
        throw new SecretError('SecretMalformed', 'key ring', `key ${ring.currentKeyId} is not in the ring`);
      return createCursorCodec(cursorKeyFrom(key));
    })().catch((error: unknown) => {
      codec = undefined; // a key ring that could not be read is tried again on the next request
      throw error;
    });
    return codec;
  };

  app.onError((error, c) => {
    // A forged cursor reaches the store as bad input: the caller's mistake, not ours.
    if (error instanceof StoreError && error.kind === 'InvalidInput') {
      const field = String(error.context.field ?? 'query');
      return sendError(
        c,
        400,
        'InvalidInput',
        field === 'cursor' ? 'cursor: is not a cursor this API returned' : error.message,
        { field },
      );
    }
    if (error instanceof SecretError) {
      deps.onError?.(error, { method: c.req.method, path: c.req.path });
      return sendError(c, 503, 'NotConfigured', `Carhook is not configured yet: ${error.message}`);
    }
    deps.onError?.(error, { method: c.req.method, path: c.req.path });
    return sendError(c, 500, 'Internal', 'internal error; see the server log');
  });
  app.notFound((c) => sendError(c, 404, 'NotFound', `no route ${c.req.method} ${c.req.path}`));

  // Authentication before anything reads a body; then every body, on every route, is JSON within
  // the limit (415 / 413), counted while it streams in.
  const guard: MiddlewareHandler =
    options.auth.kind === 'admin-token'
      ? bearerAuth(options.auth.token)
      : // IAM: API Gateway authorized the caller before the request reached this app.
        async (_c, next) => {
          await next();
        };
  for (const path of [
    '/enrollments',
    '/enrollments/*',
    '/events',
    '/events/*',
    '/event-types',
    '/vehicles',
    '/vehicles/*',
    '/subscriptions',
    '/subscriptions/*',
    '/metrics',
    '/metrics/*',
    '/capacity',
  ]) {
    app.use(path, guard);
  }
  app.use('*', bodyPolicy());

  // ---- public ----------------------------------------------------------------------------------

  addConsoleRoutes(app, book, { apiBase: options.consoleApiBase ?? '' });

  book.add(
    app,
    {
      method: 'get',
      path: '/health',
      operationId: 'getHealth',
      summary: 'Liveness: the store answers, the API credentials are configured',
      tag: 'service',
      access: 'public',
      responses: {
        200: { description: 'Up (possibly degraded).', schema: serviceHealthSchema },
        503: { description: 'The store does not answer.', schema: serviceHealthSchema },
      },
    },
    async (c) => {
      const checks: Record<string, string> = {};
      let status: 'ok' | 'degraded' | 'unavailable' = 'ok';
      try {
        await stores.enrollments.list({ limit: 1 });
        checks.store = 'ok';
      } catch {
        checks.store = 'error';
        status = 'unavailable';
      }
      try {
        await runtime.ports.secrets.apiClient();
        checks.apiCredentials = 'ok';
      } catch (error) {
        checks.apiCredentials =
          error instanceof SecretError && error.kind === 'SecretBlank' ? 'not_configured' : 'error';
        if (status === 'ok') status = 'degraded';
      }
      return c.json(
        { status, version: runtime.settings.version ?? 'unknown', checks },
        status === 'unavailable' ? 503 : 200,
      );
    },
  );

  let document: Record<string, unknown> | undefined;
  book.add(
    app,
    {
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'This document: OpenAPI 3.1, generated from the schemas the routes validate with',
      tag: 'service',
      access: 'public',
      responses: { 200: { description: 'The OpenAPI document.', schema: openApiDocumentSchema } },
    },
    (c) => {
      // Every route is registered before the first request, so the document is built once.
      document ??= book.document({ title: 'Carhook API', version: runtime.settings.version ?? '0.0.0' });
      return c.json(document, 200, { 'cache-control': 'no-cache' });
    },
  );

  addOAuthRoutes(app, book, { runtime, stores, signalOf, redirectOrigins });

  // ---- management ------------------------------------------------------------------------------

  addCatalogueRoutes(app, book);
  addVehicleRoutes(app, book, runtime);
  addManagementRoutes(app, book, {
    runtime,
    cursors,
    signalOf,
    ...(deps.recentMetrics ? { recentMetrics: deps.recentMetrics } : {}),
  });

  addCapacityRoutes(app, book, { runtime });

  if (deps.subscriptions) {
    app.route(
      '/',
      createSubscriptionRoutes({
        service: deps.subscriptions,
        cursors,
        book,
        ...(deps.onError
          ? { onError: (e: unknown) => deps.onError?.(e, { method: 'ANY', path: '/subscriptions' }) }
          : {}),
      }),
    );
  }
  return app;
}
