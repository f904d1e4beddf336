/** Alerts of v2: per vehicle (with a date range and a locale) and per trip. */
import { checkId } from '../checks';
import type { ApiContext } from '../context';
import { type ListOperation, list } from '../list';
import type { Alert } from '../model';
import { wAlert } from '../wire/v2';
import { localizedListSpec, type TripSubListParams, tripSub, type VehicleAlertsParams } from './params';

export interface AlertsApi {
  alerts: ListOperation<VehicleAlertsParams, Alert>;
  tripAlerts: ListOperation<TripSubListParams, Alert>;
}

export function alertsApi(ctx: ApiContext): AlertsApi {
  return {
    alerts: list(ctx, localizedListSpec('v2.vehicles.alerts', 'alerts', wAlert)),
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
