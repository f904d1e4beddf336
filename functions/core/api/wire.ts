/**
 * Lenient wire schemas of the v2, services and map areas, each transforming into the normalized
 * model (model.ts). Leniency is deliberate and bounded: what the spec and its samples show drifting
 * is absorbed (spec 2.1 date forms, 2.4 alert item shape, 2.5 upper-case levels, 2.9 numbers as
 * strings and decimal distances), extra fields are tolerated, unknown enum values are kept;
 * anything else that does not fit (a missing id, a list without its array) is a schema mismatch
 * that the client reports as `Malformed`.
 */
import * as z from 'zod';
import type {
  Alert,
  Collision,
  EcoDriving,
  EcoScore,
  Maintenance,
  MapUpdateInfo,
  Position,
  ServiceEligibility,
  Telemetry,
  Trip,
  User,
  Vehicle,
  VehicleEvent,
} from './model';

// ---- Primitives ----

/** Epoch ms of 0000-01-01 and 9999-12-31T23:59:59.999Z: the dates `IsoDate` can spell (model.ts). */
const MIN_ISO_MS = Date.parse('0000-01-01T00:00:00.000Z');
const MAX_ISO_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * An `IsoDate` for epoch ms, or undefined outside years 0000-9999: `toISOString` throws beyond
 * ±8.64e15 ms and writes `+275760-…` for far years, which no longer compares as a string.
 */
export function isoFromMs(ms: number): string | undefined {
  return Number.isFinite(ms) && ms >= MIN_ISO_MS && ms <= MAX_ISO_MS ? new Date(ms).toISOString() : undefined;
}

/** Parses both date forms of spec 2.1 (`+0000` and `Z`), ISO with colon offsets, and epoch ms. */
export function toIsoDate(value: unknown): string | undefined {
  if (typeof value === 'number') return isoFromMs(value);
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const text = value.trim().replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  return isoFromMs(Date.parse(text));
}

/** An optional date: a value that is not a date becomes `undefined` rather than failing the record. */
export const wDate = z
  .unknown()
  .optional()
  .transform((v) => toIsoDate(v));

/**
 * spec 2.9: numbers arrive as numeric strings (`duration: "1234"`). A string beyond the double
 * range (`"1e999"`) is refused like a JSON `1e999`: Infinity would become `null` once stored.
 */
export const wNumber = z.union([
  z.number(),
  z
    .string()
    .trim()
    .regex(/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/, 'expected a number or a numeric string')
    .transform(Number)
    .pipe(z.number()),
]);
export const wOptNumber = wNumber.optional().catch(undefined);

export const wBoolean = z.union([
  z.boolean(),
  z.enum(['true', 'false', 'TRUE', 'FALSE', 'True', 'False']).transform((s) => s.toLowerCase() === 'true'),
  z.union([z.literal(0), z.literal(1)]).transform((n) => n === 1),
]);

/** Ids are strings in the spec; a numeric id is accepted and stringified. */
export const wId = z.union([z.string().min(1), z.number().transform(String)]);

/** spec 2.5: enum values arrive upper-case in samples (`NONE`); unknown values are kept. */
export const wLowerEnum = z.string().transform((s) => s.toLowerCase());

const wLink = z.looseObject({ href: z.string().optional() }).optional().catch(undefined);

/** The last non-empty path segment of a HAL link (`/trips/abc` → `abc`). */
export function idFromHref(link: unknown): string | undefined {
  const href = (link as { href?: unknown } | undefined)?.href;
  if (typeof href !== 'string') return undefined;
  const segments = href.split('?')[0]?.split('/').filter(Boolean) ?? [];
  return segments.at(-1);
}

function defined<T extends object>(obj: T): T {
  for (const key of Object.keys(obj) as (keyof T)[]) if (obj[key] === undefined) delete obj[key];
  return obj;
}

// ---- GeoJSON position (spec 2.1) ----

export const wPosition = z
  .looseObject({
    geometry: z.looseObject({
      coordinates: z.array(wNumber).min(2),
    }),
    properties: z
      .looseObject({ heading: wOptNumber, createdAt: z.unknown().optional() })
      .optional()
      .catch(undefined),
  })
  .transform((g): Position => {
    const [lon, lat, alt] = g.geometry.coordinates as [number, number, number | undefined];
    return defined({
      lon,
      lat,
      alt,
      heading: g.properties?.heading,
      collectedAt: toIsoDate(g.properties?.createdAt),
    });
  });

const wOptPosition = wPosition.optional().catch(undefined);

// ---- User and vehicle (spec 2.2, 2.3) ----

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

// ---- Alert: both shapes of spec 2.4 map to the same Alert ----

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
  // spec 2.4 writes `__embedded.position` (two underscores): accept that spelling too.
  __embedded: z.looseObject({ position: wOptPosition }).optional().catch(undefined),
});

/** v1 and sample dates `yyyyMMddHHmmss` (spec 2.13), or any v2 date form. */
export function toIsoFromCompact(value: unknown): string | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text === 'string') {
    const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?$/.exec(text.trim());
    if (m) {
      const [, y, mo, d, h, mi, s] = m;
      const iso = `${y}-${mo}-${d}T${h}:${mi}:${s ?? '00'}.000Z`;
      // Date.UTC would roll month 13 or hour 99 over into another date: only a real date counts.
      const out = isoFromMs(Date.parse(iso));
      return out === iso ? out : undefined;
    }
  }
  return typeof value === 'number' ? undefined : toIsoDate(value);
}
const wCompactDate = z
  .unknown()
  .optional()
  .transform((v) => toIsoFromCompact(v));

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
    // spec 2.4 list item shape: alertState 1 = active (as in v1, spec 4.4 `active`); without it,
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

// ---- Collision (spec 2.5) ----

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

// ---- Maintenance (spec 2.6) ----

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

// ---- Trip (spec 2.9) ----

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

// ---- Event (spec 2.7, 6) ----

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
    // spec 2.7: `_embedded` is the underlying record, either directly or under a key named after it.
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

// ---- Telemetry (spec 2.8) ----

export const wTelemetry = z
  .looseObject({ id: wId, createdAt: wDate, updatedAt: wDate })
  .transform((t): Telemetry => {
    const { id, createdAt, updatedAt: _u, _links: _l, ...properties } = t as Record<string, unknown>;
    return defined({ id: id as string, createdAt: createdAt as string | undefined, properties });
  });

// ---- Eco-driving (spec 2.10) ----

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

// ---- Waypoints (spec 2.11: fields not shown) ----

/** A waypoint, kept raw: the spec does not show its fields (2.11). */
export type Waypoint = Readonly<Record<string, unknown>>;
export const wWaypoint = z.record(z.string(), z.unknown()).transform((w): Waypoint => w);

// ---- HAL list (spec 2.1) ----

export interface WireListPage<T> {
  readonly items: readonly T[];
  /** `total` from the body; missing → unknown. */
  readonly total: number | undefined;
}

/**
 * A HAL list with `_embedded.<name>` (spec 2.1). Several names are accepted where the spec does not
 * fix one (waypoints: "not shown", 2.11). A missing `_embedded` with `total` 0 is an empty list.
 */
export function wHalList<T>(embeddedNames: string | readonly string[], item: z.ZodType<T>) {
  const names = typeof embeddedNames === 'string' ? [embeddedNames] : embeddedNames;
  return z
    .looseObject({
      // A count: anything but a non-negative safe integer (`-1`, `1.5`, `1e308`) is a total not known.
      total: wNumber
        .pipe(z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER))
        .optional()
        .catch(undefined),
      _embedded: z.record(z.string(), z.unknown()).optional(),
    })
    .transform((body, ctx): WireListPage<T> => {
      const name = names.find((n) => body._embedded?.[n] !== undefined) ?? names[0] ?? '';
      const raw = body._embedded?.[name];
      if (raw === undefined) {
        if (body.total === undefined || body.total === 0) return { items: [], total: body.total ?? 0 };
        ctx.addIssue({ code: 'custom', message: `missing _embedded.${name}`, path: ['_embedded'] });
        return z.NEVER;
      }
      const parsed = z.array(item).safeParse(raw);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          ctx.addIssue({ code: 'custom', message: issue.message, path: ['_embedded', name, ...issue.path] });
        }
        return z.NEVER;
      }
      return { items: parsed.data, total: body.total };
    });
}

// ---- Services and eligibility (area B) ----

export const wServiceEligibility = z
  .looseObject({
    code: z.string(),
    shortLabel: z.string().optional().catch(undefined),
    eligible: wBoolean,
  })
  .transform(
    (s): ServiceEligibility => defined({ code: s.code, shortLabel: s.shortLabel, eligible: s.eligible }),
  );

/** spec 4.2: an array of entries; a wrapper object (`{services: […]}` or HAL) is accepted too. */
export const wServiceList = z.union([
  z.array(wServiceEligibility),
  z.looseObject({ services: z.array(wServiceEligibility) }).transform((o) => o.services),
  z
    .looseObject({ _embedded: z.looseObject({ services: z.array(wServiceEligibility) }) })
    .transform((o) => o._embedded.services),
]);

/** Eligibilities: "response body: not shown" (spec 4.2); kept raw. */
export type Eligibilities = Readonly<Record<string, unknown>> | readonly unknown[];
export const wEligibilities = z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]);

// ---- Map update (area C: response "not shown", spec 4.3) ----

export const wMapInfo = z
  .looseObject({
    vin: z.string(),
    installedVersion: z.string().optional().catch(undefined),
    currentVersion: z.string().optional().catch(undefined),
    availableVersion: z.string().optional().catch(undefined),
    latestVersion: z.string().optional().catch(undefined),
    version: z.string().optional().catch(undefined),
    releasedAt: z.unknown().optional(),
    releaseDate: z.unknown().optional(),
    updateAvailable: wBoolean.optional().catch(undefined),
    sizeMb: wOptNumber,
  })
  .transform((m, ctx): MapUpdateInfo => {
    const installed = m.installedVersion ?? m.currentVersion;
    const available = m.availableVersion ?? m.latestVersion ?? m.version;
    if (available === undefined) {
      ctx.addIssue({ code: 'custom', message: 'missing availableVersion', path: ['availableVersion'] });
      return z.NEVER;
    }
    return defined({
      vin: m.vin,
      installedVersion: installed,
      availableVersion: available,
      releasedAt: toIsoDate(m.releasedAt ?? m.releaseDate),
      updateAvailable: m.updateAvailable ?? (installed !== undefined && installed !== available),
      sizeMb: m.sizeMb,
    });
  });

export const wMapBulk = z.union([
  z.array(wMapInfo),
  z.looseObject({ maps: z.array(wMapInfo) }).transform((o) => o.maps),
  z.looseObject({ results: z.array(wMapInfo) }).transform((o) => o.results),
  z.looseObject({ items: z.array(wMapInfo) }).transform((o) => o.items),
]);
