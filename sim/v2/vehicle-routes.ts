import type { Hono } from 'hono';
import type { SimEnv } from '../http/context';
import { simError } from '../http/errors';
import type { SimVehicle } from '../world/types';
import type { World } from '../world/world';
import { GEO, HAL, isResponse, type Json, q, send, type V2Kit } from './kit';
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
  const {
    ctxOf,
    currentUser,
    ownVehicle,
    list,
    pageOf,
    listParams,
    typeFilter,
    telemetryList,
    ceilSec,
    floorSec,
  } = kit;
  // ---- user and vehicles

  app.get('/user', (c) => {
    const user = currentUser(c);
    if (isResponse(user)) return user;
    return send(c, renderUser(ctxOf(c), user), HAL);
  });

  app.get('/vehicles', (c) => {
    const user = currentUser(c);
    if (isResponse(user)) return user;
    const page = q(c, parsePage(new URL(c.req.url).searchParams, 10));
    if (isResponse(page)) return page;
    const ctx = ctxOf(c);
    const vehicles = user.vehicleIds.map((id) => world.vehicle(id)).filter((v): v is SimVehicle => !!v);
    const items = vehicles.slice(page.offset, page.offset + page.limit).map((v) => renderVehicle(ctx, v));
    return list(c, 'vehicles', vehicles.length, items, page, 'vehicle declared for this user');
  });

  app.get('/vehicles/:id', (c) => {
    const v = ownVehicle(c, c.req.param('id'));
    if (isResponse(v)) return v;
    return send(c, renderVehicle(ctxOf(c), v), HAL);
  });

  app.get('/vehicles/:id/lastPosition', (c) => {
    const v = ownVehicle(c, c.req.param('id'));
    if (isResponse(v)) return v;
    if (!v.geolocationAllowed) {
      // spec 7: 404 when the user did not allow the collection of geolocation data.
      return simError(c, 404, 'not_found', 'No geolocation data: the user did not allow its collection');
    }
    return send(c, renderLastPosition(ctxOf(c), v), GEO);
  });

  app.get('/vehicles/:id/alerts', (c) => {
    const v = ownVehicle(c, c.req.param('id'));
    if (isResponse(v)) return v;
    const p = listParams(c, true);
    if (isResponse(p)) return p;
    const ctx = ctxOf(c, p.locale);
    const { total, items } = pageOf(world.alerts(v.id), p.range, p.page);
    return list(
      c,
      'alerts',
      total,
      items.map((a) => renderAlert(ctx, a)),
      p.page,
      'alerts for this vehicle',
    );
  });

  app.get('/vehicles/:id/collisions', (c) => {
    const v = ownVehicle(c, c.req.param('id'));
    if (isResponse(v)) return v;
    const p = listParams(c, false);
    if (isResponse(p)) return p;
    const ctx = ctxOf(c);
    const { total, items } = pageOf(world.collisions(v.id), p.range, p.page);
    return list(
      c,
      'collisions',
      total,
      items.map((x) => renderCollision(ctx, x)),
      p.page,
      'collisions for this vehicle',
    );
  });

  app.get('/vehicles/:id/maintenance', (c) => {
    const v = ownVehicle(c, c.req.param('id'));
    if (isResponse(v)) return v;
    const m = world.maintenance(v.id);
    if (!m) return simError(c, 404, 'not_found', 'No maintenance data for this vehicle');
    return send(c, renderMaintenance(ctxOf(c), v, m), HAL);
  });

  app.get('/vehicles/:id/events', (c) => {
    const v = ownVehicle(c, c.req.param('id'));
    if (isResponse(v)) return v;
    const p = listParams(c, true);
    if (isResponse(p)) return p;
    const ctx = ctxOf(c, p.locale);
    const { total, items } = pageOf(world.events(v.id), p.range, p.page);
    const rendered = items.map((e) => renderEvent(ctx, e)).filter((e): e is Json => !!e);
    return list(c, 'events', total, rendered, p.page, 'events for this vehicle');
  });

  app.get('/vehicles/:id/telemetry', (c) => {
    const v = ownVehicle(c, c.req.param('id'));
    if (isResponse(v)) return v;
    const p = listParams(c, false, 60, MAX_TELEMETRY_LIMIT);
    if (isResponse(p)) return p;
    const paths = typeFilter(c);
    if (isResponse(paths)) return paths;
    const now = floorSec(world.now());
    const { since, until } = p.range;
    // spec 4.2: without since/until, the last 60 seconds.
    const hi = Math.min(now, until !== undefined ? ceilSec(until) - 1000 : now);
    const lo = Math.max(
      ceilSec(v.createdAt),
      since !== undefined ? ceilSec(since) : until !== undefined ? v.createdAt : now - 59_000,
    );
    return telemetryList(c, v, lo, hi, p.page, paths);
  });

  app.get('/vehicles/:id/trips', (c) => {
    const v = ownVehicle(c, c.req.param('id'));
    if (isResponse(v)) return v;
    const p = listParams(c, false);
    if (isResponse(p)) return p;
    const ctx = ctxOf(c);
    const { total, items } = pageOf(world.trips(v.id), p.range, p.page);
    return list(
      c,
      'trips',
      total,
      items.map((t) => renderTrip(ctx, t)),
      p.page,
      'trips for this vehicle',
    );
  });
}
