/**
 * The events feed of a vehicle: with `since`, the events created after that instant. It reveals
 * every change of the vehicle's state except an alert's fix, so the poller reads it first.
 */
import type { ApiContext } from '../context';
import { type ListOperation, list } from '../list';
import type { VehicleEvent } from '../model';
import { wEvent } from '../wire/v2';
import { localizedListSpec, type VehicleAlertsParams } from './params';

export interface EventsApi {
  events: ListOperation<VehicleAlertsParams, VehicleEvent>;
}

export function eventsApi(ctx: ApiContext): EventsApi {
  return { events: list(ctx, localizedListSpec('v2.vehicles.events', 'events', wEvent)) };
}
