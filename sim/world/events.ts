/**
 * The event feed of a vehicle and the fuel ledger behind `REFUEL` and `FUEL_STOLEN` events. Every
 * record (trip, alert, collision, fuel change) adds one event whose `recordId` names it.
 */
import { fuelAt, positionAt, syncVehicle } from './motion';
import {
  insertSorted,
  invalid,
  KIND,
  nextId,
  type Outcome,
  ok,
  type VehicleState,
  type WorldState,
} from './state';
import { round } from './trip';
import type { GeoPoint, SimEvent, SimEventType } from './types';

export function recordEvent(
  w: WorldState,
  state: VehicleState,
  type: SimEventType,
  recordId: string,
  at: number,
  extra: { liters?: number; position?: GeoPoint } = {},
): SimEvent {
  const event: SimEvent = {
    id: nextId(w, state, KIND.event, 'e'),
    vehicleId: state.vehicle.id,
    type,
    recordId,
    liters: extra.liters,
    position: extra.position,
    createdAt: at,
    updatedAt: at,
  };
  insertSorted(state.events, event);
  return event;
}

/** A change of the tank level (`deltaPct` of the tank) and its event; liters derive from the tank size. */
export function recordFuel(
  w: WorldState,
  state: VehicleState,
  type: 'REFUEL' | 'FUEL_STOLEN',
  at: number,
  deltaPct: number,
  liters?: number,
): SimEvent {
  const l = liters ?? Math.round(((deltaPct * state.spec.tankLiters) / 100) * 10) / 10;
  insertSorted(state.fuelLedger, { at, deltaPct, createdAt: at });
  state.syncedAt = undefined;
  const id = nextId(w, state, KIND.event, 'f');
  return recordEvent(w, state, type, id, at, {
    liters: Math.abs(l),
    position: positionAt(state, at),
  });
}

/** A refuel (to full by default) or a fuel theft (up to 15 l by default) now. */
export function addFuelEvent(
  w: WorldState,
  s: VehicleState,
  type: 'refuel' | 'fuel_stolen',
  liters?: number,
): Outcome<SimEvent> {
  const now = w.clock.now();
  const tank = s.spec.tankLiters;
  const level = fuelAt(s, now);
  if (liters !== undefined && (liters <= 0 || liters > tank)) {
    return invalid('liters', `must be > 0 and <= the tank size (${tank} l)`);
  }
  const l =
    liters ??
    (type === 'refuel'
      ? round(((100 - level) / 100) * tank, 1)
      : round(Math.min(15, (level / 100) * tank), 1));
  const delta = ((type === 'refuel' ? l : -l) / tank) * 100;
  const event = recordFuel(w, s, type === 'refuel' ? 'REFUEL' : 'FUEL_STOLEN', now, delta, l);
  syncVehicle(s, now, true);
  return ok(event);
}
