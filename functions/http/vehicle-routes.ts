/**
 * One vehicle at the depth an operator needs (`GET /vehicles/{id}`): its enrollment and whether it
 * can be polled, the last and next read of each kind (functions/core/polling/vehicle-view.ts: from
 * the planner's memory and the record, no write per steady poll), its learned change rate and share
 * of the quota, its recent events; pausing or resuming it; and its latest known state
 * (`GET /vehicles/{id}/state`: alerts, maintenance, last trip, collision, position, fuel, from what
 * Carhook stores, no request to the API).
 */
import type { Hono } from 'hono';
import * as z from 'zod';
import { latestView } from '../core/detection/latest';
import { parseState } from '../core/detection/state';
import { cycleBudget } from '../core/polling/planner';
import { vehicleReads } from '../core/polling/vehicle-view';
import type { Runtime } from '../runtime/runtime';
import { authorizeUrlFor } from '../runtime/runtime';
import { type VehicleDetail, vehicleDetailSchema, vehicleSchema } from './contract';
import { sendError } from './errors';
import { errorResponse, type RouteBook } from './openapi';
import { vehicleStateSchema } from './state-contract';
import { idSchema, publicEnrollment, publicEvent, publicVehicle } from './views';

const RECENT_MS = 7 * 86_400_000;
const RECENT_EVENTS = 50;

export function addVehicleRoutes(
  app: Hono,
  book: RouteBook,
  runtime: Pick<
    Runtime,
    'ports' | 'now' | 'settings' | 'pollingConfig' | 'rateBudgetConfig' | 'plannerMemory'
  >,
): void {
  const { stores } = runtime.ports;
  const byId = z.object({
    id: idSchema.meta({
      description: 'The vehicle id (`<enrollmentId>:<apiVehicleId>` or `<enrollmentId>:<vin>`).',
    }),
  });
  const notFound = errorResponse('No vehicle with this id.');
  const common = { tag: 'vehicles', access: 'management', params: byId } as const;
  const missing = (c: Parameters<typeof sendError>[0], id: string) =>
    sendError(c, 404, 'NotFound', `no vehicle ${id.slice(0, 120)}`, { field: 'id' });

  book.add(
    app,
    {
      ...common,
      method: 'get',
      path: '/vehicles/:id',
      operationId: 'getVehicle',
      summary: 'One vehicle: connection, last and next read of each kind, learned change rate, quota, events',
      responses: { 200: { description: 'The vehicle.', schema: vehicleDetailSchema }, 404: notFound },
    },
    async (c, { params }) => {
      const vehicle = await stores.vehicles.get(params.id);
      if (!vehicle) return missing(c, params.id);
      const enrollment = await stores.enrollments.get(vehicle.enrollmentId);
      if (!enrollment) return missing(c, params.id);
      const now = runtime.now();
      const memory = runtime.plannerMemory;
      const reads = vehicleReads({
        vehicle,
        last: memory.get(vehicle.id),
        plannerKnown: memory.size() > 0,
        config: runtime.pollingConfig,
        perCycle: cycleBudget(runtime.pollingConfig, runtime.rateBudgetConfig),
        fleetSize: memory.size(),
        quota: runtime.settings.quota,
      });
      const events = await stores.events.listByVehicle({
        vehicleId: vehicle.id,
        since: new Date(now - RECENT_MS).toISOString(),
        until: new Date(now + 1000).toISOString(),
        now,
        limit: 1000,
      });
      const tokenExpiresAt = enrollment.kind === 'oauth-user' ? enrollment.tokenExpiresAt : undefined;
      const state =
        enrollment.status === 'unenrolled'
          ? 'unenrolled'
          : enrollment.status === 'reauthorization_required'
            ? 'reauthorization_required'
            : vehicle.paused
              ? 'paused'
              : 'polled';
      const publicUrl = runtime.settings.publicUrl;
      const body: VehicleDetail = {
        vehicle: {
          ...publicVehicle(vehicle),
          ...(vehicle.model !== undefined ? { model: vehicle.model } : {}),
          ...(vehicle.subModel !== undefined ? { subModel: vehicle.subModel } : {}),
        },
        enrollment: publicEnrollment(enrollment),
        connection: {
          state,
          ...(tokenExpiresAt !== undefined
            ? { tokenExpiresAt, tokenValid: Date.parse(tokenExpiresAt) > now }
            : {}),
          ...(state === 'reauthorization_required' && publicUrl
            ? { reauthorizationUrl: authorizeUrlFor(publicUrl)(enrollment.brand) }
            : {}),
        },
        reads: [...reads.reads],
        ...(reads.changeRate ? { changeRate: reads.changeRate } : {}),
        quota: reads.quota,
        recentEvents: [...events.items].reverse().slice(0, RECENT_EVENTS).map(publicEvent),
      };
      return c.json(body);
    },
  );

  book.add(
    app,
    {
      ...common,
      method: 'get',
      path: '/vehicles/:id/state',
      operationId: 'getVehicleState',
      summary:
        'The latest known state of a vehicle (alerts, maintenance, last trip, collision, position, fuel), from what Carhook stores: no request to the API',
      responses: {
        200: {
          description: 'What is known, each part with the time it was read.',
          schema: vehicleStateSchema,
        },
        404: notFound,
        500: errorResponse('The stored state is malformed (the field is named).'),
      },
    },
    async (c, { params }) => {
      const { vehicle, state } = await stores.states.getVehicleWithState(params.id);
      if (!vehicle) return missing(c, params.id);
      const parsed = state ? parseState(state.state) : undefined;
      if (parsed && !parsed.ok) {
        return sendError(
          c,
          500,
          'Malformed',
          `the stored state of vehicle ${params.id.slice(0, 80)} is malformed at ${parsed.error.field || '(root)'}: ${parsed.error.reason}`,
        );
      }
      const known = parsed?.state;
      if (!known || known.unpolled === true) {
        return c.json({
          vehicle: publicVehicle(vehicle),
          polled: false,
          sequence: known?.sequence ?? 0,
          activeAlerts: [],
        });
      }
      return c.json({ vehicle: publicVehicle(vehicle), polled: true, ...latestView(known) });
    },
  );

  for (const [action, summary] of [
    ['pause', 'Pause polling this vehicle (until it is resumed)'],
    ['resume', 'Resume polling a vehicle paused by an operator or waiting for reauthorization'],
  ] as const) {
    book.add(
      app,
      {
        ...common,
        method: 'post',
        path: `/vehicles/:id/${action}`,
        operationId: `${action}Vehicle`,
        summary,
        responses: {
          200: { description: 'The vehicle now.', schema: vehicleSchema },
          404: notFound,
          409: errorResponse('It cannot be resumed: its enrollment is unenrolled or its vehicle removed.'),
        },
      },
      async (c, { params }) => {
        const now = runtime.now();
        const before = await stores.vehicles.get(params.id);
        if (!before) return missing(c, params.id);
        if (action === 'pause') await stores.vehicles.pause(params.id, 'manual', now);
        else if (before.paused && !(await stores.vehicles.resume(params.id, now))) {
          return sendError(
            c,
            409,
            'Conflict',
            `vehicle ${params.id} is paused (${before.pauseReason ?? 'unknown'}): only a manual or reauthorization pause resumes`,
          );
        }
        const after = await stores.vehicles.get(params.id);
        return after ? c.json(publicVehicle(after)) : missing(c, params.id);
      },
    );
  }
}
