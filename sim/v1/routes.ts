/**
 * The version 1 development API (spec 4.4, area D): parameter validation and rendering of the
 * records of spec 2.13. Mounted at `/connectedcar/v1/dev` by the server, which authenticates the
 * client (`client_id`), rate-limits and injects chaos before these routes run.
 *
 * Choices where the spec says "not shown" are written down in sim/v1/SHAPES.md.
 */
import { type Context, Hono } from 'hono';
import { simError } from '../http/errors';
import type { SimTrip, SimVehicle, WorldMutations, WorldView } from '../world/types';
import { failureResponse, V1Failure } from './failure';
import { formatDay, formatMonth, formatStamp } from './format';
import {
  type BulkPair,
  DEFAULT_LOCALE,
  DEFAULT_PICTURE,
  type Locale,
  minuteSpan,
  type PictureOptions,
  parseActive,
  parseBrand,
  parseBulkBody,
  parseDay,
  parseLimit,
  parseListSecond,
  parseLocale,
  parseMinute,
  parseMonth,
  parseNear,
  parsePictureBody,
  parsePrice,
  parseTripId,
  parseUnit,
  required,
  spanOf,
  type TimeRange,
  type Unit,
} from './params';
import { alertsInState, renderAlert } from './render/alerts';
import {
  CRASH_LIST_DEFAULT_SECONDS,
  CRASH_SECONDS,
  collisionsNewestFirst,
  renderCrash,
} from './render/crash';
import {
  type EcoEvaluation,
  renderAggregateEvaluation,
  renderOverallEvaluation,
  renderTripEvaluation,
} from './render/eco';
import { renderEnvironment } from './render/environment';
import { renderMaintenance } from './render/maintenance';
import { renderLastPosition, renderTripPositions } from './render/position';
import { alertReferential, ecodrivingReferential, maintenanceReferential } from './render/referential';
import { renderDrivingAssistance, renderLightStatus, renderSafetyAssistance } from './render/signals';
import { renderTrip, type TripRecord, tripsNewestFirst } from './render/trip';
import { renderPicture, renderReferenceFuelPrice, renderVehicleInformation } from './render/vehicle';
import { keysOf, lastDataAt, lastDataOnDay, tripByV1Id } from './window';

export interface V1Deps {
  readonly world: WorldView & WorldMutations;
}

export function createV1Routes(deps: V1Deps): Hono {
  const world = deps.world;
  /** POST /vehicle/picture options per VIN; GET answers the defaults until a POST. */
  const pictures = new Map<string, { options: PictureOptions; updatedAt: number }>();
  const app = new Hono();

  app.onError((err, c) => {
    if (err instanceof V1Failure) return failureResponse(c, err);
    // A renderer bug must still answer the JSON error body; the stack goes to the simulator's log.
    console.error('v1 simulator error:', err);
    return simError(c, 500, 'server_error', 'The v1 simulator failed to answer this request');
  });

  // ------------------------------------------------------------------ helpers

  const query = (c: Context, name: string) => c.req.query(name);
  const need = (c: Context, name: string) => required(c.req.query(name), name);
  const localeOf = (c: Context) => parseLocale(need(c, 'locale'));
  const brandOf = (c: Context) => parseBrand(need(c, 'brand'));
  const secondsOf = (c: Context) => parseListSecond(need(c, 'listsecond'));
  const unitOf = (c: Context, isRequired: boolean): Unit => {
    const raw = query(c, 'unit');
    if (!isRequired && (raw === undefined || raw === '')) return 'metric';
    return parseUnit(required(raw, 'unit'));
  };
  const optionalLocale = (c: Context): Locale => {
    const raw = query(c, 'locale');
    return raw === undefined || raw === '' ? DEFAULT_LOCALE : parseLocale(raw);
  };
  const optionalBrand = (c: Context): void => {
    const raw = query(c, 'brand');
    if (raw !== undefined && raw !== '') parseBrand(raw);
  };

  /** The vehicle a VIN and contract designate: 404 unknown VIN, 403 contract not covering it. */
  const vehicleOf = (vin: string, contract: string): SimVehicle => {
    const vehicle = world.vehicleByVin(vin);
    if (!vehicle) throw new V1Failure('not_found', 'vin', `no vehicle with VIN ${vin}`);
    if (vehicle.contract !== contract) {
      throw new V1Failure('forbidden', 'contract', `contract ${contract} does not cover vehicle ${vin}`);
    }
    return vehicle;
  };
  const single = (c: Context): SimVehicle => {
    const contract = need(c, 'contract');
    return vehicleOf(c.req.param('vin') ?? '', contract);
  };
  /** Bulk body → the vehicles it designates; unknown VINs and contract mismatches are skipped. */
  const bulk = async (c: Context): Promise<SimVehicle[]> => {
    const pairs: BulkPair[] = parseBulkBody(await c.req.text());
    const vehicles: SimVehicle[] = [];
    for (const pair of pairs) {
      const vehicle = world.vehicleByVin(pair.vin);
      if (vehicle && vehicle.contract === pair.contract) vehicles.push(vehicle);
    }
    return vehicles;
  };
  const pathTripId = (c: Context) => parseTripId(c.req.param('tripid') ?? '');

  /** Completed trips (a trip under way has no v1 trip record nor eco-driving evaluation yet). */
  const doneTrips = (vehicle: SimVehicle): SimTrip[] =>
    world.trips(vehicle.id).filter((t) => t.stoppedAt <= world.now());
  const inRange = (trips: readonly SimTrip[], range: TimeRange) =>
    trips.filter((t) => t.startedAt >= range.from && t.startedAt < range.to);

  const daySpan = (c: Context, fromName: string, toName: string): TimeRange =>
    spanOf(parseDay(need(c, fromName), fromName), parseDay(need(c, toName), toName), fromName, toName);
  const monthSpan = (c: Context): TimeRange =>
    spanOf(
      parseMonth(need(c, 'frommonth'), 'frommonth'),
      parseMonth(need(c, 'tomonth'), 'tomonth'),
      'frommonth',
      'tomonth',
    );

  const aggregates = (
    vehicle: SimVehicle,
    range: TimeRange,
    bucket: (t: SimTrip) => string,
    locale: Locale,
  ): EcoEvaluation[] => {
    const groups = new Map<string, SimTrip[]>();
    for (const trip of inRange(doneTrips(vehicle), range)) {
      const key = bucket(trip);
      groups.set(key, [...(groups.get(key) ?? []), trip]);
    }
    return [...groups.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, trips]) => renderAggregateEvaluation(vehicle, trips, Number(key), locale.lang));
  };
  const byDay = (t: SimTrip) => formatDay(t.startedAt);
  const byMonth = (t: SimTrip) => formatMonth(t.startedAt);

  const tripRecords = (vehicle: SimVehicle, trips: readonly SimTrip[], unit: Unit): TripRecord[] =>
    trips.map((t) => renderTrip(world, vehicle, t, unit));
  const newestDone = (vehicle: SimVehicle) =>
    tripsNewestFirst(world, vehicle).filter((t) => t.stoppedAt <= world.now());

  // ------------------------------------------------------------------ crash

  app.post('/crash/list', async (c) => {
    const raw = query(c, 'listsecond');
    const keys =
      raw === undefined || raw === ''
        ? [...CRASH_LIST_DEFAULT_SECONDS]
        : keysOf(CRASH_SECONDS, parseListSecond(raw));
    const records = [];
    for (const vehicle of await bulk(c)) {
      const latest = collisionsNewestFirst(world, vehicle)[0];
      if (latest) records.push(renderCrash(world, vehicle, latest, keys));
    }
    return c.json(records);
  });

  app.get('/crash/get/:vin', (c) => {
    const seconds = secondsOf(c);
    const vehicle = single(c);
    const latest = collisionsNewestFirst(world, vehicle)[0];
    if (!latest) throw new V1Failure('not_found', 'vin', `no crash recorded for vehicle ${vehicle.vin}`);
    return c.json(renderCrash(world, vehicle, latest, keysOf(CRASH_SECONDS, seconds)));
  });

  app.get('/crash/search/:vin', (c) => {
    const range = minuteSpan(parseMinute(need(c, 'from'), 'from'), parseMinute(need(c, 'to'), 'to'), 'to');
    const limit = parseLimit(query(c, 'limit'));
    const vehicle = single(c);
    const found = collisionsNewestFirst(world, vehicle)
      .filter((col) => col.createdAt >= range.from && col.createdAt < range.to)
      .slice(0, limit);
    return c.json(found.map((col) => renderCrash(world, vehicle, col, CRASH_SECONDS)));
  });

  // ------------------------------------------------------------------ eco-driving

  app.post('/ecodriving/evaluation/list', async (c) => {
    const locale = localeOf(c);
    brandOf(c);
    const records: EcoEvaluation[] = [];
    for (const vehicle of await bulk(c)) {
      const trips = doneTrips(vehicle);
      if (trips.length > 0) records.push(renderOverallEvaluation(vehicle, trips, locale.lang));
    }
    return c.json(records);
  });

  app.post('/ecodriving/evaluation/trip/day/list', async (c) => {
    const locale = localeOf(c);
    brandOf(c);
    const range = daySpan(c, 'fromday', 'today');
    const vehicles = await bulk(c);
    return c.json(vehicles.flatMap((v) => aggregates(v, range, byDay, locale)));
  });

  app.get('/ecodriving/evaluation/trip/day/:vin', (c) => {
    const locale = localeOf(c);
    brandOf(c);
    const range = daySpan(c, 'fromday', 'today');
    return c.json(aggregates(single(c), range, byDay, locale));
  });

  app.get('/ecodriving/evaluation/pertrip/:vin/:tripid', (c) => {
    const locale = localeOf(c);
    brandOf(c);
    const tripId = pathTripId(c);
    const vehicle = single(c);
    const trip = tripByV1Id(world, vehicle, tripId);
    return c.json(renderTripEvaluation(vehicle, trip, locale.lang));
  });

  app.post('/ecodriving/evaluation/trip/month/list', async (c) => {
    brandOf(c);
    const locale = localeOf(c);
    const range = monthSpan(c);
    const vehicles = await bulk(c);
    return c.json(vehicles.flatMap((v) => aggregates(v, range, byMonth, locale)));
  });

  app.get('/ecodriving/evaluation/trip/month/:vin', (c) => {
    const locale = localeOf(c);
    brandOf(c);
    const range = monthSpan(c);
    return c.json(aggregates(single(c), range, byMonth, locale));
  });

  app.get('/ecodriving/evaluation/get/:vin', (c) => {
    const locale = localeOf(c);
    brandOf(c);
    const vehicle = single(c);
    const trips = doneTrips(vehicle);
    if (trips.length === 0) {
      throw new V1Failure(
        'not_found',
        'vin',
        `no eco-driving evaluation: vehicle ${vehicle.vin} has no trip`,
      );
    }
    return c.json(renderOverallEvaluation(vehicle, trips, locale.lang));
  });

  app.get('/ecodriving/evaluation/lasttrip/:vin', (c) => {
    const locale = localeOf(c);
    brandOf(c);
    const vehicle = single(c);
    const last = newestDone(vehicle)[0];
    if (!last) throw new V1Failure('not_found', 'vin', `vehicle ${vehicle.vin} has no trip`);
    return c.json(renderTripEvaluation(vehicle, last, locale.lang));
  });

  app.get('/ecodriving/evaluation/daytrips/:vin', (c) => {
    const locale = localeOf(c);
    brandOf(c);
    const day = parseDay(need(c, 'day'), 'day');
    const vehicle = single(c);
    const trips = inRange(doneTrips(vehicle), day).sort((a, b) => a.startedAt - b.startedAt);
    return c.json(trips.map((t) => renderTripEvaluation(vehicle, t, locale.lang)));
  });

  // ------------------------------------------------------------------ environment

  app.post('/environment/list', async (c) => {
    const seconds = secondsOf(c);
    const vehicles = await bulk(c);
    return c.json(vehicles.map((v) => renderEnvironment(world, v, seconds)));
  });

  app.get('/environment/get/:vin', (c) => {
    const seconds = secondsOf(c);
    return c.json(renderEnvironment(world, single(c), seconds));
  });

  // ------------------------------------------------------------------ maintenance and alerts

  app.get('/maintenance/alert/:vin', (c) => {
    const locale = localeOf(c);
    brandOf(c);
    const active = parseActive(need(c, 'active'));
    const vehicle = single(c);
    const all = world.alerts(vehicle.id);
    const latest = Math.max(vehicle.updatedAt, ...all.map((a) => a.updatedAt));
    return c.json({
      listAlert: alertsInState(all, active).map((a) => renderAlert(vehicle, a, locale.lang, false)),
      vin: vehicle.vin,
      contract: vehicle.contract,
      lastUpdate: formatStamp(latest),
    });
  });

  app.post('/maintenance/list/alert', async (c) => {
    const locale = localeOf(c);
    brandOf(c);
    const active = parseActive(need(c, 'active'));
    const vehicles = await bulk(c);
    return c.json({
      listAlert: vehicles.flatMap((v) =>
        alertsInState(world.alerts(v.id), active).map((a) => renderAlert(v, a, locale.lang, true)),
      ),
    });
  });

  app.post('/maintenance/list', async (c) => {
    const locale = localeOf(c);
    brandOf(c);
    const records = [];
    for (const vehicle of await bulk(c)) {
      const maintenance = world.maintenance(vehicle.id);
      if (maintenance) records.push(renderMaintenance(world, vehicle, maintenance, locale.lang));
    }
    return c.json(records);
  });

  app.get('/maintenance/:vin', (c) => {
    const locale = localeOf(c);
    brandOf(c);
    const vehicle = single(c);
    const maintenance = world.maintenance(vehicle.id);
    if (!maintenance)
      throw new V1Failure('not_found', 'vin', `no maintenance data for vehicle ${vehicle.vin}`);
    return c.json(renderMaintenance(world, vehicle, maintenance, locale.lang));
  });

  // ------------------------------------------------------------------ positions

  const geolocated = (vehicle: SimVehicle): SimVehicle => {
    // spec 7: no geolocation data when the user did not allow its collection.
    if (!vehicle.geolocationAllowed) {
      throw new V1Failure(
        'not_found',
        'vin',
        `no geolocation data: collection is not allowed for ${vehicle.vin}`,
      );
    }
    return vehicle;
  };

  app.get('/place/lastposition/:vin', (c) => {
    const seconds = secondsOf(c);
    const near = parseNear(need(c, 'near'));
    const vehicle = geolocated(single(c));
    return c.json(renderLastPosition(world, vehicle, lastDataAt(world, vehicle), seconds, near));
  });

  app.get('/place/positions/trip/:vin', (c) => {
    const seconds = secondsOf(c);
    const near = parseNear(need(c, 'near'));
    const tripId = parseTripId(need(c, 'tripid'));
    const vehicle = geolocated(single(c));
    return c.json(renderTripPositions(vehicle, tripByV1Id(world, vehicle, tripId), seconds, near));
  });

  // ------------------------------------------------------------------ referentials

  app.get('/referential/maintenance', (c) => {
    const locale = optionalLocale(c);
    optionalBrand(c);
    return c.json(maintenanceReferential(locale.lang));
  });

  app.get('/referential/alert', (c) => {
    const locale = optionalLocale(c);
    optionalBrand(c);
    return c.json(alertReferential(locale.lang));
  });

  app.get('/referential/ecodriving', (c) => {
    const locale = optionalLocale(c);
    optionalBrand(c);
    return c.json(ecodrivingReferential(locale.lang));
  });

  // ------------------------------------------------------------------ running and safety

  app.post('/running/lightstatus/list', async (c) => {
    const seconds = secondsOf(c);
    const vehicles = await bulk(c);
    return c.json(vehicles.map((v) => renderLightStatus(world, v, lastDataAt(world, v), seconds)));
  });

  app.get('/safety/drivingassistance/:vin', (c) => {
    const seconds = secondsOf(c);
    const vehicle = single(c);
    return c.json(renderDrivingAssistance(world, vehicle, lastDataAt(world, vehicle), seconds));
  });

  app.get('/safety/search/drivingassistance/day/:vin', (c) => {
    const seconds = secondsOf(c);
    const day = parseDay(need(c, 'day'), 'day');
    const vehicle = single(c);
    const end = lastDataOnDay(world, vehicle, day.from, day.to);
    return c.json(renderDrivingAssistance(world, vehicle, end, seconds));
  });

  app.get('/safety/safetyassistance/:vin', (c) => {
    const seconds = secondsOf(c);
    const vehicle = single(c);
    return c.json(renderSafetyAssistance(world, vehicle, lastDataAt(world, vehicle), seconds));
  });

  app.get('/safety/search/safetyassistance/day/:vin', (c) => {
    const seconds = secondsOf(c);
    const day = parseDay(need(c, 'day'), 'day');
    const vehicle = single(c);
    const end = lastDataOnDay(world, vehicle, day.from, day.to);
    return c.json(renderSafetyAssistance(world, vehicle, end, seconds));
  });

  // ------------------------------------------------------------------ trips

  app.get('/trip/get/referencetrip/:vin', (c) => {
    const unit = unitOf(c, true);
    const vehicle = single(c);
    const trips = newestDone(vehicle).filter((t) => t.reference);
    return c.json({ trips: tripRecords(vehicle, trips, unit) });
  });

  app.put('/trip/update/referencetrip/:vin', (c) => {
    const tripId = parseTripId(need(c, 'tripid'));
    const vehicle = single(c);
    const trip = tripByV1Id(world, vehicle, tripId);
    world.setReferenceTrip(trip.id, true);
    return c.json({ status: 'OK', vin: vehicle.vin, contract: vehicle.contract, tripId, referenceTrip: 1 });
  });

  app.get('/trip/last/:vin', (c) => {
    const limit = parseLimit(need(c, 'limit'));
    const unit = unitOf(c, true);
    const vehicle = single(c);
    const trips = newestDone(vehicle);
    return c.json({
      totalNumberTrips: trips.length,
      trips: tripRecords(vehicle, trips.slice(0, limit), unit),
    });
  });

  app.post('/trip/list', async (c) => {
    const range = daySpan(c, 'from', 'to');
    const limit = parseLimit(query(c, 'limit'));
    const unit = unitOf(c, false);
    const vehicles = await bulk(c);
    // `limit` applies per vehicle: one busy vehicle cannot crowd the others out of the answer.
    return c.json({
      trips: vehicles.flatMap((v) => tripRecords(v, inRange(newestDone(v), range).slice(0, limit), unit)),
    });
  });

  app.get('/trip/period/:vin', (c) => {
    const range = daySpan(c, 'from', 'to');
    const limit = parseLimit(query(c, 'limit'));
    const unit = unitOf(c, false);
    const vehicle = single(c);
    const trips = inRange(newestDone(vehicle), range);
    return c.json({
      totalNumberTrips: trips.length,
      trips: tripRecords(vehicle, trips.slice(0, limit), unit),
    });
  });

  app.get('/trip/id/:vin/:tripid', (c) => {
    const unit = unitOf(c, true);
    const tripId = pathTripId(c);
    const vehicle = single(c);
    return c.json(renderTrip(world, vehicle, tripByV1Id(world, vehicle, tripId), unit));
  });

  app.put('/trip/update/fuelprice/:vin/:tripid', (c) => {
    const price = parsePrice(need(c, 'price'));
    const tripId = pathTripId(c);
    const vehicle = single(c);
    const trip = tripByV1Id(world, vehicle, tripId);
    world.setTripFuelPrice(trip.id, price);
    return c.json({ status: 'OK', vin: vehicle.vin, contract: vehicle.contract, tripId, fuelPrice: price });
  });

  app.put('/trip/update/reference/fuelprice/:vin', (c) => {
    const price = parsePrice(need(c, 'price'));
    const vehicle = single(c);
    world.setReferenceFuelPrice(vehicle.id, price);
    return c.json({ status: 'OK', vin: vehicle.vin, contract: vehicle.contract, fuelPrice: price });
  });

  app.get('/trip/get/reference/fuelprice/:vin', (c) => c.json(renderReferenceFuelPrice(single(c))));

  // ------------------------------------------------------------------ vehicle

  app.get('/vehicle/information/:vin', (c) => c.json(renderVehicleInformation(single(c))));

  const pictureVehicle = (c: Context) => vehicleOf(c.req.param('vin') ?? '', c.req.param('contract') ?? '');

  app.post('/vehicle/picture/:vin/:contract', async (c) => {
    const vehicle = pictureVehicle(c);
    const options = parsePictureBody(await c.req.text());
    const stored = { options, updatedAt: world.now() };
    pictures.set(vehicle.vin, stored);
    return c.json(renderPicture(vehicle, stored.options, stored.updatedAt));
  });

  app.get('/vehicle/picture/:vin/:contract', (c) => {
    const vehicle = pictureVehicle(c);
    const stored = pictures.get(vehicle.vin) ?? { options: DEFAULT_PICTURE, updatedAt: vehicle.updatedAt };
    return c.json(renderPicture(vehicle, stored.options, stored.updatedAt));
  });

  return app;
}
