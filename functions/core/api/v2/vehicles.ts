/** The user and vehicle reads of v2: who the token belongs to, their vehicles, a last position. */
import { HAL, type PageParams, V2 } from '../checks';
import type { ApiContext } from '../context';
import type { Result } from '../errors';
import { type ListOperation, list, single } from '../list';
import type { Position, User, Vehicle } from '../model';
import type { CallOptions } from '../transport';
import { wPosition } from '../wire/common';
import { wUser, wVehicle } from '../wire/v2';

export interface VehiclesApi {
  user(call?: CallOptions): Promise<Result<User>>;
  vehicles: ListOperation<PageParams, Vehicle>;
  vehicle(vehicleId: string, call?: CallOptions): Promise<Result<Vehicle>>;
  lastPosition(vehicleId: string, call?: CallOptions): Promise<Result<Position>>;
}

export function vehiclesApi(ctx: ApiContext): VehiclesApi {
  return {
    user: (call) =>
      ctx.request(
        { operation: 'v2.user', method: 'GET', path: `${V2}/user`, accept: HAL, auth: 'bearer' },
        wUser,
        call,
      ),
    vehicles: list<PageParams, Vehicle>(ctx, {
      op: 'v2.vehicles.list',
      embedded: 'vehicles',
      item: wVehicle,
      defaultLimit: 10,
      validate: () => undefined,
      build: (p) => ({ path: `${V2}/vehicles`, query: { limit: p.limit, offset: p.offset } }),
    }),
    vehicle: single(ctx, 'v2.vehicles.get', `${V2}/vehicles/{id}`, wVehicle),
    lastPosition: single(
      ctx,
      'v2.vehicles.lastPosition',
      `${V2}/vehicles/{id}/lastPosition`,
      wPosition,
      'application/geo+json',
    ),
  };
}
