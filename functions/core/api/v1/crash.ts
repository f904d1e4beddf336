/** v1 crash reports: of a fleet, of one vehicle (optionally by second), or searched by period. */
import { seg } from '../checks';
import type { ApiContext } from '../context';
import type { Result } from '../errors';
import type { V1Crash } from '../model';
import type { CallOptions } from '../transport';
import { arrayOf, wV1Crash } from '../wire/v1';
import type { V1Target } from './params';
import { v1Date } from './params';
import { limitPart, secondsOf, type V1SecondsParams, type V1VehicleParams, v1Sender } from './request';

export interface V1CrashApi {
  crashList(
    p: { targets: readonly V1Target[]; seconds?: readonly number[] },
    call?: CallOptions,
  ): Promise<Result<readonly V1Crash[]>>;
  crashGet(p: V1VehicleParams & V1SecondsParams, call?: CallOptions): Promise<Result<V1Crash>>;
  crashSearch(
    p: V1VehicleParams & { from: Date; to: Date; limit?: number },
    call?: CallOptions,
  ): Promise<Result<readonly V1Crash[]>>;
}

export function v1CrashApi(ctx: ApiContext): V1CrashApi {
  const { bulk, get } = v1Sender(ctx);
  return {
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
  };
}
