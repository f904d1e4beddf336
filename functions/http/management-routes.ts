/**
 * Management routes of enrollments, the event log and the in-process metrics. Authentication is the
 * mounting app's guard (IAM on AWS, the admin token locally); bodies, queries and path ids are
 * validated by the schemas each route declares (functions/http/openapi.ts).
 */
import type { Context, Hono } from 'hono';
import { fleetContractSchema } from '../core/enrollment';
import { enrollCheckedFleetContract, unenrollAndAnnounce } from '../core/enrollment/membership';
import { createMeteredClient } from '../core/polling/metered-client';
import type { StoredEvent } from '../core/store/records';
import type { RecentMetrics } from '../runtime/metrics-window';
import type { Runtime } from '../runtime/runtime';
import {
  type EnrollmentDetail,
  enrollmentDetailSchema,
  enrollmentPageSchema,
  eventPageSchema,
  fleetEnrolledSchema,
  recentMetricsSchema,
  unenrolledSchema,
} from './contract';
import type { CursorCodec } from './cursor';
import { sendError } from './errors';
import { errorResponse, type RouteBook } from './openapi';
import {
  enrollmentListQuery,
  eventListQuery,
  idParams,
  publicEnrollment,
  publicEvent,
  publicVehicle,
} from './views';

const DAY_MS = 86_400_000;
/** Pages of 1,000 events a VIN filter reads per request. */
const VIN_SCAN_PAGES = 10;

export interface ManagementRoutesDeps {
  readonly runtime: Pick<Runtime, 'ports' | 'now' | 'oauthDeps' | 'settings'>;
  readonly cursors: () => Promise<CursorCodec>;
  readonly signalOf: (c: Context) => AbortSignal | undefined;
  readonly recentMetrics?: () => RecentMetrics;
}

const badRequest = errorResponse('Bad input, naming the field.');

export function addManagementRoutes(app: Hono, book: RouteBook, deps: ManagementRoutesDeps): void {
  const { runtime, cursors } = deps;
  const { stores } = runtime.ports;

  book.add(
    app,
    {
      method: 'get',
      path: '/metrics/recent',
      operationId: 'getRecentMetrics',
      summary: "The last hour's requests per minute against the quota, and detection lag",
      tag: 'metrics',
      access: 'management',
      responses: {
        200: { description: 'Per-minute figures.', schema: recentMetricsSchema },
        404: errorResponse('This runtime keeps no in-process metrics (on AWS: CloudWatch).'),
      },
    },
    (c) => {
      if (!deps.recentMetrics) {
        return sendError(
          c,
          404,
          'NotAvailable',
          'this runtime keeps no in-process metrics: on AWS they are in CloudWatch (namespace Carhook, the stack dashboard)',
        );
      }
      return c.json(deps.recentMetrics());
    },
  );

  book.add(
    app,
    {
      method: 'post',
      path: '/enrollments/contracts',
      operationId: 'enrollFleetContract',
      summary: 'Enroll one vehicle under a fleet contract',
      tag: 'enrollments',
      access: 'management',
      body: fleetContractSchema,
      bodyName: 'FleetContract',
      responses: {
        201: { description: 'Enrolled.', schema: fleetEnrolledSchema },
        400: badRequest,
        404: errorResponse('The API does not know the VIN (field `vin`); nothing stored.'),
        409: errorResponse('The VIN is already enrolled.'),
        422: errorResponse('The contract does not cover the VIN (field `contract`); nothing stored.'),
        502: errorResponse('The API answered the check with an error; nothing stored.'),
        503: errorResponse('The API could not be asked (quota spent or unreachable); nothing stored.'),
      },
    },
    async (c, { body }) => {
      // The API confirms the contract covers the VIN (one v1 request, drawn from the quota).
      const api = await runtime.oauthDeps({ signal: deps.signalOf(c) });
      const client = createMeteredClient(api.access, {
        brand: runtime.settings.api.brands[0] ?? 'v1',
        ...(api.budget ? { budget: api.budget } : {}),
        now: api.now,
      }).client;
      const r = await enrollCheckedFleetContract(api, client, body);
      switch (r.kind) {
        case 'Refused':
          return sendError(c, r.check.status, r.check.code, r.check.message, { field: r.check.field });
        case 'InvalidInput':
          return sendError(c, 400, 'InvalidInput', r.message, { field: r.field });
        case 'DuplicateVin':
          return sendError(c, 409, 'Conflict', r.message, {
            field: 'vin',
            existingEnrollmentId: r.existingEnrollmentId,
          });
        case 'Enrolled':
          return c.json({ enrollmentId: r.enrollmentId, vehicleId: r.vehicleId }, 201);
      }
    },
  );

  book.add(
    app,
    {
      method: 'get',
      path: '/enrollments',
      operationId: 'listEnrollments',
      summary: 'List enrollments, a page at a time',
      tag: 'enrollments',
      access: 'management',
      query: enrollmentListQuery,
      responses: {
        200: { description: 'A page.', schema: enrollmentPageSchema },
        400: badRequest,
      },
    },
    async (c, { query }) => {
      const codec = await cursors();
      const cursor = codec.open('enrollments', query.cursor);
      if (!cursor.ok) return sendError(c, 400, 'InvalidInput', cursor.message, { field: cursor.field });
      const pageOf = await stores.enrollments.list({
        limit: query.limit,
        ...(cursor.value ? { cursor: cursor.value } : {}),
        ...(query.status ? { status: query.status } : {}),
      });
      const next = codec.seal('enrollments', pageOf.cursor);
      return c.json({
        enrollments: pageOf.items.map(publicEnrollment),
        ...(next ? { cursor: next } : {}),
      });
    },
  );

  const notFound = errorResponse('No enrollment with this id.');

  book.add(
    app,
    {
      method: 'get',
      path: '/enrollments/:id',
      operationId: 'getEnrollment',
      summary: 'One enrollment and its vehicles',
      tag: 'enrollments',
      access: 'management',
      params: idParams,
      responses: {
        200: { description: 'The enrollment.', schema: enrollmentDetailSchema },
        400: badRequest,
        404: notFound,
      },
    },
    async (c, { params }) => {
      const enrollment = await stores.enrollments.get(params.id);
      if (!enrollment)
        return sendError(c, 404, 'NotFound', `no enrollment ${params.id.slice(0, 80)}`, { field: 'id' });
      const vehicles = await stores.vehicles.listByEnrollment(enrollment.id);
      return c.json({
        ...publicEnrollment(enrollment),
        vehicles: vehicles.map(publicVehicle),
      } satisfies EnrollmentDetail);
    },
  );

  book.add(
    app,
    {
      method: 'delete',
      path: '/enrollments/:id',
      operationId: 'unenroll',
      summary: 'Unenroll: stop polling its vehicles',
      tag: 'enrollments',
      access: 'management',
      params: idParams,
      responses: {
        200: { description: 'Unenrolled (again, if it already was).', schema: unenrolledSchema },
        400: badRequest,
        404: notFound,
      },
    },
    async (c, { params }) => {
      const r = await unenrollAndAnnounce({ stores, bus: runtime.ports.bus, now: runtime.now }, params.id);
      if (r.kind === 'NotFound')
        return sendError(c, 404, 'NotFound', `no enrollment ${params.id.slice(0, 80)}`, { field: 'id' });
      return c.json({
        enrollmentId: params.id,
        status: 'unenrolled',
        transitioned: r.transitioned,
        vehiclesPaused: r.vehiclesPaused,
      });
    },
  );

  book.add(
    app,
    {
      method: 'get',
      path: '/events',
      operationId: 'listEvents',
      summary: 'The event log: by time, or one vehicle’s, optionally of some types',
      tag: 'events',
      access: 'management',
      query: eventListQuery,
      repeated: ['type'],
      responses: {
        200: { description: 'A page, oldest first.', schema: eventPageSchema },
        400: badRequest,
      },
    },
    async (c, { query }) => {
      const codec = await cursors();
      // By vehicle and by time are different lists: a cursor of one never continues the other.
      const list = query.vehicleId !== undefined ? 'events-by-vehicle' : 'events';
      const cursor = codec.open(list, query.cursor);
      if (!cursor.ok) return sendError(c, 400, 'InvalidInput', cursor.message, { field: cursor.field });
      const now = runtime.now();
      const common = {
        now,
        limit: query.limit,
        ...(cursor.value ? { cursor: cursor.value } : {}),
        ...(query.type.length > 0 ? { types: query.type } : {}),
      };
      const since = query.since ?? new Date(now - DAY_MS).toISOString();
      // `until` is exclusive: one second ahead so what was detected "now" is included.
      const until = query.until ?? new Date(now + 1000).toISOString();
      if (since >= until) {
        return sendError(c, 400, 'InvalidInput', 'since: must be before until', { field: 'since' });
      }
      let result: { items: readonly StoredEvent[]; cursor?: string };
      if (query.vehicleId !== undefined) {
        result = await stores.events.listByVehicle({ ...common, vehicleId: query.vehicleId, since, until });
      } else if (query.vin !== undefined) {
        // A VIN's events, whatever enrollment reached it: the range read page by page and filtered,
        // at most VIN_SCAN_PAGES pages per request (the cursor continues from where it stopped).
        const vin = query.vin;
        const items: StoredEvent[] = [];
        let next = common.cursor;
        for (let pages = 0; pages < VIN_SCAN_PAGES; pages++) {
          const pageOf = await stores.events.listByTime({
            ...common,
            limit: 1000,
            ...(next ? { cursor: next } : {}),
            since,
            until,
          });
          items.push(...pageOf.items.filter((e) => e.envelope.vehicle?.vin?.toUpperCase() === vin));
          next = pageOf.cursor;
          if (!next || items.length >= query.limit) break;
        }
        result = { items, ...(next ? { cursor: next } : {}) };
      } else {
        result = await stores.events.listByTime({ ...common, since, until });
      }
      const next = codec.seal(list, result.cursor);
      return c.json({ events: result.items.map(publicEvent), ...(next ? { cursor: next } : {}) });
    },
  );
}
