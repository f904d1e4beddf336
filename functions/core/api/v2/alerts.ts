/** Alerts of v2: per vehicle (with a date range and a locale) and per trip. */
import { checkId, checkLocaleV2 } from '../checks';
import type { ApiContext } from '../context';
import { type ListOperation, list } from '../list';
import type { Alert } from '../model';
import { wAlert } from '../wire/v2';
import { type TripSubListParams, tripSub, type VehicleAlertsParams, vehicleList } from './params';

export interface AlertsApi {
  alerts: ListOperation<VehicleAlertsParams, Alert>;
  tripAlerts: ListOperation<TripSubListParams, Alert>;
}

export const localizedVehicleList = vehicleList<VehicleAlertsParams>((p) => ({ locale: p.locale }));

export function alertsApi(ctx: ApiContext): AlertsApi {
  const op = 'v2.vehicles.alerts';
  return {
    alerts: list(ctx, {
      op,
      embedded: 'alerts',
      item: wAlert,
      defaultLimit: 10,
      validate: (p) => localizedVehicleList.validate(op)(p) ?? checkLocaleV2(op, p),
      build: localizedVehicleList.build('alerts'),
    }),
    tripAlerts: list(ctx, {
      op: 'v2.trips.alerts',
      embedded: 'alerts',
      item: wAlert,
      defaultLimit: 10,
      validate: (p) => checkId('v2.trips.alerts', 'tripId', p.tripId),
      build: tripSub('alerts'),
    }),
  };
}
