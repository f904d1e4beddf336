import { type Context, Hono } from 'hono';
import type { SimEnv, SimServices } from '../http/context';
import { invalidParam, simError } from '../http/errors';
import type { Locale } from '../world/catalog';
import { SERVICES } from '../world/catalog';
import type { SimTrip, SimUser, SimVehicle } from '../world/types';
import {
  inRange,
  MAX_TELEMETRY_LIMIT,
  type Page,
  parseLocale,
  parsePage,
  parseRange,
  type QueryResult,
  type Range,
} from './query';
import {
  ecoId,
  normalizeTelemetryPath,
  parseTelemetryId,
  pickTelemetry,
  type RenderCtx,
  renderAlert,
  renderCollision,
  renderEcoDriving,
  renderEvent,
  renderLastPosition,
  renderMaintenance,
  renderTelemetry,
  renderTrip,
  renderUser,
  renderVehicle,
  renderWaypoint,
} from './render';

type Json = Record<string, unknown>;
type C = Context<SimEnv>;

const HAL = 'application/hal+json';
const GEO = 'application/geo+json';

function send(c: C, body: unknown, type: string): Response {
  return c.body(JSON.stringify(body), 200, { 'Content-Type': type });
}

/** Unwraps a parsed query value, or answers 400 naming the field. */
function q<T>(c: C, r: QueryResult<T>): T | Response {
  return r.ok ? r.value : invalidParam(c, r.field, r.message);
}

function isResponse(x: unknown): x is Response {
  return x instanceof Response;
}

/**
 * Version 2 (area A) and the service-support lookups (area B), mounted at `/connectedcar/v2`.
 * The gateway has already authenticated the request and set `userId` for bearer requests.
 */
export function createV2Routes(svc: SimServices): Hono<SimEnv> {
  const app = new Hono<SimEnv>({ strict: false });
  const world = svc.world;

  const ctxOf = (c: C, locale: Locale = 'en'): RenderCtx => {
    const url = new URL(c.req.url);
    return { world, base: `${url.origin}/connectedcar/v2`, locale, flags: c.get('chaos') };
  };

  const currentUser = (c: C): SimUser | Response => {
    const id = c.get('userId');
    const user = id ? world.user(id) : undefined;
    // spec 7: "no user found (should never happen)".
    return user ?? simError(c, 404, 'not_found', 'No user found for this access token');
  };

  /** spec 7: 404 for an unknown vehicle, 403 for another user's. */
  const ownVehicle = (c: C, id: string): SimVehicle | Response => {
    const v = world.vehicle(id);
    if (!v) return simError(c, 404, 'not_found', `No vehicle with id '${id}'`);
    const userId = c.get('userId');
    if (userId !== undefined && v.userId !== userId) {
      return simError(c, 403, 'forbidden', `The user has no access to vehicle '${id}'`);
    }
    return v;
  };

  const ownTrip = (c: C, id: string): SimTrip | Response => {
    const t = world.trip(id);
    if (!t) return simError(c, 404, 'not_found', `No trip with id '${id}'`);
    const v = world.vehicle(t.vehicleId);
    if (!v || v.userId !== c.get('userId')) {
      return simError(c, 403, 'forbidden', `The user has no access to trip '${id}'`);
    }
    return t;
  };

  /** spec 2.1 list: `_links` self/first/next/prev/last, `total`, `_embedded.<plural>`. */
  const list = (
    c: C,
    plural: string,
    total: number,
    items: readonly Json[],
    page: Page,
    what: string,
  ): Response => {
    if (total === 0 && c.get('chaos').notFoundForEmptyList) {
      // spec 7's table lists 404 for "no such items" (the sample shows 200 with total 0, our default).
      return simError(c, 404, 'not_found', `No ${what}`);
    }
    const url = new URL(c.req.url);
    const at = (offset: number): string => {
      const u = new URL(url);
      u.searchParams.set('offset', String(offset));
      u.searchParams.set('limit', String(page.limit));
      return u.toString();
    };
    const lastOffset = total === 0 ? 0 : Math.floor((total - 1) / page.limit) * page.limit;
    return send(
      c,
      {
        _links: {
          self: { href: url.toString() },
          first: { href: at(0) },
          ...(page.offset + page.limit < total ? { next: { href: at(page.offset + page.limit) } } : {}),
          ...(page.offset > 0
            ? { prev: { href: at(Math.max(0, Math.min(page.offset - page.limit, lastOffset))) } }
            : {}),
          last: { href: at(lastOffset) },
        },
        total,
        _embedded: { [plural]: items },
      },
      HAL,
    );
  };

  /** Newest first, filtered by since/until on createdAt, paged. */
  const pageOf = <T extends { createdAt: number }>(all: readonly T[], range: Range, page: Page) => {
    const matching = all.filter((x) => inRange(x.createdAt, range)).reverse();
    return { total: matching.length, items: matching.slice(page.offset, page.offset + page.limit) };
  };

  const listParams = (c: C, withLocale: boolean, defaultLimit = 10, maxLimit?: number) => {
    const query = new URL(c.req.url).searchParams;
    const range = q(c, parseRange(query));
    if (isResponse(range)) return range;
    const page = q(c, parsePage(query, defaultLimit, maxLimit));
    if (isResponse(page)) return page;
    const locale = withLocale ? q(c, parseLocale(query)) : 'en';
    if (isResponse(locale)) return locale;
    return { range, page, locale };
  };

  const typeFilter = (c: C): string[] | undefined | Response => {
    const raw = c.req.queries('type');
    if (!raw || raw.length === 0) return undefined;
    const paths: string[] = [];
    for (const value of raw.flatMap((r) => r.split(','))) {
      if (value.trim() === '') continue;
      const p = normalizeTelemetryPath(value);
      if (!p) return invalidParam(c, 'type', `unknown telemetry property path '${value.trim()}'`);
      paths.push(p);
    }
    return paths.length > 0 ? paths : undefined;
  };

  /** Seconds [lo, hi] (epoch ms, whole seconds), newest first, rendered page by page. */
  const telemetryList = (
    c: C,
    v: SimVehicle,
    lo: number,
    hi: number,
    page: Page,
    paths: string[] | undefined,
  ) => {
    const ctx = ctxOf(c);
    const total = hi >= lo ? Math.floor((hi - lo) / 1000) + 1 : 0;
    const items: Json[] = [];
    for (let i = page.offset; i < Math.min(total, page.offset + page.limit); i++) {
      const t = world.telemetryAt(v.id, hi - i * 1000);
      if (!t) continue;
      const item = renderTelemetry(ctx, v.id, t, v.brand);
      items.push(paths ? pickTelemetry(item, paths) : item);
    }
    return list(c, 'telemetries', total, items, page, 'telemetry for this vehicle');
  };

  const ceilSec = (ms: number): number => Math.ceil(ms / 1000) * 1000;
  const floorSec = (ms: number): number => Math.floor(ms / 1000) * 1000;

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

  // ---- trips

  app.get('/trips', (c) => {
    const user = currentUser(c);
    if (isResponse(user)) return user;
    const p = listParams(c, false);
    if (isResponse(p)) return p;
    const ctx = ctxOf(c);
    const all = user.vehicleIds.flatMap((id) => world.trips(id)).sort((a, b) => a.createdAt - b.createdAt);
    const { total, items } = pageOf(all, p.range, p.page);
    return list(
      c,
      'trips',
      total,
      items.map((t) => renderTrip(ctx, t)),
      p.page,
      'trips for this user',
    );
  });

  app.get('/trips/:id', (c) => {
    const t = ownTrip(c, c.req.param('id'));
    if (isResponse(t)) return t;
    return send(c, renderTrip(ctxOf(c), t), HAL);
  });

  app.get('/trips/:id/collisions', (c) => {
    const t = ownTrip(c, c.req.param('id'));
    if (isResponse(t)) return t;
    const p = listParams(c, false);
    if (isResponse(p)) return p;
    const ctx = ctxOf(c);
    const all = world.collisions(t.vehicleId).filter((x) => x.tripId === t.id);
    const { total, items } = pageOf(all, p.range, p.page);
    return list(
      c,
      'collisions',
      total,
      items.map((x) => renderCollision(ctx, x)),
      p.page,
      'collisions in this trip',
    );
  });

  app.get('/trips/:id/alerts', (c) => {
    const t = ownTrip(c, c.req.param('id'));
    if (isResponse(t)) return t;
    const p = listParams(c, true);
    if (isResponse(p)) return p;
    const ctx = ctxOf(c, p.locale);
    const all = world.alerts(t.vehicleId).filter((x) => x.tripId === t.id);
    const { total, items } = pageOf(all, p.range, p.page);
    return list(
      c,
      'alerts',
      total,
      items.map((a) => renderAlert(ctx, a)),
      p.page,
      'alerts in this trip',
    );
  });

  app.get('/trips/:id/ecodriving', (c) => {
    const t = ownTrip(c, c.req.param('id'));
    if (isResponse(t)) return t;
    return send(c, renderEcoDriving(ctxOf(c), t), HAL);
  });

  app.get('/trips/:id/telemetry', (c) => {
    const t = ownTrip(c, c.req.param('id'));
    if (isResponse(t)) return t;
    const v = world.vehicle(t.vehicleId) as SimVehicle;
    const p = listParams(c, false, 10, MAX_TELEMETRY_LIMIT);
    if (isResponse(p)) return p;
    const paths = typeFilter(c);
    if (isResponse(paths)) return paths;
    const { since, until } = p.range;
    const lo = Math.max(t.startedAt, since !== undefined ? ceilSec(since) : t.startedAt);
    const hi = Math.min(t.stoppedAt - 1000, until !== undefined ? ceilSec(until) - 1000 : t.stoppedAt);
    return telemetryList(c, v, lo, hi, p.page, paths);
  });

  const waypoints = (c: C): Response => {
    const t = ownTrip(c, c.req.param('id') ?? '');
    if (isResponse(t)) return t;
    const page = q(c, parsePage(new URL(c.req.url).searchParams, 10));
    if (isResponse(page)) return page;
    const ctx = ctxOf(c);
    const all = t.waypoints;
    const items = all
      .slice(page.offset, page.offset + page.limit)
      .map((w, i) => renderWaypoint(ctx, t, w, page.offset + i));
    return list(c, 'waypoints', all.length, items, page, 'waypoints in this trip');
  };
  app.get('/trips/:id/wayPoints', waypoints);
  // spec 4.2 link shape: `/trips/{id}/waypoints/`.
  app.get('/trips/:id/waypoints', waypoints);

  // ---- single records the spec's link shapes point at (not in operations.json)

  app.get('/collisions/:id', (c) => {
    const x = world.collision(c.req.param('id'));
    if (!x) return simError(c, 404, 'not_found', `No collision with id '${c.req.param('id')}'`);
    const v = ownVehicle(c, x.vehicleId);
    if (isResponse(v)) return v;
    return send(c, renderCollision(ctxOf(c), x), HAL);
  });

  app.get('/alerts/:id', (c) => {
    const query = new URL(c.req.url).searchParams;
    const locale = q(c, parseLocale(query));
    if (isResponse(locale)) return locale;
    const a = world.alert(c.req.param('id'));
    if (!a) return simError(c, 404, 'not_found', `No alert with id '${c.req.param('id')}'`);
    const v = ownVehicle(c, a.vehicleId);
    if (isResponse(v)) return v;
    return send(c, renderAlert(ctxOf(c, locale), a), HAL);
  });

  app.get('/ecodrivings/:id', (c) => {
    const id = c.req.param('id');
    const t = world.trip(`t${id.slice(1)}`);
    if (!t || ecoId(t.id) !== id)
      return simError(c, 404, 'not_found', `No eco-driving evaluation with id '${id}'`);
    const own = ownTrip(c, t.id);
    if (isResponse(own)) return own;
    return send(c, renderEcoDriving(ctxOf(c), t), HAL);
  });

  app.get('/telemetry/:id', (c) => {
    const id = c.req.param('id');
    const parsed = parseTelemetryId(id);
    const v = parsed ? world.vehicle(parsed.vehicleId) : undefined;
    const t = parsed && v ? world.telemetryAt(v.id, parsed.at) : undefined;
    if (!parsed || !v || !t) return simError(c, 404, 'not_found', `No telemetry with id '${id}'`);
    const own = ownVehicle(c, v.id);
    if (isResponse(own)) return own;
    return send(c, renderTelemetry(ctxOf(c), v.id, t, v.brand), HAL);
  });

  // ---- area B: services and eligibilities (application/json)

  const vehicleByVin = (c: C, vin: string): SimVehicle | Response => {
    const v = world.vehicleByVin(vin);
    if (!v) return simError(c, 404, 'not_found', `No vehicle with VIN '${vin}'`);
    const userId = c.get('userId');
    if (userId !== undefined && v.userId !== userId) {
      return simError(c, 403, 'forbidden', `The user has no access to vehicle '${vin}'`);
    }
    return v;
  };

  app.get('/services/vehicles/:vin', (c) => {
    const v = vehicleByVin(c, c.req.param('vin'));
    if (isResponse(v)) return v;
    const filter = c.req.query('services');
    let entries = world.services(v.id);
    if (filter !== undefined) {
      const codes = filter
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0);
      const unknown = codes.find((code) => !SERVICES.some((s) => s.code === code));
      if (unknown !== undefined) {
        return invalidParam(
          c,
          'services',
          `unknown service code '${unknown}'; known: ${SERVICES.map((s) => s.code).join(', ')}`,
        );
      }
      entries = entries.filter((e) => codes.includes(e.code));
    }
    return c.json(entries.map((e) => ({ code: e.code, shortLabel: e.shortLabel, eligible: e.eligible })));
  });

  app.get('/vehicles/:vin/eligibilities', (c) => {
    const v = vehicleByVin(c, c.req.param('vin'));
    if (isResponse(v)) return v;
    const services = world.services(v.id);
    // spec 4.2: body not shown; see sim/README.md.
    return c.json({
      vin: v.vin,
      eligible: services.some((s) => s.eligible),
      services: services.filter((s) => s.eligible).map((s) => s.code),
      updatedAt: new Date(v.updatedAt).toISOString(),
    });
  });

  return app;
}
