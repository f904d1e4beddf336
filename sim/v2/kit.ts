import type { Context } from 'hono';
import type { SimEnv } from '../http/context';
import { invalidParam, simError } from '../http/errors';
import type { Locale } from '../world/catalog';
import type { SimTrip, SimUser, SimVehicle } from '../world/types';
import type { World } from '../world/world';
import {
  inRange,
  type Page,
  parseLocale,
  parsePage,
  parseRange,
  type QueryResult,
  type Range,
} from './query';
import type { RenderCtx } from './render';
import { normalizeTelemetryPath, pickTelemetry, renderTelemetry } from './telemetry';

export type Json = Record<string, unknown>;
export type C = Context<SimEnv>;

export const HAL = 'application/hal+json';
export const GEO = 'application/geo+json';

export function send(c: C, body: unknown, type: string): Response {
  return c.body(JSON.stringify(body), 200, { 'Content-Type': type });
}

/** Unwraps a parsed query value, or answers 400 naming the field. */
export function q<T>(c: C, r: QueryResult<T>): T | Response {
  return r.ok ? r.value : invalidParam(c, r.field, r.message);
}

export function isResponse(x: unknown): x is Response {
  return x instanceof Response;
}

/**
 * What the v2 routes share: render context, the access checks (the token's user, its vehicles and
 * trips), HAL lists with paging links, and the list query parameters.
 */
export function v2Kit(world: World) {
  const ctxOf = (c: C, locale: Locale = 'en'): RenderCtx => {
    const url = new URL(c.req.url);
    return { world, base: `${url.origin}/connectedcar/v2`, locale, flags: c.get('chaos') };
  };

  const currentUser = (c: C): SimUser | Response => {
    const id = c.get('userId');
    const user = id ? world.user(id) : undefined;
    // The API lists a 404 "no user found" (which should never happen with a valid token).
    return user ?? simError(c, 404, 'not_found', 'No user found for this access token');
  };

  /**
   * The vehicle if the token's user may read it: 404 when unknown, 403 when another user's or no
   * longer in its user's account (taken out of their list).
   */
  const owned = (c: C, v: SimVehicle | undefined, unknown: string, ref: string): SimVehicle | Response => {
    if (!v) return simError(c, 404, 'not_found', unknown);
    const userId = c.get('userId');
    const listed = userId === undefined || world.user(userId)?.vehicleIds.includes(v.id) === true;
    if (userId !== undefined && (v.userId !== userId || !listed)) {
      return simError(c, 403, 'forbidden', `The user has no access to vehicle '${ref}'`);
    }
    return v;
  };

  const ownVehicle = (c: C, id: string): SimVehicle | Response =>
    owned(c, world.vehicle(id), `No vehicle with id '${id}'`, id);

  /** By VIN (the services lookups), with the same access rule. */
  const vehicleByVin = (c: C, vin: string): SimVehicle | Response =>
    owned(c, world.vehicleByVin(vin), `No vehicle with VIN '${vin}'`, vin);

  const ownTrip = (c: C, id: string): SimTrip | Response => {
    const t = world.trip(id);
    if (!t) return simError(c, 404, 'not_found', `No trip with id '${id}'`);
    const v = world.vehicle(t.vehicleId);
    if (!v || v.userId !== c.get('userId')) {
      return simError(c, 403, 'forbidden', `The user has no access to trip '${id}'`);
    }
    return t;
  };

  /** A HAL list: `_links` self/first/next/prev/last, `total`, `_embedded.<plural>`. */
  const list = (
    c: C,
    plural: string,
    total: number,
    items: readonly Json[],
    page: Page,
    what: string,
  ): Response => {
    if (total === 0 && c.get('chaos').notFoundForEmptyList) {
      // The API's error table lists 404 for "no such items" (the sample shows 200 with total 0, our default).
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

  /** A HAL list of records: query checked, newest first, filtered by since/until, paged, rendered. */
  const recordList = <T extends { createdAt: number }>(
    c: C,
    plural: string,
    what: string,
    all: readonly T[],
    render: (ctx: RenderCtx, record: T) => Json | undefined,
    withLocale = false,
  ): Response => {
    const p = listParams(c, withLocale);
    if (isResponse(p)) return p;
    const ctx = ctxOf(c, p.locale);
    const { total, items } = pageOf(all, p.range, p.page);
    const rendered = items.map((x) => render(ctx, x)).filter((x): x is Json => x !== undefined);
    return list(c, plural, total, rendered, p.page, what);
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

  return {
    ctxOf,
    currentUser,
    ownVehicle,
    ownTrip,
    list,
    pageOf,
    listParams,
    typeFilter,
    telemetryList,
    ceilSec,
    floorSec,
    recordList,
    vehicleByVin,
  };
}

export type V2Kit = ReturnType<typeof v2Kit>;
