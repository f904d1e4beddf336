/**
 * The simulator's world model: the canonical, API-agnostic truth that every area (v2, services,
 * map, v1) renders in its own wire shapes. Times are epoch milliseconds of the world clock.
 *
 * This file is the contract between the world (sim/world/*) and the renderers (sim/v2, sim/v1, …):
 * renderers only read through `WorldView` and write through `WorldMutations`.
 */

/** Brand groups of the v1 API (its `brand` query parameter). */
export type BrandCode = 'C' | 'P';

export interface BrandInfo {
  readonly code: BrandCode;
  /** Display name of the fictional brand. */
  readonly name: string;
  /** The brand's path segment in the OAuth addresses (`/accounts/signin/v1/{segment}/oauth2/…`). */
  readonly authSegment: string;
}

export interface GeoPoint {
  readonly lon: number;
  readonly lat: number;
  readonly alt: number;
}

export type Energy = 'petrol' | 'diesel' | 'electric' | 'hybrid';

export interface SimUser {
  readonly id: string;
  readonly email: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly brand: BrandCode;
  readonly createdAt: number;
  updatedAt: number;
  /** Vehicles of this user, in the order the user added them. */
  vehicleIds: string[];
  /** After `POST /_sim/users/{id}/revoke`: refresh tokens fail with `invalid_grant`. */
  revoked: boolean;
}

export interface SimVehicle {
  readonly id: string;
  /** 17 characters, `[A-Z0-9]{17}`. */
  readonly vin: string;
  /** v1 contract number. */
  readonly contract: string;
  readonly brand: BrandCode;
  readonly userId: string;
  readonly model: string;
  readonly subModel: string;
  readonly engine: string;
  readonly gearbox: string;
  readonly energy: Energy;
  readonly createdAt: number;
  updatedAt: number;
  odometerKm: number;
  fuelLevelPct: number;
  position: GeoPoint;
  /** Degrees, 0 = North. */
  heading: number;
  /** When the last position was collected. */
  positionAt: number;
  /** The user did not allow geolocation: lastPosition answers 404. */
  geolocationAllowed: boolean;
  /** Reference fuel price (v1), per liter. */
  referenceFuelPrice: number;
}

export type Severity = 'low' | 'medium' | 'high';

export interface SimAlert {
  readonly id: string;
  readonly vehicleId: string;
  /** A message code from shared/reference/alert-messages.json. */
  readonly code: string;
  readonly severity: Severity;
  readonly category: string;
  readonly position: GeoPoint;
  readonly tripId?: string;
  readonly createdAt: number;
  updatedAt: number;
  active: boolean;
  /** Set when the alert is fixed. */
  endedAt?: number;
}

export type CollisionLevel = 'none' | 'fixable' | 'low' | 'medium' | 'high';

export interface SimCollision {
  readonly id: string;
  readonly vehicleId: string;
  readonly tripId?: string;
  readonly rollOver: boolean;
  readonly pedestrian: boolean;
  readonly front: CollisionLevel;
  readonly rear: CollisionLevel;
  readonly lateral: CollisionLevel;
  readonly position: GeoPoint;
  readonly createdAt: number;
  updatedAt: number;
}

export interface SimMaintenance {
  readonly vehicleId: string;
  /** Days before regular maintenance; negative = overdue. */
  days: number;
  /** Kilometers before regular maintenance; negative = overdue. */
  mileage: number;
  readonly createdAt: number;
  updatedAt: number;
}

export interface EcoScore {
  readonly score: number;
  readonly evaluation: string;
  readonly advice: string;
  readonly category: string;
  readonly label: string;
}

export interface SimEcoDriving {
  readonly global: { readonly trend: EcoScore; readonly style: EcoScore; readonly road: EcoScore };
  readonly detailed: {
    readonly acceleration: EcoScore;
    readonly braking: EcoScore;
    readonly engineSpeed: EcoScore;
    readonly stopAndStart: EcoScore;
    readonly speed: EcoScore;
    readonly slope: EcoScore;
    readonly coldTrips: EcoScore;
  };
}

export interface SimWaypoint {
  readonly at: number;
  readonly position: GeoPoint;
  readonly heading: number;
  readonly speedKmh: number;
}

export interface SimTrip {
  readonly id: string;
  /** Numeric trip id of the v1 API (`tripid`). */
  readonly v1Id: number;
  readonly vehicleId: string;
  readonly startedAt: number;
  readonly stoppedAt: number;
  readonly durationS: number;
  readonly distanceKm: number;
  readonly fuelConsumptionL: number;
  readonly avgConsumptionL100: number;
  readonly avgSpeedKmh: number;
  readonly co2Kg: number;
  readonly refueling: boolean;
  readonly startPosition: GeoPoint;
  readonly stopPosition: GeoPoint;
  readonly startOdometerKm: number;
  readonly waypoints: readonly SimWaypoint[];
  readonly ecodriving: SimEcoDriving;
  readonly createdAt: number;
  updatedAt: number;
  /** Reference (favourite) trip, starred by the user. */
  reference: boolean;
  /** Fuel price set through the v1 API. */
  fuelPrice?: number;
}

/** Kinds of vehicle events. `COLLISION` is the one type string the API's samples show. */
export type SimEventType = 'TRIP' | 'ALERT' | 'COLLISION' | 'REFUEL' | 'FUEL_STOLEN';

export interface SimEvent {
  readonly id: string;
  readonly vehicleId: string;
  readonly type: SimEventType;
  /** Id of the underlying record (trip, alert, collision) or of the refuel / theft itself. */
  readonly recordId: string;
  /** Liters added (refuel) or lost (fuel stolen). */
  readonly liters?: number;
  readonly position?: GeoPoint;
  readonly createdAt: number;
  updatedAt: number;
}

/** One second of telemetry. Every group optional, as in the API. */
export interface SimTelemetry {
  readonly at: number;
  readonly odometer?: number;
  readonly moving?: boolean;
  readonly running?: boolean;
  readonly speedKmh?: number;
  readonly engines?: readonly {
    coolantTemp: number;
    oilTemp: number;
    oilLevel: number;
    speed: number;
    status: string;
  }[];
  readonly fuel?: { level: number; consumption: number; autonomy?: number };
  readonly parkingBrake?: boolean;
  readonly airTemp?: number;
  readonly day?: boolean;
  readonly seatbeltUnbuckled?: boolean;
  readonly position?: GeoPoint;
  /** Degrees, 0 = North (present with `position`). */
  readonly heading?: number;
  /** Longitudinal acceleration, m/s² (while moving). */
  readonly accelerationLongitudinal?: number;
  /** Recommended gear (while moving, not on single-speed electric drives). */
  readonly gearRecommended?: number;
  readonly turnSignal?: 'left' | 'right';
  /** The trip this second belongs to, when moving. */
  readonly tripId?: string;
}

export interface SimServiceEligibility {
  readonly code: string;
  readonly shortLabel: string;
  eligible: boolean;
}

export interface SimMapInfo {
  readonly vin: string;
  /** Map version installed in the vehicle. */
  installedVersion: string;
  /** Newest map version released for this vehicle. */
  availableVersion: string;
  /** When `availableVersion` was released. */
  releasedAt: number;
  /** Size of the update package. */
  sizeMb: number;
}

/** Read access to the world, for the renderers of every API area. */
export interface WorldView {
  /** The world clock (epoch ms): real time, or advanced through the control API. */
  now(): number;
  /** Whether the v1 API knows this VIN (false after `setV1Known(vin, false)`). */
  v1Knows(vin: string): boolean;
  users(): readonly SimUser[];
  user(id: string): SimUser | undefined;
  vehicles(): readonly SimVehicle[];
  vehicle(id: string): SimVehicle | undefined;
  vehicleByVin(vin: string): SimVehicle | undefined;
  /** Alerts of a vehicle, oldest first. */
  alerts(vehicleId: string): readonly SimAlert[];
  collisions(vehicleId: string): readonly SimCollision[];
  maintenance(vehicleId: string): SimMaintenance | undefined;
  /** Trips of a vehicle, oldest first. */
  trips(vehicleId: string): readonly SimTrip[];
  trip(tripId: string): SimTrip | undefined;
  events(vehicleId: string): readonly SimEvent[];
  /** Telemetry of one second, derived deterministically from trips and vehicle state. */
  telemetryAt(vehicleId: string, epochMs: number): SimTelemetry | undefined;
  services(vehicleId: string): readonly SimServiceEligibility[];
  map(vin: string): SimMapInfo | undefined;
}

/** The few writes the API itself allows (v1 PUT operations). */
export interface WorldMutations {
  /**
   * The v1 API stops (false) or starts again (true) knowing a VIN: its single reads answer 404 and
   * the bulk lists omit it, as for a vehicle taken off its contract. False for an unknown VIN.
   */
  setV1Known(vin: string, known: boolean): boolean;
  setReferenceTrip(tripId: string, reference: boolean): void;
  setTripFuelPrice(tripId: string, price: number): void;
  setReferenceFuelPrice(vehicleId: string, price: number): void;
}
