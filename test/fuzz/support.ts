/**
 * Support of the response fuzzing: one realistic body per operation of operations.json,
 * recorded from the simulator through the real client; the declared result type of every operation
 * as a strict zod schema (what an `Ok` value must satisfy); mutations of those bodies (fast-check);
 * a client answering every request with a mutated body; and the observations the poll workers build
 * from client results (functions/core/polling/poll-*.ts keep their builders private: mirrored here).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import * as z from 'zod';
import { createMemoryStores } from '../../functions/adapters/memory/stores';
import {
  type ApiErrorKind,
  type CarClient,
  createCarClient,
  createOAuthTokenProvider,
  createTokenEndpoint,
  OPERATIONS,
  pkce,
  type Result,
  unwrap,
  type V1Brand,
} from '../../functions/core/api';
import type {
  EcoDriving,
  MapUpdateInfo,
  V1Alert,
  V1Crash,
  V1Maintenance,
  V1Trip,
} from '../../functions/core/api/model';
import { createKeyRing, createTokenCipher, createTokenSet } from '../../functions/core/crypto/token-cipher';
import type { DiffContext } from '../../functions/core/detection';
import type { Observation } from '../../functions/core/detection/observations';
import { enrollFleetContract } from '../../functions/core/enrollment/fleet';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { type PollDeps, type PollJob, vehicleResources } from '../../functions/core/polling';
import type { EventBus, PublishResult } from '../../functions/core/publishing/ports';
import { DEFAULT_RATE_BUDGET } from '../../functions/core/ratelimit/bucket';
import { createMemoryRateBudget } from '../../functions/core/ratelimit/budget';
import type { Stores } from '../../functions/core/store/ports';
import { createTokenManager } from '../../functions/core/tokens';
import { BRANDS, type RunningSimulator, startSimulator } from '../../sim';

// ---- The catalogue ----

const OPERATIONS_FILE = '/work/shared/spec/operations.json';
const IN_REPO_OPERATIONS = new URL('../../sim/spec/operations.json', import.meta.url);

/** Operation ids of operations.json (the shared spec; the simulator's in-repo copy when absent). */
export function specOperationIds(): string[] {
  const read = (file: string | URL): string[] =>
    (JSON.parse(readFileSync(file, 'utf8')) as { operations: { id: string }[] }).operations.map((o) => o.id);
  try {
    return read(OPERATIONS_FILE);
  } catch {
    return read(IN_REPO_OPERATIONS);
  }
}

// ---- Secrets the fuzz plants in bodies: no error text may ever show them ----

export const ACCESS_TOKEN = 'fuzz-access-token-QQQQ9999';
export const REFRESH_TOKEN = 'fuzz-refresh-token-RRRR8888';
export const CLIENT_SECRET = 'fuzz-client-secret-SSSS7777';
export const CLIENT_ID = 'fuzz-client';

/**
 * The secrets a call knows, which its error texts must never show: the client secret always; the
 * user's access token in bearer calls (v2, services); the refresh token in the token calls. A v1 or
 * map call never holds a user token, so a token-looking text in its body is just text (the
 * `Bearer …` and `access_token=…` forms are redacted anyway, by pattern).
 */
export function secretsKnownTo(operation: string): string[] {
  return [
    CLIENT_SECRET,
    ...(operation.startsWith('v2.') ? [ACCESS_TOKEN] : []),
    ...(operation.startsWith('auth.') ? [REFRESH_TOKEN] : []),
  ];
}

export const ERROR_KINDS: readonly ApiErrorKind[] = [
  'Unauthorized',
  'AccessDenied',
  'NotFound',
  'RateLimited',
  'Upstream',
  'Timeout',
  'Malformed',
  'InvalidRequest',
  'InvalidGrant',
  'Network',
];

// ---- Declared result types (model.ts, v1.ts, oauth.ts) as strict schemas ----

/** model.ts: ISO 8601 UTC with milliseconds, so dates compare as strings. */
const iso = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, 'an ISO date from 0000 to 9999');
const num = z.number(); // zod 4: finite only
const str = z.string();
const id = z.string().min(1);
const obj = z.record(z.string(), z.unknown());

const position = z.strictObject({
  lon: num,
  lat: num,
  alt: num.optional(),
  heading: num.optional(),
  collectedAt: iso.optional(),
});
const vehicle = z.strictObject({
  id,
  vin: str,
  brand: str.optional(),
  model: str.optional(),
  subModel: str.optional(),
  engine: str.optional(),
  gearbox: str.optional(),
  energy: str.optional(),
  createdAt: iso.optional(),
  updatedAt: iso.optional(),
});
const user = z.strictObject({
  id,
  email: str.optional(),
  firstName: str.optional(),
  lastName: str.optional(),
  createdAt: iso.optional(),
  updatedAt: iso.optional(),
  vehicles: z.array(vehicle).optional(),
});
const alert = z.strictObject({
  id,
  active: z.boolean(),
  message: str,
  severity: str.optional(),
  advice: str.optional(),
  category: str.optional(),
  position: position.optional(),
  startedAt: iso.optional(),
  endedAt: iso.optional(),
  createdAt: iso.optional(),
  updatedAt: iso.optional(),
});
const collision = z.strictObject({
  id,
  rollOver: z.boolean(),
  pedestrian: z.boolean(),
  front: str,
  rear: str,
  lateral: str,
  tripId: str.optional(),
  position: position.optional(),
  createdAt: iso.optional(),
  updatedAt: iso.optional(),
});
const maintenance = z.strictObject({
  vin: str.optional(),
  days: num,
  mileage: num,
  createdAt: iso.optional(),
  updatedAt: iso.optional(),
});
const trip = z.strictObject({
  id,
  reference: z.boolean().optional(),
  startedAt: iso.optional(),
  stoppedAt: iso.optional(),
  durationS: num.optional(),
  distanceKm: num.optional(),
  fuelConsumptionL: num.optional(),
  refueling: z.boolean().optional(),
  avgConsumptionL100: num.optional(),
  avgSpeedKmh: num.optional(),
  co2Estimated: num.optional(),
  startPosition: position.optional(),
  stopPosition: position.optional(),
  createdAt: iso.optional(),
  updatedAt: iso.optional(),
});
const vehicleEvent = z.strictObject({
  id,
  type: str,
  eventId: str,
  createdAt: iso.optional(),
  updatedAt: iso.optional(),
  alert: alert.optional(),
  collision: collision.optional(),
  trip: trip.optional(),
  record: obj.optional(),
});
const telemetry = z.strictObject({ id, createdAt: iso.optional(), properties: obj });
const ecoScore = z.strictObject({
  score: num,
  evaluation: str.optional(),
  advice: str.optional(),
  category: str.optional(),
  label: str.optional(),
});
const ecoDriving = z.strictObject({
  id: str.optional(),
  tripId: str.optional(),
  global: z.record(z.string(), ecoScore),
  detailed: z.record(z.string(), ecoScore),
});
const service = z.strictObject({ code: str, shortLabel: str.optional(), eligible: z.boolean() });
const mapInfo = z.strictObject({
  vin: str,
  installedVersion: str.optional(),
  availableVersion: str,
  releasedAt: iso.optional(),
  updateAvailable: z.boolean(),
  sizeMb: num.optional(),
});
const count = z.number().int().nonnegative();
const listPage = (item: z.ZodType) =>
  z
    .strictObject({
      items: z.array(item),
      total: count,
      offset: count,
      complete: z.boolean(),
      notFoundAsEmpty: z.literal(true).optional(),
    })
    // Only the first page can hold every item (client.ts ListPage.complete).
    .refine((p) => !p.complete || p.offset === 0, 'a complete page starts at offset 0');
const listAll = (item: z.ZodType) =>
  z.strictObject({
    items: z.array(item),
    total: count,
    complete: z.literal(true),
    pages: count,
  });

const v1Identity = { vin: str, contract: str, lastUpdate: iso.optional() };
const v1Record = z.strictObject({ ...v1Identity, raw: obj });
const v1Label = z.strictObject({
  evaluation: str.optional(),
  advice: str.optional(),
  category: str.optional(),
  label: str.optional(),
  groupLabel: str.optional(),
});
const v1Eco = z.strictObject({
  ...v1Identity,
  raw: obj,
  tripId: num.optional(),
  durationS: num.optional(),
  dateAggr: num.optional(),
  global: z.record(z.string(), num),
  detailed: z.record(z.string(), num),
  labels: z.record(z.string(), v1Label),
});
const v1Maintenance = z.strictObject({
  ...v1Identity,
  days: num.optional(),
  mileage: num.optional(),
  totMileage: num.optional(),
  fuelLevel: num.optional(),
});
const v1Alert = z.strictObject({
  vin: str,
  contract: str,
  idAlert: id,
  alert: str,
  advise: str.optional(),
  category: str.optional(),
  alertState: num,
  dateAlertBegin: iso.optional(),
  dateAlertEnd: iso.optional(),
  dateUpdate: iso.optional(),
});
const v1Trip = z.strictObject({
  vin: str,
  contract: str,
  tripId: num,
  dateTripBegin: iso.optional(),
  durationS: num.optional(),
  distanceKm: num.optional(),
  avgFuelConsumption: num.optional(),
  co2Emission: num.optional(),
  refueling: z.boolean().optional(),
  siphoning: z.boolean().optional(),
  raw: obj,
});
const v1TripList = z.strictObject({ totalNumberTrips: num.optional(), trips: z.array(v1Trip) });
const v1Raw = z.strictObject({
  status: z.number().int(),
  contentType: str,
  json: z.unknown().optional(),
  bytes: z.instanceof(Uint8Array).optional(),
});
const tokenSet = z.strictObject({
  accessToken: id,
  refreshToken: str.optional(),
  expiresAt: z.date().optional(), // zod 4: a valid date only
  scope: str.optional(),
  tokenType: id,
});

// ---- One case per operation: how to call it, what its Ok value must be ----

export interface FuzzContext {
  readonly vehicleId: string;
  readonly vin: string;
  readonly contract: string;
  readonly tripId: string;
  readonly v1TripId: number;
  readonly brand: V1Brand;
  /** Epoch ms of the recording (the simulator's world clock). */
  readonly now: number;
}

/** How the poll workers read an operation (functions/core/polling), to mirror their observations. */
export type PollUse = 'vehicle' | 'fleet' | 'map';

export interface OperationCase {
  readonly call: (client: CarClient, ctx: FuzzContext) => Promise<Result<unknown>>;
  /** The declared type of the Ok value. */
  readonly declared: z.ZodType;
  /** The Ok value must survive JSON as-is (false: it holds a Date or bytes). */
  readonly json: boolean;
  readonly poll?: PollUse;
}

const target = (c: FuzzContext) => ({ vin: c.vin, contract: c.contract });
const lb = (c: FuzzContext) => ({ locale: 'en_GB', brand: c.brand });
const daysAgo = (c: FuzzContext, n: number) => new Date(c.now - n * 86_400_000);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The worker's default page size (polling/config.ts `pageLimit`). */
export const POLL_PAGE_LIMIT = 100;
/** The worker's list window (polling/config.ts `listWindowMs`) and events look-back. */
export const POLL_LIST_WINDOW_MS = DAY;
export const POLL_EVENTS_LOOKBACK_MS = HOUR;

const kase = (
  call: OperationCase['call'],
  declared: z.ZodType,
  extra: Partial<Pick<OperationCase, 'json' | 'poll'>> = {},
): OperationCase => ({ call, declared, json: true, ...extra });

export const CASES: Readonly<Record<string, OperationCase>> = {
  'v2.user': kase((cl) => cl.v2.user(), user),
  'v2.vehicles.list': kase((cl) => cl.v2.vehicles({ limit: 100 }), listPage(vehicle)),
  'v2.vehicles.get': kase((cl, c) => cl.v2.vehicle(c.vehicleId), vehicle),
  'v2.vehicles.lastPosition': kase((cl, c) => cl.v2.lastPosition(c.vehicleId), position),
  // The poll path's reads use `.all()` exactly as poll-vehicle.ts does.
  'v2.vehicles.alerts': kase(
    (cl, c) => cl.v2.alerts.all({ vehicleId: c.vehicleId, limit: POLL_PAGE_LIMIT }),
    listAll(alert),
    { poll: 'vehicle' },
  ),
  'v2.vehicles.collisions': kase(
    (cl, c) =>
      cl.v2.collisions.all({
        vehicleId: c.vehicleId,
        since: new Date(c.now - POLL_LIST_WINDOW_MS),
        limit: POLL_PAGE_LIMIT,
      }),
    listAll(collision),
    { poll: 'vehicle' },
  ),
  'v2.vehicles.maintenance': kase((cl, c) => cl.v2.maintenance(c.vehicleId), maintenance, {
    poll: 'vehicle',
  }),
  'v2.vehicles.events': kase(
    (cl, c) =>
      cl.v2.events.all({
        vehicleId: c.vehicleId,
        since: new Date(c.now - POLL_EVENTS_LOOKBACK_MS),
        limit: POLL_PAGE_LIMIT,
      }),
    listAll(vehicleEvent),
    { poll: 'vehicle' },
  ),
  'v2.vehicles.telemetry': kase(
    (cl, c) => cl.v2.telemetry({ vehicleId: c.vehicleId, type: ['vehicle.odometer'], limit: 5 }),
    listPage(telemetry),
  ),
  'v2.vehicles.trips': kase(
    (cl, c) =>
      cl.v2.vehicleTrips.all({
        vehicleId: c.vehicleId,
        since: new Date(c.now - POLL_LIST_WINDOW_MS),
        limit: POLL_PAGE_LIMIT,
      }),
    listAll(trip),
    { poll: 'vehicle' },
  ),
  'v2.trips.list': kase((cl, c) => cl.v2.trips({ since: daysAgo(c, 30), limit: 5 }), listPage(trip)),
  'v2.trips.get': kase((cl, c) => cl.v2.trip(c.tripId), trip),
  'v2.trips.collisions': kase((cl, c) => cl.v2.tripCollisions({ tripId: c.tripId }), listPage(collision)),
  'v2.trips.alerts': kase((cl, c) => cl.v2.tripAlerts({ tripId: c.tripId }), listPage(alert)),
  'v2.trips.ecodriving': kase((cl, c) => cl.v2.tripEcodriving(c.tripId), ecoDriving, { poll: 'vehicle' }),
  'v2.trips.telemetry': kase(
    (cl, c) => cl.v2.tripTelemetry({ tripId: c.tripId, limit: 3 }),
    listPage(telemetry),
  ),
  'v2.trips.wayPoints': kase((cl, c) => cl.v2.tripWaypoints({ tripId: c.tripId, limit: 100 }), listPage(obj)),
  'v2.services.vehicle': kase((cl, c) => cl.services.vehicle(c.vin), z.array(service), { poll: 'vehicle' }),
  'v2.vehicles.eligibilities': kase(
    (cl, c) => cl.services.eligibilities(c.vin),
    z.union([z.array(z.unknown()), obj]),
  ),
  'map.vin': kase((cl, c) => cl.map.vin(c.vin, { callerId: 'carhook-fuzz' }), mapInfo, { poll: 'vehicle' }),
  'map.bulk': kase((cl, c) => cl.map.bulk([c.vin]), z.array(mapInfo), { poll: 'map' }),
  'v1.crash.list': kase((cl, c) => cl.v1.crashList({ targets: [target(c)] }), z.array(v1Record), {
    poll: 'fleet',
  }),
  'v1.crash.get': kase((cl, c) => cl.v1.crashGet({ ...target(c), seconds: [41, 60] }), v1Record),
  'v1.crash.search': kase(
    (cl, c) => cl.v1.crashSearch({ ...target(c), from: daysAgo(c, 30), to: daysAgo(c, 0) }),
    z.array(v1Record),
  ),
  'v1.ecodriving.evaluation.list': kase(
    (cl, c) => cl.v1.ecoEvaluationList({ targets: [target(c)], ...lb(c) }),
    z.array(v1Eco),
  ),
  'v1.ecodriving.evaluation.tripDay.list': kase(
    (cl, c) =>
      cl.v1.ecoTripDayList({ targets: [target(c)], ...lb(c), fromDay: daysAgo(c, 14), toDay: daysAgo(c, 0) }),
    z.array(v1Eco),
  ),
  'v1.ecodriving.evaluation.tripDay.get': kase(
    (cl, c) => cl.v1.ecoTripDay({ ...target(c), ...lb(c), fromDay: daysAgo(c, 14), toDay: daysAgo(c, 0) }),
    z.array(v1Eco),
  ),
  'v1.ecodriving.evaluation.perTrip': kase(
    (cl, c) => cl.v1.ecoPerTrip({ ...target(c), ...lb(c), tripId: c.v1TripId }),
    v1Eco,
  ),
  'v1.ecodriving.evaluation.tripMonth.list': kase(
    (cl, c) =>
      cl.v1.ecoTripMonthList({
        targets: [target(c)],
        ...lb(c),
        fromMonth: daysAgo(c, 60),
        toMonth: daysAgo(c, 0),
      }),
    z.array(v1Eco),
  ),
  'v1.ecodriving.evaluation.tripMonth.get': kase(
    (cl, c) =>
      cl.v1.ecoTripMonth({ ...target(c), ...lb(c), fromMonth: daysAgo(c, 60), toMonth: daysAgo(c, 0) }),
    z.array(v1Eco),
  ),
  'v1.ecodriving.evaluation.get': kase((cl, c) => cl.v1.ecoEvaluation({ ...target(c), ...lb(c) }), v1Eco),
  'v1.ecodriving.evaluation.lastTrip': kase((cl, c) => cl.v1.ecoLastTrip({ ...target(c), ...lb(c) }), v1Eco),
  'v1.ecodriving.evaluation.dayTrips': kase(
    (cl, c) => cl.v1.ecoDayTrips({ ...target(c), ...lb(c), day: daysAgo(c, 0) }),
    z.array(v1Eco),
  ),
  'v1.environment.list': kase(
    (cl, c) => cl.v1.environmentList({ targets: [target(c)], seconds: [1, 41, 60] }),
    z.array(v1Record),
  ),
  'v1.environment.get': kase((cl, c) => cl.v1.environment({ ...target(c), seconds: [41] }), v1Record),
  'v1.maintenance.get': kase((cl, c) => cl.v1.maintenance({ ...target(c), ...lb(c) }), v1Maintenance),
  'v1.maintenance.list': kase(
    (cl, c) => cl.v1.maintenanceList({ targets: [target(c)], ...lb(c) }),
    z.array(v1Maintenance),
    { poll: 'fleet' },
  ),
  'v1.maintenance.alert.list': kase(
    (cl, c) => cl.v1.alertList({ targets: [target(c)], ...lb(c), active: true }),
    z.array(v1Alert),
    { poll: 'fleet' },
  ),
  'v1.maintenance.alert.get': kase(
    (cl, c) => cl.v1.alerts({ ...target(c), ...lb(c), active: false }),
    z.array(v1Alert),
  ),
  'v1.place.lastPosition': kase(
    (cl, c) => cl.v1.lastPosition({ ...target(c), seconds: [6, 60], near: true }),
    v1Record,
  ),
  'v1.place.tripPositions': kase(
    (cl, c) => cl.v1.tripPositions({ ...target(c), seconds: [6, 12], tripId: c.v1TripId }),
    z.array(v1Record),
  ),
  'v1.referential.maintenance': kase(
    (cl) => cl.v1.referentialMaintenance({ locale: 'fr_FR', brand: 'C' }),
    z.array(z.record(z.string(), str)),
  ),
  'v1.referential.alert': kase((cl) => cl.v1.referentialAlert(), z.array(z.record(z.string(), str))),
  'v1.referential.ecodriving': kase(
    (cl) => cl.v1.referentialEcodriving({ brand: 'P' }),
    z.array(z.record(z.string(), str)),
  ),
  'v1.running.lightStatus.list': kase(
    (cl, c) => cl.v1.lightStatusList({ targets: [target(c)], seconds: [30, 60] }),
    z.array(v1Record),
  ),
  'v1.safety.drivingAssistance.get': kase(
    (cl, c) => cl.v1.drivingAssistance({ ...target(c), seconds: [1] }),
    v1Record,
  ),
  'v1.safety.drivingAssistance.day': kase(
    (cl, c) => cl.v1.drivingAssistanceDay({ ...target(c), seconds: [1], day: daysAgo(c, 1) }),
    v1Record,
  ),
  'v1.safety.safetyAssistance.get': kase(
    (cl, c) => cl.v1.safetyAssistance({ ...target(c), seconds: [1, 2] }),
    v1Record,
  ),
  'v1.safety.safetyAssistance.day': kase(
    (cl, c) => cl.v1.safetyAssistanceDay({ ...target(c), seconds: [1], day: daysAgo(c, 1) }),
    v1Record,
  ),
  'v1.trip.referenceTrip.get': kase(
    (cl, c) => cl.v1.referenceTrips({ ...target(c), unit: 'metric' }),
    v1TripList,
  ),
  'v1.trip.referenceTrip.update': kase(
    (cl, c) => cl.v1.setReferenceTrip({ ...target(c), tripId: c.v1TripId }),
    v1Raw,
    { json: false },
  ),
  'v1.trip.last': kase((cl, c) => cl.v1.lastTrips({ ...target(c), limit: 2, unit: 0 }), v1TripList),
  // As poll-fleet.ts reads it: the list window up to now.
  'v1.trip.list': kase(
    (cl, c) =>
      cl.v1.tripList({
        targets: [target(c)],
        from: new Date(c.now - POLL_LIST_WINDOW_MS),
        to: new Date(c.now),
      }),
    v1TripList,
    { poll: 'fleet' },
  ),
  'v1.trip.period': kase(
    (cl, c) =>
      cl.v1.tripsByPeriod({
        ...target(c),
        from: daysAgo(c, 30),
        to: daysAgo(c, -1),
        limit: 100,
        unit: 'imperial',
      }),
    v1TripList,
  ),
  'v1.trip.get': kase((cl, c) => cl.v1.trip({ ...target(c), tripId: c.v1TripId, unit: 'metric' }), v1Trip),
  'v1.trip.fuelPrice.update': kase(
    (cl, c) => cl.v1.setTripFuelPrice({ ...target(c), tripId: c.v1TripId, price: 1.789 }),
    v1Raw,
    { json: false },
  ),
  'v1.trip.referenceFuelPrice.update': kase(
    (cl, c) => cl.v1.setReferenceFuelPrice({ ...target(c), price: 1.659 }),
    v1Raw,
    { json: false },
  ),
  'v1.trip.referenceFuelPrice.get': kase(
    (cl, c) => cl.v1.referenceFuelPrice(target(c)),
    z.strictObject({ vin: str, contract: str, fuelPrice: num }),
  ),
  'v1.vehicle.information': kase(
    (cl, c) => cl.v1.vehicleInformation(target(c)),
    z.strictObject({
      vin: str,
      brand: str.optional(),
      color: str.optional(),
      lcdv: str.optional(),
      deliveryDate: str.optional(),
      manufacturingDate: str.optional(),
      raw: obj,
    }),
  ),
  'v1.vehicle.picture.create': kase(
    (cl, c) => cl.v1.createPicture({ ...target(c), width: 640, format: 'png', view: 'front' }),
    v1Raw,
    { json: false },
  ),
  'v1.vehicle.picture.get': kase((cl, c) => cl.v1.picture(target(c)), v1Raw, { json: false }),
  // The authorize redirect's callback carries the code that the client exchanges: its "body" is the
  // callback query (see `callbackCode`), answered by the recorded token response.
  'auth.authorize': kase(
    (cl) => cl.auth.exchangeCode({ code: 'unused', redirectUri: REDIRECT_URI }),
    tokenSet,
    { json: false },
  ),
  'auth.token': kase((cl) => cl.auth.refresh(REFRESH_TOKEN), tokenSet, { json: false }),
};

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** The `code` a callback query carries, as a callback handler reads it (absent → empty). */
export function callbackCode(query: string): string {
  return new URLSearchParams(query).get('code') ?? '';
}

// ---- Recording from the simulator ----

/** One recorded response: what a real server answered for the operation. */
export interface Recorded {
  readonly operation: string;
  readonly status: number;
  readonly contentType: string;
  readonly body: Uint8Array;
  /** The parsed body when it is JSON. */
  readonly json?: unknown;
}

export interface Recording {
  readonly ctx: FuzzContext;
  readonly bodies: ReadonlyMap<string, Recorded>;
}

function recorded(operation: string, status: number, contentType: string, body: Uint8Array): Recorded {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(body));
  } catch {
    json = undefined;
  }
  return { operation, status, contentType, body, ...(json !== undefined ? { json } : {}) };
}

/**
 * Starts the simulator in-process (port 0, manual clock), gives one vehicle alerts (active and
 * fixed), a collision, trips with refuels, maintenance due soon, a new map version and a reference
 * trip, authorizes its user through the authorization-code flow, then calls every operation once through the real
 * client and keeps the last raw response of each call.
 */
export async function recordFromSimulator(): Promise<Recording> {
  const sim: RunningSimulator = await startSimulator({
    port: 0,
    vehicles: 6,
    seed: 11,
    clock: 'manual',
    quota: { limit: 100_000, windowSeconds: 60 },
  });
  try {
    const world = sim.world;
    const vehicle =
      world.vehicles().find((v) => v.geolocationAllowed && world.trips(v.id).length > 0) ??
      world.vehicles()[0];
    if (!vehicle) throw new Error('the simulator world has no vehicle');
    const simUser = world.user(vehicle.userId);
    if (!simUser) throw new Error(`no user for vehicle ${vehicle.id}`);
    // Within the poll windows (last hour / day): a trip with a collision, alerts and a refuel.
    world.advance(2 * HOUR);
    unwrapSim(world.addTrip(vehicle.id, { durationS: 1200, collision: true, refueling: true, alerts: [] }));
    const raised = unwrapSim(world.raiseAlert(vehicle.id, { severity: 'high' }));
    const toFix = unwrapSim(world.raiseAlert(vehicle.id, { severity: 'low' }));
    world.advance(5 * 60_000);
    unwrapSim(world.fixAlert(vehicle.id, toFix.id));
    unwrapSim(world.addCollision(vehicle.id, { front: 'high', rollOver: false }));
    unwrapSim(world.addFuelEvent(vehicle.id, 'refuel', 30));
    unwrapSim(world.addFuelEvent(vehicle.id, 'fuel_stolen', 12));
    unwrapSim(world.setMaintenance(vehicle.id, 12, 800));
    unwrapSim(world.releaseMap(vehicle.vin));
    world.advance(60_000);
    const lastTrip = world.trips(vehicle.id).at(-1);
    if (!lastTrip) throw new Error('no trip recorded');
    world.setReferenceTrip(lastTrip.id, true);
    if (!raised.active) throw new Error('the raised alert is not active');

    const captured: { status: number; contentType: string; body: Uint8Array; location?: string }[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      const res = await globalThis.fetch(input, { ...init, redirect: 'manual' });
      const body = new Uint8Array(await res.arrayBuffer());
      const location = res.headers.get('location');
      captured.push({
        status: res.status,
        contentType: res.headers.get('content-type') ?? '',
        body,
        ...(location ? { location } : {}),
      });
      return new Response(res.status === 204 || res.status === 304 ? null : body, {
        status: res.status,
        headers: res.headers,
      });
    };
    const brand = BRANDS[simUser.brand].authSegment;
    const base = {
      baseUrl: sim.baseUrl,
      authUrl: sim.authUrl,
      clientId: sim.clientId,
      clientSecret: sim.clientSecret,
      brand,
      fetch: recordingFetch,
    };
    const bodies = new Map<string, Recorded>();
    const take = (operation: string, pick = (): (typeof captured)[number] | undefined => captured.at(-1)) => {
      const last = pick();
      if (!last) throw new Error(`${operation}: no response recorded`);
      bodies.set(operation, recorded(operation, last.status, last.contentType, last.body));
    };

    // The authorization-code flow in a browser: the authorize page, the user's choice, the 302 to the callback.
    const bootstrap = createCarClient(base);
    const verifier = pkce.verifier();
    const url = bootstrap.auth.authorizeUrl({
      redirectUri: REDIRECT_URI,
      state: pkce.state(),
      codeChallenge: await pkce.challenge(verifier),
    });
    captured.length = 0;
    await recordingFetch(url);
    const post = await recordingFetch(url, {
      method: 'POST',
      body: new URLSearchParams({ user: simUser.id }),
    });
    const location = new URL(post.headers.get('location') ?? '', REDIRECT_URI);
    if (post.status !== 302 || !location.searchParams.get('code')) {
      throw new Error(`authorize: status ${post.status}, no code in the redirect`);
    }
    bodies.set(
      'auth.authorize',
      recorded(
        'auth.authorize',
        200,
        'application/x-www-form-urlencoded',
        new TextEncoder().encode(location.search.slice(1)),
      ),
    );
    captured.length = 0;
    const tokens = unwrap(
      await bootstrap.auth.exchangeCode({
        code: location.searchParams.get('code') ?? '',
        redirectUri: REDIRECT_URI,
        codeVerifier: verifier,
      }),
    );
    const provider = createOAuthTokenProvider({ endpoint: bootstrap.auth, tokens });
    const client = createCarClient({ ...base, tokenProvider: provider });

    const ctx: FuzzContext = {
      vehicleId: vehicle.id,
      vin: vehicle.vin,
      contract: vehicle.contract,
      tripId: lastTrip.id,
      v1TripId: lastTrip.v1Id,
      brand: vehicle.brand,
      now: world.now(),
    };
    for (const [operation, c] of Object.entries(CASES)) {
      if (operation.startsWith('auth.')) continue;
      captured.length = 0;
      const r = await c.call(client, ctx);
      if (!r.ok) throw new Error(`${operation}: ${r.error.kind} ${r.error.message}`);
      take(operation);
    }
    // Last: a refresh (the provider's refresh token rotates).
    captured.length = 0;
    unwrap(await bootstrap.auth.refresh(provider.tokens.refreshToken ?? ''));
    take('auth.token');
    return { ctx, bodies };
  } finally {
    await sim.close();
  }
}

function unwrapSim<T>(
  outcome: { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: object },
): T {
  if (!outcome.ok) throw new Error(`simulator: ${JSON.stringify(outcome.error)}`);
  return outcome.value;
}

// ---- A client answering every request with one served response ----

export interface Served {
  readonly status: number;
  readonly contentType: string;
  readonly body: Uint8Array;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The fuzz client: fake fetch, fake clock and sleep, two attempts, a short page bound. */
export function servingClient(serve: (n: number) => Served, now: number) {
  let clock = now;
  let requests = 0;
  const fetch = (async (_input: string | URL | Request, init?: RequestInit) => {
    requests++;
    if (init?.signal?.aborted) throw init.signal.reason;
    const s = serve(requests);
    const empty = s.status === 204 || s.status === 304 || s.status < 200;
    return new Response(empty ? null : s.body, {
      status: s.status,
      headers: { ...(s.contentType ? { 'content-type': s.contentType } : {}), ...s.headers },
    });
  }) as typeof globalThis.fetch;
  const client = createCarClient({
    baseUrl: 'https://api.example.test',
    authUrl: 'https://auth.example.test',
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    brand: 'brand-fuzz',
    fetch,
    now: () => clock,
    sleep: async (ms) => {
      clock += ms;
    },
    random: () => 0.5,
    retry: { maxAttempts: 2 },
    maxPages: 8,
    tokenProvider: {
      getAccessToken: async () => ACCESS_TOKEN,
      refreshAccessToken: async () => ACCESS_TOKEN,
    },
  });
  return { client, requests: () => requests };
}

// ---- Mutations ----

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON path: keys and indexes from the root. */
type Path = readonly (string | number)[];

function paths(value: unknown, max = 3000): { path: Path; node: unknown }[] {
  const out: { path: Path; node: unknown }[] = [];
  const walk = (node: unknown, path: Path): void => {
    if (out.length >= max) return;
    if (path.length > 0) out.push({ path, node });
    if (Array.isArray(node)) for (const [i, v] of node.entries()) walk(v, [...path, i]);
    else if (node !== null && typeof node === 'object')
      for (const [k, v] of Object.entries(node)) walk(v, [...path, k]);
  };
  walk(value, []);
  return out;
}

function parentOf(
  root: unknown,
  path: Path,
): { parent: Record<string | number, unknown>; key: string | number } {
  let node = root as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
  return { parent: node, key: path[path.length - 1] as string | number };
}

function deeplyNested(depth: number): Json {
  let v: Json = { leaf: 'x' };
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? { nested: v } : [v];
  return v;
}

/** Replacement values: null, wrong types, huge, NaN-like, negative, empty, nested, secrets, odd dates. */
export const replacementArb: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  fc.constantFrom<Json>(true, false, 0, 1, 'true', 'yes', 'x', [], {}, [null], { id: null }),
  fc.constantFrom<Json>(
    1e308,
    -1e308,
    1e21,
    2 ** 53 + 1,
    -(2 ** 53) - 1,
    8.64e15 + 1,
    1e20,
    -1,
    -86_400,
    -1e9,
    -0.5,
    0.1,
    1.5,
  ),
  fc.constantFrom<Json>(
    'NaN',
    'Infinity',
    '-Infinity',
    '1e999',
    '-1e999',
    '1e308',
    '0x1F',
    '',
    ' ',
    '1,5',
    '-0',
    '١٢',
  ),
  fc.constantFrom<Json>(
    '0000-00-00',
    '9999-12-31T23:59:59Z',
    '+275760-09-13T00:00:00.000Z',
    '-000001-01-01T00:00:00.000Z',
    '2026-02-30T00:00:00Z',
    '2026-11-22T10:00:00+9999',
    '20261399999999',
    '99991231235959',
    '00000000000000',
    'yesterday',
  ),
  fc.constantFrom<Json>(
    ACCESS_TOKEN,
    `Bearer ${ACCESS_TOKEN}`,
    CLIENT_SECRET,
    `{"access_token":"${ACCESS_TOKEN}","refresh_token":"${REFRESH_TOKEN}"}`,
    `https://x.example/cb?code=${REFRESH_TOKEN}&client_secret=${CLIENT_SECRET}`,
  ),
  fc.integer({ min: 1, max: 20_000 }).map((n): Json => `${'x'.repeat(n)}${ACCESS_TOKEN}`),
  fc.integer({ min: 10, max: 300 }).map((d) => deeplyNested(d)),
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
);

const KEY_NAMES = [
  ACCESS_TOKEN,
  CLIENT_SECRET,
  `Bearer ${CLIENT_SECRET}`,
  '__proto__',
  'constructor',
  '',
  'toString',
  'k'.repeat(500),
];

export type JsonMutation =
  | { readonly kind: 'drop'; readonly pick: number }
  | { readonly kind: 'set'; readonly pick: number; readonly value: Json }
  | { readonly kind: 'rename'; readonly pick: number; readonly key: string }
  /** Renames a key and breaks its value, so that a schema issue's path names the key. */
  | { readonly kind: 'poison'; readonly pick: number; readonly key: string }
  | { readonly kind: 'add'; readonly pick: number; readonly key: string; readonly value: Json }
  | { readonly kind: 'duplicate'; readonly pick: number; readonly times: number }
  | { readonly kind: 'shuffle'; readonly pick: number; readonly seed: number }
  | { readonly kind: 'wrap'; readonly pick: number }
  | { readonly kind: 'hal'; readonly how: 'drop-links' | 'elsewhere' | 'not-a-string' | 'drop-embedded' }
  | { readonly kind: 'total'; readonly value: Json | 'more' | 'fewer' };

export const jsonMutationArb: fc.Arbitrary<JsonMutation> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('drop' as const), pick: fc.nat() }) },
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('set' as const), pick: fc.nat(), value: replacementArb }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('rename' as const),
      pick: fc.nat(),
      key: fc.constantFrom(...KEY_NAMES),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('poison' as const),
      pick: fc.nat(),
      key: fc.constantFrom(ACCESS_TOKEN, CLIENT_SECRET, 'k'.repeat(5000)),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      pick: fc.nat(),
      key: fc.constantFrom(...KEY_NAMES, 'total', '_links', '_embedded', 'id', 'vin'),
      value: replacementArb,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('duplicate' as const),
      pick: fc.nat(),
      times: fc.integer({ min: 1, max: 5 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('shuffle' as const), pick: fc.nat(), seed: fc.nat() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('wrap' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('hal' as const),
      how: fc.constantFrom('drop-links', 'elsewhere', 'not-a-string', 'drop-embedded'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('total' as const),
      value: fc.constantFrom<Json | 'more' | 'fewer'>(
        'more',
        'fewer',
        0,
        -1,
        1e9,
        2 ** 31,
        1.5,
        '7',
        'many',
        null,
        '1e999',
        1e308,
      ),
    }),
  },
);

function halLinks(
  node: unknown,
  visit: (links: Record<string, unknown>, owner: Record<string, unknown>) => void,
): void {
  if (Array.isArray(node)) for (const v of node) halLinks(v, visit);
  else if (node !== null && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (o._links !== null && typeof o._links === 'object' && !Array.isArray(o._links))
      visit(o._links as Record<string, unknown>, o);
    for (const v of Object.values(o)) halLinks(v, visit);
  }
}

function embeddedItems(root: unknown): unknown[] | undefined {
  const e = (root as { _embedded?: unknown } | null)?._embedded;
  if (e === null || typeof e !== 'object') return undefined;
  const first = Object.values(e).find(Array.isArray);
  return first as unknown[] | undefined;
}

/** Applies one mutation to a JSON value (a copy is mutated; the input is never touched). */
export function mutateJson(value: unknown, m: JsonMutation): unknown {
  const root = { $: structuredClone(value) } as Record<string, unknown>;
  const all = paths(root).filter((p) => p.path.length > 0);
  const nodes = all.filter((p) => !(p.path.length === 1 && p.path[0] === '$'));
  const pickFrom = <T>(list: readonly T[], pick: number): T | undefined =>
    list.length === 0 ? undefined : list[pick % list.length];
  switch (m.kind) {
    case 'drop': {
      const p = pickFrom(nodes, m.pick);
      if (!p) return root.$;
      const { parent, key } = parentOf(root, p.path);
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
      return root.$;
    }
    case 'set': {
      const p = pickFrom(all, m.pick);
      if (!p) return root.$;
      const { parent, key } = parentOf(root, p.path);
      parent[key] = m.value;
      return root.$;
    }
    case 'rename':
    case 'poison': {
      // A poisoned key is one whose value is a record (an object): what a schema validates by key.
      const p = pickFrom(
        nodes.filter(
          (n) =>
            typeof n.path.at(-1) === 'string' &&
            (m.kind === 'rename' ||
              (typeof n.node === 'object' && n.node !== null && !Array.isArray(n.node))),
        ),
        m.pick,
      );
      if (!p) return root.$;
      const { parent, key } = parentOf(root, p.path);
      const v =
        m.kind === 'poison' ? (typeof parent[key] === 'string' ? 17 : 'not-what-was-expected') : parent[key];
      delete parent[key];
      // defineProperty: `__proto__` becomes an own key, as JSON.parse makes it.
      Object.defineProperty(parent, m.key, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      return root.$;
    }
    case 'add': {
      const objects = all.filter(
        (p) => p.node !== null && typeof p.node === 'object' && !Array.isArray(p.node),
      );
      const p = pickFrom(objects, m.pick);
      if (!p) return root.$;
      Object.defineProperty(p.node as object, m.key, {
        value: m.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      return root.$;
    }
    case 'duplicate':
    case 'shuffle': {
      const arrays = all.filter((p) => Array.isArray(p.node) && (p.node as unknown[]).length > 0);
      const p = pickFrom(arrays, m.pick);
      if (!p) return root.$;
      const arr = p.node as unknown[];
      if (m.kind === 'duplicate') {
        const item = arr[m.pick % arr.length];
        for (let i = 0; i < m.times; i++)
          arr.splice((m.pick + i) % (arr.length + 1), 0, structuredClone(item));
      } else {
        let s = m.seed || 1;
        for (let i = arr.length - 1; i > 0; i--) {
          s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
          const j = s % (i + 1);
          [arr[i], arr[j]] = [arr[j], arr[i]];
        }
      }
      return root.$;
    }
    case 'wrap': {
      const p = pickFrom(all, m.pick);
      if (!p) return root.$;
      const { parent, key } = parentOf(root, p.path);
      parent[key] = Array.isArray(p.node) ? p.node[0] : [p.node];
      return root.$;
    }
    case 'hal': {
      if (m.how === 'drop-embedded') {
        const top = root.$ as Record<string, unknown> | null;
        if (top && typeof top === 'object') delete top._embedded;
        return root.$;
      }
      halLinks(root.$, (links, owner) => {
        if (m.how === 'drop-links') delete owner._links;
        else
          for (const name of Object.keys(links))
            links[name] =
              m.how === 'elsewhere'
                ? { href: `https://elsewhere.example/other/${name}/../${name === 'self' ? '' : 'x'}?page=2` }
                : { href: 42 };
      });
      return root.$;
    }
    case 'total': {
      const top = root.$ as Record<string, unknown> | null;
      if (!top || typeof top !== 'object' || Array.isArray(top)) return root.$;
      const n = embeddedItems(top)?.length ?? 0;
      top.total = m.value === 'more' ? n + 1 + (n % 7) : m.value === 'fewer' ? Math.max(0, n - 1) : m.value;
      if ('totalNumberTrips' in top) top.totalNumberTrips = top.total;
      return root.$;
    }
  }
}

const NON_JSON = [
  '<html><body><h1>502 Bad Gateway</h1></body></html>',
  'OK',
  'undefined',
  'NaN',
  '{',
  '[1,2,',
  '\u0000\uFFFF',
  `Authorization: Bearer ${ACCESS_TOKEN}`,
  `{"access_token":"${ACCESS_TOKEN}", oops`,
  `error=invalid_grant&refresh_token=${REFRESH_TOKEN}`,
  'null',
  '0',
  '"x"',
  'true',
  '[]',
  '{}',
  '[[]]',
];

export interface Mutated {
  readonly label: string;
  readonly served: Served;
}

/** fast-check prints counterexamples with this: the label and the start of the body as text. */
function printable(m: Mutated): Mutated {
  const text = new TextDecoder().decode(m.served.body);
  return Object.assign(m, {
    [fc.toStringMethod]: () =>
      `${m.label} ${m.served.contentType || '(no content-type)'}: ${JSON.stringify(text.length > 600 ? `${text.slice(0, 600)}…(${text.length})` : text)}`,
  });
}

const enc = new TextEncoder();

/** Every way a response to one operation may go wrong, as fast-check values. */
export function mutatedArb(rec: Recorded): fc.Arbitrary<Mutated> {
  const text = new TextDecoder().decode(rec.body);
  const ct = rec.contentType;
  const status = fc.oneof(
    { weight: 12, arbitrary: fc.constant(rec.status) },
    { weight: 1, arbitrary: fc.constantFrom(404, 500, 503, 201, 204) },
  );
  const asServed = (label: string, body: string | Uint8Array, s: number, contentType = ct): Mutated => ({
    label,
    served: { status: s, contentType, body: typeof body === 'string' ? enc.encode(body) : body },
  });
  const json =
    rec.json === undefined
      ? []
      : [
          {
            weight: 10,
            arbitrary: fc
              .tuple(fc.array(jsonMutationArb, { minLength: 1, maxLength: 3 }), status)
              .map(([ms, s]) =>
                asServed(
                  `json ${ms.map((m) => m.kind).join('+')} ${s}`,
                  JSON.stringify(ms.reduce((v: unknown, m) => mutateJson(v, m), rec.json)) ?? '',
                  s,
                ),
              ),
          },
          {
            weight: 1,
            arbitrary: fc
              .constantFrom(
                'text/html',
                '',
                'application/octet-stream',
                'application/json; charset=utf-16',
                'image/png',
              )
              .map((contentType) =>
                asServed(`content-type ${contentType || '(none)'}`, rec.body, rec.status, contentType),
              ),
          },
        ];
  return fc
    .oneof(
      ...json,
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.nat(), status)
          .map(([n, s]) =>
            asServed(`truncated ${s}`, text.slice(0, text.length === 0 ? 0 : n % text.length), s),
          ),
      },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.oneof(fc.constantFrom(...NON_JSON), fc.string({ maxLength: 300 })), status)
          .map(([body, s]) => asServed(`non-JSON ${s}`, body, s)),
      },
      { weight: 1, arbitrary: status.map((s) => asServed(`empty ${s}`, '', s)) },
      {
        weight: 1,
        arbitrary: fc
          .uint8Array({ minLength: 1, maxLength: 64 })
          .map((bytes) => asServed('bytes', Uint8Array.from([0xff, 0xfe, ...bytes]), rec.status)),
      },
      {
        weight: 1,
        arbitrary: fc
          .record({
            reset: fc.constantFrom('1e300', '-5', 'abc', '99999999999999', '8640000000001', '0', '1.5', ''),
            remaining: fc.constantFrom('-1', '1e999', 'x', '0'),
          })
          .map(({ reset, remaining }) => ({
            label: `429 reset ${reset}`,
            served: {
              status: 429,
              contentType: 'application/json',
              body: enc.encode(`{"error":{"message":"rate limited ${ACCESS_TOKEN}"}}`),
              headers: {
                'x-ratelimit-reset': reset,
                'x-ratelimit-remaining': remaining,
                'x-ratelimit-limit': '120',
              },
            },
          })),
      },
    )
    .map(printable);
}

// ---- Checks ----

/**
 * Where a value stops surviving `JSON.stringify` unchanged (NaN, Infinity, a Date, a class
 * instance, an undefined array slot…): the first differing path, or undefined when it survives.
 */
export function jsonMismatch(value: unknown): string | undefined {
  const again = JSON.parse(JSON.stringify(value) ?? 'null') as unknown;
  const walk = (a: unknown, b: unknown, path: string): string | undefined => {
    if (typeof a === 'number' || typeof b === 'number')
      return a === b && Number.isFinite(a)
        ? undefined
        : `${path || '(root)'}: ${String(a)} became ${String(b)}`;
    if (a === b) return undefined;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
      return `${path || '(root)'}: ${typeof a} became ${b === null ? 'null' : typeof b}`;
    if (Array.isArray(a) !== Array.isArray(b)) return `${path || '(root)'}: array and object`;
    const proto = Object.getPrototypeOf(a);
    if (!Array.isArray(a) && proto !== Object.prototype && proto !== null)
      return `${path || '(root)'}: not a plain object`;
    const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return `${path || '(root)'}: keys ${ka.join(',')} became ${kb.join(',')}`;
    for (const k of ka) {
      const m = walk((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
      if (m) return m;
    }
    return undefined;
  };
  return walk(value, again, '');
}

export const survivesJson = (value: unknown): boolean => jsonMismatch(value) === undefined;

/** A failure message naming what broke, or undefined when the result is acceptable. */
export function checkResult(operation: string, c: OperationCase, r: unknown): string | undefined {
  if (typeof r !== 'object' || r === null) return 'the result is not an object';
  const res = r as Result<unknown>;
  if (!Number.isInteger(res.requests) || res.requests < 0) return `requests is ${String(res.requests)}`;
  if (res.ok === true) {
    const parsed = c.declared.safeParse(res.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return `Ok value does not satisfy the declared type: ${issue?.path.join('.')}: ${issue?.message}`;
    }
    if (c.json && !survivesJson(res.value)) return 'Ok value does not survive JSON';
    return undefined;
  }
  if (res.ok !== false) return 'ok is neither true nor false';
  const e = res.error as unknown as Record<string, unknown>;
  if (!ERROR_KINDS.includes(e.kind as ApiErrorKind)) return `unknown error kind ${String(e.kind)}`;
  // The authorize step's failures are those of the code exchange that follows it.
  const named = operation === 'auth.authorize' ? 'auth.token' : operation;
  if (e.operation !== named) return `error names operation ${String(e.operation)}`;
  if (typeof e.message !== 'string') return 'error message is not a string';
  const texts = [e.message, ...(Array.isArray(e.issues) ? e.issues : [])].map(String);
  if (e.kind === 'Malformed') {
    if (typeof e.excerpt !== 'string') return 'Malformed without an excerpt';
    if (e.excerpt.length > 200) return `excerpt of ${e.excerpt.length} characters`;
    texts.push(e.excerpt);
  }
  for (const t of texts)
    for (const s of secretsKnownTo(operation))
      if (t.includes(s)) return `error text shows a secret: ${t.slice(0, 120)}`;
  if (e.message.length > 2_000) return `error message of ${e.message.length} characters`;
  return undefined;
}

// ---- What the poll workers build from results ----

export const iso8601 = (ms: number): string => new Date(ms).toISOString();

/**
 * The observations poll-vehicle.ts / poll-fleet.ts / poll-map.ts build from one client result
 * (their builders are private; kept in step with them): `undefined` when the worker makes none
 * (a failed call never fixes or removes anything).
 */
export function observationsOf(
  operation: string,
  r: Result<unknown>,
  ctx: FuzzContext,
  fetchedAt: number,
): Observation[] | undefined {
  const at = iso8601(fetchedAt);
  const list = (source: Observation['source'], since?: number): Observation[] | undefined =>
    r.ok
      ? [
          {
            source,
            items: (r.value as { items: unknown[] }).items,
            complete: true,
            fetchedAt: at,
            ...(since !== undefined ? { window: { since: iso8601(since) } } : {}),
          } as unknown as Observation,
        ]
      : undefined;
  const single = (source: 'v2.maintenance' | 'map'): Observation[] | undefined => {
    if (r.ok) return [{ source, items: [r.value], complete: true, fetchedAt: at } as unknown as Observation];
    // The API answers 404 when there are no such items.
    if (r.error.kind === 'NotFound')
      return [{ source, items: [], complete: true, fetchedAt: at } as Observation];
    return undefined;
  };
  const fleet = <T extends { vin: string }>(
    source: Observation['source'],
    items: readonly T[],
    since?: number,
  ) => [
    {
      source,
      items: items.filter((i) => i.vin === ctx.vin),
      complete: true,
      fetchedAt: at,
      ...(since !== undefined ? { window: { since: iso8601(since) } } : {}),
    } as unknown as Observation,
  ];
  switch (operation) {
    case 'v2.vehicles.events':
      return list('v2.events', ctx.now - POLL_EVENTS_LOOKBACK_MS);
    case 'v2.vehicles.alerts':
      return list('v2.alerts');
    case 'v2.vehicles.collisions':
      return list('v2.collisions', ctx.now - POLL_LIST_WINDOW_MS);
    case 'v2.vehicles.trips':
      return list('v2.trips', ctx.now - POLL_LIST_WINDOW_MS);
    case 'v2.vehicles.maintenance':
      return single('v2.maintenance');
    case 'map.vin':
      return single('map');
    case 'v2.services.vehicle':
      return r.ok
        ? [{ source: 'services', items: r.value as never, complete: true, fetchedAt: at }]
        : undefined;
    case 'v2.trips.ecodriving':
      return r.ok
        ? [
            {
              source: 'v2.ecodriving',
              items: [{ ...(r.value as EcoDriving), tripId: ctx.tripId }],
              complete: true,
              fetchedAt: at,
            },
          ]
        : undefined;
    case 'map.bulk':
      return r.ok
        ? [
            {
              source: 'map',
              items: (r.value as MapUpdateInfo[]).filter((i) => i.vin === ctx.vin),
              complete: true,
              fetchedAt: at,
              operation: 'map.bulk',
            },
          ]
        : undefined;
    case 'v1.maintenance.alert.list':
      return r.ok ? fleet('v1.alerts', r.value as V1Alert[]) : undefined;
    case 'v1.crash.list':
      return r.ok ? fleet('v1.crash', r.value as V1Crash[]) : undefined;
    case 'v1.maintenance.list':
      return r.ok ? fleet('v1.maintenance', r.value as V1Maintenance[]) : undefined;
    case 'v1.trip.list':
      return r.ok
        ? fleet('v1.trips', (r.value as { trips: V1Trip[] }).trips, ctx.now - POLL_LIST_WINDOW_MS)
        : undefined;
    default:
      return undefined;
  }
}

/** The diff context of the recorded vehicle: an API user's (v2, map) or a fleet contract's (v1). */
export function diffContext(ctx: FuzzContext, use: PollUse, now: number): DiffContext {
  return {
    vehicle: { id: `veh-${ctx.vehicleId}`, vin: ctx.vin, brand: ctx.brand },
    enrollment:
      use === 'fleet' ? { id: 'enr-fleet', kind: 'fleet-contract' } : { id: 'enr-user', kind: 'oauth-user' },
    now: new Date(now),
  };
}

/** Fixed by default so a failure replays; `CARHOOK_FUZZ_SEED` picks another. */
export const FUZZ_SEED = Number(process.env.CARHOOK_FUZZ_SEED ?? 0x5eed);
/** Multiplies the runs of every property (`CARHOOK_FUZZ_SCALE=10` for a deeper local run). */
export const FUZZ_SCALE = Math.max(0.1, Number(process.env.CARHOOK_FUZZ_SCALE ?? 1) || 1);

// ---- The real workers (runPollJob) against a fake API ----

const ROUTES = OPERATIONS.map((o) => ({
  id: o.id,
  method: o.method as string,
  pattern: new RegExp(`^${o.path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** The operation a request addresses, by method and path (operations.ts templates). */
export function operationOf(method: string, url: string): string | undefined {
  const path = new URL(url).pathname;
  return ROUTES.find((r) => r.method === method && r.pattern.test(path))?.id;
}

/** An event bus keeping what it received. */
class KeepingBus implements EventBus {
  readonly received: EventEnvelope[] = [];
  async publish(events: readonly EventEnvelope[]): Promise<PublishResult> {
    this.received.push(...events);
    return { published: events.map((e) => e.id), failed: [] };
  }
}

export interface Worker {
  readonly deps: PollDeps;
  readonly stores: Stores;
  readonly bus: KeepingBus;
  /** The job that polls the recorded vehicle for `use`. */
  readonly job: () => PollJob;
  readonly vehicleId: string;
  /** Moves the worker's clock. */
  advance(ms: number): void;
}

/**
 * The poll worker's dependencies as production assembles them (memory stores and budget, a token
 * manager over an encrypted token set), with a `fetch` that answers each operation with `serve`.
 * `use` enrolls the recorded vehicle as an API user's (`vehicle`, `map`) or a fleet contract's.
 */
export async function worker(
  rec: Recording,
  use: PollUse,
  serve: (operation: string | undefined) => Served,
): Promise<Worker> {
  const ctx = rec.ctx;
  let clock = ctx.now;
  const now = (): number => clock;
  const stores = createMemoryStores();
  const bus = new KeepingBus();
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (init?.signal?.aborted) throw init.signal.reason;
    const s = serve(operationOf(init?.method ?? 'GET', url));
    const empty = s.status === 204 || s.status === 304 || s.status < 200;
    return new Response(empty ? null : s.body, {
      status: s.status,
      headers: { ...(s.contentType ? { 'content-type': s.contentType } : {}), ...s.headers },
    });
  }) as typeof globalThis.fetch;
  const access = {
    baseUrl: 'https://api.example.test',
    authUrl: 'https://auth.example.test',
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    fetch,
  };
  const cipher = createTokenCipher(createKeyRing('k1', new Map([['k1', randomBytes(32)]])));
  const tokens = createTokenManager({
    ...stores,
    cipher,
    endpointFor: (brand) => createTokenEndpoint({ ...access, brand, now, retry: { maxAttempts: 1 } }),
    now,
    sleep: async () => {},
  });
  const at = iso8601(now());
  let vehicleId: string;
  if (use === 'fleet') {
    const r = await enrollFleetContract(
      { stores, now },
      { vin: ctx.vin, contract: ctx.contract, brand: ctx.brand },
    );
    if (r.kind !== 'Enrolled') throw new Error(`fleet enrollment: ${r.kind}`);
    vehicleId = r.vehicleId;
  } else {
    const enrollmentId = 'enr-fuzz';
    const tokenSet = createTokenSet({
      accessToken: ACCESS_TOKEN,
      refreshToken: REFRESH_TOKEN,
      expiresAt: iso8601(now() + DAY),
    });
    await stores.enrollments.create({
      id: enrollmentId,
      kind: 'oauth-user',
      brand: 'brand-fuzz',
      status: 'active',
      userId: 'user-fuzz',
      tokenCiphertext: cipher.encryptTokens(tokenSet, enrollmentId),
      tokenExpiresAt: iso8601(now() + DAY),
      createdAt: at,
      updatedAt: at,
    });
    vehicleId = 'veh-fuzz';
    await stores.vehicles.put(
      {
        id: vehicleId,
        enrollmentId,
        vin: ctx.vin,
        brand: ctx.brand,
        apiVehicleId: ctx.vehicleId,
        nextPollAt: at,
      },
      now(),
    );
  }
  const deps: PollDeps = {
    stores,
    budget: createMemoryRateBudget(DEFAULT_RATE_BUDGET),
    bus,
    access,
    tokens,
    now,
    config: {},
    publish: { sleep: async () => {}, maxAttempts: 1 },
  };
  const job = (): PollJob => {
    const plannedAt = iso8601(now());
    if (use === 'fleet')
      return { kind: 'poll-fleet', brand: ctx.brand, vehicleIds: [vehicleId], rotate: false, plannedAt };
    if (use === 'map') return { kind: 'poll-map', vehicleIds: [vehicleId], plannedAt };
    return {
      kind: 'poll-vehicle',
      vehicleId,
      resources: [...vehicleResources],
      strategy: 'carhook',
      rotate: false,
      plannedAt,
    };
  };
  return {
    deps,
    stores,
    bus,
    job,
    vehicleId,
    advance: (ms) => {
      clock += ms;
    },
  };
}
