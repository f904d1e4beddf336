/**
 * v1 signal records (series keyed by second, `listsecond` choosing the seconds): environment,
 * positions, light status, driving and safety assistance.
 */
import { seg } from '../checks';
import type { ApiContext } from '../context';
import type { Result } from '../errors';
import type { CallOptions } from '../transport';
import { arrayOf, type V1Record, wV1Record } from '../wire/v1';
import { type V1Target, v1Date } from './params';
import {
  checkTripId,
  flag,
  type Parts,
  secondsOf,
  type V1SecondsParams,
  type V1VehicleParams,
  v1Sender,
} from './request';

type Record1 = Promise<Result<V1Record>>;
type Records = Promise<Result<readonly V1Record[]>>;
type Vehicle = V1VehicleParams & V1SecondsParams;

export interface V1RecordsApi {
  environmentList(p: { targets: readonly V1Target[] } & V1SecondsParams, call?: CallOptions): Records;
  environment(p: Vehicle, call?: CallOptions): Record1;
  lastPosition(p: Vehicle & { near?: boolean }, call?: CallOptions): Record1;
  tripPositions(p: Vehicle & { near?: boolean; tripId: number }, call?: CallOptions): Records;
  lightStatusList(p: { targets: readonly V1Target[] } & V1SecondsParams, call?: CallOptions): Records;
  drivingAssistance(p: Vehicle, call?: CallOptions): Record1;
  drivingAssistanceDay(p: Vehicle & { day: Date }, call?: CallOptions): Record1;
  safetyAssistance(p: Vehicle, call?: CallOptions): Record1;
  safetyAssistanceDay(p: Vehicle & { day: Date }, call?: CallOptions): Record1;
}

const records = arrayOf(wV1Record);

export function v1RecordsApi(ctx: ApiContext): V1RecordsApi {
  const { bulk, get, withChecks } = v1Sender(ctx);
  const seconds = (op: string, p: V1SecondsParams) => ({ listsecond: secondsOf(op, p.seconds, true) });

  /** A record of one vehicle: `listsecond` plus the extra parts. */
  const one = (op: string, path: string, p: Vehicle, call?: CallOptions, extra: Parts = {}): Record1 =>
    get(op, (x) => `${path}/${seg(x.vin)}`, p, { ...seconds(op, p), ...extra }, wV1Record, call);
  const day = (op: string, p: { day: Date }): Parts => ({ day: v1Date(op, 'day', p.day, 'yyyyMMdd') });

  return {
    environmentList: (p, call) =>
      bulk(
        'v1.environment.list',
        '/environment/list',
        p.targets,
        seconds('v1.environment.list', p),
        records,
        call,
      ),
    environment: (p, call) => one('v1.environment.get', '/environment/get', p, call),
    lastPosition: (p, call) => {
      const op = 'v1.place.lastPosition';
      // `near` is a required query parameter of this read: default 0 (no look-ahead).
      const parts = { ...seconds(op, p), near: flag(p.near ?? false) };
      return get(op, (x) => `/place/lastposition/${seg(x.vin)}`, p, parts, wV1Record, call);
    },
    tripPositions: (p, call) => {
      const op = 'v1.place.tripPositions';
      return withChecks([checkTripId(op, p.tripId)], () =>
        get(
          op,
          (x) => `/place/positions/trip/${seg(x.vin)}`,
          p,
          { ...seconds(op, p), near: flag(p.near ?? false), tripid: { value: String(p.tripId) } },
          records,
          call,
        ),
      );
    },
    lightStatusList: (p, call) => {
      const op = 'v1.running.lightStatus.list';
      return bulk(op, '/running/lightstatus/list', p.targets, seconds(op, p), records, call);
    },
    drivingAssistance: (p, call) =>
      one('v1.safety.drivingAssistance.get', '/safety/drivingassistance', p, call),
    drivingAssistanceDay: (p, call) => {
      const op = 'v1.safety.drivingAssistance.day';
      return one(op, '/safety/search/drivingassistance/day', p, call, day(op, p));
    },
    safetyAssistance: (p, call) => one('v1.safety.safetyAssistance.get', '/safety/safetyassistance', p, call),
    safetyAssistanceDay: (p, call) => {
      const op = 'v1.safety.safetyAssistance.day';
      return one(op, '/safety/search/safetyassistance/day', p, call, day(op, p));
    },
  };
}
