import type { Hono } from 'hono';
import type { SimEnv } from '../http/context';
import { simError } from '../http/errors';
import type { SimVehicle } from '../world/types';
import type { World } from '../world/world';
import { GEO, HAL, isResponse, q, send, type V2Kit } from './kit';
import { MAX_TELEMETRY_LIMIT, parsePage } from './query';
import {
  renderAlert,
  renderCollision,
  renderEvent,
  renderLastPosition,
  renderMaintenance,
  renderTrip,
  renderUser,
  renderVehicle,
} from './render';

/** The user, the vehicles and their records: `/user`, `/vehicles/…`. */
export function vehicleRoutes(app: Hono<SimEnv>, world: World, kit: V2Kit): void {
  // ---- user and vehicles

  app.get('/user', (c) => {
    const user = kit.currentUser(c);
    if (isResponse(user)) return user;
    return send(c, renderUser(kit.ctxOf(c), user), HAL);
  });

  app.get('/vehicles', (c) => {
    const user = kit.currentUser(c);
    if (isResponse(user)) return user;
    const page = q(c, parsePage(new URL(c.req.url).searchParams, 10));
    if (isResponse(page)) return page;
    const ctx = kit.ctxOf(c);
    const vehicles = user.vehicleIds.map((id) => world.vehicle(id)).filter((v): v is SimVehicle => !!v);
    const items = vehicles.slice(page.offset, page.offset + page.limit).map((v) => renderVehicle(ctx, v));
    return kit.list(c, 'vehicles', vehicles.length, items, page, 'vehicle declared for this user');
  });

  app.get('/vehicles/:id', (c) => {
    const v = kit.ownVehicle(c, c.req.param('id'));
    if (isResponse(v)) return v;
    return send(c, renderVehicle(kit.ctxOf(c), v), HAL);
  });

  app.get('/vehicles/:id/lastPosition', (c) => {
    const v = kit.ownVehicle(c, c.req.param('id'));
    if (isResponse(v)) return v;
    if (!v.geolocationAllowed) {
      // 404 when the user did not allow the collection of geolocation data.
      return simError(c, 404, 'not_found', 'No geolocation data: the user did not allow its collection');
    }
    return send(c, renderLastPosition(kit.ctxOf(c), v), GEO);
  });

  app.get('/vehicles/:id/alerts', (c) => {
    const v = kit.ownVehicle(c, c.req.param('id'));
    if (isResponse(v)) return v;
    return kit.recordList(c, 'alerts', 'alerts for this vehicle', world.alerts(v.id), renderAlert, true);
  });

  app.get('/vehicles/:id/collisions', (c) => {
    const v = kit.ownVehicle(c, c.req.param('id'));
    if (isResponse(v)) return v;
    return kit.recordList(
      c,
      'collisions',
      'collisions for this vehicle',
      world.collisions(v.id),
      renderCollision,
    );
  });

  app.get('/vehicles/:id/maintenance', (c) => {
    const v = kit.ownVehicle(c, c.req.param('id'));
    if (isResponse(v)) return v;
    const m = world.maintenance(v.id);
    if (!m) return simError(c, 404, 'not_found', 'No maintenance data for this vehicle');
    return send(c, renderMaintenance(kit.ctxOf(c), v, m), HAL);
  });

  app.get('/vehicles/:id/events', (c) => {
    const v = kit.ownVehicle(c, c.req.param('id'));
    if (isResponse(v)) return v;
    return kit.recordList(c, 'events', 'events for this vehicle', world.events(v.id), renderEvent, true);
  });

  app.get('/vehicles/:id/telemetry', (c) => {
    const v = kit.ownVehicle(c, c.req.param('id'));
    if (isResponse(v)) return v;
    const p = kit.listParams(c, false, 60, MAX_TELEMETRY_LIMIT);
    if (isResponse(p)) return p;
    const paths = kit.typeFilter(c);
    if (isResponse(paths)) return paths;
    const now = kit.floorSec(world.now());
    const { since, until } = p.range;
    // Without since/until, telemetry answers the last 60 seconds.
    const hi = Math.min(now, until !== undefined ? kit.ceilSec(until) - 1000 : now);
    const lo = Math.max(
      kit.ceilSec(v.createdAt),
      since !== undefined ? kit.ceilSec(since) : until !== undefined ? v.createdAt : now - 59_000,
    );
    return kit.telemetryList(c, v, lo, hi, p.page, paths);
  });

  app.get('/vehicles/:id/trips', (c) => {
    const v = kit.ownVehicle(c, c.req.param('id'));
    if (isResponse(v)) return v;
    return kit.recordList(c, 'trips', 'trips for this vehicle', world.trips(v.id), renderTrip);
  });
}
