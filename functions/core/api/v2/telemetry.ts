/** Telemetry of v2: per vehicle and per trip, filtered by property paths (`type`). */
import { checkId, checkRange, checkTypes, rangeQuery, seg, V2 } from '../checks';
import type { ApiContext } from '../context';
import { type ListOperation, list } from '../list';
import type { Telemetry } from '../model';
import { wTelemetry } from '../wire/v2';
import { type TripTelemetryParams, type VehicleTelemetryParams, vehicleList } from './params';

export interface TelemetryApi {
  telemetry: ListOperation<VehicleTelemetryParams, Telemetry>;
  tripTelemetry: ListOperation<TripTelemetryParams, Telemetry>;
}

const telemetryList = vehicleList<VehicleTelemetryParams>((p) => ({ type: p.type }));

export function telemetryApi(ctx: ApiContext): TelemetryApi {
  return {
    telemetry: list(ctx, {
      op: 'v2.vehicles.telemetry',
      embedded: 'telemetries',
      item: wTelemetry,
      defaultLimit: 60,
      validate: (p) =>
        telemetryList.validate('v2.vehicles.telemetry')(p) ?? checkTypes('v2.vehicles.telemetry', p.type),
      build: telemetryList.build('telemetry'),
    }),
    tripTelemetry: list<TripTelemetryParams, Telemetry>(ctx, {
      op: 'v2.trips.telemetry',
      embedded: 'telemetries',
      item: wTelemetry,
      defaultLimit: 10,
      validate: (p) =>
        checkId('v2.trips.telemetry', 'tripId', p.tripId) ??
        checkRange('v2.trips.telemetry', p) ??
        checkTypes('v2.trips.telemetry', p.type),
      build: (p) => ({
        path: `${V2}/trips/${seg(p.tripId)}/telemetry`,
        query: { ...rangeQuery(p), type: p.type },
      }),
    }),
  };
}
