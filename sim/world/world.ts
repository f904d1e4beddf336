import {
  ALERT_CODES,
  alertClass,
  CITIES,
  FIRST_NAMES,
  LAST_NAMES,
  MODELS,
  type ModelSpec,
  SERVICES,
} from './catalog';
import { type ClockMode, DEFAULT_MANUAL_START, WorldClock } from './clock';
import { distanceKm, offset, roundPoint } from './geo';
import { hash32, opaqueId, Rng } from './prng';
import { generateEcoDriving, round, TripRecord, WAYPOINT_INTERVAL_S } from './trip';
import type {
  BrandCode,
  CollisionLevel,
  GeoPoint,
  Severity,
  SimAlert,
  SimCollision,
  SimEvent,
  SimEventType,
  SimMaintenance,
  SimMapInfo,
  SimServiceEligibility,
  SimTelemetry,
  SimTrip,
  SimUser,
  SimVehicle,
  WorldMutations,
  WorldView,
} from './types';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Past trips are generated over this span before the start of the world. */
const HISTORY_SPAN = 14 * DAY;

export interface WorldOptions {
  /** Number of vehicles (default 20). */
  readonly vehicles?: number;
  /** PRNG seed (default 1): one seed gives one world. */
  readonly seed?: number;
  readonly clock?: ClockMode;
  /** Epoch ms the world starts at (default: a fixed date for a manual clock, now for a real one). */
  readonly startTime?: number;
  /** Background activity: vehicles drive, raise and fix alerts, refuel. */
  readonly activity?: boolean;
}

/** Errors of world mutations are values; the control API maps them to 4xx. */
export type WorldError =
  | { readonly kind: 'NotFound'; readonly what: string; readonly id: string }
  | { readonly kind: 'Invalid'; readonly field: string; readonly message: string }
  | { readonly kind: 'Conflict'; readonly message: string };

export type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: WorldError };

const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
const fail = <T>(error: WorldError): Outcome<T> => ({ ok: false, error });
const notFound = <T>(what: string, id: string): Outcome<T> => fail({ kind: 'NotFound', what, id });

export interface TripRequest {
  /** Seconds (default 900). */
  readonly durationS?: number;
  /** Kilometers (default from an urban average speed). */
  readonly distanceKm?: number;
  /** Epoch ms (default: so that the trip ends now, or right after the previous trip). */
  readonly startedAt?: number;
  /** Alert codes raised during the trip. */
  readonly alerts?: readonly string[];
  /** A collision during the trip. */
  readonly collision?: boolean;
  /** A refuel just before the trip. */
  readonly refueling?: boolean;
  /** Base eco-driving score 0..100. */
  readonly ecoScore?: number;
}

export interface TripCreated {
  readonly trip: SimTrip;
  readonly alerts: readonly SimAlert[];
  readonly collisions: readonly SimCollision[];
  readonly events: readonly SimEvent[];
}

export interface CollisionRequest {
  readonly front?: CollisionLevel;
  readonly rear?: CollisionLevel;
  readonly lateral?: CollisionLevel;
  readonly rollOver?: boolean;
  readonly pedestrian?: boolean;
  readonly tripId?: string;
}

interface FuelEntry {
  readonly at: number;
  readonly deltaPct: number;
  readonly createdAt: number;
}

interface MaintenanceState {
  dueAt: number;
  dueOdometerKm: number;
  readonly createdAt: number;
  setAt: number;
}

interface VehicleState {
  readonly index: number;
  readonly vehicle: SimVehicle;
  readonly spec: ModelSpec;
  readonly home: GeoPoint;
  readonly baseOdometerKm: number;
  readonly baseFuelPct: number;
  loaded: boolean;
  /** World time the current fields were last derived for (they are derived at most once per instant). */
  syncedAt?: number;
  seq: number;
  trips: TripRecord[];
  alerts: SimAlert[];
  collisions: SimCollision[];
  events: SimEvent[];
  fuelLedger: FuelEntry[];
  maintenance: MaintenanceState;
  services: SimServiceEligibility[];
  map: SimMapInfo;
  activity?: { rng: Rng; nextTripAt: number };
}

/** Kind numbers mixed into ids so that every kind of record gets its own id space. */
const KIND = { user: 1, vehicle: 2, trip: 3, alert: 4, collision: 5, event: 6 } as const;

const VIN_CHARS = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';

/**
 * The simulated world: users, their vehicles and everything that happened to them, on a world
 * clock. History per vehicle is generated on first access from a per-vehicle seed, so laziness never
 * changes the result: a seed (and start time) gives one world.
 */
export class World implements WorldView, WorldMutations {
  readonly seed: number;
  readonly vehicleCount: number;
  readonly activity: boolean;
  readonly clock: WorldClock;
  private usersList: SimUser[] = [];
  private usersById = new Map<string, SimUser>();
  private states: VehicleState[] = [];
  private byVehicleId = new Map<string, VehicleState>();
  private byVin = new Map<string, VehicleState>();
  private byContract = new Map<string, VehicleState>();
  private tripIndex = new Map<string, { state: VehicleState; trip: TripRecord }>();
  private allLoaded = false;
  private nextActivityAt = Number.POSITIVE_INFINITY;

  constructor(options: WorldOptions = {}) {
    this.seed = options.seed ?? 1;
    this.vehicleCount = options.vehicles ?? 20;
    if (!Number.isInteger(this.vehicleCount) || this.vehicleCount < 1 || this.vehicleCount > 100_000) {
      throw new RangeError(`vehicles must be an integer between 1 and 100000, got ${options.vehicles}`);
    }
    this.activity = options.activity ?? false;
    const mode = options.clock ?? 'manual';
    const start =
      options.startTime ?? (mode === 'manual' ? DEFAULT_MANUAL_START : Math.floor(Date.now() / 1000) * 1000);
    this.clock = new WorldClock(mode, start);
    this.generate();
  }

  // ---------------------------------------------------------------- clock

  now(): number {
    return this.clock.now();
  }

  /** Moves the world clock forward (both modes) and lets background activity catch up. */
  advance(ms: number): void {
    this.clock.advance(ms);
    this.tick();
  }

  /** Runs background activity up to now; cheap when nothing is due. */
  tick(): void {
    if (!this.activity) return;
    const now = this.now();
    if (now < this.nextActivityAt) return;
    let next = Number.POSITIVE_INFINITY;
    for (const state of this.states) {
      this.load(state);
      this.runActivity(state, now);
      next = Math.min(next, state.activity?.nextTripAt ?? next);
    }
    this.nextActivityAt = next;
  }

  /** Back to the generated world of the same seed and start time; advances of the clock are dropped. */
  reset(): void {
    this.clock.resetAdvances();
    this.generate();
  }

  // ---------------------------------------------------------------- generation

  private generate(): void {
    this.usersList = [];
    this.usersById.clear();
    this.states = [];
    this.byVehicleId.clear();
    this.byVin.clear();
    this.byContract.clear();
    this.tripIndex.clear();
    this.allLoaded = false;
    const rng = new Rng(hash32(this.seed, 0xa11));
    const start = this.clock.startTime;
    let userIndex = 0;
    while (this.states.length < this.vehicleCount) {
      const brand: BrandCode = rng.chance(0.5) ? 'C' : 'P';
      const first = rng.pick(FIRST_NAMES);
      const last = rng.pick(LAST_NAMES);
      const owned = Math.min(rng.int(1, 3), this.vehicleCount - this.states.length);
      const user: SimUser = {
        id: opaqueId('u', this.seed, KIND.user, userIndex),
        email: `${ascii(first)}.${ascii(last)}${userIndex + 1}@example.com`,
        firstName: first,
        lastName: last,
        brand,
        createdAt: start - rng.int(400, 1500) * DAY - rng.int(0, DAY / 1000) * 1000,
        updatedAt: 0,
        vehicleIds: [],
        revoked: false,
      };
      user.updatedAt = user.createdAt;
      for (let k = 0; k < owned; k++) {
        const state = this.generateVehicle(rng, user, this.states.length);
        user.vehicleIds.push(state.vehicle.id);
        this.states.push(state);
        this.byVehicleId.set(state.vehicle.id, state);
        this.byVin.set(state.vehicle.vin, state);
        this.byContract.set(state.vehicle.contract, state);
      }
      this.usersList.push(user);
      this.usersById.set(user.id, user);
      userIndex++;
    }
    this.nextActivityAt = this.activity ? start : Number.POSITIVE_INFINITY;
  }

  private generateVehicle(rng: Rng, user: SimUser, index: number): VehicleState {
    const spec = rng.pick(MODELS[user.brand]);
    const engine = rng.pick(spec.engines);
    let vin = '';
    do {
      vin = `V${user.brand}${rng.int(1, 9)}`;
      for (let i = 0; i < 14; i++) vin += VIN_CHARS[rng.int(0, VIN_CHARS.length - 1)];
    } while (this.byVin.has(vin));
    let contract = '';
    do {
      contract = String(rng.int(100_000_000, 999_999_999));
    } while (this.byContract.has(contract));
    const city = rng.pick(CITIES);
    const home = roundPoint(
      offset({ lon: city[0], lat: city[1], alt: city[2] }, rng.range(0, 8), rng.range(0, 360)),
    );
    const createdAt = Math.max(user.createdAt, this.clock.startTime - rng.int(60, 1200) * DAY);
    const vehicle: SimVehicle = {
      id: opaqueId('v', this.seed, KIND.vehicle, index),
      vin,
      contract,
      brand: user.brand,
      userId: user.id,
      model: spec.model,
      subModel: rng.pick(spec.subModels),
      engine: engine.engine,
      gearbox: engine.gearbox,
      energy: engine.energy,
      createdAt,
      updatedAt: createdAt,
      odometerKm: 0,
      fuelLevelPct: 0,
      position: home,
      heading: 0,
      positionAt: createdAt,
      // The first vehicle always shares its position, so a first try of lastPosition works.
      geolocationAllowed: index === 0 || rng.chance(0.9),
      referenceFuelPrice: round(rng.range(1.65, 1.95), 3),
    };
    const odometer = rng.int(3_000, 120_000);
    return {
      index,
      vehicle,
      spec,
      home,
      baseOdometerKm: odometer,
      baseFuelPct: rng.int(45, 95),
      loaded: false,
      seq: 0,
      trips: [],
      alerts: [],
      collisions: [],
      events: [],
      fuelLedger: [],
      maintenance: { dueAt: 0, dueOdometerKm: 0, createdAt, setAt: createdAt },
      services: [],
      map: { vin, installedVersion: '', availableVersion: '', releasedAt: 0, sizeMb: 0 },
    };
  }

  private nextId(state: VehicleState, kind: number, prefix: string): string {
    state.seq++;
    return opaqueId(prefix, this.seed, kind, state.index, state.seq);
  }

  /** Generates the history of one vehicle (trips, alerts, collisions, events…) before the world start. */
  private load(state: VehicleState): void {
    if (state.loaded) return;
    state.loaded = true;
    const rng = new Rng(hash32(this.seed, 0xb0b, state.index));
    const start = this.clock.startTime;
    const v = state.vehicle;
    const historyStart = Math.max(v.createdAt, start - HISTORY_SPAN);
    let t = historyStart + rng.int(1, 12 * 60) * MINUTE;
    let odometer = state.baseOdometerKm;
    let fuel = state.baseFuelPct;
    const pendingFixes: SimAlert[] = [];
    while (true) {
      const durationS = rng.int(6 * 60, 55 * 60);
      if (t + durationS * SECOND > start - 5 * MINUTE) break;
      let refueling = false;
      if (fuel < 25) {
        const at = t - rng.int(5, 20) * MINUTE;
        const delta = rng.int(80, 98) - fuel;
        this.recordFuel(state, 'REFUEL', at, delta);
        fuel += delta;
        refueling = true;
      }
      const trip = this.buildTrip(state, rng, t, durationS, undefined, odometer, refueling, undefined);
      // Some trips were starred as reference trips in the brand's own app (spec 2.9).
      if (rng.chance(0.08)) trip.reference = true;
      odometer += trip.distanceKm;
      fuel -= trip.drainPct;
      // Most alerts get fixed before the car starts again (a dealer visit, a refill…); some stay on.
      for (const alert of pendingFixes.splice(0)) this.endAlert(alert, t - rng.int(10, 120) * MINUTE);
      if (rng.chance(0.09)) {
        const at = trip.startedAt + rng.int(1, durationS - 1) * SECOND;
        const alert = this.recordAlert(state, rng.pick(ALERT_CODES), undefined, at, trip);
        if (rng.chance(0.92)) pendingFixes.push(alert);
      }
      t = trip.stoppedAt + rng.int(2 * 60, 22 * 60) * MINUTE;
    }
    const trips = state.trips;
    const lastTrip = trips.at(-1);
    // A few vehicles come with an alert still on from their latest trip: a first poll sees a baseline.
    if (lastTrip && rng.chance(0.2)) {
      const at = lastTrip.startedAt + rng.int(1, lastTrip.durationS - 1) * SECOND;
      this.recordAlert(state, rng.pick(ALERT_CODES), undefined, at, lastTrip);
    }
    if (trips.length > 0 && rng.chance(0.12)) {
      const trip = rng.pick(trips);
      const level = (): CollisionLevel => rng.pick(['none', 'none', 'fixable', 'low', 'medium']);
      this.recordCollision(state, {
        at: trip.startedAt + rng.int(1, trip.durationS - 1) * SECOND,
        trip,
        front: level(),
        rear: level(),
        lateral: level(),
        rollOver: false,
        pedestrian: rng.chance(0.05),
      });
    }
    const lastStop = trips.at(-1)?.stoppedAt ?? historyStart;
    if (rng.chance(0.03) && lastStop < start - HOUR) {
      const at = rng.int(lastStop + MINUTE, start - MINUTE);
      const liters = rng.int(10, 30);
      this.recordFuel(state, 'FUEL_STOLEN', at, -(liters / state.spec.tankLiters) * 100, liters);
    }
    state.maintenance = {
      dueAt: start + rng.int(-30, 300) * DAY + rng.int(0, 23) * HOUR,
      dueOdometerKm: Math.round(odometer + rng.int(-800, 25_000)),
      createdAt: v.createdAt,
      setAt: v.createdAt,
    };
    state.services = SERVICES.map((s) => ({
      code: s.code,
      shortLabel: s.shortLabel,
      eligible: s.code === 'ECALL' || rng.chance(0.7),
    }));
    const installed = rng.int(2023, 2025);
    const upToDate = rng.chance(0.6);
    state.map = {
      vin: v.vin,
      installedVersion: `${installed}.${String(rng.pick([3, 9])).padStart(2, '0')}`,
      availableVersion: upToDate ? `${installed}.09` : '2025.12',
      releasedAt: upToDate ? Date.UTC(installed, 8, 15) : Date.UTC(2025, 11, 1),
      sizeMb: rng.int(900, 8000),
    };
    if (upToDate) state.map.installedVersion = state.map.availableVersion;
    if (this.activity) {
      state.activity = {
        rng: new Rng(hash32(this.seed, 0xac7, state.index)),
        nextTripAt: start + rng.int(1, 90) * MINUTE,
      };
    }
    this.syncVehicle(state, start);
  }

  private loadAll(): void {
    if (this.allLoaded) return;
    for (const s of this.states) this.load(s);
    this.allLoaded = true;
  }

  private buildTrip(
    state: VehicleState,
    rng: Rng,
    startedAt: number,
    durationS: number,
    distance: number | undefined,
    startOdometerKm: number,
    refueling: boolean,
    ecoScore: number | undefined,
  ): TripRecord {
    const from = this.positionAt(state, startedAt);
    const speed = rng.range(22, 70);
    const km = distance ?? Math.max(0.5, (speed * durationS) / 3600);
    // Head home when far from it, otherwise go somewhere around it.
    const away = distanceKm(from, state.home) > 3;
    const dest = away
      ? offset(state.home, rng.range(0, 0.5), rng.range(0, 360))
      : offset(from, Math.min(km * 0.7, 40), rng.range(0, 360));
    const via = offset(
      { lon: (from.lon + dest.lon) / 2, lat: (from.lat + dest.lat) / 2, alt: (from.alt + dest.alt) / 2 },
      rng.range(0.2, Math.max(0.3, km * 0.15)),
      rng.range(0, 360),
    );
    const electric = state.vehicle.energy === 'electric';
    const per100 = electric ? 0 : rng.range(4.5, 8.5);
    const liters = (km * per100) / 100;
    // Electric drives spend battery percent (~17 kWh/100 km on a 50 kWh pack).
    const drainPct = electric
      ? (km * 0.17 * 100) / state.spec.tankLiters
      : (liters / state.spec.tankLiters) * 100;
    const seq = state.trips.length + 1;
    const trip = new TripRecord({
      id: this.nextId(state, KIND.trip, 't'),
      v1Id: (state.index + 1) * 100_000 + seq,
      vehicleId: state.vehicle.id,
      startedAt,
      durationS,
      distanceKm: km,
      start: from,
      stop: roundPoint(dest),
      via,
      startOdometerKm,
      fuelConsumptionL: liters,
      drainPct,
      refueling,
      ecodriving: generateEcoDriving(rng, ecoScore),
    });
    state.trips.push(trip);
    state.syncedAt = undefined;
    this.tripIndex.set(trip.id, { state, trip });
    this.recordEvent(state, 'TRIP', trip.id, trip.stoppedAt);
    return trip;
  }

  private recordEvent(
    state: VehicleState,
    type: SimEventType,
    recordId: string,
    at: number,
    extra: { liters?: number; position?: GeoPoint } = {},
  ): SimEvent {
    const event: SimEvent = {
      id: this.nextId(state, KIND.event, 'e'),
      vehicleId: state.vehicle.id,
      type,
      recordId,
      ...(extra.liters !== undefined ? { liters: extra.liters } : {}),
      ...(extra.position ? { position: extra.position } : {}),
      createdAt: at,
      updatedAt: at,
    };
    insertSorted(state.events, event);
    return event;
  }

  private recordAlert(
    state: VehicleState,
    code: string,
    severity: Severity | undefined,
    at: number,
    trip: TripRecord | undefined,
  ): SimAlert {
    const cls = alertClass(code);
    const alert: SimAlert = {
      id: this.nextId(state, KIND.alert, 'a'),
      vehicleId: state.vehicle.id,
      code,
      severity: severity ?? cls.severity,
      category: cls.category,
      position: this.positionAt(state, at),
      ...(trip ? { tripId: trip.id } : {}),
      createdAt: at,
      updatedAt: at,
      active: true,
    };
    insertSorted(state.alerts, alert);
    this.recordEvent(state, 'ALERT', alert.id, at, { position: alert.position });
    return alert;
  }

  private endAlert(alert: SimAlert, at: number): void {
    alert.active = false;
    alert.endedAt = at;
    alert.updatedAt = at;
  }

  private recordCollision(
    state: VehicleState,
    c: {
      at: number;
      trip?: TripRecord;
      front: CollisionLevel;
      rear: CollisionLevel;
      lateral: CollisionLevel;
      rollOver: boolean;
      pedestrian: boolean;
    },
  ): SimCollision {
    const collision: SimCollision = {
      id: this.nextId(state, KIND.collision, 'c'),
      vehicleId: state.vehicle.id,
      ...(c.trip ? { tripId: c.trip.id } : {}),
      rollOver: c.rollOver,
      pedestrian: c.pedestrian,
      front: c.front,
      rear: c.rear,
      lateral: c.lateral,
      position: this.positionAt(state, c.at),
      createdAt: c.at,
      updatedAt: c.at,
    };
    insertSorted(state.collisions, collision);
    this.recordEvent(state, 'COLLISION', collision.id, c.at, { position: collision.position });
    return collision;
  }

  private recordFuel(
    state: VehicleState,
    type: 'REFUEL' | 'FUEL_STOLEN',
    at: number,
    deltaPct: number,
    liters?: number,
  ): SimEvent {
    const l = liters ?? Math.round(((deltaPct * state.spec.tankLiters) / 100) * 10) / 10;
    insertSorted(state.fuelLedger, { at, deltaPct, createdAt: at });
    state.syncedAt = undefined;
    const id = this.nextId(state, KIND.event, 'f');
    return this.recordEvent(state, type, id, at, {
      liters: Math.abs(l),
      position: this.positionAt(state, at),
    });
  }

  // ---------------------------------------------------------------- derived state

  private tripAt(state: VehicleState, at: number): TripRecord | undefined {
    const trips = state.trips;
    let lo = 0;
    let hi = trips.length - 1;
    let found: TripRecord | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const trip = trips[mid] as TripRecord;
      if (trip.startedAt <= at) {
        found = trip;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  /** Position of the vehicle at `at`: on the road during a trip, parked at the last stop otherwise. */
  private positionAt(state: VehicleState, at: number): GeoPoint {
    const trip = this.tripAt(state, at);
    if (!trip) return state.home;
    return at < trip.stoppedAt ? trip.stateAt(at).position : trip.stopPosition;
  }

  private odometerAt(state: VehicleState, at: number): number {
    const trip = this.tripAt(state, at);
    if (!trip) return state.baseOdometerKm;
    const f = at < trip.stoppedAt ? trip.stateAt(at).fraction : 1;
    return round(trip.startOdometerKm + trip.distanceKm * f, 1);
  }

  private fuelAt(state: VehicleState, at: number): number {
    let level = state.baseFuelPct;
    let i = 0;
    let j = 0;
    const trips = state.trips;
    const ledger = state.fuelLedger;
    // Walk trips and fuel entries in time order so clamping at 0/100 happens where it would.
    while (true) {
      const trip = trips[i];
      const entry = ledger[j];
      const tripAt = trip && trip.startedAt <= at ? trip.startedAt : Number.POSITIVE_INFINITY;
      const entryAt = entry && entry.at <= at ? entry.at : Number.POSITIVE_INFINITY;
      if (tripAt === Number.POSITIVE_INFINITY && entryAt === Number.POSITIVE_INFINITY) break;
      if (entry && entryAt <= tripAt) {
        level += entry.deltaPct;
        j++;
      } else if (trip) {
        const f = at < trip.stoppedAt ? trip.stateAt(at).fraction : 1;
        level -= trip.drainPct * f;
        i++;
      }
      level = Math.min(100, Math.max(0, level));
    }
    return round(level, 1);
  }

  /** Refreshes the "current" fields of a vehicle (position, odometer, fuel) from the clock. */
  private syncVehicle(state: VehicleState, at: number, force = false): void {
    if (!force && state.syncedAt === at) return;
    state.syncedAt = at;
    const v = state.vehicle;
    const trip = this.tripAt(state, at);
    if (trip && at < trip.stoppedAt) {
      const s = trip.stateAt(at);
      v.position = s.position;
      v.heading = s.heading;
      v.positionAt = Math.floor(at / SECOND) * SECOND;
    } else if (trip) {
      v.position = trip.stopPosition;
      v.heading = trip.stateAt(trip.stoppedAt).heading;
      v.positionAt = trip.stoppedAt;
    } else {
      v.position = state.home;
      v.heading = 0;
      v.positionAt = v.createdAt;
    }
    v.odometerKm = this.odometerAt(state, at);
    v.fuelLevelPct = this.fuelAt(state, at);
  }

  // ---------------------------------------------------------------- WorldView

  users(): readonly SimUser[] {
    return this.usersList;
  }

  user(id: string): SimUser | undefined {
    return this.usersById.get(id);
  }

  vehicles(): readonly SimVehicle[] {
    const now = this.now();
    for (const s of this.states) {
      this.load(s);
      this.syncVehicle(s, now);
    }
    return this.states.map((s) => s.vehicle);
  }

  private state(vehicleId: string): VehicleState | undefined {
    const state = this.byVehicleId.get(vehicleId);
    if (state) {
      this.load(state);
      this.syncVehicle(state, this.now());
    }
    return state;
  }

  vehicle(id: string): SimVehicle | undefined {
    return this.state(id)?.vehicle;
  }

  vehicleByVin(vin: string): SimVehicle | undefined {
    const s = this.byVin.get(vin);
    return s ? this.vehicle(s.vehicle.id) : undefined;
  }

  /** The vehicle of a v1 contract number. */
  vehicleByContract(contract: string): SimVehicle | undefined {
    const s = this.byContract.get(contract);
    return s ? this.vehicle(s.vehicle.id) : undefined;
  }

  /** Records exist for the API once their creation time has passed on the world clock. */
  private visible<T extends { createdAt: number }>(items: readonly T[]): readonly T[] {
    const now = this.now();
    const last = items.at(-1);
    if (!last || last.createdAt <= now) return items;
    return items.filter((i) => i.createdAt <= now);
  }

  alerts(vehicleId: string): readonly SimAlert[] {
    const s = this.state(vehicleId);
    return s ? this.visible(s.alerts) : [];
  }

  /** One alert by id (any vehicle), if it exists on the clock. */
  alert(alertId: string): SimAlert | undefined {
    this.loadAll();
    for (const s of this.states) {
      const a = s.alerts.find((x) => x.id === alertId);
      if (a) return a.createdAt <= this.now() ? a : undefined;
    }
    return undefined;
  }

  collisions(vehicleId: string): readonly SimCollision[] {
    const s = this.state(vehicleId);
    return s ? this.visible(s.collisions) : [];
  }

  /** One collision by id (any vehicle). */
  collision(collisionId: string): SimCollision | undefined {
    this.loadAll();
    for (const s of this.states) {
      const c = s.collisions.find((x) => x.id === collisionId);
      if (c) return c.createdAt <= this.now() ? c : undefined;
    }
    return undefined;
  }

  maintenance(vehicleId: string): SimMaintenance | undefined {
    const s = this.state(vehicleId);
    if (!s) return undefined;
    const now = this.now();
    const m = s.maintenance;
    const days = Math.ceil((m.dueAt - now) / DAY);
    const mileage = Math.round(m.dueOdometerKm - s.vehicle.odometerKm);
    // The countdown last changed at the latest day boundary or at the end of the latest trip.
    const lastTrip = this.trips(vehicleId).at(-1);
    const updatedAt = Math.max(m.setAt, Math.min(now, m.dueAt - days * DAY), lastTrip?.stoppedAt ?? 0);
    return { vehicleId, days, mileage, createdAt: m.createdAt, updatedAt };
  }

  trips(vehicleId: string): readonly SimTrip[] {
    const s = this.state(vehicleId);
    if (!s) return [];
    const now = this.now();
    const last = s.trips.at(-1);
    return !last || last.stoppedAt <= now ? s.trips : s.trips.filter((t) => t.stoppedAt <= now);
  }

  trip(tripId: string): SimTrip | undefined {
    this.loadAll();
    const entry = this.tripIndex.get(tripId);
    if (!entry || entry.trip.stoppedAt > this.now()) return undefined;
    return entry.trip;
  }

  events(vehicleId: string): readonly SimEvent[] {
    const s = this.state(vehicleId);
    return s ? this.visible(s.events) : [];
  }

  telemetryAt(vehicleId: string, epochMs: number): SimTelemetry | undefined {
    const s = this.byVehicleId.get(vehicleId);
    if (!s) return undefined;
    this.load(s);
    const at = Math.floor(epochMs / SECOND) * SECOND;
    if (at > this.now() || at < s.vehicle.createdAt) return undefined;
    const trip = this.tripAt(s, at);
    const moving = trip !== undefined && at < trip.stoppedAt;
    const sec = Math.floor(at / SECOND);
    const noise = (k: number): number => (hash32(this.seed, s.index, sec, k) % 1000) / 1000;
    const fuelLevel = this.fuelAt(s, at);
    const electric = s.vehicle.energy === 'electric';
    const hourOfDay = new Date(at).getUTCHours() + 1;
    const dayOfYear = Math.floor(at / DAY) % 365;
    const airTemp = round(
      12 +
        8 * Math.sin(((dayOfYear - 100) / 365) * 2 * Math.PI) +
        4 * Math.sin(((hourOfDay - 9) / 24) * 2 * Math.PI),
      1,
    );
    const base: SimTelemetry = {
      at,
      odometer: this.odometerAt(s, at),
      moving,
      running: moving,
      parkingBrake: !moving,
      airTemp,
      day: hourOfDay >= 7 && hourOfDay < 20,
    };
    if (!moving || !trip) {
      const last = trip ? trip.stopPosition : s.home;
      return {
        ...base,
        speedKmh: 0,
        fuel: {
          level: fuelLevel,
          consumption: 0,
          ...(sec % 10 === 0 ? { autonomy: this.autonomy(s, fuelLevel) } : {}),
        },
        position: last,
        heading: trip ? trip.stateAt(trip.stoppedAt).heading : 0,
      };
    }
    const st = trip.stateAt(at);
    const elapsedS = (at - trip.startedAt) / SECOND;
    const warm = Math.min(1, elapsedS / 600);
    const prev = trip.stateAt(at - SECOND).speedKmh;
    const turn = noise(5);
    return {
      ...base,
      speedKmh: st.speedKmh,
      engines: [
        {
          coolantTemp: round(20 + 70 * warm + noise(1) * 2, 1),
          oilTemp: round(20 + 80 * warm + noise(2) * 2, 1),
          oilLevel: round(82 + noise(3) * 3, 1),
          speed: electric ? round(st.speedKmh * 95, 0) : round(800 + st.speedKmh * 28 + noise(4) * 150, 0),
          status: 'running',
        },
      ],
      fuel: {
        level: fuelLevel,
        consumption: electric ? 0 : round((trip.avgConsumptionL100 / 100) * (0.6 + noise(6) * 0.8), 4),
        ...(sec % 10 === 0 ? { autonomy: this.autonomy(s, fuelLevel) } : {}),
      },
      seatbeltUnbuckled: false,
      position: st.position,
      heading: st.heading,
      accelerationLongitudinal: round(((st.speedKmh - prev) / 3.6) * 1, 2),
      ...(electric ? {} : { gearRecommended: Math.min(6, Math.max(1, Math.ceil(st.speedKmh / 22))) }),
      ...(turn < 0.03
        ? { turnSignal: 'left' as const }
        : turn > 0.97
          ? { turnSignal: 'right' as const }
          : {}),
      tripId: trip.id,
    };
  }

  private autonomy(s: VehicleState, fuelLevel: number): number {
    const per100 = s.vehicle.energy === 'electric' ? 17 : 6.5;
    const capacity = s.vehicle.energy === 'electric' ? 50 : s.spec.tankLiters;
    return Math.round((((fuelLevel / 100) * capacity) / per100) * 100);
  }

  services(vehicleId: string): readonly SimServiceEligibility[] {
    return this.state(vehicleId)?.services ?? [];
  }

  map(vin: string): SimMapInfo | undefined {
    const s = this.byVin.get(vin);
    if (!s) return undefined;
    this.load(s);
    return s.map;
  }

  // ---------------------------------------------------------------- WorldMutations (v1 PUTs)

  setReferenceTrip(tripId: string, reference: boolean): void {
    const t = this.tripIndex.get(tripId)?.trip;
    if (t) {
      t.reference = reference;
      t.updatedAt = this.now();
    }
  }

  setTripFuelPrice(tripId: string, price: number): void {
    const t = this.tripIndex.get(tripId)?.trip;
    if (t) {
      t.fuelPrice = price;
      t.updatedAt = this.now();
    }
  }

  setReferenceFuelPrice(vehicleId: string, price: number): void {
    const s = this.byVehicleId.get(vehicleId);
    if (s) {
      s.vehicle.referenceFuelPrice = price;
      s.vehicle.updatedAt = this.now();
    }
  }

  // ---------------------------------------------------------------- control mutations (/_sim)

  raiseAlert(
    vehicleId: string,
    req: { code?: string; severity?: Severity; tripId?: string },
  ): Outcome<SimAlert> {
    const s = this.state(vehicleId);
    if (!s) return notFound('vehicle', vehicleId);
    const code = req.code ?? ALERT_CODES[s.seq % ALERT_CODES.length] ?? 'engineFault';
    if (!ALERT_CODES.includes(code)) {
      return fail({ kind: 'Invalid', field: 'code', message: `unknown alert code '${code}'` });
    }
    let trip: TripRecord | undefined;
    if (req.tripId !== undefined) {
      trip = s.trips.find((t) => t.id === req.tripId);
      if (!trip)
        return fail({ kind: 'Invalid', field: 'tripId', message: `vehicle has no trip '${req.tripId}'` });
    }
    const current = this.tripAt(s, this.now());
    if (!trip && current && this.now() < current.stoppedAt) trip = current;
    return ok(this.recordAlert(s, code, req.severity, this.now(), trip));
  }

  fixAlert(vehicleId: string, alertId: string): Outcome<SimAlert> {
    const s = this.state(vehicleId);
    if (!s) return notFound('vehicle', vehicleId);
    const alert = this.visible(s.alerts).find((a) => a.id === alertId);
    if (!alert) return notFound('alert', alertId);
    if (!alert.active) return fail({ kind: 'Conflict', message: `alert '${alertId}' is already fixed` });
    this.endAlert(alert, this.now());
    return ok(alert);
  }

  addCollision(vehicleId: string, req: CollisionRequest): Outcome<SimCollision> {
    const s = this.state(vehicleId);
    if (!s) return notFound('vehicle', vehicleId);
    let trip: TripRecord | undefined;
    if (req.tripId !== undefined) {
      trip = s.trips.find((t) => t.id === req.tripId);
      if (!trip)
        return fail({ kind: 'Invalid', field: 'tripId', message: `vehicle has no trip '${req.tripId}'` });
    } else {
      const current = this.tripAt(s, this.now());
      if (current && this.now() < current.stoppedAt) trip = current;
    }
    return ok(
      this.recordCollision(s, {
        at: this.now(),
        ...(trip ? { trip } : {}),
        front: req.front ?? 'medium',
        rear: req.rear ?? 'none',
        lateral: req.lateral ?? 'none',
        rollOver: req.rollOver ?? false,
        pedestrian: req.pedestrian ?? false,
      }),
    );
  }

  setMaintenance(vehicleId: string, days: number, mileage: number): Outcome<SimMaintenance> {
    const s = this.state(vehicleId);
    if (!s) return notFound('vehicle', vehicleId);
    const now = this.now();
    // Due `days` from now, rounded so that the countdown reads exactly `days` until the next boundary.
    s.maintenance.dueAt = now + days * DAY;
    s.maintenance.dueOdometerKm = s.vehicle.odometerKm + mileage;
    s.maintenance.setAt = now;
    return ok(this.maintenance(vehicleId) as SimMaintenance);
  }

  addTrip(vehicleId: string, req: TripRequest): Outcome<TripCreated> {
    const s = this.state(vehicleId);
    if (!s) return notFound('vehicle', vehicleId);
    const now = this.now();
    const durationS = Math.round(req.durationS ?? 900);
    if (durationS < 60 || durationS > 24 * 3600) {
      return fail({ kind: 'Invalid', field: 'durationS', message: 'must be between 60 and 86400 seconds' });
    }
    if (req.distanceKm !== undefined && (req.distanceKm <= 0 || req.distanceKm > 2000)) {
      return fail({ kind: 'Invalid', field: 'distanceKm', message: 'must be > 0 and <= 2000' });
    }
    for (const code of req.alerts ?? []) {
      if (!ALERT_CODES.includes(code)) {
        return fail({ kind: 'Invalid', field: 'alerts', message: `unknown alert code '${code}'` });
      }
    }
    const lastStop = s.trips.at(-1)?.stoppedAt ?? s.vehicle.createdAt;
    const startedAt = req.startedAt ?? Math.max(now - durationS * SECOND, lastStop + MINUTE);
    if (startedAt < lastStop) {
      return fail({
        kind: 'Invalid',
        field: 'startedAt',
        message: `overlaps the previous trip, which stopped at ${new Date(lastStop).toISOString()}`,
      });
    }
    const rng = new Rng(hash32(this.seed, 0x7e1, s.index, s.seq));
    const events: SimEvent[] = [];
    if (req.refueling) {
      const fuel = this.fuelAt(s, startedAt);
      events.push(this.recordFuel(s, 'REFUEL', startedAt - 5 * MINUTE, Math.max(0, 95 - fuel)));
    }
    const trip = this.buildTrip(
      s,
      rng,
      startedAt,
      durationS,
      req.distanceKm,
      this.odometerAt(s, startedAt),
      req.refueling ?? false,
      req.ecoScore,
    );
    events.push(s.events.find((e) => e.recordId === trip.id) as SimEvent);
    const alerts = (req.alerts ?? []).map((code, i, all) => {
      const at = startedAt + Math.round(((i + 1) / (all.length + 1)) * durationS) * SECOND;
      const a = this.recordAlert(s, code, undefined, at, trip);
      events.push(s.events.find((e) => e.recordId === a.id) as SimEvent);
      return a;
    });
    const collisions: SimCollision[] = [];
    if (req.collision) {
      const c = this.recordCollision(s, {
        at: startedAt + Math.round(durationS / 2) * SECOND,
        trip,
        front: 'medium',
        rear: 'none',
        lateral: 'low',
        rollOver: false,
        pedestrian: false,
      });
      collisions.push(c);
      events.push(s.events.find((e) => e.recordId === c.id) as SimEvent);
    }
    this.syncVehicle(s, now, true);
    return ok({ trip, alerts, collisions, events });
  }

  addFuelEvent(vehicleId: string, type: 'refuel' | 'fuel_stolen', liters?: number): Outcome<SimEvent> {
    const s = this.state(vehicleId);
    if (!s) return notFound('vehicle', vehicleId);
    const now = this.now();
    const tank = s.spec.tankLiters;
    const level = this.fuelAt(s, now);
    if (liters !== undefined && (liters <= 0 || liters > tank)) {
      return fail({
        kind: 'Invalid',
        field: 'liters',
        message: `must be > 0 and <= the tank size (${tank} l)`,
      });
    }
    const l =
      liters ??
      (type === 'refuel'
        ? round(((100 - level) / 100) * tank, 1)
        : round(Math.min(15, (level / 100) * tank), 1));
    const delta = ((type === 'refuel' ? l : -l) / tank) * 100;
    const event = this.recordFuel(s, type === 'refuel' ? 'REFUEL' : 'FUEL_STOLEN', now, delta, l);
    this.syncVehicle(s, now, true);
    return ok(event);
  }

  releaseMap(vin: string, version?: string): Outcome<SimMapInfo> {
    const s = this.byVin.get(vin);
    if (!s) return notFound('vehicle with VIN', vin);
    this.load(s);
    const now = this.now();
    const d = new Date(now);
    const next = version ?? `${d.getUTCFullYear()}.${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
    if (next === s.map.availableVersion) {
      // A second release in the same month gets a patch number.
      const m = /^(.*?)(?:\.(\d+))?$/.exec(s.map.availableVersion);
      s.map.availableVersion = `${next}.${Number(m?.[2] ?? 0) + 1}`;
    } else s.map.availableVersion = next;
    s.map.releasedAt = now;
    return ok(s.map);
  }

  setServices(
    vehicleId: string,
    updates: readonly { code: string; eligible: boolean }[],
  ): Outcome<readonly SimServiceEligibility[]> {
    const s = this.state(vehicleId);
    if (!s) return notFound('vehicle', vehicleId);
    for (const u of updates) {
      if (!s.services.some((x) => x.code === u.code)) {
        return fail({ kind: 'Invalid', field: 'services', message: `unknown service code '${u.code}'` });
      }
    }
    for (const u of updates) {
      const entry = s.services.find((x) => x.code === u.code);
      if (entry) entry.eligible = u.eligible;
    }
    return ok(s.services);
  }

  /**
   * Takes a vehicle out of its user's list (GET /vehicles no longer has it, as when the owner
   * removes it from their account) or, with `listed`, puts it back at the end.
   */
  setVehicleListed(userId: string, vehicleId: string, listed: boolean): Outcome<SimUser> {
    const u = this.usersById.get(userId);
    if (!u) return notFound('user', userId);
    const v = this.byVehicleId.get(vehicleId);
    if (!v || v.vehicle.userId !== userId) return notFound('vehicle of this user', vehicleId);
    const at = u.vehicleIds.indexOf(vehicleId);
    if (!listed && at >= 0) u.vehicleIds.splice(at, 1);
    if (listed && at < 0) u.vehicleIds.push(vehicleId);
    u.updatedAt = this.now();
    return ok(u);
  }

  revokeUser(userId: string): Outcome<SimUser> {
    const u = this.usersById.get(userId);
    if (!u) return notFound('user', userId);
    u.revoked = true;
    u.updatedAt = this.now();
    return ok(u);
  }

  // ---------------------------------------------------------------- background activity

  private runActivity(s: VehicleState, now: number): void {
    const act = s.activity;
    if (!act) return;
    while (act.nextTripAt <= now) {
      const rng = act.rng;
      const startedAt = act.nextTripAt;
      const durationS = rng.int(5 * 60, 45 * 60);
      let refueling = false;
      const fuel = this.fuelAt(s, startedAt);
      if (fuel < 25) {
        this.recordFuel(s, 'REFUEL', startedAt - 10 * MINUTE, rng.int(85, 98) - fuel);
        refueling = true;
      }
      // Alerts still on get fixed when the car starts again, more or less often.
      for (const a of s.alerts) {
        if (a.active && a.createdAt < startedAt && rng.chance(0.5)) this.endAlert(a, startedAt);
      }
      const trip = this.buildTrip(
        s,
        rng,
        startedAt,
        durationS,
        undefined,
        this.odometerAt(s, startedAt),
        refueling,
        undefined,
      );
      if (rng.chance(0.15)) {
        this.recordAlert(
          s,
          rng.pick(ALERT_CODES),
          undefined,
          startedAt + rng.int(1, durationS - 1) * SECOND,
          trip,
        );
      }
      act.nextTripAt = trip.stoppedAt + rng.int(20, 6 * 60) * MINUTE;
    }
  }

  // ---------------------------------------------------------------- snapshot

  /** The whole world as JSON-ready data (for `GET /_sim/world`): stable for a seed and start time. */
  snapshot(): unknown {
    this.loadAll();
    const now = this.now();
    return {
      seed: this.seed,
      now: new Date(now).toISOString(),
      clock: this.clock.mode,
      activity: this.activity,
      users: this.usersList.map((u) => ({ ...u, createdAt: iso(u.createdAt), updatedAt: iso(u.updatedAt) })),
      vehicles: this.states.map((s) => {
        const v = this.vehicle(s.vehicle.id) as SimVehicle;
        const id = v.id;
        return {
          ...v,
          createdAt: iso(v.createdAt),
          updatedAt: iso(v.updatedAt),
          positionAt: iso(v.positionAt),
          maintenance: this.maintenance(id),
          alerts: this.alerts(id),
          collisions: this.collisions(id),
          trips: this.trips(id).map((t) => ({
            id: t.id,
            v1Id: t.v1Id,
            startedAt: iso(t.startedAt),
            stoppedAt: iso(t.stoppedAt),
            durationS: t.durationS,
            distanceKm: t.distanceKm,
            fuelConsumptionL: t.fuelConsumptionL,
            refueling: t.refueling,
            reference: t.reference,
            ...(t.fuelPrice !== undefined ? { fuelPrice: t.fuelPrice } : {}),
            startPosition: t.startPosition,
            stopPosition: t.stopPosition,
            waypointCount: Math.ceil(t.durationS / WAYPOINT_INTERVAL_S) + 1,
            ecoScore: t.ecodriving.global.style.score,
          })),
          events: this.events(id),
          services: this.services(id),
          map: this.map(v.vin),
        };
      }),
    };
  }
}

function insertSorted<T extends { createdAt: number }>(list: T[], item: T): void {
  let i = list.length;
  while (i > 0 && (list[i - 1] as T).createdAt > item.createdAt) i--;
  list.splice(i, 0, item);
}

function ascii(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
