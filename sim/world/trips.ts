/**
 * Trips of a vehicle: a route from where the vehicle stands, its fuel use and eco-driving, and the
 * `TRIP` event at its stop. A trip exists for the API once it has ended.
 */
import { recordAlert } from './alerts';
import { ALERT_CODES } from './catalog';
import { recordCollision } from './collisions';
import { recordEvent, recordFuel } from './events';
import { distanceKm, offset, roundPoint } from './geo';
import { fuelAt, odometerAt, positionAt, syncVehicle } from './motion';
import { hash32, Rng } from './prng';
import {
  invalid,
  KIND,
  MINUTE,
  nextId,
  type Outcome,
  ok,
  SECOND,
  type VehicleState,
  type WorldState,
} from './state';
import { generateEcoDriving, TripRecord } from './trip';
import type { SimAlert, SimCollision, SimEvent, SimTrip } from './types';

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

export interface TripPlan {
  readonly startedAt: number;
  readonly durationS: number;
  /** Kilometers; default from a random average speed over the duration. */
  readonly distanceKm?: number;
  readonly startOdometerKm: number;
  readonly refueling: boolean;
  readonly ecoScore?: number;
}

/** Builds a trip from where the vehicle stands at its start, records it and its `TRIP` event. */
export function buildTrip(w: WorldState, state: VehicleState, rng: Rng, plan: TripPlan): TripRecord {
  const { startedAt, durationS } = plan;
  const from = positionAt(state, startedAt);
  const speed = rng.range(22, 70);
  const km = plan.distanceKm ?? Math.max(0.5, (speed * durationS) / 3600);
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
    id: nextId(w, state, KIND.trip, 't'),
    v1Id: (state.index + 1) * 100_000 + seq,
    vehicleId: state.vehicle.id,
    startedAt,
    durationS,
    distanceKm: km,
    start: from,
    stop: roundPoint(dest),
    via,
    startOdometerKm: plan.startOdometerKm,
    fuelConsumptionL: liters,
    drainPct,
    refueling: plan.refueling,
    ecodriving: generateEcoDriving(rng, plan.ecoScore),
  });
  state.trips.push(trip);
  state.syncedAt = undefined;
  w.tripIndex.set(trip.id, { state, trip });
  recordEvent(w, state, 'TRIP', trip.id, trip.stoppedAt);
  return trip;
}

/** Trips of a vehicle that have ended on the world clock, oldest first. */
export function endedTrips(w: WorldState, s: VehicleState): readonly SimTrip[] {
  const now = w.clock.now();
  const last = s.trips.at(-1);
  return !last || last.stoppedAt <= now ? s.trips : s.trips.filter((t) => t.stoppedAt <= now);
}

/** The event a record added (each record adds exactly one). */
function eventOf(s: VehicleState, recordId: string): SimEvent {
  return s.events.find((e) => e.recordId === recordId) as SimEvent;
}

/** A trip on request, with the alerts, collision and refuel asked for, and their events. */
export function addTrip(w: WorldState, s: VehicleState, req: TripRequest): Outcome<TripCreated> {
  const now = w.clock.now();
  const durationS = Math.round(req.durationS ?? 900);
  if (durationS < 60 || durationS > 24 * 3600)
    return invalid('durationS', 'must be between 60 and 86400 seconds');
  if (req.distanceKm !== undefined && (req.distanceKm <= 0 || req.distanceKm > 2000)) {
    return invalid('distanceKm', 'must be > 0 and <= 2000');
  }
  for (const code of req.alerts ?? []) {
    if (!ALERT_CODES.includes(code)) return invalid('alerts', `unknown alert code '${code}'`);
  }
  const lastStop = s.trips.at(-1)?.stoppedAt ?? s.vehicle.createdAt;
  const startedAt = req.startedAt ?? Math.max(now - durationS * SECOND, lastStop + MINUTE);
  if (startedAt < lastStop) {
    return invalid(
      'startedAt',
      `overlaps the previous trip, which stopped at ${new Date(lastStop).toISOString()}`,
    );
  }
  const rng = new Rng(hash32(w.seed, 0x7e1, s.index, s.seq));
  const events: SimEvent[] = [];
  if (req.refueling) {
    const fuel = fuelAt(s, startedAt);
    events.push(recordFuel(w, s, 'REFUEL', startedAt - 5 * MINUTE, Math.max(0, 95 - fuel)));
  }
  const trip = buildTrip(w, s, rng, {
    startedAt,
    durationS,
    distanceKm: req.distanceKm,
    startOdometerKm: odometerAt(s, startedAt),
    refueling: req.refueling ?? false,
    ecoScore: req.ecoScore,
  });
  events.push(eventOf(s, trip.id));
  const alerts = (req.alerts ?? []).map((code, i, all) => {
    const at = startedAt + Math.round(((i + 1) / (all.length + 1)) * durationS) * SECOND;
    const a = recordAlert(w, s, code, undefined, at, trip);
    events.push(eventOf(s, a.id));
    return a;
  });
  const collisions: SimCollision[] = [];
  if (req.collision) {
    const c = recordCollision(w, s, {
      at: startedAt + Math.round(durationS / 2) * SECOND,
      trip,
      front: 'medium',
      rear: 'none',
      lateral: 'low',
      rollOver: false,
      pedestrian: false,
    });
    collisions.push(c);
    events.push(eventOf(s, c.id));
  }
  syncVehicle(s, now, true);
  return ok({ trip, alerts, collisions, events });
}

/** Marks a trip as a reference trip (or not): a v1 write. */
export function setReferenceTrip(w: WorldState, tripId: string, reference: boolean): void {
  const t = w.tripIndex.get(tripId)?.trip;
  if (t) {
    t.reference = reference;
    t.updatedAt = w.clock.now();
  }
}

/** Sets the fuel price of one trip: a v1 write. */
export function setTripFuelPrice(w: WorldState, tripId: string, price: number): void {
  const t = w.tripIndex.get(tripId)?.trip;
  if (t) {
    t.fuelPrice = price;
    t.updatedAt = w.clock.now();
  }
}
