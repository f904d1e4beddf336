/** Collisions of a vehicle: impact levels per side, during a trip or at rest. */
import { ownTrip } from './alerts';
import { recordEvent } from './events';
import { positionAt, runningTripAt } from './motion';
import { insertSorted, KIND, nextId, type Outcome, ok, type VehicleState, type WorldState } from './state';
import type { TripRecord } from './trip';
import type { CollisionLevel, SimCollision } from './types';

export interface CollisionRequest {
  readonly front?: CollisionLevel;
  readonly rear?: CollisionLevel;
  readonly lateral?: CollisionLevel;
  readonly rollOver?: boolean;
  readonly pedestrian?: boolean;
  readonly tripId?: string;
}

export interface CollisionRecord {
  readonly at: number;
  readonly trip?: TripRecord;
  readonly front: CollisionLevel;
  readonly rear: CollisionLevel;
  readonly lateral: CollisionLevel;
  readonly rollOver: boolean;
  readonly pedestrian: boolean;
}

export function recordCollision(w: WorldState, state: VehicleState, c: CollisionRecord): SimCollision {
  const collision: SimCollision = {
    id: nextId(w, state, KIND.collision, 'c'),
    vehicleId: state.vehicle.id,
    tripId: c.trip?.id,
    rollOver: c.rollOver,
    pedestrian: c.pedestrian,
    front: c.front,
    rear: c.rear,
    lateral: c.lateral,
    position: positionAt(state, c.at),
    createdAt: c.at,
    updatedAt: c.at,
  };
  insertSorted(state.collisions, collision);
  recordEvent(w, state, 'COLLISION', collision.id, c.at, { position: collision.position });
  return collision;
}

/** A collision now (a medium front impact by default): of the given trip, else of the trip under way. */
export function addCollision(w: WorldState, s: VehicleState, req: CollisionRequest): Outcome<SimCollision> {
  let trip: TripRecord | undefined;
  if (req.tripId !== undefined) {
    const own = ownTrip(s, req.tripId);
    if (!own.ok) return own;
    trip = own.value;
  } else {
    trip = runningTripAt(s, w.clock.now());
  }
  return ok(
    recordCollision(w, s, {
      at: w.clock.now(),
      trip,
      front: req.front ?? 'medium',
      rear: req.rear ?? 'none',
      lateral: req.lateral ?? 'none',
      rollOver: req.rollOver ?? false,
      pedestrian: req.pedestrian ?? false,
    }),
  );
}
