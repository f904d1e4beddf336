import type { Hono } from 'hono';
import type { SimEnv } from '../http/context';
import { invalidParam, simError } from '../http/errors';
import { SERVICES } from '../world/catalog';
import type { SimVehicle } from '../world/types';
import type { World } from '../world/world';
import { type C, isResponse } from './kit';

/** Service support (area B): services and eligibilities of a vehicle by VIN, plain `application/json`. */
export function serviceRoutes(app: Hono<SimEnv>, world: World): void {
  // ---- area B: services and eligibilities (application/json)

  const vehicleByVin = (c: C, vin: string): SimVehicle | Response => {
    const v = world.vehicleByVin(vin);
    if (!v) return simError(c, 404, 'not_found', `No vehicle with VIN '${vin}'`);
    const userId = c.get('userId');
    if (userId !== undefined && v.userId !== userId) {
      return simError(c, 403, 'forbidden', `The user has no access to vehicle '${vin}'`);
    }
    return v;
  };

  app.get('/services/vehicles/:vin', (c) => {
    const v = vehicleByVin(c, c.req.param('vin'));
    if (isResponse(v)) return v;
    const filter = c.req.query('services');
    let entries = world.services(v.id);
    if (filter !== undefined) {
      const codes = filter
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0);
      const unknown = codes.find((code) => !SERVICES.some((s) => s.code === code));
      if (unknown !== undefined) {
        return invalidParam(
          c,
          'services',
          `unknown service code '${unknown}'; known: ${SERVICES.map((s) => s.code).join(', ')}`,
        );
      }
      entries = entries.filter((e) => codes.includes(e.code));
    }
    return c.json(entries.map((e) => ({ code: e.code, shortLabel: e.shortLabel, eligible: e.eligible })));
  });

  app.get('/vehicles/:vin/eligibilities', (c) => {
    const v = vehicleByVin(c, c.req.param('vin'));
    if (isResponse(v)) return v;
    const services = world.services(v.id);
    // spec 4.2: body not shown; see sim/README.md.
    return c.json({
      vin: v.vin,
      eligible: services.some((s) => s.eligible),
      services: services.filter((s) => s.eligible).map((s) => s.code),
      updatedAt: new Date(v.updatedAt).toISOString(),
    });
  });
}
