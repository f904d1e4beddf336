/**
 * How a v1 call is checked and sent. Every v1 request authenticates with the `client_id` in the
 * query; a per-vehicle read is a GET with the VIN in the path and `contract` in the query, a fleet
 * read is a POST of `{listvin, listcontract}` with the other parameters in the query. Parameters
 * are checked in order and the first error is returned before anything is sent.
 */
import type * as z from 'zod';
import { JSON_TYPE, V1 } from '../checks';
import type { ApiContext } from '../context';
import { type InvalidRequestError, invalidRequest, type Result } from '../errors';
import type { CallOptions, QueryValue } from '../transport';
import {
  bulkBody,
  checkBrand,
  checkContract,
  checkLocale,
  checkVin,
  listSecond,
  positiveInt,
  unitCode,
  type V1Brand,
  type V1Target,
} from './params';

export interface V1VehicleParams {
  readonly vin: string;
  readonly contract: string;
}
export interface V1LocaleBrandParams {
  readonly locale: string;
  readonly brand: V1Brand;
}
export interface V1SecondsParams {
  /** Seconds 1..60 of the series to return, sent as `listsecond`. */
  readonly seconds: readonly number[];
}

type Query = Record<string, QueryValue>;
/** A checked query value, or the error that stopped it. */
export type Checked<T> = { value: T } | InvalidRequestError;
/** Query fields by name: checked values, errors, or absent. */
export type Parts = Record<string, Checked<string> | InvalidRequestError | undefined>;

const isError = <T>(c: Checked<T>): c is InvalidRequestError => 'kind' in c;

/** Validates in order and returns the first error, or the collected formatted values. */
export function gather(parts: Parts): { query: Query } | InvalidRequestError {
  const query: Query = {};
  for (const [key, part] of Object.entries(parts)) {
    if (part === undefined) continue;
    if ('kind' in part) return part;
    query[key] = part.value;
  }
  return { query };
}

export const checkVehicle = (op: string, p: V1VehicleParams) =>
  checkVin(op, p?.vin) ?? checkContract(op, p?.contract);
export const checkTripId = (op: string, id: unknown) => positiveInt(op, 'tripId', id);

export function checkPrice(op: string, price: unknown): InvalidRequestError | undefined {
  return typeof price === 'number' && Number.isFinite(price) && price > 0 && price < 1_000_000
    ? undefined
    : invalidRequest(op, 'price', 'must be a number greater than 0 and below 1000000');
}

/** A decimal with a dot and at most 6 decimals, never an exponent (`1e-7`). */
export function formatPrice(price: number): string {
  return price.toFixed(6).replace(/\.?0+$/, '');
}

export function secondsOf(op: string, seconds: unknown, required: true): Checked<string>;
export function secondsOf(op: string, seconds: unknown, required: false): Checked<string> | undefined;
export function secondsOf(op: string, seconds: unknown, required: boolean): Checked<string> | undefined {
  if (seconds === undefined && !required) return undefined;
  return listSecond(op, seconds);
}

const str = (v: string | undefined): Checked<string> | undefined =>
  v === undefined ? undefined : { value: v };

/** `locale` and `brand`; when not `required`, each is checked only if given. */
export function localeBrand(op: string, p: Partial<V1LocaleBrandParams>, required = true): Parts {
  return {
    locale: (required || p.locale !== undefined ? checkLocale(op, p.locale) : undefined) ?? str(p.locale),
    brand: (required || p.brand !== undefined ? checkBrand(op, p.brand) : undefined) ?? str(p.brand),
  };
}

export function unitPart(op: string, unit: unknown): Checked<string> {
  const u = unitCode(op, unit);
  return 'kind' in u ? u : { value: u.code };
}

export function limitPart(op: string, limit: unknown): Checked<string> | InvalidRequestError | undefined {
  return limit === undefined ? undefined : (positiveInt(op, 'limit', limit) ?? { value: String(limit) });
}

/** A boolean flag sent as `1` / `0`. */
export const flag = (v: boolean | undefined): Checked<string> | undefined =>
  v === undefined ? undefined : { value: v ? '1' : '0' };

export function boolRequired(op: string, field: string, v: unknown): Checked<string> {
  return typeof v === 'boolean' ? { value: v ? '1' : '0' } : invalidRequest(op, field, 'must be a boolean');
}

export interface V1Sender {
  /** A request under the v1 base path, authenticated by `client_id`. */
  send<T>(
    op: string,
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    query: Query,
    schema: z.ZodType<T>,
    call: CallOptions | undefined,
    json?: unknown,
  ): Promise<Result<T>>;
  /** A fleet read: POST of the targets, the other parameters in the query. */
  bulk<T>(
    op: string,
    path: string,
    targets: readonly V1Target[],
    parts: Parts,
    schema: z.ZodType<T>,
    call?: CallOptions,
  ): Promise<Result<T>>;
  /** A per-vehicle read: a GET with `contract` in the query. */
  get<T>(
    op: string,
    path: (p: V1VehicleParams) => string,
    p: V1VehicleParams,
    parts: Parts,
    schema: z.ZodType<T>,
    call?: CallOptions,
  ): Promise<Result<T>>;
  /** Runs `run` only when every check passed. */
  withChecks<T>(
    checks: (InvalidRequestError | undefined)[],
    run: () => Promise<Result<T>>,
  ): Promise<Result<T>>;
}

export function v1Sender(ctx: ApiContext): V1Sender {
  const send: V1Sender['send'] = (op, method, path, query, schema, call, json) =>
    ctx.request(
      {
        operation: op,
        method,
        path: `${V1}${path}`,
        query,
        accept: JSON_TYPE,
        auth: 'client_id',
        ...(json !== undefined ? { json } : {}),
      },
      schema,
      call,
    );
  return {
    send,
    bulk(op, path, targets, parts, schema, call) {
      const body = bulkBody(op, targets);
      if (isError(body)) return ctx.invalid(body);
      const g = gather(parts);
      if ('kind' in g) return ctx.invalid(g);
      return send(op, 'POST', path, g.query, schema, call, body.value);
    },
    get(op, path, p, parts, schema, call) {
      const bad = checkVehicle(op, p);
      if (bad) return ctx.invalid(bad);
      const g = gather(parts);
      if ('kind' in g) return ctx.invalid(g);
      return send(op, 'GET', path(p), { contract: p.contract, ...g.query }, schema, call);
    },
    withChecks(checks, run) {
      const bad = checks.find((c) => c !== undefined);
      return bad ? ctx.invalid(bad) : run();
    },
  };
}
