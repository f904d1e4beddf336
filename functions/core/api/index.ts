/**
 * The public module of the Connected Car API client. Everything a caller needs is exported here.
 *
 * Style: every call returns a `Result` — `{ ok: true, value, requests }` or
 * `{ ok: false, error, requests }` — and errors are values with a `kind` (errors.ts), so callers
 * branch with `if (!r.ok) switch (r.error.kind) …` and never need try/catch. `requests` is the
 * number of HTTP requests the call sent (retries and the replay after a refresh included);
 * `client.stats()` has the totals and `onRequest` sees every attempt. `unwrap()` converts a result
 * to a value or a thrown `CarhookApiError` for code that prefers exceptions.
 *
 * @example
 * const client = createCarClient({ ...API_PRESETS.production, baseUrl, authUrl, clientId, clientSecret,
 *   brand: 'cielo', tokenProvider: createOAuthTokenProvider({ endpoint, tokens }) });
 * const page = await client.v2.alerts({ vehicleId, since });          // one page, `complete` flag
 * const all = await client.v2.alerts.all({ vehicleId, limit: 50 });   // every page, or an error
 * if (!all.ok && all.error.kind === 'RateLimited') pauseUntil(all.error.resetAt);
 */
export {
  type CarClient,
  type CarClientOptions,
  createCarClient,
  type DateRange,
  type ListAll,
  type ListOperation,
  type ListPage,
  type MapCallOptions,
  type PageParams,
  type TelemetryFilter,
  type TripListParams,
  type TripSubListParams,
  type TripTelemetryParams,
  type V1Api,
  type V1LocaleBrandParams,
  type V1SecondsParams,
  type V1VehicleParams,
  type V2Api,
  type VehicleAlertsParams,
  type VehicleListParams,
  type VehicleTelemetryParams,
} from './client';
export {
  type AccessDeniedError,
  type ApiError,
  type ApiErrorKind,
  CarhookApiError,
  type InvalidGrantError,
  type InvalidRequestError,
  isApiError,
  type MalformedError,
  type NetworkError,
  type NotFoundError,
  type RateLimitedError,
  type Result,
  redact,
  type TimeoutError,
  type UnauthorizedError,
  type UpstreamError,
  unwrap,
} from './errors';
export type * from './model';
export {
  type AuthorizeUrlParams,
  type ClientAuthMethod,
  type CodeExchange,
  createOAuthTokenProvider,
  createTokenEndpoint,
  InMemoryTokenProvider,
  type OAuthOptions,
  type OAuthTokenProviderOptions,
  pkce,
  staticTokenProvider,
  type TokenEndpoint,
  type TokenSet,
} from './oauth';
export { type ApiArea, OPERATIONS, type OperationId, type OperationInfo } from './operations';
export type { ApiLogger, RateObserver, RateSample, RequestEvent, TokenProvider } from './ports';
export { API_PRESETS, type ApiDeployment, type ApiPreset } from './presets';
export {
  type CallOptions,
  type ClientStats,
  DEFAULT_RETRY,
  DEFAULT_TIMEOUT_MS,
  type RetryOptions,
  type Sleep,
} from './transport';
export { type V1Brand, type V1Target, type V1Unit, VIN_PATTERN } from './v1/params';
export { toIsoDate } from './wire/common';
export type { Eligibilities } from './wire/services';
export type {
  V1EcoEvaluation,
  V1Label,
  V1RawResponse,
  V1Record,
  V1ReferenceFuelPrice,
  V1Referential,
  V1TripList,
  V1VehicleInformation,
} from './wire/v1';
export type { Waypoint } from './wire/v2';
