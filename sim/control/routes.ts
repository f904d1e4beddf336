import { type Context, Hono } from 'hono';
import { parseChaosConfig } from '../http/chaos';
import type { SimServices } from '../http/context';
import { invalidParam, simError } from '../http/errors';
import { parseDate } from '../v2/query';
import type { CollisionLevel, Severity, SimTrip } from '../world/types';
import type { Outcome, WorldError } from '../world/world';

type Json = Record<string, unknown>;

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

class BodyError {
  readonly kind = 'BadBody';
  constructor(
    readonly field: string,
    readonly message: string,
  ) {}
}

/** A JSON object body; an empty body is `{}`. */
async function readBody(c: Context): Promise<Json | BodyError> {
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

type Check<T> = T | BodyError;

function optNumber(
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

function optBoolean(body: Json, field: string): Check<boolean | undefined> {
  const v = body[field];
  if (v === undefined) return undefined;
  return typeof v === 'boolean' ? v : new BodyError(field, 'must be a boolean');
}

function optString(body: Json, field: string): Check<string | undefined> {
  const v = body[field];
  if (v === undefined) return undefined;
  return typeof v === 'string' && v.length > 0 ? v : new BodyError(field, 'must be a non-empty string');
}

function optEnum<T extends string>(body: Json, field: string, values: readonly T[]): Check<T | undefined> {
  const v = body[field];
  if (v === undefined) return undefined;
  return typeof v === 'string' && (values as readonly string[]).includes(v)
    ? (v as T)
    : new BodyError(field, `must be one of ${values.join(', ')}`);
}

const LEVELS: readonly CollisionLevel[] = ['none', 'fixable', 'low', 'medium', 'high'];
const SEVERITIES: readonly Severity[] = ['low', 'medium', 'high'];

/**
 * The control API (`/_sim`): JSON in and out, no authentication, never rate limited nor chaotic.
 * Creating calls answer 201 with the created records (ids included) so tests can correlate.
 */
export function createControlRoutes(svc: SimServices, hooks: { reset(): void }): Hono {
  const app = new Hono({ strict: false });
  const world = svc.world;

  /** Reads and validates a body, answering 400 naming the field when anything is wrong. */
  const withBody = async <T>(
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

  const fromOutcome = <T>(
    c: Context,
    o: Outcome<T>,
    render: (v: T) => unknown,
    status: 200 | 201 = 200,
  ): Response => {
    if (o.ok) return c.json(render(o.value) as Json, status);
    return worldError(c, o.error);
  };

  app.get('/world', (c) => c.json(world.snapshot() as Json));

  app.get('/clock', (c) => c.json({ now: new Date(world.now()).toISOString(), mode: world.clock.mode }));

  app.post('/clock/advance', (c) =>
    withBody(
      c,
      (b) => {
        const ms = optNumber(b, 'ms', { min: 0, max: 366 * 86_400_000 });
        if (ms instanceof BodyError) return ms;
        const seconds = optNumber(b, 'seconds', { min: 0, max: 366 * 86_400 });
        if (seconds instanceof BodyError) return seconds;
        if (ms === undefined && seconds === undefined) return new BodyError('ms', 'give ms or seconds');
        if (ms !== undefined && seconds !== undefined)
          return new BodyError('seconds', 'give ms or seconds, not both');
        return Math.round(ms ?? (seconds as number) * 1000);
      },
      (ms) => {
        world.advance(ms);
        return c.json({ now: new Date(world.now()).toISOString(), advancedMs: ms });
      },
    ),
  );

  app.post('/vehicles/:id/alerts', (c) =>
    withBody(
      c,
      (b) => {
        const code = optString(b, 'code');
        if (code instanceof BodyError) return code;
        const severity = optEnum(b, 'severity', SEVERITIES);
        if (severity instanceof BodyError) return severity;
        const tripId = optString(b, 'tripId');
        if (tripId instanceof BodyError) return tripId;
        return {
          ...(code ? { code } : {}),
          ...(severity ? { severity } : {}),
          ...(tripId ? { tripId } : {}),
        };
      },
      (req) => fromOutcome(c, world.raiseAlert(c.req.param('id'), req), recordJson, 201),
    ),
  );

  app.post('/vehicles/:id/alerts/:alertId/fix', (c) =>
    fromOutcome(c, world.fixAlert(c.req.param('id'), c.req.param('alertId')), recordJson),
  );

  app.post('/vehicles/:id/collisions', (c) =>
    withBody(
      c,
      (b) => {
        const out: Json = {};
        for (const side of ['front', 'rear', 'lateral'] as const) {
          const v = optEnum(b, side, LEVELS);
          if (v instanceof BodyError) return v;
          if (v) out[side] = v;
        }
        for (const flag of ['rollOver', 'pedestrian'] as const) {
          const v = optBoolean(b, flag);
          if (v instanceof BodyError) return v;
          if (v !== undefined) out[flag] = v;
        }
        const tripId = optString(b, 'tripId');
        if (tripId instanceof BodyError) return tripId;
        if (tripId) out.tripId = tripId;
        return out;
      },
      (req) => fromOutcome(c, world.addCollision(c.req.param('id'), req), recordJson, 201),
    ),
  );

  app.put('/vehicles/:id/maintenance', (c) =>
    withBody(
      c,
      (b) => {
        const days = optNumber(b, 'days', { integer: true, min: -100_000, max: 100_000 });
        if (days instanceof BodyError) return days;
        const mileage = optNumber(b, 'mileage', { integer: true, min: -10_000_000, max: 10_000_000 });
        if (mileage instanceof BodyError) return mileage;
        if (days === undefined) return new BodyError('days', 'is required (integer, negative = overdue)');
        if (mileage === undefined)
          return new BodyError('mileage', 'is required (integer km, negative = overdue)');
        return { days, mileage };
      },
      (m) => fromOutcome(c, world.setMaintenance(c.req.param('id'), m.days, m.mileage), recordJson),
    ),
  );

  app.post('/vehicles/:id/trips', (c) =>
    withBody(
      c,
      (b) => {
        const durationS = optNumber(b, 'durationS', { min: 60, max: 86_400 });
        if (durationS instanceof BodyError) return durationS;
        const distanceKm = optNumber(b, 'distanceKm', { min: 0.1, max: 2000 });
        if (distanceKm instanceof BodyError) return distanceKm;
        const ecoScore = optNumber(b, 'ecoScore', { min: 0, max: 100 });
        if (ecoScore instanceof BodyError) return ecoScore;
        const collision = optBoolean(b, 'collision');
        if (collision instanceof BodyError) return collision;
        const refueling = optBoolean(b, 'refueling');
        if (refueling instanceof BodyError) return refueling;
        let startedAt: number | undefined;
        if (b.startedAt !== undefined) {
          startedAt = typeof b.startedAt === 'string' ? parseDate(b.startedAt) : undefined;
          if (startedAt === undefined) return new BodyError('startedAt', 'must be an RFC 3339 date');
        }
        let alerts: string[] | undefined;
        if (b.alerts !== undefined) {
          if (!Array.isArray(b.alerts) || b.alerts.some((a) => typeof a !== 'string')) {
            return new BodyError('alerts', 'must be an array of alert codes');
          }
          alerts = b.alerts as string[];
        }
        return {
          ...(durationS !== undefined ? { durationS } : {}),
          ...(distanceKm !== undefined ? { distanceKm } : {}),
          ...(ecoScore !== undefined ? { ecoScore } : {}),
          ...(collision !== undefined ? { collision } : {}),
          ...(refueling !== undefined ? { refueling } : {}),
          ...(startedAt !== undefined ? { startedAt } : {}),
          ...(alerts ? { alerts } : {}),
        };
      },
      (req) =>
        fromOutcome(
          c,
          world.addTrip(c.req.param('id'), req),
          (r) => ({
            trip: tripJson(r.trip),
            alerts: recordJson(r.alerts),
            collisions: recordJson(r.collisions),
            events: recordJson(r.events),
          }),
          201,
        ),
    ),
  );

  app.post('/vehicles/:id/events', (c) =>
    withBody(
      c,
      (b) => {
        const type = optEnum(b, 'type', ['refuel', 'fuel_stolen'] as const);
        if (type instanceof BodyError) return type;
        if (!type) return new BodyError('type', "is required: 'refuel' or 'fuel_stolen'");
        const liters = optNumber(b, 'liters', { min: 0.1, max: 500 });
        if (liters instanceof BodyError) return liters;
        return { type, liters };
      },
      (req) => fromOutcome(c, world.addFuelEvent(c.req.param('id'), req.type, req.liters), recordJson, 201),
    ),
  );

  app.put('/vehicles/:id/services', (c) =>
    withBody(
      c,
      (b) => {
        // `{ "services": [{ "code": "ECALL", "eligible": false }] }` or `{ "ECALL": false, … }`.
        const updates: { code: string; eligible: boolean }[] = [];
        if (b.services !== undefined) {
          if (!Array.isArray(b.services))
            return new BodyError('services', 'must be an array of {code, eligible}');
          for (const [i, s] of b.services.entries()) {
            if (
              !s ||
              typeof s !== 'object' ||
              typeof s.code !== 'string' ||
              typeof s.eligible !== 'boolean'
            ) {
              return new BodyError(`services[${i}]`, 'must be {code: string, eligible: boolean}');
            }
            updates.push({ code: s.code, eligible: s.eligible });
          }
        } else {
          for (const [code, eligible] of Object.entries(b)) {
            if (typeof eligible !== 'boolean') return new BodyError(code, 'must be a boolean');
            updates.push({ code, eligible });
          }
        }
        if (updates.length === 0) return new BodyError('services', 'give at least one service');
        return updates;
      },
      (updates) => fromOutcome(c, world.setServices(c.req.param('id'), updates), (s) => s),
    ),
  );

  app.post('/map/:vin/release', (c) =>
    withBody(
      c,
      (b) => optString(b, 'version'),
      (version) => fromOutcome(c, world.releaseMap(c.req.param('vin'), version), recordJson),
    ),
  );

  // The user removes a vehicle from their account (GET /vehicles no longer lists it), or adds it back.
  app.delete('/users/:id/vehicles/:vehicleId', (c) =>
    fromOutcome(c, world.setVehicleListed(c.req.param('id'), c.req.param('vehicleId'), false), recordJson),
  );
  app.put('/users/:id/vehicles/:vehicleId', (c) =>
    fromOutcome(c, world.setVehicleListed(c.req.param('id'), c.req.param('vehicleId'), true), recordJson),
  );

  app.post('/users/:id/revoke', (c) => fromOutcome(c, world.revokeUser(c.req.param('id')), recordJson));

  /** Shortcut for scripts and tests: tokens for a user without the browser step. */
  app.post('/users/:id/tokens', (c) =>
    withBody(
      c,
      (b) => optString(b, 'clientId'),
      (clientId) => {
        const user = world.user(c.req.param('id'));
        if (!user) return simError(c, 404, 'not_found', `No user with id '${c.req.param('id')}'`);
        const client = svc.clients.get(clientId ?? 'carhook-sim') ?? svc.clients.all()[0];
        if (!client || (clientId !== undefined && client.clientId !== clientId)) {
          return invalidParam(c, 'clientId', `unknown client '${clientId}'`);
        }
        return c.json(
          svc.tokens.issueFor(client.clientId, user.id, client.accessTokenTtlSeconds ?? svc.accessTtlSeconds),
          201,
        );
      },
    ),
  );

  app.put('/clients/:clientId/quota', (c) =>
    withBody(
      c,
      (b) => {
        const limit = optNumber(b, 'limit', { integer: true, min: 1, max: 1_000_000 });
        if (limit instanceof BodyError) return limit;
        if (limit === undefined) return new BodyError('limit', 'is required (requests per window)');
        const windowSeconds = optNumber(b, 'windowSeconds', { integer: true, min: 1, max: 86_400 });
        if (windowSeconds instanceof BodyError) return windowSeconds;
        return { limit, windowSeconds };
      },
      (q) => {
        const clientId = c.req.param('clientId');
        if (!svc.clients.get(clientId)) return simError(c, 404, 'not_found', `No client '${clientId}'`);
        const quota = {
          limit: q.limit,
          windowSeconds: q.windowSeconds ?? svc.limiter.quotaOf(clientId).windowSeconds,
        };
        svc.limiter.setQuota(clientId, quota);
        return c.json({ clientId, ...quota });
      },
    ),
  );

  app.get('/chaos', (c) => {
    const { rates, slowMs, seed } = svc.chaos.config;
    return c.json({ ...rates, slowMs, ...(seed !== undefined ? { seed } : {}) });
  });

  app.put('/chaos', async (c) => {
    const body = await readBody(c);
    if (body instanceof BodyError) return invalidParam(c, body.field, body.message);
    const parsed = parseChaosConfig(body);
    if (!parsed.ok) return invalidParam(c, parsed.field, parsed.message);
    svc.chaos.configure(parsed.value);
    const { rates, slowMs, seed } = parsed.value;
    return c.json({ ...rates, slowMs, ...(seed !== undefined ? { seed } : {}) });
  });

  app.get('/stats', (c) => {
    const s = svc.stats;
    const clients: Json = {};
    for (const client of svc.clients.all()) {
      const quota = svc.limiter.quotaOf(client.clientId);
      clients[client.clientId] = {
        requests: s.byClient.get(client.clientId) ?? 0,
        tooManyRequests: s.tooManyByClient.get(client.clientId) ?? 0,
        maxInWindow: svc.limiter.maxInWindow(client.clientId),
        limit: quota.limit,
        windowSeconds: quota.windowSeconds,
      };
    }
    return c.json({
      total: s.total,
      tooManyRequests: s.tooManyRequests,
      byOperation: Object.fromEntries(s.byOperation),
      byClient: Object.fromEntries(s.byClient),
      byStatus: Object.fromEntries(s.byStatus),
      byUser: Object.fromEntries(s.byUser),
      clients,
    });
  });

  app.post('/stats/reset', (c) => {
    svc.stats.clear();
    return c.json({ reset: true });
  });

  app.post('/reset', (c) => {
    hooks.reset();
    return c.json({ reset: true, now: new Date(world.now()).toISOString() });
  });

  app.notFound((c) =>
    simError(c, 404, 'not_found', `No control operation ${c.req.method} ${new URL(c.req.url).pathname}`),
  );

  return app;
}

function worldError(c: Context, e: WorldError): Response {
  if (e.kind === 'NotFound') return simError(c, 404, 'not_found', `No ${e.what} '${e.id}'`);
  if (e.kind === 'Invalid') return invalidParam(c, e.field, e.message);
  return simError(c, 409, 'conflict', e.message);
}
