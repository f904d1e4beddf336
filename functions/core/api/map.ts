/**
 * The map update area: the navigation map version of one VIN or of many in one POST. It
 * authenticates with HTTP basic credentials and may carry the caller's `x-map-caller-id` header.
 */
import { JSON_TYPE, MAP, seg } from './checks';
import type { ApiContext } from './context';
import { invalidRequest, type Result } from './errors';
import type { MapUpdateInfo } from './model';
import type { CallOptions } from './transport';
import { checkVin } from './v1/params';
import { wMapBulk, wMapInfo } from './wire/services';

export interface MapCallOptions extends CallOptions {
  /** Sent as the `x-map-caller-id` header. */
  readonly callerId?: string;
}

export interface MapApi {
  vin(vin: string, call?: MapCallOptions): Promise<Result<MapUpdateInfo>>;
  bulk(vins: readonly string[], call?: MapCallOptions): Promise<Result<readonly MapUpdateInfo[]>>;
}

const mapHeaders = (call?: MapCallOptions): Record<string, string> =>
  call?.callerId ? { 'x-map-caller-id': call.callerId } : {};

export function mapApi(ctx: ApiContext): MapApi {
  return {
    vin(vin, call) {
      const op = 'map.vin';
      const bad = checkVin(op, vin);
      if (bad) return ctx.invalid(bad);
      return ctx.request(
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
        return ctx.invalid(invalidRequest(op, 'vins', 'must be a non-empty array'));
      for (const [i, vin] of vins.entries()) {
        const bad = checkVin(op, vin, `vins[${i}]`);
        if (bad) return ctx.invalid(bad);
      }
      return ctx.request(
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
}
