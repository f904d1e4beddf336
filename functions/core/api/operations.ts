/**
 * The operation catalogue: every operation of the interface (spec operations.json, 63 entries). Error
 * values and stats name operations by these ids. A test checks this list against operations.json.
 */

export type ApiArea = 'A' | 'B' | 'C' | 'D' | 'auth';

export interface OperationInfo {
  readonly id: string;
  readonly area: ApiArea;
  readonly method: 'GET' | 'POST' | 'PUT';
  /** Relative to baseUrl (authUrl for `auth.*`). */
  readonly path: string;
}

export const OPERATIONS = [
  { id: 'v2.user', area: 'A', method: 'GET', path: '/connectedcar/v2/user' },
  { id: 'v2.vehicles.list', area: 'A', method: 'GET', path: '/connectedcar/v2/vehicles' },
  { id: 'v2.vehicles.get', area: 'A', method: 'GET', path: '/connectedcar/v2/vehicles/{id}' },
  {
    id: 'v2.vehicles.lastPosition',
    area: 'A',
    method: 'GET',
    path: '/connectedcar/v2/vehicles/{id}/lastPosition',
  },
  { id: 'v2.vehicles.alerts', area: 'A', method: 'GET', path: '/connectedcar/v2/vehicles/{id}/alerts' },
  {
    id: 'v2.vehicles.collisions',
    area: 'A',
    method: 'GET',
    path: '/connectedcar/v2/vehicles/{id}/collisions',
  },
  {
    id: 'v2.vehicles.maintenance',
    area: 'A',
    method: 'GET',
    path: '/connectedcar/v2/vehicles/{id}/maintenance',
  },
  { id: 'v2.vehicles.events', area: 'A', method: 'GET', path: '/connectedcar/v2/vehicles/{id}/events' },
  { id: 'v2.vehicles.telemetry', area: 'A', method: 'GET', path: '/connectedcar/v2/vehicles/{id}/telemetry' },
  { id: 'v2.vehicles.trips', area: 'A', method: 'GET', path: '/connectedcar/v2/vehicles/{id}/trips' },
  { id: 'v2.trips.list', area: 'A', method: 'GET', path: '/connectedcar/v2/trips' },
  { id: 'v2.trips.get', area: 'A', method: 'GET', path: '/connectedcar/v2/trips/{id}' },
  { id: 'v2.trips.collisions', area: 'A', method: 'GET', path: '/connectedcar/v2/trips/{id}/collisions' },
  { id: 'v2.trips.alerts', area: 'A', method: 'GET', path: '/connectedcar/v2/trips/{id}/alerts' },
  { id: 'v2.trips.ecodriving', area: 'A', method: 'GET', path: '/connectedcar/v2/trips/{id}/ecodriving' },
  { id: 'v2.trips.telemetry', area: 'A', method: 'GET', path: '/connectedcar/v2/trips/{id}/telemetry' },
  { id: 'v2.trips.wayPoints', area: 'A', method: 'GET', path: '/connectedcar/v2/trips/{id}/wayPoints' },
  { id: 'v2.services.vehicle', area: 'B', method: 'GET', path: '/connectedcar/v2/services/vehicles/{vin}' },
  {
    id: 'v2.vehicles.eligibilities',
    area: 'B',
    method: 'GET',
    path: '/connectedcar/v2/vehicles/{vin}/eligibilities',
  },
  { id: 'map.vin', area: 'C', method: 'GET', path: '/applications/map/v1/mapway/{vin}' },
  { id: 'map.bulk', area: 'C', method: 'POST', path: '/applications/map/v1/mapway/bulk' },
  { id: 'v1.crash.list', area: 'D', method: 'POST', path: '/connectedcar/v1/dev/crash/list' },
  { id: 'v1.crash.get', area: 'D', method: 'GET', path: '/connectedcar/v1/dev/crash/get/{vin}' },
  { id: 'v1.crash.search', area: 'D', method: 'GET', path: '/connectedcar/v1/dev/crash/search/{vin}' },
  {
    id: 'v1.ecodriving.evaluation.list',
    area: 'D',
    method: 'POST',
    path: '/connectedcar/v1/dev/ecodriving/evaluation/list',
  },
  {
    id: 'v1.ecodriving.evaluation.tripDay.list',
    area: 'D',
    method: 'POST',
    path: '/connectedcar/v1/dev/ecodriving/evaluation/trip/day/list',
  },
  {
    id: 'v1.ecodriving.evaluation.tripDay.get',
    area: 'D',
    method: 'GET',
    path: '/connectedcar/v1/dev/ecodriving/evaluation/trip/day/{vin}',
  },
  {
    id: 'v1.ecodriving.evaluation.perTrip',
    area: 'D',
    method: 'GET',
    path: '/connectedcar/v1/dev/ecodriving/evaluation/pertrip/{vin}/{tripid}',
  },
  {
    id: 'v1.ecodriving.evaluation.tripMonth.list',
    area: 'D',
    method: 'POST',
    path: '/connectedcar/v1/dev/ecodriving/evaluation/trip/month/list',
  },
  {
    id: 'v1.ecodriving.evaluation.tripMonth.get',
    area: 'D',
    method: 'GET',
    path: '/connectedcar/v1/dev/ecodriving/evaluation/trip/month/{vin}',
  },
  {
    id: 'v1.ecodriving.evaluation.get',
    area: 'D',
    method: 'GET',
    path: '/connectedcar/v1/dev/ecodriving/evaluation/get/{vin}',
  },
  {
    id: 'v1.ecodriving.evaluation.lastTrip',
    area: 'D',
    method: 'GET',
    path: '/connectedcar/v1/dev/ecodriving/evaluation/lasttrip/{vin}',
  },
  {
    id: 'v1.ecodriving.evaluation.dayTrips',
    area: 'D',
    method: 'GET',
    path: '/connectedcar/v1/dev/ecodriving/evaluation/daytrips/{vin}',
  },
  { id: 'v1.environment.list', area: 'D', method: 'POST', path: '/connectedcar/v1/dev/environment/list' },
  { id: 'v1.environment.get', area: 'D', method: 'GET', path: '/connectedcar/v1/dev/environment/get/{vin}' },
  { id: 'v1.maintenance.get', area: 'D', method: 'GET', path: '/connectedcar/v1/dev/maintenance/{vin}' },
  { id: 'v1.maintenance.list', area: 'D', method: 'POST', path: '/connectedcar/v1/dev/maintenance/list' },
  {
    id: 'v1.maintenance.alert.list',
    area: 'D',
    method: 'POST',
    path: '/connectedcar/v1/dev/maintenance/list/alert',
  },
  {
    id: 'v1.maintenance.alert.get',
    area: 'D',
    method: 'GET',
    path: '/connectedcar/v1/dev/maintenance/alert/{vin}',
  },
  {
    id: 'v1.place.lastPosition',
    area: 'D',
    method: 'GET',
    path: '/connectedcar/v1/dev/place/lastposition/{vin}',
  },
  {
    id: 'v1.place.tripPositions',
    area: 'D',
    method: 'GET',
    path: '/connectedcar/v1/dev/place/positions/trip/{vin}',
  },
  {
    id: 'v1.referential.maintenance',
    area: 'D',
    method: 'GET',
    path: '/connectedcar/v1/dev/referential/maintenance',
  },
  { id: 'v1.referential.alert', area: 'D', method: 'GET', path: '/connectedcar/v1/dev/referential/alert' },
  {
    id: 'v1.referential.ecodriving',
    area: 'D',
    method: 'GET',
    path: '/connectedcar/v1/dev/referential/ecodriving',
  },
  {
    id: 'v1.running.lightStatus.list',
    area: 'D',
    method: 'POST',
    path: '/connectedcar/v1/dev/running/lightstatus/list',
  },
  {
    id: 'v1.safety.drivingAssistance.get',
    area: 'D',
    method: 'GET',
    path: '/connectedcar/v1/dev/safety/drivingassistance/{vin}',
  },
  {
    id: 'v1.safety.drivingAssistance.day',
    area: 'D',
    method: 'GET',
    path: '/connectedcar/v1/dev/safety/search/drivingassistance/day/{vin}',
  },
  {
    id: 'v1.safety.safetyAssistance.get',
    area: 'D',
    method: 'GET',
    path: '/connectedcar/v1/dev/safety/safetyassistance/{vin}',
  },
  {
    id: 'v1.safety.safetyAssistance.day',
    area: 'D',
    method: 'GET',
    path: '/connectedcar/v1/dev/safety/search/safetyassistance/day/{vin}',
  },
  {
    id: 'v1.trip.referenceTrip.get',
    area: 'D',
    method: 'GET',
    path: '/connectedcar/v1/dev/trip/get/referencetrip/{vin}',
  },
  {
    id: 'v1.trip.referenceTrip.update',
    area: 'D',
    method: 'PUT',
    path: '/connectedcar/v1/dev/trip/update/referencetrip/{vin}',
  },
  { id: 'v1.trip.last', area: 'D', method: 'GET', path: '/connectedcar/v1/dev/trip/last/{vin}' },
  { id: 'v1.trip.list', area: 'D', method: 'POST', path: '/connectedcar/v1/dev/trip/list' },
  { id: 'v1.trip.period', area: 'D', method: 'GET', path: '/connectedcar/v1/dev/trip/period/{vin}' },
  { id: 'v1.trip.get', area: 'D', method: 'GET', path: '/connectedcar/v1/dev/trip/id/{vin}/{tripid}' },
  {
    id: 'v1.trip.fuelPrice.update',
    area: 'D',
    method: 'PUT',
    path: '/connectedcar/v1/dev/trip/update/fuelprice/{vin}/{tripid}',
  },
  {
    id: 'v1.trip.referenceFuelPrice.update',
    area: 'D',
    method: 'PUT',
    path: '/connectedcar/v1/dev/trip/update/reference/fuelprice/{vin}',
  },
  {
    id: 'v1.trip.referenceFuelPrice.get',
    area: 'D',
    method: 'GET',
    path: '/connectedcar/v1/dev/trip/get/reference/fuelprice/{vin}',
  },
  {
    id: 'v1.vehicle.information',
    area: 'D',
    method: 'GET',
    path: '/connectedcar/v1/dev/vehicle/information/{vin}',
  },
  {
    id: 'v1.vehicle.picture.create',
    area: 'D',
    method: 'POST',
    path: '/connectedcar/v1/dev/vehicle/picture/{vin}/{contract}',
  },
  {
    id: 'v1.vehicle.picture.get',
    area: 'D',
    method: 'GET',
    path: '/connectedcar/v1/dev/vehicle/picture/{vin}/{contract}',
  },
  { id: 'auth.authorize', area: 'auth', method: 'GET', path: '/accounts/signin/v1/{brand}/oauth2/authorize' },
  { id: 'auth.token', area: 'auth', method: 'POST', path: '/accounts/signin/v1/{brand}/oauth2/token' },
] as const satisfies readonly OperationInfo[];

export type OperationId = (typeof OPERATIONS)[number]['id'];
