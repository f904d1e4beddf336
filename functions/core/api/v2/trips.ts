/** Trips of v2: all trips, a vehicle's trips, one trip, its eco-driving score and its waypoints. */
import { checkId, checkRange, rangeQuery, V2 } from '../checks';
import type { ApiContext } from '../context';
import type { Result } from '../errors';
import { type ListOperation, list, single } from '../list';
import type { EcoDriving, Trip } from '../model';
import type { CallOptions } from '../transport';
import { type Waypoint, wEcoDriving, wTrip, wWaypoint } from '../wire/v2';
import {
  type TripListParams,
  type TripSubListParams,
  tripSub,
  type VehicleListParams,
  vehicleList,
} from './params';

export interface TripsApi {
  vehicleTrips: ListOperation<VehicleListParams, Trip>;
  trips: ListOperation<TripListParams, Trip>;
  trip(tripId: string, call?: CallOptions): Promise<Result<Trip>>;
  tripEcodriving(tripId: string, call?: CallOptions): Promise<Result<EcoDriving>>;
  tripWaypoints: ListOperation<TripSubListParams, Waypoint>;
}

const plainVehicleList = vehicleList<VehicleListParams>();

export function tripsApi(ctx: ApiContext): TripsApi {
  return {
    vehicleTrips: list(ctx, {
      op: 'v2.vehicles.trips',
      embedded: 'trips',
      item: wTrip,
      defaultLimit: 10,
      validate: plainVehicleList.validate('v2.vehicles.trips'),
      build: plainVehicleList.build('trips'),
    }),
    trips: list<TripListParams, Trip>(ctx, {
      op: 'v2.trips.list',
      embedded: 'trips',
      item: wTrip,
      defaultLimit: 10,
      validate: (p) => checkRange('v2.trips.list', p),
      build: (p) => ({ path: `${V2}/trips`, query: rangeQuery(p) }),
    }),
    trip: single(ctx, 'v2.trips.get', `${V2}/trips/{id}`, wTrip),
    tripEcodriving: single(ctx, 'v2.trips.ecodriving', `${V2}/trips/{id}/ecodriving`, wEcoDriving),
    tripWaypoints: list(ctx, {
      op: 'v2.trips.wayPoints',
      // The waypoint list's embedded name is not documented: both spellings are accepted.
      embedded: ['wayPoints', 'waypoints'],
      item: wWaypoint,
      defaultLimit: 10,
      validate: (p) => checkId('v2.trips.wayPoints', 'tripId', p.tripId),
      build: tripSub('wayPoints'),
    }),
  };
}
