/**
 * Parameter checks shared by the API areas: each returns an `InvalidRequestError` naming the
 * operation and the field, or `undefined`, so a bad parameter fails before any request is sent.
 */
import { type InvalidRequestError, invalidRequest } from './errors';
import type { QueryValue } from './transport';

export const V2 = '/connectedcar/v2';
export const V1 = '/connectedcar/v1/dev';
export const MAP = '/applications/map/v1';
export const HAL = 'application/hal+json';
export const JSON_TYPE = 'application/json';
export const seg = encodeURIComponent;

export type Check = InvalidRequestError | undefined;

export interface PageParams {
  readonly limit?: number;
  /** Zero-based: the first item is at offset 0. */
  readonly offset?: number;
}

export interface DateRange {
  /** Items created after this instant. */
  readonly since?: Date;
  /** Items created before this instant. */
  readonly until?: Date;
}

export function firstError(...checks: Check[]): Check {
  return checks.find((c) => c !== undefined);
}

export function checkId(op: string, field: string, id: unknown): Check {
  return typeof id === 'string' && id.length > 0 && id.length <= 256
    ? undefined
    : invalidRequest(op, field, 'must be a non-empty string of at most 256 characters');
}

function checkDate(op: string, field: string, d: unknown): Check {
  if (d === undefined) return undefined;
  return d instanceof Date && !Number.isNaN(d.getTime())
    ? undefined
    : invalidRequest(op, field, 'must be a valid Date');
}

export function checkRange(op: string, r: DateRange): Check {
  return (
    checkDate(op, 'since', r.since) ??
    checkDate(op, 'until', r.until) ??
    (r.since && r.until && r.since.getTime() > r.until.getTime()
      ? invalidRequest(op, 'until', 'must not be before since')
      : undefined)
  );
}

export function checkPage(op: string, p: PageParams): Check {
  if (p.limit !== undefined && !(Number.isInteger(p.limit) && p.limit > 0)) {
    return invalidRequest(op, 'limit', 'must be a positive integer');
  }
  if (p.offset !== undefined && !(Number.isInteger(p.offset) && p.offset >= 0)) {
    return invalidRequest(op, 'offset', 'must be a non-negative integer');
  }
  return undefined;
}

/** The v2 telemetry filter: property paths in dot notation, e.g. `vehicle.fuel.level`. */
export function checkTypes(op: string, types: unknown): Check {
  if (types === undefined) return undefined;
  return Array.isArray(types) &&
    types.length > 0 &&
    types.every((t) => typeof t === 'string' && /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$/.test(t))
    ? undefined
    : invalidRequest(op, 'type', 'must be a non-empty array of property paths in dot notation');
}

/** The v2 `locale` query parameter: `fr` or `en` (the API's default is `en`). */
export function checkLocaleV2(op: string, p: { locale?: string }): Check {
  return p.locale === undefined || p.locale === 'fr' || p.locale === 'en'
    ? undefined
    : invalidRequest(op, 'locale', "must be 'fr' or 'en'");
}

export function rangeQuery(r: DateRange & PageParams): Record<string, QueryValue> {
  return {
    since: r.since?.toISOString(),
    until: r.until?.toISOString(),
    limit: r.limit,
    offset: r.offset,
  };
}
