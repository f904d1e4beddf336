/**
 * Lenient record schemas of the v1 development API, normalized to the model (dates
 * `yyyyMMddHHmmss` become ISO); signal series are kept raw, keyed by second.
 */
import * as z from 'zod';
import type { IsoDate, V1Alert, V1Crash, V1Maintenance, V1Trip } from '../model';
import { defined, toIsoFromCompact, wBoolean, wNumber } from './common';

// ---- Records ----

const compactDate = z
  .unknown()
  .optional()
  .transform((v): IsoDate | undefined => toIsoFromCompact(v));
const optNumber = wNumber.optional().catch(undefined);
const optString = z
  .union([z.string(), z.number().transform(String)])
  .optional()
  .catch(undefined);

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

/** The v1 alert list: `{listAlert: […], vin, contract}`, or an array of those (bulk), flattened. */
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

/** Referential entries: string fields, kept as a string map. */
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
