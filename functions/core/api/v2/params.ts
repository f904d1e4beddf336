/**
 * Parameters of the v2 list reads and the request builders the per-vehicle and per-trip lists
 * share: `/vehicles/{id}/<name>` with the date range and page, `/trips/{id}/<name>` with the page.
 */
import type * as z from 'zod';
import {
  checkId,
  checkLocaleV2,
  checkRange,
  type DateRange,
  type PageParams,
  rangeQuery,
  seg,
  V2,
} from '../checks';
import type { ListSpec } from '../list';
import type { QueryValue } from '../transport';

export interface VehicleListParams extends PageParams, DateRange {
  readonly vehicleId: string;
}
export interface VehicleAlertsParams extends VehicleListParams {
  /** `fr` or `en` (the API's default is `en`). */
  readonly locale?: 'fr' | 'en';
}
export interface TelemetryFilter {
  /** Property paths in dot notation, e.g. `['vehicle.fuel.level']`. */
  readonly type?: readonly string[];
}
export interface VehicleTelemetryParams extends VehicleListParams, TelemetryFilter {}
export interface TripListParams extends PageParams, DateRange {}
export interface TripSubListParams extends PageParams {
  readonly tripId: string;
}
export interface TripTelemetryParams extends TripSubListParams, DateRange, TelemetryFilter {}

/** Validation and request of a list under `/vehicles/{vehicleId}/`, plus its extra query fields. */
export const vehicleList = <P extends VehicleListParams>(extra?: (p: P) => Record<string, QueryValue>) => ({
  validate: (op: string) => (p: P) => checkId(op, 'vehicleId', p.vehicleId) ?? checkRange(op, p),
  build: (path: string) => (p: P) => ({
    path: `${V2}/vehicles/${seg(p.vehicleId)}/${path}`,
    query: { ...rangeQuery(p), ...extra?.(p) },
  }),
});

/** The request of a list under `/trips/{tripId}/` (page only). */
export const tripSub = (name: string) => (p: TripSubListParams) => ({
  path: `${V2}/trips/${seg(p.tripId)}/${name}`,
  query: { limit: p.limit, offset: p.offset },
});

const localizedVehicleList = vehicleList<VehicleAlertsParams>((p) => ({ locale: p.locale }));

/** A per-vehicle list that also takes a `locale` (alerts, events): `/vehicles/{id}/<name>`. */
export function localizedListSpec<T>(
  op: string,
  name: string,
  item: z.ZodType<T>,
): ListSpec<VehicleAlertsParams, T> {
  return {
    op,
    embedded: name,
    item,
    defaultLimit: 10,
    validate: (p) => localizedVehicleList.validate(op)(p) ?? checkLocaleV2(op, p),
    build: localizedVehicleList.build(name),
  };
}
