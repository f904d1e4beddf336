/**
 * Lenient wire schemas of the v2 area, each transforming into the normalized model (model.ts).
 * Leniency is deliberate and bounded: the drift the API's samples show is absorbed (two date forms,
 * two alert item shapes, upper-case levels, numbers as strings, decimal distances), extra fields are
 * tolerated, unknown enum values are kept; anything else that does not fit (a missing id, a list
 * without its array) is a schema mismatch that the client reports as `Malformed`.
 */
import * as z from 'zod';
import type {
  Alert,
  Collision,
  EcoDriving,
  EcoScore,
  Maintenance,
  Telemetry,
  Trip,
  User,
  Vehicle,
  VehicleEvent,
} from '../model';
import {
  defined,
  idFromHref,
  wBoolean,
  wCompactDate,
  wDate,
  wId,
  wLink,
  wLowerEnum,
  wNumber,
  wOptNumber,
  wOptPosition,
} from './common';

// ---- User and vehicle ----

export const wVehicle = z
  .looseObject({
    id: wId,
    vin: z.string(),
    brand: z.string().optional().catch(undefined),
    model: z.string().optional().catch(undefined),
    subModel: z.string().optional().catch(undefined),
    engine: z.string().optional().catch(undefined),
    gearbox: z.string().optional().catch(undefined),
    energy: z.string().optional().catch(undefined),
    createdAt: wDate,
    updatedAt: wDate,
  })
  .transform(
    (v): Vehicle =>
      defined({
        id: v.id,
        vin: v.vin,
        brand: v.brand,
        model: v.model,
        subModel: v.subModel,
        engine: v.engine,
        gearbox: v.gearbox,
        energy: v.energy,
        createdAt: v.createdAt,
        updatedAt: v.updatedAt,
      }),
  );

export const wUser = z
  .looseObject({
    id: wId,
    email: z.string().optional().catch(undefined),
    firstName: z.string().optional().catch(undefined),
    lastName: z.string().optional().catch(undefined),
    createdAt: wDate,
    updatedAt: wDate,
    _embedded: z.looseObject({ vehicles: z.array(wVehicle).optional() }).optional(),
  })
  .transform(
    (u): User =>
      defined({
        id: u.id,
        email: u.email,
        firstName: u.firstName,
        lastName: u.lastName,
        createdAt: u.createdAt,
        updatedAt: u.updatedAt,
        vehicles: u._embedded?.vehicles,
      }),
  );

// ---- Alert: both documented shapes map to the same Alert ----

const wAlertDeclared = z.looseObject({
  id: wId,
  active: wBoolean,
  message: z.string(),
  severity: wLowerEnum.optional().catch(undefined),
  createdAt: wDate,
  updatedAt: wDate,
  advice: z.string().optional().catch(undefined),
  category: z.string().optional().catch(undefined),
  _embedded: z.looseObject({ position: wOptPosition }).optional().catch(undefined),
  // The documented alert sample writes `__embedded.position` (two underscores): accept that spelling too.
  __embedded: z.looseObject({ position: wOptPosition }).optional().catch(undefined),
});

const wAlertItem = z.looseObject({
  idAlert: wId,
  alert: z.string(),
  advise: z.string().optional().catch(undefined),
  category: z.string().optional().catch(undefined),
  alertState: wNumber.optional().catch(undefined),
  active: wBoolean.optional().catch(undefined),
  severity: wLowerEnum.optional().catch(undefined),
  dateAlertBegin: wCompactDate,
  dateAlertEnd: wCompactDate,
  dateUpdate: wCompactDate,
  createdAt: wDate,
  updatedAt: wDate,
});

type WireAlertItem = z.output<typeof wAlertItem>;
type WireAlertDeclared = z.output<typeof wAlertDeclared>;
const isAlertItem = (a: WireAlertItem | WireAlertDeclared): a is WireAlertItem =>
  (a as { idAlert?: unknown }).idAlert !== undefined && (a as { id?: unknown }).id === undefined;

export const wAlert = z.union([wAlertDeclared, wAlertItem]).transform((input): Alert => {
  if (isAlertItem(input)) {
    const a = input;
    // The list item shape: alertState 1 = active (as v1's `active`); without it,
    // an end date means the alert was fixed.
    const active =
      a.alertState !== undefined ? a.alertState === 1 : (a.active ?? a.dateAlertEnd === undefined);
    return defined({
      id: a.idAlert,
      active,
      message: a.alert,
      severity: a.severity,
      advice: a.advise,
      category: a.category,
      startedAt: a.dateAlertBegin ?? a.createdAt,
      endedAt: active ? undefined : a.dateAlertEnd,
      createdAt: a.createdAt ?? a.dateAlertBegin,
      updatedAt: a.updatedAt ?? a.dateUpdate,
    });
  }
  const a = input as WireAlertDeclared;
  return defined({
    id: a.id,
    active: a.active,
    message: a.message,
    severity: a.severity,
    advice: a.advice,
    category: a.category,
    position: a._embedded?.position ?? a.__embedded?.position,
    startedAt: a.createdAt,
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  });
});

// ---- Collision ----

/** `front.level` per the table, or a bare level string as in the single-collision record. */
const wLevel = z.union([wLowerEnum, z.looseObject({ level: wLowerEnum }).transform((o) => o.level)]);

export const wCollision = z
  .looseObject({
    id: wId,
    rollOver: wBoolean.optional().catch(undefined),
    pedestrian: wBoolean.optional().catch(undefined),
    front: wLevel.optional().catch(undefined),
    rear: wLevel.optional().catch(undefined),
    lateral: wLevel.optional().catch(undefined),
    createdAt: wDate,
    updatedAt: wDate,
    _links: z.looseObject({ trip: wLink }).optional().catch(undefined),
    _embedded: z.looseObject({ position: wOptPosition }).optional().catch(undefined),
  })
  .transform(
    (c): Collision =>
      defined({
        id: c.id,
        rollOver: c.rollOver ?? false,
        pedestrian: c.pedestrian ?? false,
        front: c.front ?? 'none',
        rear: c.rear ?? 'none',
        lateral: c.lateral ?? 'none',
        tripId: idFromHref(c._links?.trip),
        position: c._embedded?.position,
        createdAt: c.createdAt,
        updatedAt: c.updatedAt,
      }),
  );

// ---- Maintenance ----

export const wMaintenance = z
  .looseObject({
    vin: z.string().optional().catch(undefined),
    days: wNumber,
    mileage: wNumber,
    createdAt: wDate,
    updatedAt: wDate,
  })
  .transform(
    (m): Maintenance =>
      defined({
        vin: m.vin,
        days: m.days,
        mileage: m.mileage,
        createdAt: m.createdAt,
        updatedAt: m.updatedAt,
      }),
  );

// ---- Trip ----

export const wTrip = z
  .looseObject({
    id: wId,
    reference: wBoolean.optional().catch(undefined),
    startedAt: wDate,
    stoppedAt: wDate,
    duration: wOptNumber,
    distance: wOptNumber,
    fuelConsumption: wOptNumber,
    refueling: wBoolean.optional().catch(undefined),
    avgConsumption: wOptNumber,
    avgSpeed: wOptNumber,
    co2EmissionEstimated: wOptNumber,
    createdAt: wDate,
    updatedAt: wDate,
    _embedded: z
      .looseObject({ startPosition: wOptPosition, stopPosition: wOptPosition })
      .optional()
      .catch(undefined),
  })
  .transform(
    (t): Trip =>
      defined({
        id: t.id,
        reference: t.reference,
        startedAt: t.startedAt,
        stoppedAt: t.stoppedAt,
        durationS: t.duration,
        distanceKm: t.distance,
        fuelConsumptionL: t.fuelConsumption,
        refueling: t.refueling,
        avgConsumptionL100: t.avgConsumption,
        avgSpeedKmh: t.avgSpeed,
        co2Estimated: t.co2EmissionEstimated,
        startPosition: t._embedded?.startPosition,
        stopPosition: t._embedded?.stopPosition,
        createdAt: t.createdAt,
        updatedAt: t.updatedAt,
      }),
  );

// ---- Event ----

export const wEvent = z
  .looseObject({
    id: wId,
    type: z.string().transform((s) => s.toUpperCase()),
    eventId: wId.optional().catch(undefined),
    createdAt: wDate,
    updatedAt: wDate,
    _links: z.looseObject({ self: wLink }).optional().catch(undefined),
    _embedded: z.record(z.string(), z.unknown()).optional().catch(undefined),
  })
  .transform((e): VehicleEvent => {
    // An event's `_embedded` is the underlying record, either directly or under a key named after it.
    const embedded = e._embedded ?? {};
    const keyed = (name: string): unknown => embedded[name];
    const direct = Object.keys(embedded).length > 0 && 'id' in embedded ? embedded : undefined;
    const parseOpt = <T>(schema: z.ZodType<T>, value: unknown): T | undefined => {
      if (value === undefined) return undefined;
      const r = schema.safeParse(value);
      return r.success ? r.data : undefined;
    };
    const type = e.type;
    const recordValue =
      type === 'ALERT'
        ? (keyed('alert') ?? direct)
        : type === 'COLLISION'
          ? (keyed('collision') ?? direct)
          : type === 'TRIP'
            ? (keyed('trip') ?? direct)
            : undefined;
    const alert = type === 'ALERT' ? parseOpt(wAlert, recordValue) : undefined;
    const collision = type === 'COLLISION' ? parseOpt(wCollision, recordValue) : undefined;
    const trip = type === 'TRIP' ? parseOpt(wTrip, recordValue) : undefined;
    const first = Object.values(embedded)[0];
    const raw =
      direct ??
      (first && typeof first === 'object' && !Array.isArray(first) ? first : undefined) ??
      undefined;
    return defined({
      id: e.id,
      type,
      eventId: e.eventId ?? alert?.id ?? collision?.id ?? trip?.id ?? idFromHref(e._links?.self) ?? e.id,
      createdAt: e.createdAt,
      updatedAt: e.updatedAt,
      alert,
      collision,
      trip,
      record: alert || collision || trip ? undefined : (raw as Record<string, unknown> | undefined),
    });
  });

// ---- Telemetry ----

export const wTelemetry = z
  .looseObject({ id: wId, createdAt: wDate, updatedAt: wDate })
  .transform((t): Telemetry => {
    const { id, createdAt, updatedAt: _u, _links: _l, ...properties } = t as Record<string, unknown>;
    return defined({ id: id as string, createdAt: createdAt as string | undefined, properties });
  });

// ---- Eco-driving ----

const wEcoScore = z
  .looseObject({
    score: wNumber,
    evaluation: z.string().optional().catch(undefined),
    advice: z.string().optional().catch(undefined),
    category: z.string().optional().catch(undefined),
    label: z.string().optional().catch(undefined),
  })
  .transform(
    (s): EcoScore =>
      defined({
        score: s.score,
        evaluation: s.evaluation,
        advice: s.advice,
        category: s.category,
        label: s.label,
      }),
  );

export const wEcoDriving = z
  .looseObject({
    id: wId.optional().catch(undefined),
    global: z.record(z.string(), wEcoScore),
    detailed: z.record(z.string(), wEcoScore),
    _links: z.looseObject({ trip: wLink }).optional().catch(undefined),
  })
  .transform(
    (e): EcoDriving =>
      defined({ id: e.id, tripId: idFromHref(e._links?.trip), global: e.global, detailed: e.detailed }),
  );

// ---- Waypoints (fields not shown) ----

/** A waypoint, kept raw: the spec does not show its fields (2.11). */
export type Waypoint = Readonly<Record<string, unknown>>;
export const wWaypoint = z.record(z.string(), z.unknown()).transform((w): Waypoint => w);
