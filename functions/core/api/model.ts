/**
 * The normalized domain model the API client returns: what the rest of Carhook (detection, the
 * poller, the CLI) sees of the Connected Car API. The client parses the wire shapes leniently
 * (spec drift: upper-case enums, numbers as strings, the alternative alert list item shape…) and
 * returns these. Dates are ISO 8601 UTC strings with milliseconds (`2026-11-22T10:00:00.000Z`),
 * so they serialize as-is and compare lexicographically.
 *
 * Unknown enum values are kept as strings (`KnownOr<…>`), never rejected: the API's enums are
 * "not shown" in places and new values must not crash a poll.
 */

/** A known literal, or any other string the API sends. */
export type KnownOr<T extends string> = T | (string & {});

export type IsoDate = string;

export interface Position {
  readonly lon: number;
  readonly lat: number;
  readonly alt?: number;
  /** Degrees, 0 = North. */
  readonly heading?: number;
  /** When the position was collected. */
  readonly collectedAt?: IsoDate;
}

export interface User {
  readonly id: string;
  readonly email?: string;
  readonly firstName?: string;
  readonly lastName?: string;
  readonly createdAt?: IsoDate;
  readonly updatedAt?: IsoDate;
  readonly vehicles?: readonly Vehicle[];
}

export interface Vehicle {
  readonly id: string;
  readonly vin: string;
  readonly brand?: string;
  readonly model?: string;
  readonly subModel?: string;
  readonly engine?: string;
  readonly gearbox?: string;
  readonly energy?: string;
  readonly createdAt?: IsoDate;
  readonly updatedAt?: IsoDate;
}

export type Severity = KnownOr<'low' | 'medium' | 'high'>;

/**
 * An alert, from either the declared Alert shape (`id`, `active`, `message`, `severity`)
 * or the list item shape of the samples and v1 (`idAlert`, `alert`, `advise`, `alertState`,
 * `dateAlertBegin`, `dateAlertEnd`…).
 */
export interface Alert {
  readonly id: string;
  readonly active: boolean;
  /** Message (code or localized text, per `locale`). */
  readonly message: string;
  readonly severity?: Severity;
  readonly advice?: string;
  readonly category?: string;
  readonly position?: Position;
  /** When the alert began (`createdAt` / `dateAlertBegin`). */
  readonly startedAt?: IsoDate;
  /** When the alert ended (`dateAlertEnd`), if fixed. */
  readonly endedAt?: IsoDate;
  readonly createdAt?: IsoDate;
  readonly updatedAt?: IsoDate;
}

export type CollisionLevel = KnownOr<'none' | 'fixable' | 'low' | 'medium' | 'high'>;

export interface Collision {
  readonly id: string;
  readonly rollOver: boolean;
  readonly pedestrian: boolean;
  readonly front: CollisionLevel;
  readonly rear: CollisionLevel;
  readonly lateral: CollisionLevel;
  /** Trip id, from `_links.trip`, when present. */
  readonly tripId?: string;
  /** Where it happened (`_embedded.position`), when the API gives it. */
  readonly position?: Position;
  readonly createdAt?: IsoDate;
  readonly updatedAt?: IsoDate;
}

export interface Maintenance {
  readonly vin?: string;
  /** Days before regular maintenance; negative = overdue. */
  readonly days: number;
  /** Kilometers before regular maintenance; negative = overdue. */
  readonly mileage: number;
  readonly createdAt?: IsoDate;
  readonly updatedAt?: IsoDate;
}

/** Kinds of vehicle event; only `COLLISION` is shown by the spec. */
export type VehicleEventType = KnownOr<'TRIP' | 'ALERT' | 'COLLISION' | 'REFUEL' | 'FUEL_STOLEN'>;

export interface VehicleEvent {
  readonly id: string;
  readonly type: VehicleEventType;
  /** Id of the underlying record. */
  readonly eventId: string;
  readonly createdAt?: IsoDate;
  readonly updatedAt?: IsoDate;
  /** The embedded underlying record, normalized where its kind is known. */
  readonly alert?: Alert;
  readonly collision?: Collision;
  readonly trip?: Trip;
  /** The raw embedded record, for kinds without a normalized form (refuel, fuel stolen). */
  readonly record?: Readonly<Record<string, unknown>>;
}

export interface EcoScore {
  readonly score: number;
  readonly evaluation?: string;
  readonly advice?: string;
  readonly category?: string;
  readonly label?: string;
}

export interface EcoDriving {
  readonly id?: string;
  readonly tripId?: string;
  /** `trend`, `style`, `road`. */
  readonly global: Readonly<Record<string, EcoScore>>;
  /** `acceleration`, `braking`, `engineSpeed`, `stopAndStart`, `speed`, `slope`, `coldTrips`. */
  readonly detailed: Readonly<Record<string, EcoScore>>;
}

export interface Trip {
  readonly id: string;
  readonly reference?: boolean;
  readonly startedAt?: IsoDate;
  readonly stoppedAt?: IsoDate;
  /** Seconds (the samples send a numeric string). */
  readonly durationS?: number;
  /** Kilometers (the samples send a decimal). */
  readonly distanceKm?: number;
  readonly fuelConsumptionL?: number;
  readonly refueling?: boolean;
  readonly avgConsumptionL100?: number;
  readonly avgSpeedKmh?: number;
  readonly co2Estimated?: number;
  readonly startPosition?: Position;
  readonly stopPosition?: Position;
  readonly createdAt?: IsoDate;
  readonly updatedAt?: IsoDate;
}

/** One second of telemetry: the raw property tree, every property optional. */
export interface Telemetry {
  readonly id: string;
  readonly createdAt?: IsoDate;
  readonly properties: Readonly<Record<string, unknown>>;
}

export interface ServiceEligibility {
  readonly code: string;
  readonly shortLabel?: string;
  readonly eligible: boolean;
}

/** Map update information for one VIN (area C; shape "not shown", see sim/README.md). */
export interface MapUpdateInfo {
  readonly vin: string;
  readonly installedVersion?: string;
  readonly availableVersion: string;
  readonly releasedAt?: IsoDate;
  readonly updateAvailable: boolean;
  /** Size of the update package, when the API says (added by the API client, optional). */
  readonly sizeMb?: number;
}

// ---- Version 1 records that detection normalizes into the same events ----

/** A v1 alert list entry (`listAlert[]`). `alertState` 1 = active, 0 = ended. */
export interface V1Alert {
  readonly vin: string;
  readonly contract: string;
  readonly idAlert: string;
  readonly alert: string;
  readonly advise?: string;
  readonly category?: string;
  readonly alertState: number;
  /** yyyyMMddHHmmss in the wire form; normalized to ISO here. */
  readonly dateAlertBegin?: IsoDate;
  readonly dateAlertEnd?: IsoDate;
  readonly dateUpdate?: IsoDate;
}

/** A v1 crash record, reduced to what detection needs; `raw` keeps the series. */
export interface V1Crash {
  readonly vin: string;
  readonly contract: string;
  readonly lastUpdate?: IsoDate;
  readonly raw: Readonly<Record<string, unknown>>;
}

export interface V1Maintenance {
  readonly vin: string;
  readonly contract: string;
  readonly lastUpdate?: IsoDate;
  readonly days?: number;
  readonly mileage?: number;
  readonly totMileage?: number;
  readonly fuelLevel?: number;
}

export interface V1Trip {
  readonly vin: string;
  readonly contract: string;
  readonly tripId: number;
  readonly dateTripBegin?: IsoDate;
  readonly durationS?: number;
  readonly distanceKm?: number;
  readonly avgFuelConsumption?: number;
  readonly co2Emission?: number;
  readonly refueling?: boolean;
  readonly siphoning?: boolean;
  readonly raw: Readonly<Record<string, unknown>>;
}
