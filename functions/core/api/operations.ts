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

/** Where each area's paths start: v2 and services, the map API, the v1 development API, OAuth. */
const AREA_PATHS = {
  A: '/connectedcar/v2',
  B: '/connectedcar/v2',
  C: '/applications/map/v1',
  D: '/connectedcar/v1/dev',
  auth: '/accounts/signin/v1/{brand}/oauth2',
} as const satisfies Record<ApiArea, string>;

/** id, area, method, and the path after the area's start. */
const ROWS = [
  ['v2.user', 'A', 'GET', '/user'],
  ['v2.vehicles.list', 'A', 'GET', '/vehicles'],
  ['v2.vehicles.get', 'A', 'GET', '/vehicles/{id}'],
  ['v2.vehicles.lastPosition', 'A', 'GET', '/vehicles/{id}/lastPosition'],
  ['v2.vehicles.alerts', 'A', 'GET', '/vehicles/{id}/alerts'],
  ['v2.vehicles.collisions', 'A', 'GET', '/vehicles/{id}/collisions'],
  ['v2.vehicles.maintenance', 'A', 'GET', '/vehicles/{id}/maintenance'],
  ['v2.vehicles.events', 'A', 'GET', '/vehicles/{id}/events'],
  ['v2.vehicles.telemetry', 'A', 'GET', '/vehicles/{id}/telemetry'],
  ['v2.vehicles.trips', 'A', 'GET', '/vehicles/{id}/trips'],
  ['v2.trips.list', 'A', 'GET', '/trips'],
  ['v2.trips.get', 'A', 'GET', '/trips/{id}'],
  ['v2.trips.collisions', 'A', 'GET', '/trips/{id}/collisions'],
  ['v2.trips.alerts', 'A', 'GET', '/trips/{id}/alerts'],
  ['v2.trips.ecodriving', 'A', 'GET', '/trips/{id}/ecodriving'],
  ['v2.trips.telemetry', 'A', 'GET', '/trips/{id}/telemetry'],
  ['v2.trips.wayPoints', 'A', 'GET', '/trips/{id}/wayPoints'],
  ['v2.services.vehicle', 'B', 'GET', '/services/vehicles/{vin}'],
  ['v2.vehicles.eligibilities', 'B', 'GET', '/vehicles/{vin}/eligibilities'],
  ['map.vin', 'C', 'GET', '/mapway/{vin}'],
  ['map.bulk', 'C', 'POST', '/mapway/bulk'],
  ['v1.crash.list', 'D', 'POST', '/crash/list'],
  ['v1.crash.get', 'D', 'GET', '/crash/get/{vin}'],
  ['v1.crash.search', 'D', 'GET', '/crash/search/{vin}'],
  ['v1.ecodriving.evaluation.list', 'D', 'POST', '/ecodriving/evaluation/list'],
  ['v1.ecodriving.evaluation.tripDay.list', 'D', 'POST', '/ecodriving/evaluation/trip/day/list'],
  ['v1.ecodriving.evaluation.tripDay.get', 'D', 'GET', '/ecodriving/evaluation/trip/day/{vin}'],
  ['v1.ecodriving.evaluation.perTrip', 'D', 'GET', '/ecodriving/evaluation/pertrip/{vin}/{tripid}'],
  ['v1.ecodriving.evaluation.tripMonth.list', 'D', 'POST', '/ecodriving/evaluation/trip/month/list'],
  ['v1.ecodriving.evaluation.tripMonth.get', 'D', 'GET', '/ecodriving/evaluation/trip/month/{vin}'],
  ['v1.ecodriving.evaluation.get', 'D', 'GET', '/ecodriving/evaluation/get/{vin}'],
  ['v1.ecodriving.evaluation.lastTrip', 'D', 'GET', '/ecodriving/evaluation/lasttrip/{vin}'],
  ['v1.ecodriving.evaluation.dayTrips', 'D', 'GET', '/ecodriving/evaluation/daytrips/{vin}'],
  ['v1.environment.list', 'D', 'POST', '/environment/list'],
  ['v1.environment.get', 'D', 'GET', '/environment/get/{vin}'],
  ['v1.maintenance.get', 'D', 'GET', '/maintenance/{vin}'],
  ['v1.maintenance.list', 'D', 'POST', '/maintenance/list'],
  ['v1.maintenance.alert.list', 'D', 'POST', '/maintenance/list/alert'],
  ['v1.maintenance.alert.get', 'D', 'GET', '/maintenance/alert/{vin}'],
  ['v1.place.lastPosition', 'D', 'GET', '/place/lastposition/{vin}'],
  ['v1.place.tripPositions', 'D', 'GET', '/place/positions/trip/{vin}'],
  ['v1.referential.maintenance', 'D', 'GET', '/referential/maintenance'],
  ['v1.referential.alert', 'D', 'GET', '/referential/alert'],
  ['v1.referential.ecodriving', 'D', 'GET', '/referential/ecodriving'],
  ['v1.running.lightStatus.list', 'D', 'POST', '/running/lightstatus/list'],
  ['v1.safety.drivingAssistance.get', 'D', 'GET', '/safety/drivingassistance/{vin}'],
  ['v1.safety.drivingAssistance.day', 'D', 'GET', '/safety/search/drivingassistance/day/{vin}'],
  ['v1.safety.safetyAssistance.get', 'D', 'GET', '/safety/safetyassistance/{vin}'],
  ['v1.safety.safetyAssistance.day', 'D', 'GET', '/safety/search/safetyassistance/day/{vin}'],
  ['v1.trip.referenceTrip.get', 'D', 'GET', '/trip/get/referencetrip/{vin}'],
  ['v1.trip.referenceTrip.update', 'D', 'PUT', '/trip/update/referencetrip/{vin}'],
  ['v1.trip.last', 'D', 'GET', '/trip/last/{vin}'],
  ['v1.trip.list', 'D', 'POST', '/trip/list'],
  ['v1.trip.period', 'D', 'GET', '/trip/period/{vin}'],
  ['v1.trip.get', 'D', 'GET', '/trip/id/{vin}/{tripid}'],
  ['v1.trip.fuelPrice.update', 'D', 'PUT', '/trip/update/fuelprice/{vin}/{tripid}'],
  ['v1.trip.referenceFuelPrice.update', 'D', 'PUT', '/trip/update/reference/fuelprice/{vin}'],
  ['v1.trip.referenceFuelPrice.get', 'D', 'GET', '/trip/get/reference/fuelprice/{vin}'],
  ['v1.vehicle.information', 'D', 'GET', '/vehicle/information/{vin}'],
  ['v1.vehicle.picture.create', 'D', 'POST', '/vehicle/picture/{vin}/{contract}'],
  ['v1.vehicle.picture.get', 'D', 'GET', '/vehicle/picture/{vin}/{contract}'],
  ['auth.authorize', 'auth', 'GET', '/authorize'],
  ['auth.token', 'auth', 'POST', '/token'],
] as const satisfies readonly (readonly [string, ApiArea, OperationInfo['method'], string])[];

export type OperationId = (typeof ROWS)[number][0];

export const OPERATIONS: readonly (OperationInfo & { readonly id: OperationId })[] = ROWS.map(
  ([id, area, method, path]) => ({ id, area, method, path: `${AREA_PATHS[area]}${path}` }),
);
