/**
 * The world's shared state: the population and, per vehicle, its records and ledgers. The resource
 * modules (trips, alerts, collisions, events, maintenance, services, telemetry…) are functions of
 * this state; `World` (world.ts) is the facade the rest of the simulator calls.
 */
import type { ModelSpec } from './catalog';
import type { WorldClock } from './clock';
import { opaqueId, type Rng } from './prng';
import type { TripRecord } from './trip';
import type {
  GeoPoint,
  SimAlert,
  SimCollision,
  SimEvent,
  SimMapInfo,
  SimServiceEligibility,
  SimUser,
  SimVehicle,
} from './types';

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export interface FuelEntry {
  readonly at: number;
  readonly deltaPct: number;
  readonly createdAt: number;
}

export interface MaintenanceState {
  dueAt: number;
  dueOdometerKm: number;
  readonly createdAt: number;
  setAt: number;
}

export interface VehicleState {
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

export interface WorldState {
  readonly seed: number;
  readonly vehicleCount: number;
  readonly activity: boolean;
  readonly clock: WorldClock;
  users: SimUser[];
  readonly usersById: Map<string, SimUser>;
  states: VehicleState[];
  readonly byVehicleId: Map<string, VehicleState>;
  readonly byVin: Map<string, VehicleState>;
  readonly byContract: Map<string, VehicleState>;
  readonly tripIndex: Map<string, { state: VehicleState; trip: TripRecord }>;
  allLoaded: boolean;
  /** Earliest world time background activity has something to do. */
  nextActivityAt: number;
}

/** Kind numbers mixed into ids so that every kind of record gets its own id space. */
export const KIND = { user: 1, vehicle: 2, trip: 3, alert: 4, collision: 5, event: 6 } as const;

/** The next record id of a vehicle: stable for the seed, the vehicle and the order of records. */
export function nextId(w: WorldState, state: VehicleState, kind: number, prefix: string): string {
  state.seq++;
  return opaqueId(prefix, w.seed, kind, state.index, state.seq);
}

/** Inserts by `createdAt`, after records of the same time, so lists stay oldest first. */
export function insertSorted<T extends { createdAt: number }>(list: T[], item: T): void {
  let i = list.length;
  while (i > 0 && (list[i - 1] as T).createdAt > item.createdAt) i--;
  list.splice(i, 0, item);
}

/** Errors of world mutations are values; the control API maps them to 4xx. */
export type WorldError =
  | { readonly kind: 'NotFound'; readonly what: string; readonly id: string }
  | { readonly kind: 'Invalid'; readonly field: string; readonly message: string }
  | { readonly kind: 'Conflict'; readonly message: string };

export type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: WorldError };

export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
export const fail = <T>(error: WorldError): Outcome<T> => ({ ok: false, error });
export const notFound = <T>(what: string, id: string): Outcome<T> => fail({ kind: 'NotFound', what, id });
export const invalid = <T>(field: string, message: string): Outcome<T> =>
  fail({ kind: 'Invalid', field, message });

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Records exist for the API once their creation time has passed on the world clock. */
export function visible<T extends { createdAt: number }>(w: WorldState, items: readonly T[]): readonly T[] {
  const now = w.clock.now();
  const last = items.at(-1);
  if (!last || last.createdAt <= now) return items;
  return items.filter((i) => i.createdAt <= now);
}

/** A record found by id across all vehicles, if it exists on the clock (callers load every vehicle first). */
export function findRecord<T extends { id: string; createdAt: number }>(
  w: WorldState,
  list: (s: VehicleState) => readonly T[],
  id: string,
): T | undefined {
  for (const s of w.states) {
    const r = list(s).find((x) => x.id === id);
    if (r) return r.createdAt <= w.clock.now() ? r : undefined;
  }
  return undefined;
}
