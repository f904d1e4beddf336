/** Alerts of v2: per vehicle (with a date range and a locale), per trip, and one alert by id. */
import { checkId, V2 } from '../checks';
import type { ApiContext } from '../context';
import type { Result } from '../errors';
import { type ListOperation, list, single } from '../list';
import type { Alert } from '../model';
import type { CallOptions } from '../transport';
import { wAlert } from '../wire/v2';
import { localizedListSpec, type TripSubListParams, tripSub, type VehicleAlertsParams } from './params';

export interface AlertsApi {
  alerts: ListOperation<VehicleAlertsParams, Alert>;
  tripAlerts: ListOperation<TripSubListParams, Alert>;
  /**
   * One alert by id, `GET /alerts/{id}` (the `self` link of every alert): its current record, so
   * whether it is still active. Not in the operation catalogue; named `v2.alerts.get`.
   */
  alert(alertId: string, call?: CallOptions): Promise<Result<Alert>>;
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
    alert: single(ctx, 'v2.alerts.get', `${V2}/alerts/{id}`, wAlert),
  };
}
