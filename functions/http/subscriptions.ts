import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
// The smallest router preset (same API): the HttpApi bundle stays under its size target.
import { Hono } from 'hono/tiny';
import * as z from 'zod';
import type { SubscriptionService } from '../core/subscriptions/service';
import { bodyPolicy } from './body';
import {
  backlogSchema,
  enableResultSchema,
  secretRotatedSchema,
  subscriptionCreatedSchema,
  subscriptionPageSchema,
  subscriptionSchema,
  testDeliverySchema,
} from './contract';
import { type CursorCodec, createCursorCodec } from './cursor';
import { addDeliveryRoutes } from './delivery-routes';
import { errorResponse, RouteBook } from './openapi';
import { errorBody, listedRoute, reply, statusOf } from './service-replies';
import { cursorSchema } from './views';

/**
 * The management routes of webhook subscriptions, as a Hono sub-app the local server and
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
  /** Where the routes are recorded for the OpenAPI document (the mounting app's); default: its own. */
  readonly book?: RouteBook;
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

  const listed = listedRoute(cursors);

  // Standalone (tests, other hosts) the same body rules hold as under the main app.
  app.use('*', bodyPolicy());

  const book = deps.book ?? new RouteBook();
  const byId = z.object({ id: z.string().meta({ description: 'The subscription id (`sub_…`).' }) });
  const pageQuery = z.object({
    limit: z.string().optional().meta({ description: 'Page size, 1-100 (default 50).' }),
    cursor: cursorSchema,
  });
  const common = { tag: 'subscriptions', access: 'management', bodyErrorCode: 'Malformed' } as const;
  const badRequest = errorResponse('Bad input, naming the field.');
  const notFound = errorResponse('No subscription with this id.');
  const one = (description: string) => ({ description, schema: subscriptionSchema });

  book.add(
    app,
    {
      ...common,
      method: 'post',
      path: '/subscriptions',
      operationId: 'createSubscription',
      summary: 'Create a webhook subscription; the answer holds its signing secret, shown this once',
      body: service.schemas.create,
      bodyName: 'CreateSubscription',
      responses: {
        201: { description: 'Created.', schema: subscriptionCreatedSchema },
        400: badRequest,
      },
    },
    async (c, { body }) => reply(c, await service.create(body), 201),
  );
  book.add(
    app,
    {
      ...common,
      method: 'get',
      path: '/subscriptions',
      operationId: 'listSubscriptions',
      summary: 'List subscriptions, a page at a time',
      query: pageQuery,
      responses: {
        200: { description: 'A page.', schema: subscriptionPageSchema },
        400: badRequest,
      },
    },
    listed(
      () => 'subscriptions',
      (_c, page) => service.list(page),
    ),
  );
  book.add(
    app,
    {
      ...common,
      method: 'get',
      path: '/subscriptions/:id',
      operationId: 'getSubscription',
      summary: 'One subscription, with its health',
      params: byId,
      responses: { 200: one('The subscription.'), 404: notFound },
    },
    async (c, { params }) => reply(c, await service.get(params.id)),
  );
  book.add(
    app,
    {
      ...common,
      method: 'patch',
      path: '/subscriptions/:id',
      operationId: 'updateSubscription',
      summary: 'Change the URL, filters or description (null clears a filter)',
      params: byId,
      body: service.schemas.patch,
      bodyName: 'UpdateSubscription',
      responses: { 200: one('Updated.'), 400: badRequest, 404: notFound },
    },
    async (c, { params, body }) => reply(c, await service.patch(params.id, body)),
  );
  book.add(
    app,
    {
      ...common,
      method: 'delete',
      path: '/subscriptions/:id',
      operationId: 'deleteSubscription',
      summary: 'Delete a subscription',
      params: byId,
      responses: { 204: { description: 'Deleted.' }, 404: notFound },
    },
    async (c, { params }) => {
      const result = await service.remove(params.id);
      if (!result.ok) return c.json(errorBody(result.error), statusOf(result.error));
      return c.body(null, 204);
    },
  );
  book.add(
    app,
    {
      ...common,
      method: 'post',
      path: '/subscriptions/:id/rotate-secret',
      operationId: 'rotateSubscriptionSecret',
      summary: 'A new signing secret, shown this once; the old one still signs for a grace period',
      params: byId,
      responses: {
        200: { description: 'The new secret.', schema: secretRotatedSchema },
        404: notFound,
      },
    },
    async (c, { params }) => reply(c, await service.rotateSecret(params.id)),
  );
  book.add(
    app,
    {
      ...common,
      method: 'post',
      path: '/subscriptions/:id/test',
      operationId: 'sendTestEvent',
      summary: 'Send a webhook.test event to this subscription now',
      params: byId,
      responses: {
        200: { description: 'The test delivery and its attempt.', schema: testDeliverySchema },
        404: notFound,
        409: errorResponse('The subscription is disabled.'),
      },
    },
    async (c, { params }) => reply(c, await service.test(params.id), 200),
  );
  book.add(
    app,
    {
      ...common,
      method: 'post',
      path: '/subscriptions/:id/sample',
      operationId: 'sendSampleEvent',
      summary: 'Send a sample of an event type to this subscription now, signed like any delivery',
      description:
        'The catalogue’s sample of the type (GET /event-types), under a new id, stamped now, with `sample: true` and `sequence` 0 in its envelope.',
      params: byId,
      body: service.schemas.sample,
      bodyName: 'SendSample',
      responses: {
        200: { description: 'The sample delivery and its attempt.', schema: testDeliverySchema },
        400: badRequest,
        404: notFound,
        409: errorResponse('The subscription is disabled.'),
      },
    },
    async (c, { params, body }) => reply(c, await service.sample(params.id, body)),
  );
  book.add(
    app,
    {
      ...common,
      method: 'get',
      path: '/subscriptions/:id/backlog',
      operationId: 'getSubscriptionBacklog',
      summary: 'What enabling would deliver: the events it missed while disabled, still in the event log',
      description:
        'The window since the subscription was disabled, how far back the event log still keeps events (its retention), the matching events in it and the parked deliveries. Nothing is changed.',
      params: byId,
      responses: { 200: { description: 'The backlog.', schema: backlogSchema }, 404: notFound },
    },
    async (c, { params }) => reply(c, await service.backlog(params.id)),
  );
  book.add(
    app,
    {
      ...common,
      method: 'post',
      path: '/subscriptions/:id/enable',
      operationId: 'enableSubscription',
      summary:
        'Enable: the events it missed while disabled are delivered (or discarded), parked deliveries resume',
      description:
        'The events detected while it was disabled that its filters match are read back from the event log and delivered in detection order with their own ids (`backlog: "discard"` delivers none of them). Events older than the log’s retention cannot be recovered: `backlog.truncated` says so. The failure streak is cleared.',
      params: byId,
      body: service.schemas.enable,
      bodyName: 'EnableSubscription',
      responses: {
        200: { description: 'Enabled.', schema: enableResultSchema },
        400: badRequest,
        404: notFound,
      },
    },
    async (c, { params, body }) => reply(c, await service.enable(params.id, body)),
  );
  book.add(
    app,
    {
      ...common,
      method: 'post',
      path: '/subscriptions/:id/disable',
      operationId: 'disableSubscription',
      summary: 'Disable: nothing is delivered until it is enabled again; what it misses is delivered then',
      description:
        'Pending deliveries are parked and new events are not fanned out to it. Nothing is lost: the event log keeps every event for its retention, and `enable` delivers the matching ones (see `GET …/backlog`).',
      params: byId,
      responses: { 200: one('Disabled.'), 404: notFound },
    },
    async (c, { params }) => reply(c, await service.disable(params.id)),
  );
  addDeliveryRoutes(app, book, { service, listed, byId, pageQuery, common, badRequest, notFound });
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
