/**
 * Background activity: each vehicle drives a trip every 20 minutes to 6 hours of world time, raises
 * an alert on some trips, gets active alerts fixed when it starts again, refuels below 25 %.
 * Deterministic for the seed and the sequence of clock advances.
 */
import { endAlert, recordAlert } from './alerts';
import { ALERT_CODES } from './catalog';
import { recordFuel } from './events';
import { load } from './history';
import { fuelAt, odometerAt } from './motion';
import { MINUTE, SECOND, type VehicleState, type WorldState } from './state';
import { buildTrip } from './trips';

/** Runs background activity up to now; cheap when nothing is due. */
export function tick(w: WorldState): void {
  if (!w.activity) return;
  const now = w.clock.now();
  if (now < w.nextActivityAt) return;
  let next = Number.POSITIVE_INFINITY;
  for (const state of w.states) {
    load(w, state);
    runActivity(w, state, now);
    next = Math.min(next, state.activity?.nextTripAt ?? next);
  }
  w.nextActivityAt = next;
}

function runActivity(w: WorldState, s: VehicleState, now: number): void {
  const act = s.activity;
  if (!act) return;
  while (act.nextTripAt <= now) {
    const rng = act.rng;
    const startedAt = act.nextTripAt;
    const durationS = rng.int(5 * 60, 45 * 60);
    let refueling = false;
    const fuel = fuelAt(s, startedAt);
    if (fuel < 25) {
      recordFuel(w, s, 'REFUEL', startedAt - 10 * MINUTE, rng.int(85, 98) - fuel);
      refueling = true;
    }
    // Alerts still on get fixed when the car starts again, more or less often.
    for (const a of s.alerts) {
      if (a.active && a.createdAt < startedAt && rng.chance(0.5)) endAlert(a, startedAt);
    }
    const trip = buildTrip(w, s, rng, {
      startedAt,
      durationS,
      startOdometerKm: odometerAt(s, startedAt),
      refueling,
    });
    if (rng.chance(0.15)) {
      const code = rng.pick(ALERT_CODES);
      recordAlert(w, s, code, undefined, startedAt + rng.int(1, durationS - 1) * SECOND, trip);
    }
    act.nextTripAt = trip.stoppedAt + rng.int(20, 6 * 60) * MINUTE;
  }
}
