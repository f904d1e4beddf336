/** Collisions of v2: per vehicle (with a date range) and per trip. */
import { checkId } from '../checks';
import type { ApiContext } from '../context';
import { type ListOperation, list } from '../list';
import type { Collision } from '../model';
import { wCollision } from '../wire/v2';
import { type TripSubListParams, tripSub, type VehicleListParams, vehicleList } from './params';

export interface CollisionsApi {
  collisions: ListOperation<VehicleListParams, Collision>;
  tripCollisions: ListOperation<TripSubListParams, Collision>;
}

const plainVehicleList = vehicleList<VehicleListParams>();

export function collisionsApi(ctx: ApiContext): CollisionsApi {
  return {
    collisions: list(ctx, {
      op: 'v2.vehicles.collisions',
      embedded: 'collisions',
      item: wCollision,
      defaultLimit: 10,
      validate: plainVehicleList.validate('v2.vehicles.collisions'),
      build: plainVehicleList.build('collisions'),
    }),
    tripCollisions: list(ctx, {
      op: 'v2.trips.collisions',
      embedded: 'collisions',
      item: wCollision,
      defaultLimit: 10,
      validate: (p) => checkId('v2.trips.collisions', 'tripId', p.tripId),
      build: tripSub('collisions'),
    }),
  };
}
