/**
 * The events feed of a vehicle: with `since`, the events created after that instant. It reveals
 * every change of the vehicle's state except an alert's fix, so the poller reads it first.
 */
import { checkLocaleV2 } from '../checks';
import type { ApiContext } from '../context';
import { type ListOperation, list } from '../list';
import type { VehicleEvent } from '../model';
import { wEvent } from '../wire/v2';
import { localizedVehicleList } from './alerts';
import type { VehicleAlertsParams } from './params';

export interface EventsApi {
  events: ListOperation<VehicleAlertsParams, VehicleEvent>;
}

export function eventsApi(ctx: ApiContext): EventsApi {
  const op = 'v2.vehicles.events';
  return {
    events: list(ctx, {
      op,
      embedded: 'events',
      item: wEvent,
      defaultLimit: 10,
      validate: (p) => localizedVehicleList.validate(op)(p) ?? checkLocaleV2(op, p),
      build: localizedVehicleList.build('events'),
    }),
  };
}
