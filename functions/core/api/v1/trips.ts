/**
 * v1 trips: reference trips, last trips, trips by period, one trip, and the fuel prices. The PUTs
 * set a flag or a price, so they are idempotent and retried like reads.
 */
import { JSON_TYPE, seg, V1 } from '../checks';
import type { ApiContext } from '../context';
import type { Result } from '../errors';
import type { V1Trip } from '../model';
import type { CallOptions } from '../transport';
import {
  type V1RawResponse,
  type V1ReferenceFuelPrice,
  type V1TripList,
  wV1ReferenceFuelPrice,
  wV1Trip,
  wV1TripList,
} from '../wire/v1';
import { positiveInt, type V1Target, type V1Unit, v1Date } from './params';
import {
  checkPrice,
  checkTripId,
  checkVehicle,
  formatPrice,
  limitPart,
  unitPart,
  type V1VehicleParams,
  v1Sender,
} from './request';

type Raw = Promise<Result<V1RawResponse>>;
type Period = { from: Date; to: Date; limit?: number; unit?: V1Unit };

export interface V1TripsApi {
  referenceTrips(p: V1VehicleParams & { unit: V1Unit }, call?: CallOptions): Promise<Result<V1TripList>>;
  /** PUT: idempotent (sets the reference flag), so retried like a read. */
  setReferenceTrip(p: V1VehicleParams & { tripId: number }, call?: CallOptions): Raw;
  lastTrips(
    p: V1VehicleParams & { limit: number; unit: V1Unit },
    call?: CallOptions,
  ): Promise<Result<V1TripList>>;
  tripList(p: { targets: readonly V1Target[] } & Period, call?: CallOptions): Promise<Result<V1TripList>>;
  tripsByPeriod(p: V1VehicleParams & Period, call?: CallOptions): Promise<Result<V1TripList>>;
  trip(p: V1VehicleParams & { tripId: number; unit: V1Unit }, call?: CallOptions): Promise<Result<V1Trip>>;
  /** PUT: idempotent (sets a price), so retried like a read. */
  setTripFuelPrice(p: V1VehicleParams & { tripId: number; price: number }, call?: CallOptions): Raw;
  setReferenceFuelPrice(p: V1VehicleParams & { price: number }, call?: CallOptions): Raw;
  referenceFuelPrice(p: V1VehicleParams, call?: CallOptions): Promise<Result<V1ReferenceFuelPrice>>;
}

export function v1TripsApi(ctx: ApiContext): V1TripsApi {
  const { bulk, get, withChecks } = v1Sender(ctx);

  const put = (op: string, path: string, query: Record<string, string>, call?: CallOptions): Raw =>
    ctx.raw(
      { operation: op, method: 'PUT', path: `${V1}${path}`, query, accept: JSON_TYPE, auth: 'client_id' },
      call,
    );

  const period = (op: string, p: Period) => ({
    from: v1Date(op, 'from', p.from, 'yyyyMMdd'),
    to: v1Date(op, 'to', p.to, 'yyyyMMdd'),
    limit: limitPart(op, p.limit),
    unit: p.unit === undefined ? undefined : unitPart(op, p.unit),
  });

  return {
    referenceTrips: (p, call) => {
      const op = 'v1.trip.referenceTrip.get';
      const path = (x: V1VehicleParams) => `/trip/get/referencetrip/${seg(x.vin)}`;
      return get(op, path, p, { unit: unitPart(op, p.unit) }, wV1TripList, call);
    },
    setReferenceTrip: (p, call) => {
      const op = 'v1.trip.referenceTrip.update';
      return withChecks([checkVehicle(op, p), checkTripId(op, p.tripId)], () =>
        put(
          op,
          `/trip/update/referencetrip/${seg(p.vin)}`,
          { contract: p.contract, tripid: String(p.tripId) },
          call,
        ),
      );
    },
    lastTrips: (p, call) => {
      const op = 'v1.trip.last';
      const parts = {
        limit: positiveInt(op, 'limit', p.limit) ?? { value: String(p.limit) },
        unit: unitPart(op, p.unit),
      };
      return get(op, (x) => `/trip/last/${seg(x.vin)}`, p, parts, wV1TripList, call);
    },
    tripList: (p, call) =>
      bulk('v1.trip.list', '/trip/list', p.targets, period('v1.trip.list', p), wV1TripList, call),
    tripsByPeriod: (p, call) =>
      get(
        'v1.trip.period',
        (x) => `/trip/period/${seg(x.vin)}`,
        p,
        period('v1.trip.period', p),
        wV1TripList,
        call,
      ),
    trip: (p, call) => {
      const op = 'v1.trip.get';
      const path = (x: V1VehicleParams) => `/trip/id/${seg(x.vin)}/${seg(String(p.tripId))}`;
      return withChecks([checkTripId(op, p.tripId)], () =>
        get(op, path, p, { unit: unitPart(op, p.unit) }, wV1Trip, call),
      );
    },
    setTripFuelPrice: (p, call) => {
      const op = 'v1.trip.fuelPrice.update';
      return withChecks([checkVehicle(op, p), checkTripId(op, p.tripId), checkPrice(op, p.price)], () =>
        put(
          op,
          `/trip/update/fuelprice/${seg(p.vin)}/${seg(String(p.tripId))}`,
          { contract: p.contract, price: formatPrice(p.price) },
          call,
        ),
      );
    },
    setReferenceFuelPrice: (p, call) => {
      const op = 'v1.trip.referenceFuelPrice.update';
      return withChecks([checkVehicle(op, p), checkPrice(op, p.price)], () =>
        put(
          op,
          `/trip/update/reference/fuelprice/${seg(p.vin)}`,
          { contract: p.contract, price: formatPrice(p.price) },
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
  };
}
