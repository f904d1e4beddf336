import { Hono } from 'hono';
import { parseChaosConfig } from '../http/chaos';
import type { SimServices } from '../http/context';
import { invalidParam, simError } from '../http/errors';
import {
  BodyError,
  fromOutcome,
  type Json,
  optNumber,
  optString,
  readBody,
  recordJson,
  withBody,
} from './body';
import { vehicleControlRoutes } from './vehicle-routes';

export { recordJson, tripJson } from './body';

/**
 * The control API (`/_sim`): JSON in and out, no authentication, never rate limited nor chaotic.
 * Creating calls answer 201 with the created records (ids included) so tests can correlate.
 */
export function createControlRoutes(
  svc: SimServices,
  hooks: {
    reset(): void;
    /** Runs after each advance of the clock; the answer waits for it (see `onClockAdvance`). */
    afterAdvance(ms: number): Promise<void>;
  },
): Hono {
  const app = new Hono({ strict: false });
  const world = svc.world;

  app.get('/world', (c) => c.json(world.snapshot() as Json));

  app.get('/clock', (c) => c.json({ now: new Date(world.now()).toISOString(), mode: world.clock.mode }));

  app.post('/clock/advance', (c) =>
    withBody(
      c,
      (b) => {
        const ms = optNumber(b, 'ms', { min: 0, max: 366 * 86_400_000 });
        if (ms instanceof BodyError) return ms;
        const seconds = optNumber(b, 'seconds', { min: 0, max: 366 * 86_400 });
        if (seconds instanceof BodyError) return seconds;
        if (ms === undefined && seconds === undefined) return new BodyError('ms', 'give ms or seconds');
        if (ms !== undefined && seconds !== undefined)
          return new BodyError('seconds', 'give ms or seconds, not both');
        return Math.round(ms ?? (seconds as number) * 1000);
      },
      async (ms) => {
        world.advance(ms);
        await hooks.afterAdvance(ms);
        return c.json({ now: new Date(world.now()).toISOString(), advancedMs: ms });
      },
    ),
  );

  vehicleControlRoutes(app, world);

  // The user removes a vehicle from their account (GET /vehicles no longer lists it), or adds it back.
  app.delete('/users/:id/vehicles/:vehicleId', (c) =>
    fromOutcome(c, world.setVehicleListed(c.req.param('id'), c.req.param('vehicleId'), false), recordJson),
  );
  app.put('/users/:id/vehicles/:vehicleId', (c) =>
    fromOutcome(c, world.setVehicleListed(c.req.param('id'), c.req.param('vehicleId'), true), recordJson),
  );

  // The v1 API stops knowing a VIN (404 on its single reads, omitted from the bulk lists), as when
  // the vehicle leaves its fleet contract; PUT makes it known again.
  for (const [method, known] of [
    ['delete', false],
    ['put', true],
  ] as const) {
    app[method]('/v1/vehicles/:vin', (c) => {
      const vin = c.req.param('vin');
      if (!world.setV1Known(vin, known))
        return simError(c, 404, 'not_found', `no vehicle with VIN ${vin}`, 'vin');
      return c.json({ vin, v1Known: known });
    });
  }

  app.post('/users/:id/revoke', (c) => fromOutcome(c, world.revokeUser(c.req.param('id')), recordJson));

  /** Shortcut for scripts and tests: tokens for a user without the browser step. */
  app.post('/users/:id/tokens', (c) =>
    withBody(
      c,
      (b) => optString(b, 'clientId'),
      (clientId) => {
        const user = world.user(c.req.param('id'));
        if (!user) return simError(c, 404, 'not_found', `No user with id '${c.req.param('id')}'`);
        const client = svc.clients.get(clientId ?? 'carhook-sim') ?? svc.clients.all()[0];
        if (!client || (clientId !== undefined && client.clientId !== clientId)) {
          return invalidParam(c, 'clientId', `unknown client '${clientId}'`);
        }
        return c.json(
          svc.tokens.issueFor(client.clientId, user.id, client.accessTokenTtlSeconds ?? svc.accessTtlSeconds),
          201,
        );
      },
    ),
  );

  app.put('/clients/:clientId/quota', (c) =>
    withBody(
      c,
      (b) => {
        const limit = optNumber(b, 'limit', { integer: true, min: 1, max: 1_000_000 });
        if (limit instanceof BodyError) return limit;
        if (limit === undefined) return new BodyError('limit', 'is required (requests per window)');
        const windowSeconds = optNumber(b, 'windowSeconds', { integer: true, min: 1, max: 86_400 });
        if (windowSeconds instanceof BodyError) return windowSeconds;
        return { limit, windowSeconds };
      },
      (q) => {
        const clientId = c.req.param('clientId');
        if (!svc.clients.get(clientId)) return simError(c, 404, 'not_found', `No client '${clientId}'`);
        const quota = {
          limit: q.limit,
          windowSeconds: q.windowSeconds ?? svc.limiter.quotaOf(clientId).windowSeconds,
        };
        svc.limiter.setQuota(clientId, quota);
        return c.json({ clientId, ...quota });
      },
    ),
  );

  app.get('/chaos', (c) => {
    const { rates, slowMs, staleSeconds, seed } = svc.chaos.config;
    return c.json({ ...rates, slowMs, staleSeconds, seed });
  });

  app.put('/chaos', async (c) => {
    const body = await readBody(c);
    if (body instanceof BodyError) return invalidParam(c, body.field, body.message);
    const parsed = parseChaosConfig(body);
    if (!parsed.ok) return invalidParam(c, parsed.field, parsed.message);
    svc.chaos.configure(parsed.value);
    const { rates, slowMs, staleSeconds, seed } = parsed.value;
    return c.json({ ...rates, slowMs, staleSeconds, seed });
  });

  app.get('/stats', (c) => {
    const s = svc.stats;
    const clients: Json = {};
    for (const client of svc.clients.all()) {
      const quota = svc.limiter.quotaOf(client.clientId);
      clients[client.clientId] = {
        requests: s.byClient.get(client.clientId) ?? 0,
        tooManyRequests: s.tooManyByClient.get(client.clientId) ?? 0,
        maxInWindow: svc.limiter.maxInWindow(client.clientId),
        limit: quota.limit,
        windowSeconds: quota.windowSeconds,
      };
    }
    return c.json({
      total: s.total,
      tooManyRequests: s.tooManyRequests,
      byOperation: Object.fromEntries(s.byOperation),
      byClient: Object.fromEntries(s.byClient),
      byStatus: Object.fromEntries(s.byStatus),
      byUser: Object.fromEntries(s.byUser),
      byChaos: Object.fromEntries(s.byChaos),
      clients,
    });
  });

  app.post('/stats/reset', (c) => {
    svc.stats.clear();
    return c.json({ reset: true });
  });

  app.post('/reset', (c) => {
    hooks.reset();
    return c.json({ reset: true, now: new Date(world.now()).toISOString() });
  });

  app.notFound((c) =>
    simError(c, 404, 'not_found', `No control operation ${c.req.method} ${new URL(c.req.url).pathname}`),
  );

  return app;
}
