import type { Context } from 'hono';
import { invalidParam, simError } from '../http/errors';
import type { SimTrip } from '../world/types';
import type { Outcome, WorldError } from '../world/world';

/*
 * What the control routes share: JSON bodies read and checked field by field (a 400 names the
 * field), records written back with ISO dates, and world outcomes mapped to statuses.
 */

export type Json = Record<string, unknown>;

const TIME_KEYS = new Set([
  'createdAt',
  'updatedAt',
  'endedAt',
  'startedAt',
  'stoppedAt',
  'at',
  'releasedAt',
  'positionAt',
]);

/** Records as JSON, epoch-ms times as ISO strings. */
export function recordJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(recordJson);
  if (value && typeof value === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = TIME_KEYS.has(k) && typeof v === 'number' ? new Date(v).toISOString() : recordJson(v);
    }
    return out;
  }
  return value;
}

export function tripJson(t: SimTrip): unknown {
  return recordJson({
    id: t.id,
    v1Id: t.v1Id,
    vehicleId: t.vehicleId,
    startedAt: t.startedAt,
    stoppedAt: t.stoppedAt,
    durationS: t.durationS,
    distanceKm: t.distanceKm,
    fuelConsumptionL: t.fuelConsumptionL,
    avgConsumptionL100: t.avgConsumptionL100,
    avgSpeedKmh: t.avgSpeedKmh,
    co2Kg: t.co2Kg,
    refueling: t.refueling,
    reference: t.reference,
    startPosition: t.startPosition,
    stopPosition: t.stopPosition,
    waypoints: t.waypoints.length,
    ecodriving: t.ecodriving,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  });
}

export class BodyError {
  readonly kind = 'BadBody';
  constructor(
    readonly field: string,
    readonly message: string,
  ) {}
}

/** A JSON object body; an empty body is `{}`. */
export async function readBody(c: Context): Promise<Json | BodyError> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return new BodyError('body', 'is not valid JSON');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    return new BodyError('body', 'must be a JSON object');
  return parsed as Json;
}

export type Check<T> = T | BodyError;

export function optNumber(
  body: Json,
  field: string,
  opts: { integer?: boolean; min?: number; max?: number } = {},
): Check<number | undefined> {
  const v = body[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) return new BodyError(field, 'must be a number');
  if (opts.integer && !Number.isInteger(v)) return new BodyError(field, 'must be an integer');
  if (opts.min !== undefined && v < opts.min) return new BodyError(field, `must be >= ${opts.min}`);
  if (opts.max !== undefined && v > opts.max) return new BodyError(field, `must be <= ${opts.max}`);
  return v;
}

export function optBoolean(body: Json, field: string): Check<boolean | undefined> {
  const v = body[field];
  if (v === undefined) return undefined;
  return typeof v === 'boolean' ? v : new BodyError(field, 'must be a boolean');
}

export function optString(body: Json, field: string): Check<string | undefined> {
  const v = body[field];
  if (v === undefined) return undefined;
  return typeof v === 'string' && v.length > 0 ? v : new BodyError(field, 'must be a non-empty string');
}

export function optEnum<T extends string>(
  body: Json,
  field: string,
  values: readonly T[],
): Check<T | undefined> {
  const v = body[field];
  if (v === undefined) return undefined;
  return typeof v === 'string' && (values as readonly string[]).includes(v)
    ? (v as T)
    : new BodyError(field, `must be one of ${values.join(', ')}`);
}

/** Reads and validates a body, answering 400 naming the field when anything is wrong. */
export const withBody = async <T>(
  c: Context,
  parse: (b: Json) => Check<T>,
  run: (v: T) => Response | Promise<Response>,
): Promise<Response> => {
  const body = await readBody(c);
  if (body instanceof BodyError) return invalidParam(c, body.field, body.message);
  const v = parse(body);
  if (v instanceof BodyError) return invalidParam(c, v.field, v.message);
  return run(v);
};

export const fromOutcome = <T>(
  c: Context,
  o: Outcome<T>,
  render: (v: T) => unknown,
  status: 200 | 201 = 200,
): Response => {
  if (o.ok) return c.json(render(o.value) as Json, status);
  return worldError(c, o.error);
};

export function worldError(c: Context, e: WorldError): Response {
  if (e.kind === 'NotFound') return simError(c, 404, 'not_found', `No ${e.what} '${e.id}'`);
  if (e.kind === 'Invalid') return invalidParam(c, e.field, e.message);
  return simError(c, 409, 'conflict', e.message);
}
