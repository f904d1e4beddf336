/**
 * The version 1 development API (area D): parameter validation and rendering of its records
 * (series keyed by second number, digit timestamps). Mounted at `/connectedcar/v1/dev` by the server, which authenticates the
 * client (`client_id`), rate-limits and injects chaos before these routes run.
 *
 * Choices where the spec says "not shown" are written down in sim/v1/SHAPES.md.
 */
import { Hono } from 'hono';
import { simError } from '../http/errors';
import type { WorldMutations, WorldView } from '../world/types';
import { ecoRoutes } from './eco-routes';
import { failureResponse, V1Failure } from './failure';
import { v1Kit } from './kit';
import { tripRoutes } from './trip-routes';
import { vehicleStateRoutes } from './vehicle-routes';

export interface V1Deps {
  readonly world: WorldView & WorldMutations;
}
export function createV1Routes(deps: V1Deps): Hono {
  const world = deps.world;
  const app = new Hono();
  app.onError((err, c) => {
    if (err instanceof V1Failure) return failureResponse(c, err);
    // A renderer bug must still answer the JSON error body; the stack goes to the simulator's log.
    console.error('v1 simulator error:', err);
    return simError(c, 500, 'server_error', 'The v1 simulator failed to answer this request');
  });

  const kit = v1Kit(world);
  ecoRoutes(app, world, kit);
  vehicleStateRoutes(app, world, kit);
  tripRoutes(app, world, kit);
  return app;
}
