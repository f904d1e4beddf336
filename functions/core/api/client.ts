/**
 * The Connected Car API client: one typed method per operation of operations.json, each
 * validating its parameters before any request, sending through the shared transport (auth,
 * retries, rate observation, refresh) and returning a normalized model value in a `Result`.
 */
import * as z from 'zod';
import {
  type ApiError,
  excerpt,
  fail,
  type InvalidRequestError,
  invalidRequest,
  ok,
  type Result,
} from './errors';
import type {
  Alert,
  Collision,
  EcoDriving,
  Maintenance,
  MapUpdateInfo,
  Position,
  ServiceEligibility,
  Telemetry,
  Trip,
  User,
  V1Alert,
  V1Crash,
  V1Maintenance,
  V1Trip,
  Vehicle,
  VehicleEvent,
} from './model';
import { type ClientAuthMethod, createTokenEndpoint, type TokenEndpoint } from './oauth';
import {
  type CallOptions,
  type ClientStats,
  type HttpRequest,
  type QueryValue,
  Transport,
  type TransportOptions,
} from './transport';
import {
  arrayOf,
  bulkBody,
  checkBrand,
  checkContract,
  checkLocale,
  checkVin,
  listSecond,
  positiveInt,
  unitCode,
  type V1Brand,
  type V1EcoEvaluation,
  type V1RawResponse,
  type V1Record,
  type V1ReferenceFuelPrice,
  type V1Referential,
  type V1Target,
  type V1TripList,
  type V1Unit,
  type V1VehicleInformation,
  v1Date,
  wV1AlertList,
  wV1Crash,
  wV1EcoEvaluation,
  wV1Maintenance,
  wV1Record,
  wV1ReferenceFuelPrice,
  wV1Referential,
  wV1Trip,
  wV1TripList,
  wV1VehicleInformation,
} from './v1';
import {
  type Eligibilities,
  type Waypoint,
  type WireListPage,
  wAlert,
  wCollision,
  wEcoDriving,
  wEligibilities,
  wEvent,
  wHalList,
  wMaintenance,
  wMapBulk,
  wMapInfo,
  wPosition,
  wServiceList,
  wTelemetry,
  wTrip,
  wUser,
  wVehicle,
  wWaypoint,
} from './wire';

export interface CarClientOptions extends TransportOptions {
  readonly authUrl: string;
  /** `<brand_path_segment>` of the OAuth addresses (spec 5.2). */
  readonly brand: string;
  /** Client authentication at the token endpoint (default `client_secret_post`). */
  readonly clientAuth?: ClientAuthMethod;
  /** Bound on pages one iteration follows (a server lying about `total`). Default 1000. */
  readonly maxPages?: number;
}

// ---- Lists ----

export interface PageParams {
  readonly limit?: number;
  /** Zero-based (spec 2.1). */
  readonly offset?: number;
}

export interface DateRange {
  /** Items created after this instant (spec 4.1). */
  readonly since?: Date;
  /** Items created before this instant. */
  readonly until?: Date;
}

export interface ListPage<T> {
  readonly items: readonly T[];
  /** `total` of the body (items matching the filters); 0 for a 404-as-empty list. */
  readonly total: number;
  readonly offset: number;
  /**
   * True when this page alone holds every item matching the filters (offset 0 and nothing beyond
   * it). Only a complete list proves an item is gone (the detection engine relies on it).
   */
  readonly complete: boolean;
  /** The server answered 404, read as "no such items" (spec 7). */
  readonly notFoundAsEmpty?: boolean;
}

export interface ListAll<T> {
  readonly items: readonly T[];
  readonly total: number;
  /** Always true: a page that failed makes the whole result an error. */
  readonly complete: true;
  readonly pages: number;
}

/** A list operation: call it for one page, `.pages()` to iterate, `.all()` to collect every page. */
/** Arguments of a list call: `params` may be left out when none of its fields is required. */
export type ListArgs<P> =
  Record<string, never> extends P ? [params?: P, call?: CallOptions] : [params: P, call?: CallOptions];

export interface ListOperation<P extends PageParams, T> {
  (...args: ListArgs<P>): Promise<Result<ListPage<T>>>;
  /** Pages until `total` (or an empty page); yields the failing result last if a page fails. */
  pages(...args: ListArgs<P>): AsyncIterable<Result<ListPage<T>>>;
  /** Every item of every page; an error if any page fails, never a silently short list. */
  all(...args: ListArgs<P>): Promise<Result<ListAll<T>>>;
}

export interface VehicleListParams extends PageParams, DateRange {
  readonly vehicleId: string;
}
export interface VehicleAlertsParams extends VehicleListParams {
  /** spec 4.2: `fr` or `en` (default `en`). */
  readonly locale?: 'fr' | 'en';
}
export interface TelemetryFilter {
  /** Property paths in dot notation (spec 4.2), e.g. `['vehicle.fuel.level']`. */
  readonly type?: readonly string[];
}
export interface VehicleTelemetryParams extends VehicleListParams, TelemetryFilter {}
export interface TripListParams extends PageParams, DateRange {}
export interface TripSubListParams extends PageParams {
  readonly tripId: string;
}
export interface TripTelemetryParams extends TripSubListParams, DateRange, TelemetryFilter {}

export interface MapCallOptions extends CallOptions {
  /** Header `x-map-caller-id` (spec 4.3). */
  readonly callerId?: string;
}

// ---- v1 parameter shapes ----

export interface V1VehicleParams {
  readonly vin: string;
  readonly contract: string;
}
export interface V1LocaleBrandParams {
  readonly locale: string;
  readonly brand: V1Brand;
}
export interface V1SecondsParams {
  /** Seconds 1..60 (spec 2.13), sent as `listsecond`. */
  readonly seconds: readonly number[];
}

export interface CarClient {
  readonly v2: {
    user(call?: CallOptions): Promise<Result<User>>;
    vehicles: ListOperation<PageParams, Vehicle>;
    vehicle(vehicleId: string, call?: CallOptions): Promise<Result<Vehicle>>;
    lastPosition(vehicleId: string, call?: CallOptions): Promise<Result<Position>>;
    alerts: ListOperation<VehicleAlertsParams, Alert>;
    collisions: ListOperation<VehicleListParams, Collision>;
    /** spec 7 lists 404 "no such items": a single object, so 404 is `NotFound` here. */
    maintenance(vehicleId: string, call?: CallOptions): Promise<Result<Maintenance>>;
    events: ListOperation<VehicleAlertsParams, VehicleEvent>;
    telemetry: ListOperation<VehicleTelemetryParams, Telemetry>;
    vehicleTrips: ListOperation<VehicleListParams, Trip>;
    trips: ListOperation<TripListParams, Trip>;
    trip(tripId: string, call?: CallOptions): Promise<Result<Trip>>;
    tripCollisions: ListOperation<TripSubListParams, Collision>;
    tripAlerts: ListOperation<TripSubListParams, Alert>;
    tripEcodriving(tripId: string, call?: CallOptions): Promise<Result<EcoDriving>>;
    tripTelemetry: ListOperation<TripTelemetryParams, Telemetry>;
    tripWaypoints: ListOperation<TripSubListParams, Waypoint>;
  };
  readonly services: {
    /** spec 4.2 `GET /services/vehicles/{vin}`; `services` filters on service codes. */
    vehicle(
      vin: string,
      params?: { services?: readonly string[] },
      call?: CallOptions,
    ): Promise<Result<readonly ServiceEligibility[]>>;
    /** spec 4.2 `GET /vehicles/{vin}/eligibilities`: body not shown, returned raw. */
    eligibilities(vin: string, call?: CallOptions): Promise<Result<Eligibilities>>;
  };
  readonly map: {
    vin(vin: string, call?: MapCallOptions): Promise<Result<MapUpdateInfo>>;
    bulk(vins: readonly string[], call?: MapCallOptions): Promise<Result<readonly MapUpdateInfo[]>>;
  };
  readonly v1: V1Api;
  /** The token endpoint of the configured brand (code exchange, refresh, authorize URL). */
  readonly auth: TokenEndpoint;
  /** Totals since the client was created; per call, see `Result.requests`. */
  stats(): ClientStats;
}

export interface V1Api {
  crashList(
    p: { targets: readonly V1Target[]; seconds?: readonly number[] },
    call?: CallOptions,
  ): Promise<Result<readonly V1Crash[]>>;
  crashGet(p: V1VehicleParams & V1SecondsParams, call?: CallOptions): Promise<Result<V1Crash>>;
  crashSearch(
    p: V1VehicleParams & { from: Date; to: Date; limit?: number },
    call?: CallOptions,
  ): Promise<Result<readonly V1Crash[]>>;
  ecoEvaluationList(
    p: { targets: readonly V1Target[] } & V1LocaleBrandParams,
    call?: CallOptions,
  ): Promise<Result<readonly V1EcoEvaluation[]>>;
  ecoTripDayList(
    p: { targets: readonly V1Target[]; fromDay: Date; toDay: Date } & V1LocaleBrandParams,
    call?: CallOptions,
  ): Promise<Result<readonly V1EcoEvaluation[]>>;
  ecoTripDay(
    p: V1VehicleParams & V1LocaleBrandParams & { fromDay: Date; toDay: Date },
    call?: CallOptions,
  ): Promise<Result<readonly V1EcoEvaluation[]>>;
  ecoPerTrip(
    p: V1VehicleParams & V1LocaleBrandParams & { tripId: number },
    call?: CallOptions,
  ): Promise<Result<V1EcoEvaluation>>;
  ecoTripMonthList(
    p: { targets: readonly V1Target[]; fromMonth: Date; toMonth: Date } & V1LocaleBrandParams,
    call?: CallOptions,
  ): Promise<Result<readonly V1EcoEvaluation[]>>;
  ecoTripMonth(
    p: V1VehicleParams & V1LocaleBrandParams & { fromMonth: Date; toMonth: Date },
    call?: CallOptions,
  ): Promise<Result<readonly V1EcoEvaluation[]>>;
  ecoEvaluation(
    p: V1VehicleParams & V1LocaleBrandParams,
    call?: CallOptions,
  ): Promise<Result<V1EcoEvaluation>>;
  ecoLastTrip(p: V1VehicleParams & V1LocaleBrandParams, call?: CallOptions): Promise<Result<V1EcoEvaluation>>;
  ecoDayTrips(
    p: V1VehicleParams & V1LocaleBrandParams & { day: Date },
    call?: CallOptions,
  ): Promise<Result<readonly V1EcoEvaluation[]>>;
  environmentList(
    p: { targets: readonly V1Target[] } & V1SecondsParams,
    call?: CallOptions,
  ): Promise<Result<readonly V1Record[]>>;
  environment(p: V1VehicleParams & V1SecondsParams, call?: CallOptions): Promise<Result<V1Record>>;
  maintenance(p: V1VehicleParams & V1LocaleBrandParams, call?: CallOptions): Promise<Result<V1Maintenance>>;
  maintenanceList(
    p: { targets: readonly V1Target[] } & V1LocaleBrandParams,
    call?: CallOptions,
  ): Promise<Result<readonly V1Maintenance[]>>;
  alertList(
    p: { targets: readonly V1Target[]; active: boolean } & V1LocaleBrandParams,
    call?: CallOptions,
  ): Promise<Result<readonly V1Alert[]>>;
  alerts(
    p: V1VehicleParams & V1LocaleBrandParams & { active: boolean },
    call?: CallOptions,
  ): Promise<Result<readonly V1Alert[]>>;
  lastPosition(
    p: V1VehicleParams & V1SecondsParams & { near?: boolean },
    call?: CallOptions,
  ): Promise<Result<V1Record>>;
  tripPositions(
    p: V1VehicleParams & V1SecondsParams & { near?: boolean; tripId: number },
    call?: CallOptions,
  ): Promise<Result<readonly V1Record[]>>;
  referentialMaintenance(
    p?: Partial<V1LocaleBrandParams>,
    call?: CallOptions,
  ): Promise<Result<readonly V1Referential[]>>;
  referentialAlert(
    p?: Partial<V1LocaleBrandParams>,
    call?: CallOptions,
  ): Promise<Result<readonly V1Referential[]>>;
  referentialEcodriving(
    p?: Partial<V1LocaleBrandParams>,
    call?: CallOptions,
  ): Promise<Result<readonly V1Referential[]>>;
  lightStatusList(
    p: { targets: readonly V1Target[] } & V1SecondsParams,
    call?: CallOptions,
  ): Promise<Result<readonly V1Record[]>>;
  drivingAssistance(p: V1VehicleParams & V1SecondsParams, call?: CallOptions): Promise<Result<V1Record>>;
  drivingAssistanceDay(
    p: V1VehicleParams & V1SecondsParams & { day: Date },
    call?: CallOptions,
  ): Promise<Result<V1Record>>;
  safetyAssistance(p: V1VehicleParams & V1SecondsParams, call?: CallOptions): Promise<Result<V1Record>>;
  safetyAssistanceDay(
    p: V1VehicleParams & V1SecondsParams & { day: Date },
    call?: CallOptions,
  ): Promise<Result<V1Record>>;
  referenceTrips(p: V1VehicleParams & { unit: V1Unit }, call?: CallOptions): Promise<Result<V1TripList>>;
  /** PUT: idempotent (sets the reference flag), so retried like a read. */
  setReferenceTrip(
    p: V1VehicleParams & { tripId: number },
    call?: CallOptions,
  ): Promise<Result<V1RawResponse>>;
  lastTrips(
    p: V1VehicleParams & { limit: number; unit: V1Unit },
    call?: CallOptions,
  ): Promise<Result<V1TripList>>;
  tripList(
    p: { targets: readonly V1Target[]; from: Date; to: Date; limit?: number; unit?: V1Unit },
    call?: CallOptions,
  ): Promise<Result<V1TripList>>;
  tripsByPeriod(
    p: V1VehicleParams & { from: Date; to: Date; limit?: number; unit?: V1Unit },
    call?: CallOptions,
  ): Promise<Result<V1TripList>>;
  trip(p: V1VehicleParams & { tripId: number; unit: V1Unit }, call?: CallOptions): Promise<Result<V1Trip>>;
  /** PUT: idempotent (sets a price), so retried like a read. */
  setTripFuelPrice(
    p: V1VehicleParams & { tripId: number; price: number },
    call?: CallOptions,
  ): Promise<Result<V1RawResponse>>;
  setReferenceFuelPrice(
    p: V1VehicleParams & { price: number },
    call?: CallOptions,
  ): Promise<Result<V1RawResponse>>;
  referenceFuelPrice(p: V1VehicleParams, call?: CallOptions): Promise<Result<V1ReferenceFuelPrice>>;
  vehicleInformation(p: V1VehicleParams, call?: CallOptions): Promise<Result<V1VehicleInformation>>;
  /** POST creating a picture rendering: the same body gives the same picture, so it is retried. */
  createPicture(
    p: V1VehicleParams & {
      width?: number;
      format?: string;
      background?: string;
      trim?: string;
      view?: string;
      ratio?: string;
    },
    call?: CallOptions,
  ): Promise<Result<V1RawResponse>>;
  picture(p: V1VehicleParams, call?: CallOptions): Promise<Result<V1RawResponse>>;
}

const V2 = '/connectedcar/v2';
const V1 = '/connectedcar/v1/dev';
const MAP = '/applications/map/v1';
const HAL = 'application/hal+json';
const JSON_TYPE = 'application/json';
const seg = encodeURIComponent;

/** A decimal with a dot and at most 6 decimals, never an exponent (`1e-7`). */
function formatPrice(price: number): string {
  return price.toFixed(6).replace(/\.?0+$/, '');
}

function firstError(...checks: (InvalidRequestError | undefined)[]): InvalidRequestError | undefined {
  return checks.find((c) => c !== undefined);
}

function positivePrice(op: string, price: unknown): InvalidRequestError | undefined {
  return typeof price === 'number' && Number.isFinite(price) && price > 0 && price < 1_000_000
    ? undefined
    : invalidRequest(op, 'price', 'must be a number greater than 0 and below 1000000');
}

function checkId(op: string, field: string, id: unknown): InvalidRequestError | undefined {
  return typeof id === 'string' && id.length > 0 && id.length <= 256
    ? undefined
    : invalidRequest(op, field, 'must be a non-empty string of at most 256 characters');
}

function checkDate(op: string, field: string, d: unknown): InvalidRequestError | undefined {
  if (d === undefined) return undefined;
  return d instanceof Date && !Number.isNaN(d.getTime())
    ? undefined
    : invalidRequest(op, field, 'must be a valid Date');
}

function checkRange(op: string, r: DateRange): InvalidRequestError | undefined {
  return (
    checkDate(op, 'since', r.since) ??
    checkDate(op, 'until', r.until) ??
    (r.since && r.until && r.since.getTime() > r.until.getTime()
      ? invalidRequest(op, 'until', 'must not be before since')
      : undefined)
  );
}

function checkPage(op: string, p: PageParams): InvalidRequestError | undefined {
  if (p.limit !== undefined && !(Number.isInteger(p.limit) && p.limit > 0)) {
    return invalidRequest(op, 'limit', 'must be a positive integer');
  }
  if (p.offset !== undefined && !(Number.isInteger(p.offset) && p.offset >= 0)) {
    return invalidRequest(op, 'offset', 'must be a non-negative integer');
  }
  return undefined;
}

function checkTypes(op: string, types: unknown): InvalidRequestError | undefined {
  if (types === undefined) return undefined;
  return Array.isArray(types) &&
    types.length > 0 &&
    types.every((t) => typeof t === 'string' && /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$/.test(t))
    ? undefined
    : invalidRequest(op, 'type', 'must be a non-empty array of property paths in dot notation (spec 4.2)');
}

function rangeQuery(r: DateRange & PageParams): Record<string, QueryValue> {
  return {
    since: r.since?.toISOString(),
    until: r.until?.toISOString(),
    limit: r.limit,
    offset: r.offset,
  };
}

export function createCarClient(options: CarClientOptions): CarClient {
  const transport = new Transport(options);
  const maxPages = options.maxPages ?? 1000;

  function parse<T>(op: string, text: string, schema: z.ZodType<T>, requests: number): Result<T> {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return fail(
        {
          kind: 'Malformed',
          operation: op,
          message: 'the response is not valid JSON',
          excerpt: excerpt(transport.redact(text)),
        },
        requests,
      );
    }
    const parsed = schema.safeParse(body);
    if (parsed.success) return ok(parsed.data, requests);
    // Paths hold the body's own keys (record keys, `_embedded` names): redacted like the excerpt,
    // and bounded, so neither a secret nor a megabyte key reaches a log through an issue.
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => excerpt(transport.redact(`${i.path.join('.') || '(root)'}: ${i.message}`), [], 300));
    return fail(
      {
        kind: 'Malformed',
        operation: op,
        message: `the response does not match the expected shape (${issues[0] ?? 'unknown'})`,
        excerpt: excerpt(transport.redact(text)),
        issues,
      },
      requests,
    );
  }

  async function request<T>(req: HttpRequest, schema: z.ZodType<T>, call?: CallOptions): Promise<Result<T>> {
    const r = await transport.send(req, call);
    if (!r.ok) return r;
    return parse(req.operation, r.value.text, schema, r.requests);
  }

  async function raw(req: HttpRequest, call?: CallOptions): Promise<Result<V1RawResponse>> {
    const r = await transport.send(req, call);
    if (!r.ok) return r;
    const { status, contentType, text, bytes } = r.value;
    if (/json/i.test(contentType) && text.trim() !== '') {
      const parsed = parse(req.operation, text, z.unknown(), r.requests);
      if (!parsed.ok) return parsed;
      return ok({ status, contentType, json: parsed.value }, r.requests);
    }
    return ok({ status, contentType, ...(bytes.length > 0 ? { bytes } : {}) }, r.requests);
  }

  function invalid(error: InvalidRequestError): Promise<Result<never>> {
    return Promise.resolve(fail(error, 0));
  }

  /** Builds a HAL list operation; 404 → empty complete list (spec 7: "no such items"). */
  function list<P extends PageParams, T>(
    op: string,
    embedded: string | readonly string[],
    item: z.ZodType<T>,
    defaultLimit: number,
    validate: (p: P) => InvalidRequestError | undefined,
    build: (p: P) => Omit<HttpRequest, 'operation' | 'method' | 'accept' | 'auth'>,
  ): ListOperation<P, T> {
    const schema = wHalList(embedded, item);
    const page = async (params: P, call?: CallOptions): Promise<Result<ListPage<T>>> => {
      const bad = validate(params ?? ({} as P)) ?? checkPage(op, params ?? {});
      if (bad) return fail(bad, 0);
      const offset = params?.offset ?? 0;
      const r = await transport.send(
        { operation: op, method: 'GET', accept: HAL, auth: 'bearer', ...build(params ?? ({} as P)) },
        call,
      );
      if (!r.ok) {
        if (r.error.kind === 'NotFound') {
          // spec 7: a 404 on a list means "no such items", not a missing resource.
          return ok({ items: [], total: 0, offset, complete: true, notFoundAsEmpty: true }, r.requests);
        }
        return r;
      }
      const parsed = parse<WireListPage<T>>(op, r.value.text, schema, r.requests);
      if (!parsed.ok) return parsed;
      const { items, total } = parsed.value;
      const limit = params?.limit ?? defaultLimit;
      // Without `total`, a full page means there may be more: claim one more so iteration goes on.
      const knownTotal = total ?? offset + items.length + (items.length >= limit ? 1 : 0);
      const complete = offset === 0 && items.length >= knownTotal;
      return ok({ items, total: knownTotal, offset, complete }, r.requests);
    };

    async function* pages(params: P, call?: CallOptions): AsyncGenerator<Result<ListPage<T>>> {
      let offset = params?.offset ?? 0;
      const limit = params?.limit ?? defaultLimit;
      for (let n = 1; ; n++) {
        if (n > maxPages) {
          yield fail(
            {
              kind: 'Malformed',
              operation: op,
              message: `pagination did not end after ${maxPages} pages (total ${offset} items read): the server's total looks wrong`,
              excerpt: '',
            },
            0,
          );
          return;
        }
        const r = await page({ ...params, offset, limit }, call);
        yield r;
        if (!r.ok) return;
        const { items, total } = r.value;
        // Stop on an empty page too: the server has nothing more, whatever `total` said.
        if (items.length === 0) return;
        offset += items.length;
        if (offset >= total) return;
      }
    }

    async function all(params: P, call?: CallOptions): Promise<Result<ListAll<T>>> {
      const items: T[] = [];
      const seen = new Set<string>();
      let requests = 0;
      let count = 0;
      let total = 0;
      for await (const r of pages(params, call)) {
        requests += r.requests;
        if (!r.ok) return fail(r.error, requests);
        count++;
        for (const item of r.value.items) {
          // An item created between two page reads shifts the newest-first pages by one: the
          // same record then shows up twice; keep its first copy.
          const id = (item as { id?: unknown }).id;
          if (typeof id === 'string') {
            if (seen.has(id)) continue;
            seen.add(id);
          }
          items.push(item);
        }
        total = r.value.total;
      }
      return ok({ items, total: Math.max(total, items.length), complete: true, pages: count }, requests);
    }

    // The implementations accept an omitted `params`; ListArgs only decides when callers may omit it.
    return Object.assign(page, { pages, all }) as unknown as ListOperation<P, T>;
  }

  function single<T>(op: string, path: string, schema: z.ZodType<T>, accept = HAL) {
    return (id: string, call?: CallOptions): Promise<Result<T>> => {
      const bad = checkId(op, 'id', id);
      if (bad) return invalid(bad);
      return request(
        { operation: op, method: 'GET', path: path.replace('{id}', seg(id)), accept, auth: 'bearer' },
        schema,
        call,
      );
    };
  }

  const vehicleList = <P extends VehicleListParams>(extra?: (p: P) => Record<string, QueryValue>) => ({
    validate: (op: string) => (p: P) => checkId(op, 'vehicleId', p.vehicleId) ?? checkRange(op, p),
    build: (path: string) => (p: P) => ({
      path: `${V2}/vehicles/${seg(p.vehicleId)}/${path}`,
      query: { ...rangeQuery(p), ...extra?.(p) },
    }),
  });

  const alertsList = vehicleList<VehicleAlertsParams>((p) => ({ locale: p.locale }));
  const checkLocaleV2 = (op: string, p: { locale?: string }) =>
    p.locale === undefined || p.locale === 'fr' || p.locale === 'en'
      ? undefined
      : invalidRequest(op, 'locale', "must be 'fr' or 'en' (spec 4.2)");
  const telemetryList = vehicleList<VehicleTelemetryParams>((p) => ({ type: p.type }));
  const plainVehicleList = vehicleList<VehicleListParams>();

  const tripSub = (name: string) => (p: TripSubListParams) => ({
    path: `${V2}/trips/${seg(p.tripId)}/${name}`,
    query: { limit: p.limit, offset: p.offset },
  });

  const v2: CarClient['v2'] = {
    user: (call) =>
      request(
        { operation: 'v2.user', method: 'GET', path: `${V2}/user`, accept: HAL, auth: 'bearer' },
        wUser,
        call,
      ),
    vehicles: list<PageParams, Vehicle>(
      'v2.vehicles.list',
      'vehicles',
      wVehicle,
      10,
      () => undefined,
      (p) => ({
        path: `${V2}/vehicles`,
        query: { limit: p.limit, offset: p.offset },
      }),
    ),
    vehicle: single('v2.vehicles.get', `${V2}/vehicles/{id}`, wVehicle),
    lastPosition: single(
      'v2.vehicles.lastPosition',
      `${V2}/vehicles/{id}/lastPosition`,
      wPosition,
      'application/geo+json',
    ),
    alerts: list(
      'v2.vehicles.alerts',
      'alerts',
      wAlert,
      10,
      (p) => alertsList.validate('v2.vehicles.alerts')(p) ?? checkLocaleV2('v2.vehicles.alerts', p),
      alertsList.build('alerts'),
    ),
    collisions: list(
      'v2.vehicles.collisions',
      'collisions',
      wCollision,
      10,
      plainVehicleList.validate('v2.vehicles.collisions'),
      plainVehicleList.build('collisions'),
    ),
    maintenance: single('v2.vehicles.maintenance', `${V2}/vehicles/{id}/maintenance`, wMaintenance),
    events: list(
      'v2.vehicles.events',
      'events',
      wEvent,
      10,
      (p) => alertsList.validate('v2.vehicles.events')(p) ?? checkLocaleV2('v2.vehicles.events', p),
      alertsList.build('events'),
    ),
    telemetry: list(
      'v2.vehicles.telemetry',
      'telemetries',
      wTelemetry,
      60,
      (p) =>
        telemetryList.validate('v2.vehicles.telemetry')(p) ?? checkTypes('v2.vehicles.telemetry', p.type),
      telemetryList.build('telemetry'),
    ),
    vehicleTrips: list(
      'v2.vehicles.trips',
      'trips',
      wTrip,
      10,
      plainVehicleList.validate('v2.vehicles.trips'),
      plainVehicleList.build('trips'),
    ),
    trips: list<TripListParams, Trip>(
      'v2.trips.list',
      'trips',
      wTrip,
      10,
      (p) => checkRange('v2.trips.list', p),
      (p) => ({
        path: `${V2}/trips`,
        query: rangeQuery(p),
      }),
    ),
    trip: single('v2.trips.get', `${V2}/trips/{id}`, wTrip),
    tripCollisions: list(
      'v2.trips.collisions',
      'collisions',
      wCollision,
      10,
      (p) => checkId('v2.trips.collisions', 'tripId', p.tripId),
      tripSub('collisions'),
    ),
    tripAlerts: list(
      'v2.trips.alerts',
      'alerts',
      wAlert,
      10,
      (p) => checkId('v2.trips.alerts', 'tripId', p.tripId),
      tripSub('alerts'),
    ),
    tripEcodriving: single('v2.trips.ecodriving', `${V2}/trips/{id}/ecodriving`, wEcoDriving),
    tripTelemetry: list<TripTelemetryParams, Telemetry>(
      'v2.trips.telemetry',
      'telemetries',
      wTelemetry,
      10,
      (p) =>
        checkId('v2.trips.telemetry', 'tripId', p.tripId) ??
        checkRange('v2.trips.telemetry', p) ??
        checkTypes('v2.trips.telemetry', p.type),
      (p) => ({ path: `${V2}/trips/${seg(p.tripId)}/telemetry`, query: { ...rangeQuery(p), type: p.type } }),
    ),
    tripWaypoints: list(
      'v2.trips.wayPoints',
      ['wayPoints', 'waypoints'],
      wWaypoint,
      10,
      (p) => checkId('v2.trips.wayPoints', 'tripId', p.tripId),
      tripSub('wayPoints'),
    ),
  };

  const services: CarClient['services'] = {
    vehicle(vin, params = {}, call) {
      const op = 'v2.services.vehicle';
      const bad =
        checkVin(op, vin) ??
        (params.services !== undefined &&
        !(
          Array.isArray(params.services) &&
          params.services.every((s) => typeof s === 'string' && /^[\w-]+$/.test(s))
        )
          ? invalidRequest(op, 'services', 'must be an array of service codes')
          : undefined);
      if (bad) return invalid(bad);
      return request(
        {
          operation: op,
          method: 'GET',
          path: `${V2}/services/vehicles/${seg(vin)}`,
          query: { services: params.services?.length ? params.services.join(',') : undefined },
          accept: JSON_TYPE,
          // spec 5.3: client_id for this area; a bearer token too when one is configured (spec 4.1).
          auth: 'bearer-if-available',
        },
        wServiceList,
        call,
      );
    },
    eligibilities(vin, call) {
      const op = 'v2.vehicles.eligibilities';
      const bad = checkVin(op, vin);
      if (bad) return invalid(bad);
      return request(
        {
          operation: op,
          method: 'GET',
          path: `${V2}/vehicles/${seg(vin)}/eligibilities`,
          accept: JSON_TYPE,
          auth: 'bearer-if-available',
        },
        wEligibilities,
        call,
      );
    },
  };

  const mapHeaders = (call?: MapCallOptions): Record<string, string> =>
    call?.callerId ? { 'x-map-caller-id': call.callerId } : {};

  const map: CarClient['map'] = {
    vin(vin, call) {
      const op = 'map.vin';
      const bad = checkVin(op, vin);
      if (bad) return invalid(bad);
      return request(
        {
          operation: op,
          method: 'GET',
          path: `${MAP}/mapway/${seg(vin)}`,
          accept: JSON_TYPE,
          auth: 'basic',
          headers: mapHeaders(call),
        },
        wMapInfo,
        call,
      );
    },
    bulk(vins, call) {
      const op = 'map.bulk';
      if (!Array.isArray(vins) || vins.length === 0)
        return invalid(invalidRequest(op, 'vins', 'must be a non-empty array'));
      for (const [i, vin] of vins.entries()) {
        const bad = checkVin(op, vin, `vins[${i}]`);
        if (bad) return invalid(bad);
      }
      return request(
        {
          operation: op,
          method: 'POST',
          path: `${MAP}/mapway/bulk`,
          json: vins,
          accept: JSON_TYPE,
          auth: 'basic',
          headers: mapHeaders(call),
        },
        wMapBulk,
        call,
      );
    },
  };

  // ---- v1 ----

  type Q = Record<string, QueryValue>;
  type Checked<T> = { value: T } | InvalidRequestError;
  const isErr = <T>(c: Checked<T>): c is InvalidRequestError => 'kind' in c;

  function v1<T>(
    op: string,
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    query: Q,
    schema: z.ZodType<T>,
    call: CallOptions | undefined,
    json?: unknown,
  ): Promise<Result<T>> {
    return request(
      {
        operation: op,
        method,
        path: `${V1}${path}`,
        query,
        accept: JSON_TYPE,
        auth: 'client_id',
        ...(json !== undefined ? { json } : {}),
      },
      schema,
      call,
    );
  }

  /** Validates in order and returns the first error, or the collected formatted values. */
  function gather(
    parts: Record<string, Checked<string> | InvalidRequestError | undefined>,
  ): { query: Q } | InvalidRequestError {
    const query: Q = {};
    for (const [key, part] of Object.entries(parts)) {
      if (part === undefined) continue;
      if ('kind' in part) return part;
      query[key] = part.value;
    }
    return { query };
  }

  const vc = (op: string, p: V1VehicleParams) => checkVin(op, p?.vin) ?? checkContract(op, p?.contract);
  const lb = (op: string, p: Partial<V1LocaleBrandParams>, required = true) =>
    required || p.locale !== undefined ? checkLocale(op, p.locale) : undefined;
  const bb = (op: string, p: Partial<V1LocaleBrandParams>, required = true) =>
    required || p.brand !== undefined ? checkBrand(op, p.brand) : undefined;
  const tripIdCheck = (op: string, id: unknown) => positiveInt(op, 'tripId', id);

  function withChecks<T>(
    checks: (InvalidRequestError | undefined)[],
    run: () => Promise<Result<T>>,
  ): Promise<Result<T>> {
    const bad = firstError(...checks);
    return bad ? invalid(bad) : run();
  }

  function secondsOf(op: string, seconds: unknown, required: true): Checked<string>;
  function secondsOf(op: string, seconds: unknown, required: false): Checked<string> | undefined;
  function secondsOf(op: string, seconds: unknown, required: boolean): Checked<string> | undefined {
    if (seconds === undefined && !required) return undefined;
    return listSecond(op, seconds);
  }

  function bulk<T>(
    op: string,
    path: string,
    targets: readonly V1Target[],
    parts: Record<string, Checked<string> | InvalidRequestError | undefined>,
    schema: z.ZodType<T>,
    call?: CallOptions,
  ): Promise<Result<T>> {
    const body = bulkBody(op, targets);
    if (isErr(body)) return invalid(body);
    const g = gather(parts);
    if ('kind' in g) return invalid(g);
    return v1(op, 'POST', path, g.query, schema, call, body.value);
  }

  function get<T>(
    op: string,
    path: (p: V1VehicleParams) => string,
    p: V1VehicleParams,
    parts: Record<string, Checked<string> | InvalidRequestError | undefined>,
    schema: z.ZodType<T>,
    call?: CallOptions,
    method: 'GET' | 'PUT' = 'GET',
  ): Promise<Result<T>> {
    const bad = vc(op, p);
    if (bad) return invalid(bad);
    const g = gather(parts);
    if ('kind' in g) return invalid(g);
    return v1(op, method, path(p), { contract: p.contract, ...g.query }, schema, call);
  }

  const str = (v: string | undefined): Checked<string> | undefined =>
    v === undefined ? undefined : { value: v };
  const lbParts = (op: string, p: Partial<V1LocaleBrandParams>, required = true) => ({
    locale: lb(op, p, required) ?? str(p.locale),
    brand: bb(op, p, required) ?? str(p.brand),
  });
  const unitPart = (op: string, unit: unknown): Checked<string> => {
    const u = unitCode(op, unit);
    return 'kind' in u ? u : { value: u.code };
  };
  const limitPart = (op: string, limit: unknown): Checked<string> | InvalidRequestError | undefined =>
    limit === undefined ? undefined : (positiveInt(op, 'limit', limit) ?? { value: String(limit) });
  const flag = (v: boolean | undefined): Checked<string> | undefined =>
    v === undefined ? undefined : { value: v ? '1' : '0' };
  const boolRequired = (op: string, field: string, v: unknown): Checked<string> =>
    typeof v === 'boolean' ? { value: v ? '1' : '0' } : invalidRequest(op, field, 'must be a boolean');

  const records = arrayOf(wV1Record);
  const ecoArray = arrayOf(wV1EcoEvaluation);

  const v1Api: V1Api = {
    crashList: (p, call) =>
      bulk(
        'v1.crash.list',
        '/crash/list',
        p.targets,
        { listsecond: secondsOf('v1.crash.list', p.seconds, false) },
        arrayOf(wV1Crash),
        call,
      ),
    crashGet: (p, call) =>
      get(
        'v1.crash.get',
        (x) => `/crash/get/${seg(x.vin)}`,
        p,
        { listsecond: secondsOf('v1.crash.get', p.seconds, true) },
        wV1Crash,
        call,
      ),
    crashSearch: (p, call) =>
      get(
        'v1.crash.search',
        (x) => `/crash/search/${seg(x.vin)}`,
        p,
        {
          from: v1Date('v1.crash.search', 'from', p.from, 'yyyyMMddHHmm'),
          to: v1Date('v1.crash.search', 'to', p.to, 'yyyyMMddHHmm'),
          limit: limitPart('v1.crash.search', p.limit),
        },
        arrayOf(wV1Crash),
        call,
      ),
    ecoEvaluationList: (p, call) =>
      bulk(
        'v1.ecodriving.evaluation.list',
        '/ecodriving/evaluation/list',
        p.targets,
        lbParts('v1.ecodriving.evaluation.list', p),
        ecoArray,
        call,
      ),
    ecoTripDayList: (p, call) => {
      const op = 'v1.ecodriving.evaluation.tripDay.list';
      return bulk(
        op,
        '/ecodriving/evaluation/trip/day/list',
        p.targets,
        {
          ...lbParts(op, p),
          fromday: v1Date(op, 'fromDay', p.fromDay, 'yyyyMMdd'),
          today: v1Date(op, 'toDay', p.toDay, 'yyyyMMdd'),
        },
        ecoArray,
        call,
      );
    },
    ecoTripDay: (p, call) => {
      const op = 'v1.ecodriving.evaluation.tripDay.get';
      return get(
        op,
        (x) => `/ecodriving/evaluation/trip/day/${seg(x.vin)}`,
        p,
        {
          ...lbParts(op, p),
          fromday: v1Date(op, 'fromDay', p.fromDay, 'yyyyMMdd'),
          today: v1Date(op, 'toDay', p.toDay, 'yyyyMMdd'),
        },
        ecoArray,
        call,
      );
    },
    ecoPerTrip: (p, call) => {
      const op = 'v1.ecodriving.evaluation.perTrip';
      return withChecks([tripIdCheck(op, p.tripId)], () =>
        get(
          op,
          (x) => `/ecodriving/evaluation/pertrip/${seg(x.vin)}/${seg(String(p.tripId))}`,
          p,
          lbParts(op, p),
          wV1EcoEvaluation,
          call,
        ),
      );
    },
    ecoTripMonthList: (p, call) => {
      const op = 'v1.ecodriving.evaluation.tripMonth.list';
      return bulk(
        op,
        '/ecodriving/evaluation/trip/month/list',
        p.targets,
        {
          ...lbParts(op, p),
          frommonth: v1Date(op, 'fromMonth', p.fromMonth, 'yyyyMM'),
          tomonth: v1Date(op, 'toMonth', p.toMonth, 'yyyyMM'),
        },
        ecoArray,
        call,
      );
    },
    ecoTripMonth: (p, call) => {
      const op = 'v1.ecodriving.evaluation.tripMonth.get';
      return get(
        op,
        (x) => `/ecodriving/evaluation/trip/month/${seg(x.vin)}`,
        p,
        {
          ...lbParts(op, p),
          frommonth: v1Date(op, 'fromMonth', p.fromMonth, 'yyyyMM'),
          tomonth: v1Date(op, 'toMonth', p.toMonth, 'yyyyMM'),
        },
        ecoArray,
        call,
      );
    },
    ecoEvaluation: (p, call) =>
      get(
        'v1.ecodriving.evaluation.get',
        (x) => `/ecodriving/evaluation/get/${seg(x.vin)}`,
        p,
        lbParts('v1.ecodriving.evaluation.get', p),
        wV1EcoEvaluation,
        call,
      ),
    ecoLastTrip: (p, call) =>
      get(
        'v1.ecodriving.evaluation.lastTrip',
        (x) => `/ecodriving/evaluation/lasttrip/${seg(x.vin)}`,
        p,
        lbParts('v1.ecodriving.evaluation.lastTrip', p),
        wV1EcoEvaluation,
        call,
      ),
    ecoDayTrips: (p, call) => {
      const op = 'v1.ecodriving.evaluation.dayTrips';
      return get(
        op,
        (x) => `/ecodriving/evaluation/daytrips/${seg(x.vin)}`,
        p,
        { ...lbParts(op, p), day: v1Date(op, 'day', p.day, 'yyyyMMdd') },
        ecoArray,
        call,
      );
    },
    environmentList: (p, call) =>
      bulk(
        'v1.environment.list',
        '/environment/list',
        p.targets,
        { listsecond: secondsOf('v1.environment.list', p.seconds, true) },
        records,
        call,
      ),
    environment: (p, call) =>
      get(
        'v1.environment.get',
        (x) => `/environment/get/${seg(x.vin)}`,
        p,
        { listsecond: secondsOf('v1.environment.get', p.seconds, true) },
        wV1Record,
        call,
      ),
    maintenance: (p, call) =>
      get(
        'v1.maintenance.get',
        (x) => `/maintenance/${seg(x.vin)}`,
        p,
        lbParts('v1.maintenance.get', p),
        wV1Maintenance,
        call,
      ),
    maintenanceList: (p, call) =>
      bulk(
        'v1.maintenance.list',
        '/maintenance/list',
        p.targets,
        lbParts('v1.maintenance.list', p),
        arrayOf(wV1Maintenance),
        call,
      ),
    alertList: (p, call) =>
      bulk(
        'v1.maintenance.alert.list',
        '/maintenance/list/alert',
        p.targets,
        {
          ...lbParts('v1.maintenance.alert.list', p),
          active: boolRequired('v1.maintenance.alert.list', 'active', p.active),
        },
        wV1AlertList,
        call,
      ),
    alerts: (p, call) =>
      get(
        'v1.maintenance.alert.get',
        (x) => `/maintenance/alert/${seg(x.vin)}`,
        p,
        {
          ...lbParts('v1.maintenance.alert.get', p),
          active: boolRequired('v1.maintenance.alert.get', 'active', p.active),
        },
        wV1AlertList,
        call,
      ),
    lastPosition: (p, call) =>
      get(
        'v1.place.lastPosition',
        (x) => `/place/lastposition/${seg(x.vin)}`,
        p,
        // spec 4.4 lists `near` as required: default 0 (no look-ahead).
        { listsecond: secondsOf('v1.place.lastPosition', p.seconds, true), near: flag(p.near ?? false) },
        wV1Record,
        call,
      ),
    tripPositions: (p, call) => {
      const op = 'v1.place.tripPositions';
      return withChecks([tripIdCheck(op, p.tripId)], () =>
        get(
          op,
          (x) => `/place/positions/trip/${seg(x.vin)}`,
          p,
          {
            listsecond: secondsOf(op, p.seconds, true),
            near: flag(p.near ?? false),
            tripid: { value: String(p.tripId) },
          },
          records,
          call,
        ),
      );
    },
    referentialMaintenance: (p = {}, call) =>
      referential('v1.referential.maintenance', '/referential/maintenance', p, call),
    referentialAlert: (p = {}, call) => referential('v1.referential.alert', '/referential/alert', p, call),
    referentialEcodriving: (p = {}, call) =>
      referential('v1.referential.ecodriving', '/referential/ecodriving', p, call),
    lightStatusList: (p, call) =>
      bulk(
        'v1.running.lightStatus.list',
        '/running/lightstatus/list',
        p.targets,
        { listsecond: secondsOf('v1.running.lightStatus.list', p.seconds, true) },
        records,
        call,
      ),
    drivingAssistance: (p, call) =>
      get(
        'v1.safety.drivingAssistance.get',
        (x) => `/safety/drivingassistance/${seg(x.vin)}`,
        p,
        { listsecond: secondsOf('v1.safety.drivingAssistance.get', p.seconds, true) },
        wV1Record,
        call,
      ),
    drivingAssistanceDay: (p, call) => {
      const op = 'v1.safety.drivingAssistance.day';
      return get(
        op,
        (x) => `/safety/search/drivingassistance/day/${seg(x.vin)}`,
        p,
        { listsecond: secondsOf(op, p.seconds, true), day: v1Date(op, 'day', p.day, 'yyyyMMdd') },
        wV1Record,
        call,
      );
    },
    safetyAssistance: (p, call) =>
      get(
        'v1.safety.safetyAssistance.get',
        (x) => `/safety/safetyassistance/${seg(x.vin)}`,
        p,
        { listsecond: secondsOf('v1.safety.safetyAssistance.get', p.seconds, true) },
        wV1Record,
        call,
      ),
    safetyAssistanceDay: (p, call) => {
      const op = 'v1.safety.safetyAssistance.day';
      return get(
        op,
        (x) => `/safety/search/safetyassistance/day/${seg(x.vin)}`,
        p,
        { listsecond: secondsOf(op, p.seconds, true), day: v1Date(op, 'day', p.day, 'yyyyMMdd') },
        wV1Record,
        call,
      );
    },
    referenceTrips: (p, call) =>
      get(
        'v1.trip.referenceTrip.get',
        (x) => `/trip/get/referencetrip/${seg(x.vin)}`,
        p,
        { unit: unitPart('v1.trip.referenceTrip.get', p.unit) },
        wV1TripList,
        call,
      ),
    setReferenceTrip: (p, call) => {
      const op = 'v1.trip.referenceTrip.update';
      return withChecks([vc(op, p), tripIdCheck(op, p.tripId)], () =>
        raw(
          {
            operation: op,
            method: 'PUT',
            path: `${V1}/trip/update/referencetrip/${seg(p.vin)}`,
            query: { contract: p.contract, tripid: String(p.tripId) },
            accept: JSON_TYPE,
            auth: 'client_id',
          },
          call,
        ),
      );
    },
    lastTrips: (p, call) =>
      get(
        'v1.trip.last',
        (x) => `/trip/last/${seg(x.vin)}`,
        p,
        {
          limit: positiveInt('v1.trip.last', 'limit', p.limit) ?? { value: String(p.limit) },
          unit: unitPart('v1.trip.last', p.unit),
        },
        wV1TripList,
        call,
      ),
    tripList: (p, call) =>
      bulk(
        'v1.trip.list',
        '/trip/list',
        p.targets,
        {
          from: v1Date('v1.trip.list', 'from', p.from, 'yyyyMMdd'),
          to: v1Date('v1.trip.list', 'to', p.to, 'yyyyMMdd'),
          limit: limitPart('v1.trip.list', p.limit),
          unit: p.unit === undefined ? undefined : unitPart('v1.trip.list', p.unit),
        },
        wV1TripList,
        call,
      ),
    tripsByPeriod: (p, call) =>
      get(
        'v1.trip.period',
        (x) => `/trip/period/${seg(x.vin)}`,
        p,
        {
          from: v1Date('v1.trip.period', 'from', p.from, 'yyyyMMdd'),
          to: v1Date('v1.trip.period', 'to', p.to, 'yyyyMMdd'),
          limit: limitPart('v1.trip.period', p.limit),
          unit: p.unit === undefined ? undefined : unitPart('v1.trip.period', p.unit),
        },
        wV1TripList,
        call,
      ),
    trip: (p, call) => {
      const op = 'v1.trip.get';
      return withChecks([tripIdCheck(op, p.tripId)], () =>
        get(
          op,
          (x) => `/trip/id/${seg(x.vin)}/${seg(String(p.tripId))}`,
          p,
          { unit: unitPart(op, p.unit) },
          wV1Trip,
          call,
        ),
      );
    },
    setTripFuelPrice: (p, call) => {
      const op = 'v1.trip.fuelPrice.update';
      return withChecks([vc(op, p), tripIdCheck(op, p.tripId), positivePrice(op, p.price)], () =>
        raw(
          {
            operation: op,
            method: 'PUT',
            path: `${V1}/trip/update/fuelprice/${seg(p.vin)}/${seg(String(p.tripId))}`,
            query: { contract: p.contract, price: formatPrice(p.price) },
            accept: JSON_TYPE,
            auth: 'client_id',
          },
          call,
        ),
      );
    },
    setReferenceFuelPrice: (p, call) => {
      const op = 'v1.trip.referenceFuelPrice.update';
      return withChecks([vc(op, p), positivePrice(op, p.price)], () =>
        raw(
          {
            operation: op,
            method: 'PUT',
            path: `${V1}/trip/update/reference/fuelprice/${seg(p.vin)}`,
            query: { contract: p.contract, price: formatPrice(p.price) },
            accept: JSON_TYPE,
            auth: 'client_id',
          },
          call,
        ),
      );
    },
    referenceFuelPrice: (p, call) =>
      get(
        'v1.trip.referenceFuelPrice.get',
        (x) => `/trip/get/reference/fuelprice/${seg(x.vin)}`,
        p,
        {},
        wV1ReferenceFuelPrice,
        call,
      ),
    vehicleInformation: (p, call) =>
      get(
        'v1.vehicle.information',
        (x) => `/vehicle/information/${seg(x.vin)}`,
        p,
        {},
        wV1VehicleInformation,
        call,
      ),
    createPicture: (p, call) => {
      const op = 'v1.vehicle.picture.create';
      const body: Record<string, unknown> = {};
      for (const key of ['format', 'background', 'trim', 'view', 'ratio'] as const) {
        const v = p[key];
        if (v !== undefined && typeof v !== 'string')
          return invalid(invalidRequest(op, key, 'must be a string'));
        if (v !== undefined) body[key] = v;
      }
      if (p.width !== undefined) {
        const bad = positiveInt(op, 'width', p.width);
        if (bad) return invalid(bad);
        body.width = p.width;
      }
      return withChecks([vc(op, p)], () =>
        raw(
          {
            operation: op,
            method: 'POST',
            path: `${V1}/vehicle/picture/${seg(p.vin)}/${seg(p.contract)}`,
            json: body,
            accept: JSON_TYPE,
            auth: 'client_id',
          },
          call,
        ),
      );
    },
    picture: (p, call) => {
      const op = 'v1.vehicle.picture.get';
      return withChecks([vc(op, p)], () =>
        raw(
          {
            operation: op,
            method: 'GET',
            path: `${V1}/vehicle/picture/${seg(p.vin)}/${seg(p.contract)}`,
            accept: '*/*',
            auth: 'client_id',
          },
          call,
        ),
      );
    },
  };

  function referential(
    op: string,
    path: string,
    p: Partial<V1LocaleBrandParams>,
    call?: CallOptions,
  ): Promise<Result<readonly V1Referential[]>> {
    const g = gather(lbParts(op, p, false));
    if ('kind' in g) return invalid(g);
    return v1(op, 'GET', path, g.query, arrayOf(wV1Referential), call);
  }

  return {
    v2,
    services,
    map,
    v1: v1Api,
    auth: createTokenEndpoint({
      authUrl: options.authUrl,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      brand: options.brand,
      ...(options.clientAuth ? { clientAuth: options.clientAuth } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.random ? { random: options.random } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    }),
    stats: () => transport.stats(),
  };
}

export type { ApiError };
