/**
 * The Connected Car API client: one typed method per operation of operations.ts, each validating
 * its parameters before any request, sending through the shared transport (auth, retries, rate
 * observation, refresh) and returning a normalized model value in a `Result`. Each API area is its
 * own module (v2/, v1/, map.ts); this file only composes them over one transport.
 */
import { createApiContext } from './context';
import type { ApiError } from './errors';
import { type MapApi, mapApi } from './map';
import { type ClientAuthMethod, createTokenEndpoint, type TokenEndpoint } from './oauth';
import { type ClientStats, Transport, type TransportOptions } from './transport';
import { type V1CrashApi, v1CrashApi } from './v1/crash';
import { type V1EcoDrivingApi, v1EcoDrivingApi } from './v1/ecodriving';
import { type V1MaintenanceApi, v1MaintenanceApi } from './v1/maintenance';
import { type V1RecordsApi, v1RecordsApi } from './v1/records';
import { type V1TripsApi, v1TripsApi } from './v1/trips';
import { type V1VehicleApi, v1VehicleApi } from './v1/vehicle';
import { type AlertsApi, alertsApi } from './v2/alerts';
import { type CollisionsApi, collisionsApi } from './v2/collisions';
import { type EventsApi, eventsApi } from './v2/events';
import { type MaintenanceApi, maintenanceApi } from './v2/maintenance';
import { type ServicesApi, servicesApi } from './v2/services';
import { type TelemetryApi, telemetryApi } from './v2/telemetry';
import { type TripsApi, tripsApi } from './v2/trips';
import { type VehiclesApi, vehiclesApi } from './v2/vehicles';

export type { DateRange, ListAll, ListArgs, ListOperation, ListPage, PageParams } from './list';
export type { MapCallOptions } from './map';
export type { V1LocaleBrandParams, V1SecondsParams, V1VehicleParams } from './v1/request';
export type {
  TelemetryFilter,
  TripListParams,
  TripSubListParams,
  TripTelemetryParams,
  VehicleAlertsParams,
  VehicleListParams,
  VehicleTelemetryParams,
} from './v2/params';

export interface CarClientOptions extends TransportOptions {
  readonly authUrl: string;
  /** The brand's path segment in the OAuth addresses. */
  readonly brand: string;
  /** Client authentication at the token endpoint (default `client_secret_post`). */
  readonly clientAuth?: ClientAuthMethod;
  /** Bound on pages one iteration follows (a server lying about `total`). Default 1000. */
  readonly maxPages?: number;
}

export type V2Api = VehiclesApi &
  AlertsApi &
  CollisionsApi &
  MaintenanceApi &
  EventsApi &
  TelemetryApi &
  TripsApi;

export type V1Api = V1CrashApi &
  V1EcoDrivingApi &
  V1MaintenanceApi &
  V1RecordsApi &
  V1TripsApi &
  V1VehicleApi;

export interface CarClient {
  readonly v2: V2Api;
  readonly services: ServicesApi;
  readonly map: MapApi;
  readonly v1: V1Api;
  /** The token endpoint of the configured brand (code exchange, refresh, authorize URL). */
  readonly auth: TokenEndpoint;
  /** Totals since the client was created; per call, see `Result.requests`. */
  stats(): ClientStats;
}

export function createCarClient(options: CarClientOptions): CarClient {
  const transport = new Transport(options);
  const ctx = createApiContext(transport, options.maxPages ?? 1000);
  return {
    v2: {
      ...vehiclesApi(ctx),
      ...alertsApi(ctx),
      ...collisionsApi(ctx),
      ...maintenanceApi(ctx),
      ...eventsApi(ctx),
      ...telemetryApi(ctx),
      ...tripsApi(ctx),
    },
    services: servicesApi(ctx),
    map: mapApi(ctx),
    v1: {
      ...v1CrashApi(ctx),
      ...v1EcoDrivingApi(ctx),
      ...v1MaintenanceApi(ctx),
      ...v1RecordsApi(ctx),
      ...v1TripsApi(ctx),
      ...v1VehicleApi(ctx),
    },
    auth: createTokenEndpoint({
      authUrl: options.authUrl,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      brand: options.brand,
      clientAuth: options.clientAuth,
      fetch: options.fetch,
      timeoutMs: options.timeoutMs || undefined,
      retry: options.retry,
      random: options.random,
      sleep: options.sleep,
      now: options.now,
      logger: options.logger,
    }),
    stats: () => transport.stats(),
  };
}

export type { ApiError };
