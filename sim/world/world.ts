/**
 * The simulated world: users, their vehicles and everything that happened to them, on a world
 * clock. `World` is the facade the API renderers, the control API and tests call; each resource
 * lives in its own module over the shared state (state.ts). History per vehicle is generated on
 * first access from a per-vehicle seed, so laziness never changes the result: a seed (and start
 * time) gives one world.
 */
import { tick } from './activity';
import { fixAlert, raiseAlert } from './alerts';
import { type ClockMode, DEFAULT_MANUAL_START, WorldClock } from './clock';
import { addCollision, type CollisionRequest } from './collisions';
import { addFuelEvent } from './events';
import { load, loadAll } from './history';
import { maintenanceOf, setMaintenance } from './maintenance';
import { syncVehicle } from './motion';
import { releaseMap, setServices } from './services';
import { snapshot } from './snapshot';
import { findRecord, notFound, type Outcome, ok, type VehicleState, visible, type WorldState } from './state';
import { telemetryAt } from './telemetry';
import {
  addTrip,
  endedTrips,
  setReferenceTrip,
  setTripFuelPrice,
  type TripCreated,
  type TripRequest,
} from './trips';
import type {
  Severity,
  SimAlert,
  SimCollision,
  SimEvent,
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
import { generatePopulation, revokeUser, setVehicleListed } from './users';

export type { CollisionRequest } from './collisions';
export { iso, type Outcome, type WorldError } from './state';
export type { TripCreated, TripRequest } from './trips';

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

export class World implements WorldView, WorldMutations {
  readonly seed: number;
  readonly vehicleCount: number;
  readonly activity: boolean;
  readonly clock: WorldClock;
  private readonly w: WorldState;

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
    this.w = {
      seed: this.seed,
      vehicleCount: this.vehicleCount,
      activity: this.activity,
      clock: this.clock,
      users: [],
      usersById: new Map(),
      states: [],
      byVehicleId: new Map(),
      byVin: new Map(),
      byContract: new Map(),
      tripIndex: new Map(),
      allLoaded: false,
      nextActivityAt: Number.POSITIVE_INFINITY,
    };
    generatePopulation(this.w);
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
    tick(this.w);
  }

  /** Back to the generated world of the same seed and start time; advances of the clock are dropped. */
  reset(): void {
    this.clock.resetAdvances();
    this.v1Withdrawn.clear();
    generatePopulation(this.w);
  }

  /** VINs the v1 API no longer knows (taken off their contract through the control API). */
  private readonly v1Withdrawn = new Set<string>();

  v1Knows(vin: string): boolean {
    return this.w.byVin.has(vin) && !this.v1Withdrawn.has(vin);
  }

  setV1Known(vin: string, known: boolean): boolean {
    if (!this.w.byVin.has(vin)) return false;
    if (known) this.v1Withdrawn.delete(vin);
    else this.v1Withdrawn.add(vin);
    return true;
  }

  // ---------------------------------------------------------------- lookups

  /** A vehicle's state with its history generated and its current fields derived for now. */
  private state(vehicleId: string): VehicleState | undefined {
    const state = this.w.byVehicleId.get(vehicleId);
    if (state) {
      load(this.w, state);
      syncVehicle(state, this.now());
    }
    return state;
  }

  /** Runs a mutation on a known vehicle, or answers 'vehicle not found'. */
  private onVehicle<T>(vehicleId: string, f: (s: VehicleState) => Outcome<T>): Outcome<T> {
    const s = this.state(vehicleId);
    return s ? f(s) : notFound('vehicle', vehicleId);
  }

  // ---------------------------------------------------------------- WorldView

  users(): readonly SimUser[] {
    return this.w.users;
  }

  user(id: string): SimUser | undefined {
    return this.w.usersById.get(id);
  }

  vehicles(): readonly SimVehicle[] {
    const now = this.now();
    for (const s of this.w.states) {
      load(this.w, s);
      syncVehicle(s, now);
    }
    return this.w.states.map((s) => s.vehicle);
  }

  vehicle(id: string): SimVehicle | undefined {
    return this.state(id)?.vehicle;
  }

  vehicleByVin(vin: string): SimVehicle | undefined {
    const s = this.w.byVin.get(vin);
    return s ? this.vehicle(s.vehicle.id) : undefined;
  }

  /** The vehicle of a v1 contract number. */
  vehicleByContract(contract: string): SimVehicle | undefined {
    const s = this.w.byContract.get(contract);
    return s ? this.vehicle(s.vehicle.id) : undefined;
  }

  alerts(vehicleId: string): readonly SimAlert[] {
    const s = this.state(vehicleId);
    return s ? visible(this.w, s.alerts) : [];
  }

  /** One alert by id (any vehicle), if it exists on the clock. */
  alert(alertId: string): SimAlert | undefined {
    loadAll(this.w);
    return findRecord(this.w, (s) => s.alerts, alertId);
  }

  collisions(vehicleId: string): readonly SimCollision[] {
    const s = this.state(vehicleId);
    return s ? visible(this.w, s.collisions) : [];
  }

  /** One collision by id (any vehicle), if it exists on the clock. */
  collision(collisionId: string): SimCollision | undefined {
    loadAll(this.w);
    return findRecord(this.w, (s) => s.collisions, collisionId);
  }

  maintenance(vehicleId: string): SimMaintenance | undefined {
    const s = this.state(vehicleId);
    return s ? maintenanceOf(this.w, s) : undefined;
  }

  trips(vehicleId: string): readonly SimTrip[] {
    const s = this.state(vehicleId);
    return s ? endedTrips(this.w, s) : [];
  }

  trip(tripId: string): SimTrip | undefined {
    loadAll(this.w);
    const entry = this.w.tripIndex.get(tripId);
    if (!entry || entry.trip.stoppedAt > this.now()) return undefined;
    return entry.trip;
  }

  events(vehicleId: string): readonly SimEvent[] {
    const s = this.state(vehicleId);
    return s ? visible(this.w, s.events) : [];
  }

  telemetryAt(vehicleId: string, epochMs: number): SimTelemetry | undefined {
    const s = this.w.byVehicleId.get(vehicleId);
    if (!s) return undefined;
    load(this.w, s);
    return telemetryAt(this.w, s, epochMs);
  }

  services(vehicleId: string): readonly SimServiceEligibility[] {
    return this.state(vehicleId)?.services ?? [];
  }

  map(vin: string): SimMapInfo | undefined {
    const s = this.w.byVin.get(vin);
    if (!s) return undefined;
    load(this.w, s);
    return s.map;
  }

  // ---------------------------------------------------------------- WorldMutations (v1 PUTs)

  setReferenceTrip(tripId: string, reference: boolean): void {
    setReferenceTrip(this.w, tripId, reference);
  }

  setTripFuelPrice(tripId: string, price: number): void {
    setTripFuelPrice(this.w, tripId, price);
  }

  setReferenceFuelPrice(vehicleId: string, price: number): void {
    const s = this.w.byVehicleId.get(vehicleId);
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
    return this.onVehicle(vehicleId, (s) => raiseAlert(this.w, s, req));
  }

  fixAlert(vehicleId: string, alertId: string): Outcome<SimAlert> {
    return this.onVehicle(vehicleId, (s) => fixAlert(this.w, s, alertId));
  }

  addCollision(vehicleId: string, req: CollisionRequest): Outcome<SimCollision> {
    return this.onVehicle(vehicleId, (s) => addCollision(this.w, s, req));
  }

  setMaintenance(vehicleId: string, days: number, mileage: number): Outcome<SimMaintenance> {
    return this.onVehicle(vehicleId, (s) => ok(setMaintenance(this.w, s, days, mileage)));
  }

  addTrip(vehicleId: string, req: TripRequest): Outcome<TripCreated> {
    return this.onVehicle(vehicleId, (s) => addTrip(this.w, s, req));
  }

  addFuelEvent(vehicleId: string, type: 'refuel' | 'fuel_stolen', liters?: number): Outcome<SimEvent> {
    return this.onVehicle(vehicleId, (s) => addFuelEvent(this.w, s, type, liters));
  }

  releaseMap(vin: string, version?: string): Outcome<SimMapInfo> {
    const s = this.w.byVin.get(vin);
    if (!s) return notFound('vehicle with VIN', vin);
    load(this.w, s);
    return ok(releaseMap(this.w, s, version));
  }

  setServices(
    vehicleId: string,
    updates: readonly { code: string; eligible: boolean }[],
  ): Outcome<readonly SimServiceEligibility[]> {
    return this.onVehicle(vehicleId, (s) => setServices(s, updates));
  }

  /**
   * Takes a vehicle out of its user's list (GET /vehicles no longer has it, as when the owner
   * removes it from their account) or, with `listed`, puts it back at the end.
   */
  setVehicleListed(userId: string, vehicleId: string, listed: boolean): Outcome<SimUser> {
    return setVehicleListed(this.w, userId, vehicleId, listed);
  }

  revokeUser(userId: string): Outcome<SimUser> {
    return revokeUser(this.w, userId);
  }

  // ---------------------------------------------------------------- snapshot

  /** The whole world as JSON-ready data (for `GET /_sim/world`): stable for a seed and start time. */
  snapshot(): unknown {
    return snapshot(this.w, this);
  }
}
