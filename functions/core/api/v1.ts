/**
 * Version 1 development API (area D, spec 4.4, 2.13): typed parameters, their validation before
 * any request, and lenient record schemas normalized to the model (dates `yyyyMMddHHmmss` → ISO).
 */
import * as z from 'zod';
import { type InvalidRequestError, invalidRequest } from './errors';
import type { IsoDate, V1Alert, V1Crash, V1Maintenance, V1Trip } from './model';
import { toIsoFromCompact, wBoolean, wNumber } from './wire';

// ---- Parameters ----

/** spec 8: a VIN is 17 characters `[A-Z0-9]`. */
export const VIN_PATTERN = /^[A-Z0-9]{17}$/;

export type V1Brand = 'C' | 'P';
/** spec 4.4: `0` metric, `1` imperial. */
export type V1Unit = 'metric' | 'imperial' | 0 | 1 | '0' | '1';

/** One vehicle of a fleet contract. */
export interface V1Target {
  readonly vin: string;
  readonly contract: string;
}

/** Common query of most v1 reads. */
export interface V1LocaleBrand {
  /** A language or language_COUNTRY tag (`en`, `fr_FR`). */
  readonly locale: string;
  readonly brand: V1Brand;
}

type Check = InvalidRequestError | undefined;

export function checkVin(op: string, vin: unknown, field = 'vin'): Check {
  if (typeof vin !== 'string' || !VIN_PATTERN.test(vin)) {
    return invalidRequest(op, field, 'must be 17 characters A-Z or 0-9 (spec 8)');
  }
  return undefined;
}

export function checkContract(op: string, contract: unknown, field = 'contract'): Check {
  if (typeof contract !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(contract)) {
    return invalidRequest(op, field, 'must be a non-empty contract number (letters, digits, - or _)');
  }
  return undefined;
}

export function checkBrand(op: string, brand: unknown): Check {
  return brand === 'C' || brand === 'P'
    ? undefined
    : invalidRequest(op, 'brand', "must be 'C' or 'P' (spec 4.4)");
}

export function checkLocale(op: string, locale: unknown): Check {
  return typeof locale === 'string' && /^[A-Za-z]{2,3}([_-][A-Za-z]{2})?$/.test(locale)
    ? undefined
    : invalidRequest(op, 'locale', "must be a language or language_COUNTRY tag such as 'en' or 'fr_FR'");
}

export function unitCode(op: string, unit: unknown): { code: '0' | '1' } | InvalidRequestError {
  if (unit === 'metric' || unit === 0 || unit === '0') return { code: '0' };
  if (unit === 'imperial' || unit === 1 || unit === '1') return { code: '1' };
  return invalidRequest(op, 'unit', "must be 'metric', 'imperial', 0 or 1 (spec 4.4)");
}

/** spec 2.13: series are keyed by second numbers 1 to 60. */
export function listSecond(op: string, seconds: unknown): { value: string } | InvalidRequestError {
  if (
    !Array.isArray(seconds) ||
    seconds.length === 0 ||
    !seconds.every((s) => typeof s === 'number' && Number.isInteger(s) && s >= 1 && s <= 60)
  ) {
    return invalidRequest(op, 'listsecond', 'must be a non-empty array of integer seconds from 1 to 60');
  }
  return { value: seconds.join(',') };
}

export function positiveInt(op: string, field: string, value: unknown): Check {
  return typeof value === 'number' && Number.isInteger(value) && value > 0
    ? undefined
    : invalidRequest(op, field, 'must be a positive integer');
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Formats a date in UTC per spec 4.4 (`yyyyMMdd`, `yyyyMMddHHmm`, `yyyyMM`). */
export function v1Date(
  op: string,
  field: string,
  date: unknown,
  form: 'yyyyMMdd' | 'yyyyMMddHHmm' | 'yyyyMM',
): { value: string } | InvalidRequestError {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    return invalidRequest(op, field, 'must be a valid Date');
  }
  const y = pad(date.getUTCFullYear(), 4);
  const m = pad(date.getUTCMonth() + 1);
  if (form === 'yyyyMM') return { value: `${y}${m}` };
  const d = pad(date.getUTCDate());
  if (form === 'yyyyMMdd') return { value: `${y}${m}${d}` };
  return { value: `${y}${m}${d}${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}` };
}

/** spec 4.4: list operations take `{listvin, listcontract}`, built from `{vin, contract}[]`. */
export function bulkBody(
  op: string,
  targets: unknown,
): { value: { listvin: string[]; listcontract: string[] } } | InvalidRequestError {
  if (!Array.isArray(targets) || targets.length === 0) {
    return invalidRequest(op, 'targets', 'must be a non-empty array of {vin, contract}');
  }
  const listvin: string[] = [];
  const listcontract: string[] = [];
  for (const [i, t] of targets.entries()) {
    const target = t as Partial<V1Target> | null;
    const bad =
      checkVin(op, target?.vin, `targets[${i}].vin`) ??
      checkContract(op, target?.contract, `targets[${i}].contract`);
    if (bad) return bad;
    listvin.push(target?.vin as string);
    listcontract.push(target?.contract as string);
  }
  return { value: { listvin, listcontract } };
}

// ---- Records (spec 2.13) ----

const compactDate = z
  .unknown()
  .optional()
  .transform((v): IsoDate | undefined => toIsoFromCompact(v));
const optNumber = wNumber.optional().catch(undefined);
const optString = z
  .union([z.string(), z.number().transform(String)])
  .optional()
  .catch(undefined);

function defined<T extends object>(obj: T): T {
  for (const key of Object.keys(obj) as (keyof T)[]) if (obj[key] === undefined) delete obj[key];
  return obj;
}

/** A v1 record whose signals are kept raw (series keyed by second): identity + raw body. */
export interface V1Record {
  readonly vin: string;
  readonly contract: string;
  readonly lastUpdate?: IsoDate;
  readonly raw: Readonly<Record<string, unknown>>;
}

const identity = {
  vin: z.string(),
  contract: z.union([z.string(), z.number().transform(String)]),
  lastUpdate: compactDate,
};

export const wV1Record = z.looseObject(identity).transform(
  (r): V1Record =>
    defined({
      vin: r.vin,
      contract: r.contract,
      lastUpdate: r.lastUpdate,
      raw: r as Record<string, unknown>,
    }),
);

export const wV1Crash = z
  .looseObject(identity)
  .transform((r): V1Crash => defined({ vin: r.vin, contract: r.contract, lastUpdate: r.lastUpdate, raw: r }));

/** A label object of the v1 records (`<name>Label`). */
export interface V1Label {
  readonly evaluation?: string;
  readonly advice?: string;
  readonly category?: string;
  readonly label?: string;
  readonly groupLabel?: string;
}

export interface V1EcoEvaluation extends V1Record {
  readonly tripId?: number;
  readonly durationS?: number;
  readonly dateAggr?: number;
  /** `drivingMark`, `drivingAttitude`, `roadProfile` → score. */
  readonly global: Readonly<Record<string, number>>;
  /** `acceleration`, `braking`, … → score. */
  readonly detailed: Readonly<Record<string, number>>;
  readonly labels: Readonly<Record<string, V1Label>>;
}

const LABEL_FIELDS = ['evaluation', 'advice', 'category', 'label', 'groupLabel'] as const;

/** The text fields of a label object; anything else (a number, a nested object) is dropped. */
function label(value: Record<string, unknown>): V1Label {
  const out: Record<string, string> = {};
  for (const field of LABEL_FIELDS) {
    const v = value[field];
    if (typeof v === 'string') out[field] = v;
  }
  return out;
}

function scores(group: unknown, labels: Record<string, V1Label>): Record<string, number> {
  const out: Record<string, number> = {};
  if (typeof group !== 'object' || group === null) return out;
  for (const [key, value] of Object.entries(group)) {
    if (key.endsWith('Label') && typeof value === 'object' && value !== null) {
      labels[key.slice(0, -'Label'.length)] = label(value as Record<string, unknown>);
      continue;
    }
    const n = wNumber.safeParse(value);
    if (n.success) out[key] = n.data;
  }
  return out;
}

export const wV1EcoEvaluation = z
  .looseObject({
    ...identity,
    tripId: optNumber,
    duration: optNumber,
    dateAggr: optNumber,
    globalEvaluation: z.unknown().optional(),
    detailedEvaluation: z.unknown().optional(),
  })
  .transform((r): V1EcoEvaluation => {
    const labels: Record<string, V1Label> = {};
    return defined({
      vin: r.vin,
      contract: r.contract,
      lastUpdate: r.lastUpdate,
      tripId: r.tripId,
      durationS: r.duration,
      dateAggr: r.dateAggr,
      global: scores(r.globalEvaluation, labels),
      detailed: scores(r.detailedEvaluation, labels),
      labels,
      raw: r,
    });
  });

export const wV1Maintenance = z
  .looseObject({
    ...identity,
    fuel: z.looseObject({ fuelLevel: optNumber }).optional().catch(undefined),
    maintenance: z
      .looseObject({ totMileage: optNumber, dayBeforeMaint: optNumber, mileageBeforeMaint: optNumber })
      .optional()
      .catch(undefined),
  })
  .transform(
    (r): V1Maintenance =>
      defined({
        vin: r.vin,
        contract: r.contract,
        lastUpdate: r.lastUpdate,
        days: r.maintenance?.dayBeforeMaint,
        mileage: r.maintenance?.mileageBeforeMaint,
        totMileage: r.maintenance?.totMileage,
        fuelLevel: r.fuel?.fuelLevel,
      }),
  );

const wV1AlertItem = z.looseObject({
  vin: z.string().optional().catch(undefined),
  contract: optString,
  idAlert: z.union([z.string().min(1), z.number().transform(String)]),
  alert: z.string(),
  advise: z.string().optional().catch(undefined),
  category: z.string().optional().catch(undefined),
  alertState: wNumber,
  dateAlertBegin: compactDate,
  dateAlertEnd: compactDate,
  dateUpdate: compactDate,
});
type WireV1AlertItem = z.infer<typeof wV1AlertItem>;

const wV1AlertGroup = z.looseObject({
  vin: z.string().optional().catch(undefined),
  contract: optString,
  listAlert: z.array(wV1AlertItem),
});

function toV1Alert(item: WireV1AlertItem, vin: string | undefined, contract: string | undefined): V1Alert {
  return defined({
    vin: item.vin ?? vin ?? '',
    contract: item.contract ?? contract ?? '',
    idAlert: item.idAlert,
    alert: item.alert,
    advise: item.advise,
    category: item.category,
    alertState: item.alertState,
    dateAlertBegin: item.dateAlertBegin,
    dateAlertEnd: item.dateAlertEnd,
    dateUpdate: item.dateUpdate,
  });
}

/** spec 2.13 alert list: `{listAlert: […], vin, contract}`, or an array of those (bulk), flattened. */
export const wV1AlertList = z
  .union([wV1AlertGroup.transform((g) => [g]), z.array(wV1AlertGroup)])
  .transform((groups): V1Alert[] =>
    groups.flatMap((g) => g.listAlert.map((a) => toV1Alert(a, g.vin, g.contract))),
  );

export const wV1Trip = z
  .looseObject({
    vin: z.string().optional().catch(undefined),
    contract: optString,
    tripId: wNumber,
    dateTripBegin: compactDate,
    tripDuration: optNumber,
    tripMileage: optNumber,
    avgFuelConsumption: optNumber,
    CO2Emission: optNumber,
    refueling: wBoolean.optional().catch(undefined),
    siphoning: wBoolean.optional().catch(undefined),
  })
  .transform(
    (t): V1Trip =>
      defined({
        vin: t.vin ?? '',
        contract: t.contract ?? '',
        tripId: t.tripId,
        dateTripBegin: t.dateTripBegin,
        durationS: t.tripDuration,
        distanceKm: t.tripMileage,
        avgFuelConsumption: t.avgFuelConsumption,
        co2Emission: t.CO2Emission,
        refueling: t.refueling,
        siphoning: t.siphoning,
        raw: t,
      }),
  );

export interface V1TripList {
  readonly totalNumberTrips?: number;
  readonly trips: readonly V1Trip[];
}

/** `{totalNumberTrips?, trips: […]}`; a bare array or an array of per-vehicle groups is accepted too. */
export const wV1TripList = z.union([
  z
    .looseObject({ totalNumberTrips: optNumber, trips: z.array(wV1Trip) })
    .transform((o): V1TripList => defined({ totalNumberTrips: o.totalNumberTrips, trips: o.trips })),
  z.array(wV1Trip).transform((trips): V1TripList => ({ trips })),
  z
    .array(z.looseObject({ trips: z.array(wV1Trip) }))
    .transform((groups): V1TripList => ({ trips: groups.flatMap((g) => g.trips) })),
]);

export interface V1ReferenceFuelPrice {
  readonly vin: string;
  readonly contract: string;
  readonly fuelPrice: number;
}
export const wV1ReferenceFuelPrice = z
  .looseObject({ vin: z.string(), contract: identity.contract, fuelPrice: wNumber })
  .transform((r): V1ReferenceFuelPrice => ({ vin: r.vin, contract: r.contract, fuelPrice: r.fuelPrice }));

export interface V1VehicleInformation {
  readonly vin: string;
  readonly brand?: string;
  readonly color?: string;
  readonly lcdv?: string;
  readonly deliveryDate?: string;
  readonly manufacturingDate?: string;
  readonly raw: Readonly<Record<string, unknown>>;
}
export const wV1VehicleInformation = z
  .looseObject({
    vin: z.string(),
    brand: optString,
    color: optString,
    lcdv: optString,
    deliveryDate: optString,
    manufacturingDate: optString,
  })
  .transform(
    (r): V1VehicleInformation =>
      defined({
        vin: r.vin,
        brand: r.brand,
        color: r.color,
        lcdv: r.lcdv,
        deliveryDate: r.deliveryDate,
        manufacturingDate: r.manufacturingDate,
        raw: r,
      }),
  );

/** Referential entries (spec 2.13): string fields, kept as a string map. */
export type V1Referential = Readonly<Record<string, string>>;
export const wV1Referential = z
  .record(z.string(), z.unknown())
  .transform(
    (r): V1Referential =>
      Object.fromEntries(
        Object.entries(r).flatMap(([k, v]) =>
          typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? [[k, String(v)]] : [],
        ),
      ),
  );

/** Bodies "not shown" by the spec (PUT updates, pictures): JSON when JSON, otherwise bytes. */
export interface V1RawResponse {
  readonly status: number;
  readonly contentType: string;
  /** The parsed JSON body, when the response is JSON. */
  readonly json?: unknown;
  /** The body bytes, when it is not JSON (a picture). */
  readonly bytes?: Uint8Array;
}

/** One array of records, or a single record where the server sends one. */
export function arrayOf<T>(item: z.ZodType<T>) {
  return z.union([z.array(item), item.transform((x) => [x])]);
}
