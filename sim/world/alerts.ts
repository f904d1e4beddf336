/** Alerts of a vehicle: raised during a trip (or at rest), active until fixed. */
import { ALERT_CODES, alertClass } from './catalog';
import { recordEvent } from './events';
import { positionAt, runningTripAt } from './motion';
import {
  fail,
  insertSorted,
  invalid,
  KIND,
  nextId,
  notFound,
  type Outcome,
  ok,
  type VehicleState,
  visible,
  type WorldState,
} from './state';
import type { TripRecord } from './trip';
import type { Severity, SimAlert } from './types';

export function recordAlert(
  w: WorldState,
  state: VehicleState,
  code: string,
  severity: Severity | undefined,
  at: number,
  trip: TripRecord | undefined,
): SimAlert {
  const cls = alertClass(code);
  const alert: SimAlert = {
    id: nextId(w, state, KIND.alert, 'a'),
    vehicleId: state.vehicle.id,
    code,
    severity: severity ?? cls.severity,
    category: cls.category,
    position: positionAt(state, at),
    tripId: trip?.id,
    createdAt: at,
    updatedAt: at,
    active: true,
  };
  insertSorted(state.alerts, alert);
  recordEvent(w, state, 'ALERT', alert.id, at, { position: alert.position });
  return alert;
}

export function endAlert(alert: SimAlert, at: number): void {
  alert.active = false;
  alert.endedAt = at;
  alert.updatedAt = at;
}

/** The trip named by `tripId`, or an `Invalid` outcome naming the field. */
export function ownTrip(s: VehicleState, tripId: string): Outcome<TripRecord> {
  const trip = s.trips.find((t) => t.id === tripId);
  return trip ? ok(trip) : invalid('tripId', `vehicle has no trip '${tripId}'`);
}

/** An alert now: of the given trip, else of the trip under way, else at rest. */
export function raiseAlert(
  w: WorldState,
  s: VehicleState,
  req: { code?: string; severity?: Severity; tripId?: string },
): Outcome<SimAlert> {
  const code = req.code ?? ALERT_CODES[s.seq % ALERT_CODES.length] ?? 'engineFault';
  if (!ALERT_CODES.includes(code)) return invalid('code', `unknown alert code '${code}'`);
  let trip: TripRecord | undefined;
  if (req.tripId !== undefined) {
    const own = ownTrip(s, req.tripId);
    if (!own.ok) return own;
    trip = own.value;
  }
  trip ??= runningTripAt(s, w.clock.now());
  return ok(recordAlert(w, s, code, req.severity, w.clock.now(), trip));
}

export function fixAlert(w: WorldState, s: VehicleState, alertId: string): Outcome<SimAlert> {
  const alert = visible(w, s.alerts).find((a) => a.id === alertId);
  if (!alert) return notFound('alert', alertId);
  if (!alert.active) return fail({ kind: 'Conflict', message: `alert '${alertId}' is already fixed` });
  endAlert(alert, w.clock.now());
  return ok(alert);
}
