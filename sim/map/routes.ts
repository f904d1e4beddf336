import { type Context, Hono } from 'hono';
import type { SimEnv, SimServices } from '../http/context';
import { invalidParam, simError } from '../http/errors';
import type { SimMapInfo } from '../world/types';

/** A VIN: 17 characters `[A-Z0-9]`. */
export const VIN_PATTERN = /^[A-Z0-9]{17}$/;

/** Maximum VINs in one bulk request (the API states none). */
export const MAX_BULK_VINS = 100;

/** Map update information (the API does not show the body; the shape chosen is in sim/README.md). */
export function renderMapInfo(m: SimMapInfo): Record<string, unknown> {
  return {
    vin: m.vin,
    installedVersion: m.installedVersion,
    availableVersion: m.availableVersion,
    updateAvailable: m.installedVersion !== m.availableVersion,
    releaseDate: new Date(m.releasedAt).toISOString(),
    sizeMb: m.sizeMb,
  };
}

function echoCaller(c: Context): void {
  const caller = c.req.header('x-map-caller-id');
  if (caller !== undefined) c.header('x-map-caller-id', caller);
}

/** The map update API (area C), mounted at `/applications/map/v1`. Authentication is done by the gateway. */
export function createMapRoutes(svc: SimServices): Hono<SimEnv> {
  const app = new Hono<SimEnv>({ strict: false });

  app.get('/mapway/:vin', (c) => {
    echoCaller(c);
    const vin = c.req.param('vin');
    if (!VIN_PATTERN.test(vin)) return invalidParam(c, 'vin', 'must be 17 characters [A-Z0-9]');
    const info = svc.world.map(vin);
    if (!info) return simError(c, 404, 'not_found', `No map information for VIN '${vin}'`);
    return c.json(renderMapInfo(info));
  });

  app.post('/mapway/bulk', async (c) => {
    echoCaller(c);
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return invalidParam(c, 'body', 'must be a JSON array of VIN strings');
    }
    if (!Array.isArray(body)) return invalidParam(c, 'body', 'must be a JSON array of VIN strings');
    if (body.length === 0) return invalidParam(c, 'body', 'must list at least one VIN');
    if (body.length > MAX_BULK_VINS)
      return invalidParam(c, 'body', `must list at most ${MAX_BULK_VINS} VINs`);
    const bad = body.findIndex((v) => typeof v !== 'string' || !VIN_PATTERN.test(v));
    if (bad >= 0) return invalidParam(c, `body[${bad}]`, 'must be a VIN of 17 characters [A-Z0-9]');
    // Unknown VINs are left out of the answer (documented in sim/README.md).
    const out = (body as string[])
      .map((vin) => svc.world.map(vin))
      .filter((m): m is SimMapInfo => m !== undefined)
      .map(renderMapInfo);
    return c.json(out);
  });

  return app;
}
