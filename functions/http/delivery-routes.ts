/**
 * The routes of a subscription's deliveries: the attempt log (filtered by status, event type, event
 * id and time), dead letters, replay, recovering what was dead-lettered since a time, and an event
 * with its deliveries. Mounted by createSubscriptionRoutes (functions/http/subscriptions.ts).
 */
import type { Hono } from 'hono';
import * as z from 'zod';
import type { SubscriptionService } from '../core/subscriptions/service';
import {
  attemptPageSchema,
  deliveryPageSchema,
  type EventWithDeliveries,
  eventWithDeliveriesSchema,
  recoverResultSchema,
  replayResultSchema,
} from './contract';
import { errorResponse, type ResponseSpec, type RouteBook } from './openapi';
import { errorBody, type Listed, reply } from './service-replies';
import { cursorSchema, idSchema, instantSchema, publicEvent } from './views';

const TYPE = /^[a-z0-9_.]{1,100}$/;

export function addDeliveryRoutes(
  app: Hono,
  book: RouteBook,
  deps: {
    readonly service: SubscriptionService;
    readonly listed: Listed;
    readonly byId: z.ZodObject<{ id: z.ZodString }>;
    readonly pageQuery: z.ZodObject<z.ZodRawShape>;
    readonly common: {
      readonly tag: 'subscriptions';
      readonly access: 'management';
      readonly bodyErrorCode: string;
    };
    readonly badRequest: ResponseSpec;
    readonly notFound: ResponseSpec;
  },
): void {
  const { service, listed, byId, pageQuery, common, badRequest, notFound } = deps;
  const disabled = errorResponse('The subscription is disabled: enable it first.');
  /** What replay and recover answer: queued (202), or why not. */
  const queued = (schema: z.ZodType) => ({
    202: { description: 'Queued.', schema },
    400: badRequest,
    404: notFound,
    409: disabled,
  });

  const attemptQuery = z.object({
    limit: z.string().optional().meta({ description: 'Page size, 1-100 (default 50).' }),
    cursor: cursorSchema,
    status: z
      .enum(['succeeded', 'failed'], { message: 'must be succeeded or failed' })
      .optional()
      .meta({ description: '`succeeded`: a 2xx came back; `failed`: anything else.' }),
    eventType: z
      .string()
      .regex(TYPE, 'event types look like vehicle.alert.raised')
      .optional()
      .meta({ description: 'Only attempts of this event type.' }),
    eventId: idSchema.optional().meta({ description: 'Only the attempts of this event (evt_…).' }),
    since: instantSchema.optional().meta({ description: 'Attempts started at or after this instant.' }),
    until: instantSchema.optional().meta({ description: 'Attempts started before this instant.' }),
  });

  book.add(
    app,
    {
      ...common,
      method: 'get',
      path: '/subscriptions/:id/deliveries',
      operationId: 'listDeliveries',
      summary:
        "This subscription's attempt log, newest first: each attempt's request and answer, or why it failed",
      description:
        'Per attempt: when, how long, the request headers sent (the signature, never the secret), the response status, headers and the first 4 KB of the body, or the class of the error (timeout, dns, refused, tls, ssrf…). Filter by status, event type, event id and time.',
      params: byId,
      query: attemptQuery,
      responses: {
        200: { description: 'A page of the attempt log, newest first.', schema: attemptPageSchema },
        400: badRequest,
        404: notFound,
      },
    },
    (c, { params, query }) => {
      const filter = {
        ...(query.status !== undefined ? { status: query.status } : {}),
        ...(query.eventType !== undefined ? { eventType: query.eventType } : {}),
        ...(query.eventId !== undefined ? { eventId: query.eventId } : {}),
        ...(query.since !== undefined ? { since: query.since } : {}),
        ...(query.until !== undefined ? { until: query.until } : {}),
      };
      return listed(
        () => `deliveries ${params.id}`,
        (_c, page) => service.deliveries(params.id, page, filter),
      )(c);
    },
  );
  book.add(
    app,
    {
      ...common,
      method: 'get',
      path: '/subscriptions/:id/dead-letters',
      operationId: 'listDeadLetters',
      summary: 'Deliveries that gave up after every retry',
      params: byId,
      query: pageQuery,
      responses: {
        200: { description: 'A page.', schema: deliveryPageSchema },
        400: badRequest,
        404: notFound,
      },
    },
    listed(
      (c) => `dead-letters ${c.req.param('id')}`,
      (c, page) => service.deadLetters(c.req.param('id') ?? '', page),
    ),
  );
  book.add(
    app,
    {
      ...common,
      method: 'post',
      path: '/subscriptions/:id/replay',
      operationId: 'replayEvents',
      summary: 'Deliver again: some events by id, or every matching event of a time range',
      description:
        'With `eventIds`, the events are read from the log by id (`since` is then optional); each requested id not sent is listed in `skipped` with the reason (unknown, past the retention, or excluded by the filters).',
      params: byId,
      body: service.schemas.replay,
      bodyName: 'ReplayRequest',
      responses: queued(replayResultSchema),
    },
    async (c, { params, body }) => reply(c, await service.replay(params.id, body), 202),
  );
  book.add(
    app,
    {
      ...common,
      method: 'post',
      path: '/subscriptions/:id/recover',
      operationId: 'recoverFailedDeliveries',
      summary: 'Deliver again every delivery that gave up (dead-lettered) since a time',
      description:
        'The dead letters whose last attempt was in [since, until) are delivered again as new deliveries of the same events (same `webhook-id`s), through the queue.',
      params: byId,
      body: service.schemas.recover,
      bodyName: 'RecoverRequest',
      responses: queued(recoverResultSchema),
    },
    async (c, { params, body }) => reply(c, await service.recover(params.id, body), 202),
  );
  book.add(
    app,
    {
      method: 'get',
      path: '/events/:id',
      operationId: 'getEvent',
      summary: 'One event of the log, with its delivery to each subscription',
      description:
        'The deliveries the fan-out (or a recovery) made of it, one per subscription; replays are in each subscription’s attempt log (filter by eventId).',
      tag: 'events',
      access: 'management',
      params: z.object({ id: idSchema.meta({ description: 'The event id (`evt_…`).' }) }),
      responses: {
        200: { description: 'The event and its deliveries.', schema: eventWithDeliveriesSchema },
        404: errorResponse('No such event in the log (unknown, or past its retention).'),
      },
    },
    async (c, { params }) => {
      const found = await service.event(params.id);
      if (!found)
        return c.json(
          errorBody({
            kind: 'NotFound',
            message: `no event ${params.id.slice(0, 80)} in the log: unknown, or older than its retention`,
          }),
          404,
        );
      return c.json({
        event: publicEvent(found.event),
        deliveries: found.deliveries.map((d) => ({ ...d, delivery: { ...d.delivery } })),
      } satisfies EventWithDeliveries);
    },
  );
}
