import type { Context } from 'hono';
import type { SimTrip, SimVehicle, WorldMutations, WorldView } from '../world/types';
import { V1Failure } from './failure';
import { formatDay, formatMonth } from './format';
import {
  type BulkPair,
  DEFAULT_LOCALE,
  type Locale,
  parseBrand,
  parseBulkBody,
  parseDay,
  parseListSecond,
  parseLocale,
  parseMonth,
  parseTripId,
  parseUnit,
  required,
  spanOf,
  type TimeRange,
  type Unit,
} from './params';
import { type EcoEvaluation, renderAggregateEvaluation } from './render/eco';
import { renderTrip, type TripRecord, tripsNewestFirst } from './render/trip';

/**
 * What the v1 routes share: query parameter readers (each throws a `V1Failure` naming the
 * parameter), the vehicle a VIN and contract designate, bulk bodies, trip selections by period and
 * eco-driving aggregates.
 */
export function v1Kit(world: WorldView & WorldMutations) {
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
    const vehicle = world.v1Knows(vin) ? world.vehicleByVin(vin) : undefined;
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
      const vehicle = world.v1Knows(pair.vin) ? world.vehicleByVin(pair.vin) : undefined;
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
  return {
    aggregates,
    brandOf,
    bulk,
    byDay,
    byMonth,
    daySpan,
    doneTrips,
    inRange,
    localeOf,
    monthSpan,
    need,
    newestDone,
    optionalBrand,
    optionalLocale,
    pathTripId,
    query,
    secondsOf,
    single,
    tripRecords,
    unitOf,
    vehicleOf,
  };
}

export type V1Kit = ReturnType<typeof v1Kit>;
