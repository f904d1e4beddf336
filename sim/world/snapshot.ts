/** The whole world as JSON-ready data (for `GET /_sim/world`): stable for a seed and start time. */
import { loadAll } from './history';
import { iso, type WorldState } from './state';
import { WAYPOINT_INTERVAL_S } from './trip';
import type { SimVehicle, WorldView } from './types';

export function snapshot(w: WorldState, view: WorldView): unknown {
  loadAll(w);
  const now = view.now();
  return {
    seed: w.seed,
    now: new Date(now).toISOString(),
    clock: w.clock.mode,
    activity: w.activity,
    users: w.users.map((u) => ({ ...u, createdAt: iso(u.createdAt), updatedAt: iso(u.updatedAt) })),
    vehicles: w.states.map((s) => {
      const v = view.vehicle(s.vehicle.id) as SimVehicle;
      const id = v.id;
      return {
        ...v,
        createdAt: iso(v.createdAt),
        updatedAt: iso(v.updatedAt),
        positionAt: iso(v.positionAt),
        maintenance: view.maintenance(id),
        alerts: view.alerts(id),
        collisions: view.collisions(id),
        trips: view.trips(id).map((t) => ({
          id: t.id,
          v1Id: t.v1Id,
          startedAt: iso(t.startedAt),
          stoppedAt: iso(t.stoppedAt),
          durationS: t.durationS,
          distanceKm: t.distanceKm,
          fuelConsumptionL: t.fuelConsumptionL,
          refueling: t.refueling,
          reference: t.reference,
          fuelPrice: t.fuelPrice,
          startPosition: t.startPosition,
          stopPosition: t.stopPosition,
          waypointCount: Math.ceil(t.durationS / WAYPOINT_INTERVAL_S) + 1,
          ecoScore: t.ecodriving.global.style.score,
        })),
        events: view.events(id),
        services: view.services(id),
        map: view.map(v.vin),
      };
    }),
  };
}
