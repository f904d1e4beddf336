/**
 * The services area: which connected services a VIN is eligible for. It authenticates with the
 * `client_id` alone, and sends a bearer token too when one is configured.
 */
import { JSON_TYPE, seg, V2 } from '../checks';
import type { ApiContext } from '../context';
import { invalidRequest, type Result } from '../errors';
import type { ServiceEligibility } from '../model';
import type { CallOptions } from '../transport';
import { checkVin } from '../v1/params';
import { type Eligibilities, wEligibilities, wServiceList } from '../wire/services';

export interface ServicesApi {
  /** `GET /services/vehicles/{vin}`; `services` filters on service codes. */
  vehicle(
    vin: string,
    params?: { services?: readonly string[] },
    call?: CallOptions,
  ): Promise<Result<readonly ServiceEligibility[]>>;
  /** `GET /vehicles/{vin}/eligibilities`: the body is not documented, so it is returned raw. */
  eligibilities(vin: string, call?: CallOptions): Promise<Result<Eligibilities>>;
}

export function servicesApi(ctx: ApiContext): ServicesApi {
  return {
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
      if (bad) return ctx.invalid(bad);
      return ctx.request(
        {
          operation: op,
          method: 'GET',
          path: `${V2}/services/vehicles/${seg(vin)}`,
          query: { services: params.services?.length ? params.services.join(',') : undefined },
          accept: JSON_TYPE,
          auth: 'bearer-if-available',
        },
        wServiceList,
        call,
      );
    },
    eligibilities(vin, call) {
      const op = 'v2.vehicles.eligibilities';
      const bad = checkVin(op, vin);
      if (bad) return ctx.invalid(bad);
      return ctx.request(
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
}
