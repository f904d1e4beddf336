/** v1 eco-driving evaluations: overall, per trip, per day and per month, of a fleet or a vehicle. */
import { seg } from '../checks';
import type { ApiContext } from '../context';
import type { Result } from '../errors';
import type { CallOptions } from '../transport';
import { arrayOf, type V1EcoEvaluation, wV1EcoEvaluation } from '../wire/v1';
import { type V1Target, v1Date } from './params';
import {
  checkTripId,
  localeBrand,
  type V1LocaleBrandParams,
  type V1VehicleParams,
  v1Sender,
} from './request';

type Targets = { targets: readonly V1Target[] };
type Eco = Promise<Result<V1EcoEvaluation>>;
type Ecos = Promise<Result<readonly V1EcoEvaluation[]>>;

export interface V1EcoDrivingApi {
  ecoEvaluationList(p: Targets & V1LocaleBrandParams, call?: CallOptions): Ecos;
  ecoTripDayList(p: Targets & { fromDay: Date; toDay: Date } & V1LocaleBrandParams, call?: CallOptions): Ecos;
  ecoTripDay(
    p: V1VehicleParams & V1LocaleBrandParams & { fromDay: Date; toDay: Date },
    call?: CallOptions,
  ): Ecos;
  ecoPerTrip(p: V1VehicleParams & V1LocaleBrandParams & { tripId: number }, call?: CallOptions): Eco;
  ecoTripMonthList(
    p: Targets & { fromMonth: Date; toMonth: Date } & V1LocaleBrandParams,
    call?: CallOptions,
  ): Ecos;
  ecoTripMonth(
    p: V1VehicleParams & V1LocaleBrandParams & { fromMonth: Date; toMonth: Date },
    call?: CallOptions,
  ): Ecos;
  ecoEvaluation(p: V1VehicleParams & V1LocaleBrandParams, call?: CallOptions): Eco;
  ecoLastTrip(p: V1VehicleParams & V1LocaleBrandParams, call?: CallOptions): Eco;
  ecoDayTrips(p: V1VehicleParams & V1LocaleBrandParams & { day: Date }, call?: CallOptions): Ecos;
}

const ecoArray = arrayOf(wV1EcoEvaluation);

const days = (op: string, p: { fromDay: Date; toDay: Date }) => ({
  fromday: v1Date(op, 'fromDay', p.fromDay, 'yyyyMMdd'),
  today: v1Date(op, 'toDay', p.toDay, 'yyyyMMdd'),
});
const months = (op: string, p: { fromMonth: Date; toMonth: Date }) => ({
  frommonth: v1Date(op, 'fromMonth', p.fromMonth, 'yyyyMM'),
  tomonth: v1Date(op, 'toMonth', p.toMonth, 'yyyyMM'),
});

export function v1EcoDrivingApi(ctx: ApiContext): V1EcoDrivingApi {
  const { bulk, get, withChecks } = v1Sender(ctx);
  return {
    ecoEvaluationList: (p, call) => {
      const op = 'v1.ecodriving.evaluation.list';
      return bulk(op, '/ecodriving/evaluation/list', p.targets, localeBrand(op, p), ecoArray, call);
    },
    ecoTripDayList: (p, call) => {
      const op = 'v1.ecodriving.evaluation.tripDay.list';
      const parts = { ...localeBrand(op, p), ...days(op, p) };
      return bulk(op, '/ecodriving/evaluation/trip/day/list', p.targets, parts, ecoArray, call);
    },
    ecoTripDay: (p, call) => {
      const op = 'v1.ecodriving.evaluation.tripDay.get';
      const parts = { ...localeBrand(op, p), ...days(op, p) };
      return get(op, (x) => `/ecodriving/evaluation/trip/day/${seg(x.vin)}`, p, parts, ecoArray, call);
    },
    ecoPerTrip: (p, call) => {
      const op = 'v1.ecodriving.evaluation.perTrip';
      const path = (x: V1VehicleParams) =>
        `/ecodriving/evaluation/pertrip/${seg(x.vin)}/${seg(String(p.tripId))}`;
      return withChecks([checkTripId(op, p.tripId)], () =>
        get(op, path, p, localeBrand(op, p), wV1EcoEvaluation, call),
      );
    },
    ecoTripMonthList: (p, call) => {
      const op = 'v1.ecodriving.evaluation.tripMonth.list';
      const parts = { ...localeBrand(op, p), ...months(op, p) };
      return bulk(op, '/ecodriving/evaluation/trip/month/list', p.targets, parts, ecoArray, call);
    },
    ecoTripMonth: (p, call) => {
      const op = 'v1.ecodriving.evaluation.tripMonth.get';
      const parts = { ...localeBrand(op, p), ...months(op, p) };
      return get(op, (x) => `/ecodriving/evaluation/trip/month/${seg(x.vin)}`, p, parts, ecoArray, call);
    },
    ecoEvaluation: (p, call) => {
      const op = 'v1.ecodriving.evaluation.get';
      return get(
        op,
        (x) => `/ecodriving/evaluation/get/${seg(x.vin)}`,
        p,
        localeBrand(op, p),
        wV1EcoEvaluation,
        call,
      );
    },
    ecoLastTrip: (p, call) => {
      const op = 'v1.ecodriving.evaluation.lastTrip';
      const path = (x: V1VehicleParams) => `/ecodriving/evaluation/lasttrip/${seg(x.vin)}`;
      return get(op, path, p, localeBrand(op, p), wV1EcoEvaluation, call);
    },
    ecoDayTrips: (p, call) => {
      const op = 'v1.ecodriving.evaluation.dayTrips';
      const parts = { ...localeBrand(op, p), day: v1Date(op, 'day', p.day, 'yyyyMMdd') };
      return get(op, (x) => `/ecodriving/evaluation/daytrips/${seg(x.vin)}`, p, parts, ecoArray, call);
    },
  };
}
