import type { Hono } from 'hono';
import type { SimEnv } from '../http/context';
import { simError } from '../http/errors';
import type { SimVehicle } from '../world/types';
import type { World } from '../world/world';
import { type C, HAL, isResponse, q, send, type V2Kit } from './kit';
import { MAX_TELEMETRY_LIMIT, parseLocale, parsePage } from './query';
import { ecoId, renderAlert, renderCollision, renderEcoDriving, renderTrip, renderWaypoint } from './render';
import { parseTelemetryId, renderTelemetry } from './telemetry';

/** Trips and their records, and the single records the links in bodies point at. */
export function tripRoutes(app: Hono<SimEnv>, world: World, kit: V2Kit): void {
  // ---- trips

  app.get('/trips', (c) => {
    const user = kit.currentUser(c);
    if (isResponse(user)) return user;
    return kit.recordList(
      c,
      'trips',
      'trips for this user',
      user.vehicleIds.flatMap((id) => world.trips(id)).sort((a, b) => a.createdAt - b.createdAt),
      renderTrip,
    );
  });

  app.get('/trips/:id', (c) => {
    const t = kit.ownTrip(c, c.req.param('id'));
    if (isResponse(t)) return t;
    return send(c, renderTrip(kit.ctxOf(c), t), HAL);
  });

  app.get('/trips/:id/collisions', (c) => {
    const t = kit.ownTrip(c, c.req.param('id'));
    if (isResponse(t)) return t;
    return kit.recordList(
      c,
      'collisions',
      'collisions in this trip',
      world.collisions(t.vehicleId).filter((x) => x.tripId === t.id),
      renderCollision,
    );
  });

  app.get('/trips/:id/alerts', (c) => {
    const t = kit.ownTrip(c, c.req.param('id'));
    if (isResponse(t)) return t;
    return kit.recordList(
      c,
      'alerts',
      'alerts in this trip',
      world.alerts(t.vehicleId).filter((x) => x.tripId === t.id),
      renderAlert,
      true,
    );
  });

  app.get('/trips/:id/ecodriving', (c) => {
    const t = kit.ownTrip(c, c.req.param('id'));
    if (isResponse(t)) return t;
    return send(c, renderEcoDriving(kit.ctxOf(c), t), HAL);
  });

  app.get('/trips/:id/telemetry', (c) => {
    const t = kit.ownTrip(c, c.req.param('id'));
    if (isResponse(t)) return t;
    const v = world.vehicle(t.vehicleId) as SimVehicle;
    const p = kit.listParams(c, false, 10, MAX_TELEMETRY_LIMIT);
    if (isResponse(p)) return p;
    const paths = kit.typeFilter(c);
    if (isResponse(paths)) return paths;
    const { since, until } = p.range;
    const lo = Math.max(t.startedAt, since !== undefined ? kit.ceilSec(since) : t.startedAt);
    const hi = Math.min(t.stoppedAt - 1000, until !== undefined ? kit.ceilSec(until) - 1000 : t.stoppedAt);
    return kit.telemetryList(c, v, lo, hi, p.page, paths);
  });

  const waypoints = (c: C): Response => {
    const t = kit.ownTrip(c, c.req.param('id') ?? '');
    if (isResponse(t)) return t;
    const page = q(c, parsePage(new URL(c.req.url).searchParams, 10));
    if (isResponse(page)) return page;
    const ctx = kit.ctxOf(c);
    const all = t.waypoints;
    const items = all
      .slice(page.offset, page.offset + page.limit)
      .map((w, i) => renderWaypoint(ctx, t, w, page.offset + i));
    return kit.list(c, 'waypoints', all.length, items, page, 'waypoints in this trip');
  };
  app.get('/trips/:id/wayPoints', waypoints);
  // The trips' `path` links use this spelling: `/trips/{id}/waypoints/`.
  app.get('/trips/:id/waypoints', waypoints);

  // ---- single records the spec's link shapes point at (not in operations.json)

  app.get('/collisions/:id', (c) => {
    const x = world.collision(c.req.param('id'));
    if (!x) return simError(c, 404, 'not_found', `No collision with id '${c.req.param('id')}'`);
    const v = kit.ownVehicle(c, x.vehicleId);
    if (isResponse(v)) return v;
    return send(c, renderCollision(kit.ctxOf(c), x), HAL);
  });

  app.get('/alerts/:id', (c) => {
    const query = new URL(c.req.url).searchParams;
    const locale = q(c, parseLocale(query));
    if (isResponse(locale)) return locale;
    const a = world.alert(c.req.param('id'));
    if (!a) return simError(c, 404, 'not_found', `No alert with id '${c.req.param('id')}'`);
    const v = kit.ownVehicle(c, a.vehicleId);
    if (isResponse(v)) return v;
    return send(c, renderAlert(kit.ctxOf(c, locale), a), HAL);
  });

  app.get('/ecodrivings/:id', (c) => {
    const id = c.req.param('id');
    const t = world.trip(`t${id.slice(1)}`);
    if (!t || ecoId(t.id) !== id)
      return simError(c, 404, 'not_found', `No eco-driving evaluation with id '${id}'`);
    const own = kit.ownTrip(c, t.id);
    if (isResponse(own)) return own;
    return send(c, renderEcoDriving(kit.ctxOf(c), t), HAL);
  });

  app.get('/telemetry/:id', (c) => {
    const id = c.req.param('id');
    const parsed = parseTelemetryId(id);
    const v = parsed ? world.vehicle(parsed.vehicleId) : undefined;
    const t = parsed && v ? world.telemetryAt(v.id, parsed.at) : undefined;
    if (!parsed || !v || !t) return simError(c, 404, 'not_found', `No telemetry with id '${id}'`);
    const own = kit.ownVehicle(c, v.id);
    if (isResponse(own)) return own;
    return send(c, renderTelemetry(kit.ctxOf(c), v.id, t, v.brand), HAL);
  });
}
