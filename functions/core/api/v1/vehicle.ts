/**
 * v1 vehicle information and pictures. Creating a picture is a POST, but the same body renders the
 * same picture, so it is retried like a read; a picture comes back as bytes, not JSON.
 */
import { JSON_TYPE, seg, V1 } from '../checks';
import type { ApiContext } from '../context';
import { invalidRequest, type Result } from '../errors';
import type { CallOptions } from '../transport';
import { type V1RawResponse, type V1VehicleInformation, wV1VehicleInformation } from '../wire/v1';
import { positiveInt } from './params';
import { checkVehicle, type V1VehicleParams, v1Sender } from './request';

export interface PictureParams {
  width?: number;
  format?: string;
  background?: string;
  trim?: string;
  view?: string;
  ratio?: string;
}

export interface V1VehicleApi {
  vehicleInformation(p: V1VehicleParams, call?: CallOptions): Promise<Result<V1VehicleInformation>>;
  /** POST creating a picture rendering: the same body gives the same picture, so it is retried. */
  createPicture(p: V1VehicleParams & PictureParams, call?: CallOptions): Promise<Result<V1RawResponse>>;
  picture(p: V1VehicleParams, call?: CallOptions): Promise<Result<V1RawResponse>>;
}

export function v1VehicleApi(ctx: ApiContext): V1VehicleApi {
  const { get, withChecks } = v1Sender(ctx);
  return {
    vehicleInformation: (p, call) =>
      get(
        'v1.vehicle.information',
        (x) => `/vehicle/information/${seg(x.vin)}`,
        p,
        {},
        wV1VehicleInformation,
        call,
      ),
    createPicture: (p, call) => {
      const op = 'v1.vehicle.picture.create';
      const body: Record<string, unknown> = {};
      for (const key of ['format', 'background', 'trim', 'view', 'ratio'] as const) {
        const v = p[key];
        if (v !== undefined && typeof v !== 'string')
          return ctx.invalid(invalidRequest(op, key, 'must be a string'));
        if (v !== undefined) body[key] = v;
      }
      if (p.width !== undefined) {
        const bad = positiveInt(op, 'width', p.width);
        if (bad) return ctx.invalid(bad);
        body.width = p.width;
      }
      return withChecks([checkVehicle(op, p)], () =>
        ctx.raw(
          {
            operation: op,
            method: 'POST',
            path: `${V1}/vehicle/picture/${seg(p.vin)}/${seg(p.contract)}`,
            json: body,
            accept: JSON_TYPE,
            auth: 'client_id',
          },
          call,
        ),
      );
    },
    picture: (p, call) => {
      const op = 'v1.vehicle.picture.get';
      return withChecks([checkVehicle(op, p)], () =>
        ctx.raw(
          {
            operation: op,
            method: 'GET',
            path: `${V1}/vehicle/picture/${seg(p.vin)}/${seg(p.contract)}`,
            accept: '*/*',
            auth: 'client_id',
          },
          call,
        ),
      );
    },
  };
}
