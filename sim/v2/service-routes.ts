import type { Hono } from 'hono';
import type { SimEnv } from '../http/context';
import { invalidParam } from '../http/errors';
import { SERVICES } from '../world/catalog';
import type { World } from '../world/world';
import { isResponse, type V2Kit } from './kit';

/** Service support (area B): services and eligibilities of a vehicle by VIN, plain `application/json`. */
export function serviceRoutes(app: Hono<SimEnv>, world: World, kit: V2Kit): void {
  // ---- area B: services and eligibilities (application/json)

  app.get('/services/vehicles/:vin', (c) => {
    const v = kit.vehicleByVin(c, c.req.param('vin'));
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
    const v = kit.vehicleByVin(c, c.req.param('vin'));
    if (isResponse(v)) return v;
    const services = world.services(v.id);
    // The API does not show this body; the shape chosen is in sim/README.md.
    return c.json({
      vin: v.vin,
      eligible: services.some((s) => s.eligible),
      services: services.filter((s) => s.eligible).map((s) => s.code),
      updatedAt: new Date(v.updatedAt).toISOString(),
    });
  });
}
