/** v1 maintenance: due operations and alerts of a fleet or a vehicle, and the label referentials. */
import { seg } from '../checks';
import type { ApiContext } from '../context';
import type { Result } from '../errors';
import type { V1Alert, V1Maintenance } from '../model';
import type { CallOptions } from '../transport';
import { arrayOf, type V1Referential, wV1AlertList, wV1Maintenance, wV1Referential } from '../wire/v1';
import type { V1Target } from './params';
import {
  boolRequired,
  gather,
  localeBrand,
  type V1LocaleBrandParams,
  type V1VehicleParams,
  v1Sender,
} from './request';

type Referentials = Promise<Result<readonly V1Referential[]>>;

export interface V1MaintenanceApi {
  maintenance(p: V1VehicleParams & V1LocaleBrandParams, call?: CallOptions): Promise<Result<V1Maintenance>>;
  maintenanceList(
    p: { targets: readonly V1Target[] } & V1LocaleBrandParams,
    call?: CallOptions,
  ): Promise<Result<readonly V1Maintenance[]>>;
  alertList(
    p: { targets: readonly V1Target[]; active: boolean } & V1LocaleBrandParams,
    call?: CallOptions,
  ): Promise<Result<readonly V1Alert[]>>;
  alerts(
    p: V1VehicleParams & V1LocaleBrandParams & { active: boolean },
    call?: CallOptions,
  ): Promise<Result<readonly V1Alert[]>>;
  referentialMaintenance(p?: Partial<V1LocaleBrandParams>, call?: CallOptions): Referentials;
  referentialAlert(p?: Partial<V1LocaleBrandParams>, call?: CallOptions): Referentials;
  referentialEcodriving(p?: Partial<V1LocaleBrandParams>, call?: CallOptions): Referentials;
}

export function v1MaintenanceApi(ctx: ApiContext): V1MaintenanceApi {
  const { bulk, get, send } = v1Sender(ctx);

  /** A referential: locale and brand are optional, and checked only when given. */
  function referential(
    op: string,
    path: string,
    p: Partial<V1LocaleBrandParams>,
    call?: CallOptions,
  ): Referentials {
    const g = gather(localeBrand(op, p, false));
    if ('kind' in g) return ctx.invalid(g);
    return send(op, 'GET', path, g.query, arrayOf(wV1Referential), call);
  }

  return {
    maintenance: (p, call) => {
      const op = 'v1.maintenance.get';
      return get(op, (x) => `/maintenance/${seg(x.vin)}`, p, localeBrand(op, p), wV1Maintenance, call);
    },
    maintenanceList: (p, call) => {
      const op = 'v1.maintenance.list';
      return bulk(op, '/maintenance/list', p.targets, localeBrand(op, p), arrayOf(wV1Maintenance), call);
    },
    alertList: (p, call) => {
      const op = 'v1.maintenance.alert.list';
      const parts = { ...localeBrand(op, p), active: boolRequired(op, 'active', p.active) };
      return bulk(op, '/maintenance/list/alert', p.targets, parts, wV1AlertList, call);
    },
    alerts: (p, call) => {
      const op = 'v1.maintenance.alert.get';
      const parts = { ...localeBrand(op, p), active: boolRequired(op, 'active', p.active) };
      return get(op, (x) => `/maintenance/alert/${seg(x.vin)}`, p, parts, wV1AlertList, call);
    },
    referentialMaintenance: (p = {}, call) =>
      referential('v1.referential.maintenance', '/referential/maintenance', p, call),
    referentialAlert: (p = {}, call) => referential('v1.referential.alert', '/referential/alert', p, call),
    referentialEcodriving: (p = {}, call) =>
      referential('v1.referential.ecodriving', '/referential/ecodriving', p, call),
  };
}
