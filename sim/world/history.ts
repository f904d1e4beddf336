/**
 * Two weeks of history per vehicle before the world starts (trips, alerts mostly fixed, a rare
 * collision or fuel theft, refuels, maintenance, services, map), generated on first use from a
 * per-vehicle seed, so the result does not depend on the order vehicles are read in.
 */
import { endAlert, recordAlert } from './alerts';
import { ALERT_CODES, SERVICES } from './catalog';
import { recordCollision } from './collisions';
import { recordFuel } from './events';
import { syncVehicle } from './motion';
import { hash32, Rng } from './prng';
import { DAY, HOUR, MINUTE, SECOND, type VehicleState, type WorldState } from './state';
import { buildTrip } from './trips';
import type { CollisionLevel, SimAlert } from './types';

/** Past trips are generated over this span before the start of the world. */
const HISTORY_SPAN = 14 * DAY;

/** Generates the history of one vehicle, once. */
export function load(w: WorldState, state: VehicleState): void {
  if (state.loaded) return;
  state.loaded = true;
  const rng = new Rng(hash32(w.seed, 0xb0b, state.index));
  const start = w.clock.startTime;
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
      recordFuel(w, state, 'REFUEL', at, delta);
      fuel += delta;
      refueling = true;
    }
    const trip = buildTrip(w, state, rng, { startedAt: t, durationS, startOdometerKm: odometer, refueling });
    // Some trips were starred as reference trips in the brand's own app.
    if (rng.chance(0.08)) trip.reference = true;
    odometer += trip.distanceKm;
    fuel -= trip.drainPct;
    // Most alerts get fixed before the car starts again (a dealer visit, a refill…); some stay on.
    for (const alert of pendingFixes.splice(0)) endAlert(alert, t - rng.int(10, 120) * MINUTE);
    if (rng.chance(0.09)) {
      const at = trip.startedAt + rng.int(1, durationS - 1) * SECOND;
      const alert = recordAlert(w, state, rng.pick(ALERT_CODES), undefined, at, trip);
      if (rng.chance(0.92)) pendingFixes.push(alert);
    }
    t = trip.stoppedAt + rng.int(2 * 60, 22 * 60) * MINUTE;
  }
  const trips = state.trips;
  const lastTrip = trips.at(-1);
  // A few vehicles come with an alert still on from their latest trip: a first poll sees a baseline.
  if (lastTrip && rng.chance(0.2)) {
    const at = lastTrip.startedAt + rng.int(1, lastTrip.durationS - 1) * SECOND;
    recordAlert(w, state, rng.pick(ALERT_CODES), undefined, at, lastTrip);
  }
  if (trips.length > 0 && rng.chance(0.12)) {
    const trip = rng.pick(trips);
    const level = (): CollisionLevel => rng.pick(['none', 'none', 'fixable', 'low', 'medium']);
    recordCollision(w, state, {
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
    recordFuel(w, state, 'FUEL_STOLEN', at, -(liters / state.spec.tankLiters) * 100, liters);
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
  if (w.activity) {
    state.activity = {
      rng: new Rng(hash32(w.seed, 0xac7, state.index)),
      nextTripAt: start + rng.int(1, 90) * MINUTE,
    };
  }
  syncVehicle(state, start);
}

/** Generates the history of every vehicle (for lookups by record id and the snapshot). */
export function loadAll(w: WorldState): void {
  if (w.allLoaded) return;
  for (const s of w.states) load(w, s);
  w.allLoaded = true;
}
