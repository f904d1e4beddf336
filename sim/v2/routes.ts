import { Hono } from 'hono';
import type { SimEnv, SimServices } from '../http/context';
import { v2Kit } from './kit';
import { serviceRoutes } from './service-routes';
import { tripRoutes } from './trip-routes';
import { vehicleRoutes } from './vehicle-routes';

/**
 * Version 2 (area A) and the service-support lookups (area B), mounted at `/connectedcar/v2`.
 * The gateway has already authenticated the request and set `userId` for bearer requests.
 */
export function createV2Routes(svc: SimServices): Hono<SimEnv> {
  const app = new Hono<SimEnv>({ strict: false });
  const kit = v2Kit(svc.world);
  vehicleRoutes(app, svc.world, kit);
  tripRoutes(app, svc.world, kit);
  serviceRoutes(app, svc.world, kit);
  return app;
}
