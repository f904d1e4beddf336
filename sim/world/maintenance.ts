/** The maintenance countdown of a vehicle: days and kilometers until the next service, negative when overdue. */
import { DAY, type VehicleState, type WorldState } from './state';
import { endedTrips } from './trips';
import type { SimMaintenance } from './types';

export function maintenanceOf(w: WorldState, s: VehicleState): SimMaintenance {
  const now = w.clock.now();
  const m = s.maintenance;
  const days = Math.ceil((m.dueAt - now) / DAY);
  const mileage = Math.round(m.dueOdometerKm - s.vehicle.odometerKm);
  // The countdown last changed at the latest day boundary or at the end of the latest trip.
  const lastTrip = endedTrips(w, s).at(-1);
  const updatedAt = Math.max(m.setAt, Math.min(now, m.dueAt - days * DAY), lastTrip?.stoppedAt ?? 0);
  return { vehicleId: s.vehicle.id, days, mileage, createdAt: m.createdAt, updatedAt };
}

/** Due `days` from now and `mileage` km from the current odometer, so the countdown reads exactly that. */
export function setMaintenance(
  w: WorldState,
  s: VehicleState,
  days: number,
  mileage: number,
): SimMaintenance {
  const now = w.clock.now();
  s.maintenance.dueAt = now + days * DAY;
  s.maintenance.dueOdometerKm = s.vehicle.odometerKm + mileage;
  s.maintenance.setAt = now;
  return maintenanceOf(w, s);
}
