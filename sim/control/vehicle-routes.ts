import type { Hono } from 'hono';
import { parseDate } from '../v2/query';
import type { CollisionLevel, Severity } from '../world/types';
import type { World } from '../world/world';
import {
  BodyError,
  fromOutcome,
  type Json,
  optBoolean,
  optEnum,
  optNumber,
  optString,
  recordJson,
  tripJson,
  withBody,
} from './body';

const LEVELS: readonly CollisionLevel[] = ['none', 'fixable', 'low', 'medium', 'high'];
const SEVERITIES: readonly Severity[] = ['low', 'medium', 'high'];

/** Control calls that change one vehicle's records (alerts, collisions, maintenance, trips, fuel, services, map). */
export function vehicleControlRoutes(app: Hono, world: World): void {
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
        return { code, severity, tripId };
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
        return { durationS, distanceKm, ecoScore, collision, refueling, startedAt, alerts };
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
}
