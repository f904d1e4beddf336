/**
 * The maintenance of a vehicle. The API answers 404 on a list for "no such items", but this is a
 * single object, so a 404 here stays a `NotFound` error.
 */
import { V2 } from '../checks';
import type { ApiContext } from '../context';
import type { Result } from '../errors';
import { single } from '../list';
import type { Maintenance } from '../model';
import type { CallOptions } from '../transport';
import { wMaintenance } from '../wire/v2';

export interface MaintenanceApi {
  maintenance(vehicleId: string, call?: CallOptions): Promise<Result<Maintenance>>;
}

export function maintenanceApi(ctx: ApiContext): MaintenanceApi {
  return {
    maintenance: single(ctx, 'v2.vehicles.maintenance', `${V2}/vehicles/{id}/maintenance`, wMaintenance),
  };
}
