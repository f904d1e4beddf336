/**
 * Where a vehicle is and what it holds at a given instant, derived from its trips and fuel ledger:
 * on the road during a trip, parked at the last stop otherwise.
 */
import { SECOND, type VehicleState } from './state';
import { round, type TripRecord } from './trip';
import type { GeoPoint } from './types';

/** The latest trip started at or before `at` (binary search: trips are sorted by start). */
export function tripAt(state: VehicleState, at: number): TripRecord | undefined {
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

/** The trip under way at `at`, if the vehicle is driving then. */
export function runningTripAt(state: VehicleState, at: number): TripRecord | undefined {
  const trip = tripAt(state, at);
  return trip && at < trip.stoppedAt ? trip : undefined;
}

/** Position of the vehicle at `at`: on the road during a trip, parked at the last stop otherwise. */
export function positionAt(state: VehicleState, at: number): GeoPoint {
  const trip = tripAt(state, at);
  if (!trip) return state.home;
  return at < trip.stoppedAt ? trip.stateAt(at).position : trip.stopPosition;
}

export function odometerAt(state: VehicleState, at: number): number {
  const trip = tripAt(state, at);
  if (!trip) return state.baseOdometerKm;
  const f = at < trip.stoppedAt ? trip.stateAt(at).fraction : 1;
  return round(trip.startOdometerKm + trip.distanceKm * f, 1);
}

/** Tank (or battery) percent at `at`: the starting level, minus trips, plus the fuel ledger. */
export function fuelAt(state: VehicleState, at: number): number {
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

/** Refreshes the "current" fields of a vehicle (position, odometer, fuel) for world time `at`. */
export function syncVehicle(state: VehicleState, at: number, force = false): void {
  if (!force && state.syncedAt === at) return;
  state.syncedAt = at;
  const v = state.vehicle;
  const trip = tripAt(state, at);
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
  v.odometerKm = odometerAt(state, at);
  v.fuelLevelPct = fuelAt(state, at);
}
