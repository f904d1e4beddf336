import { type Context, Hono } from 'hono';
import { cors } from 'hono/cors';
import { ClientRegistry, DEFAULT_CLIENT, type SimClientConfig } from './auth/clients';
import { createAuthRoutes } from './auth/routes';
import { DEFAULT_ACCESS_TTL_S, TokenStore } from './auth/tokens';
import { createControlRoutes } from './control/routes';
import { AnswerHistory } from './http/answers';
import { Chaos } from './http/chaos';
import { PendingRequests, type SimEnv, type SimServices } from './http/context';
import { simError } from './http/errors';
import { gateway } from './http/gateway';
import { DEFAULT_QUOTA, type Quota, RateLimiter } from './http/ratelimit';
import { Stats } from './http/stats';
import { createMapRoutes } from './map/routes';
import { createV1Routes } from './v1/routes';
import { createV2Routes } from './v2/routes';
import type { ClockMode } from './world/clock';
import { World } from './world/world';

export interface SimulatorOptions {
  /** TCP port (0 = any free port). Only the CLI defaults to 4010; the library defaults to 0. */
  readonly port?: number;
  /** Interface to bind (default 127.0.0.1). */
  readonly host?: string;
  /** Number of vehicles (default 20). */
  readonly vehicles?: number;
  /** World seed (default 1). */
  readonly seed?: number;
  /** `manual` (default for the library) or `real` (default for the CLI). */
  readonly clock?: ClockMode;
  /** Epoch ms the world clock starts at. */
  readonly startTime?: number;
  /** Background activity: vehicles drive, raise and fix alerts, refuel. */
  readonly activity?: boolean;
  /** Default quota per client (the API's: 120 requests per 60 s). */
  readonly quota?: Quota;
  /** Registered clients (default: `carhook-sim` / `carhook-sim-secret`, loopback redirect URIs). */
  readonly clients?: readonly SimClientConfig[];
  /** Access token lifetime, seconds (default 3600). */
  readonly accessTokenTtlSeconds?: number;
}

/** The Hono app of the simulator, with its world and shared services attached. */
export type SimulatorApp = Hono & {
  readonly world: World;
  readonly services: SimServices;
  /** Releases held (slow / hung) requests and stops background timers. */
  shutdown(): void;
  /**
   * Calls `listener` after every advance of the clock through the control API, which answers once
   * the listeners have settled: a client of the simulator that runs on its clock (the local runtime
   * on the simulated clock) finishes its step before whoever advanced the clock reads the result.
   * Returns the function that removes the listener.
   */
  onClockAdvance(listener: (ms: number) => Promise<void>): () => void;
};

/** Builds the whole simulator as a Hono app, for in-process use (`app.request(...)`) or behind a server. */
export function createSimulatorApp(options: SimulatorOptions = {}): SimulatorApp {
  const world = new World({
    vehicles: options.vehicles ?? 20,
    seed: options.seed ?? 1,
    clock: options.clock ?? 'manual',
    startTime: options.startTime,
    activity: options.activity ?? false,
  });
  const clientConfigs = options.clients && options.clients.length > 0 ? options.clients : [DEFAULT_CLIENT];
  const defaultQuota = options.quota ?? DEFAULT_QUOTA;
  const limiter = new RateLimiter(world, defaultQuota);
  const applyClientQuotas = (): void => {
    for (const c of clientConfigs) if (c.quota) limiter.setQuota(c.clientId, c.quota);
  };
  applyClientQuotas();
  const services: SimServices = {
    world,
    clients: new ClientRegistry(clientConfigs),
    tokens: new TokenStore(world),
    limiter,
    chaos: new Chaos(world.seed),
    stats: new Stats(),
    pending: new PendingRequests(),
    answers: new AnswerHistory(),
    accessTtlSeconds: options.accessTokenTtlSeconds ?? DEFAULT_ACCESS_TTL_S,
  };

  const clockListeners = new Set<(ms: number) => Promise<void>>();
  const app = new Hono({ strict: false });
  app.route(
    '/_sim',
    createControlRoutes(services, {
      afterAdvance: async (ms) => {
        for (const listener of clockListeners) await listener(ms);
      },
      reset: () => {
        world.reset();
        services.stats.clear();
        services.answers.clear();
        services.chaos.configure({ ...services.chaos.config, rates: new Chaos(0).config.rates });
        limiter.reset(true);
        applyClientQuotas();
      },
    }),
  );
  app.route('/accounts/signin/v1', createAuthRoutes(services));
  // Unknown control or sign-in paths never reach the API gateway (not counted, no chaos).
  const notFound = (c: Context): Response =>
    simError(c, 404, 'not_found', `No route for ${c.req.method} ${new URL(c.req.url).pathname}`);
  app.all('/_sim/*', notFound);
  app.all('/accounts/*', notFound);

  const api = new Hono<SimEnv>({ strict: false });
  // The API supports cross-origin resource sharing. Preflights are answered before the gateway.
  api.use(
    '*',
    cors({
      origin: '*',
      allowHeaders: ['Authorization', 'Accept', 'Content-Type', 'x-map-caller-id'],
      exposeHeaders: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After'],
    }),
  );
  api.use('*', gateway(services));
  api.route('/connectedcar/v2', createV2Routes(services));
  api.route('/applications/map/v1', createMapRoutes(services));
  api.route('/connectedcar/v1/dev', createV1Routes({ world }));
  app.route('/', api);
  app.notFound(notFound);
  app.onError((err, c) => {
    // A bug in a renderer must still answer JSON, not an HTML stack trace.
    console.error('simulator error:', err);
    return simError(c, 500, 'server_error', 'Internal simulator error');
  });

  let timer: NodeJS.Timeout | undefined;
  if (world.activity && world.clock.mode === 'real') {
    timer = setInterval(() => world.tick(), 1000);
    timer.unref();
  }
  return Object.assign(app, {
    world,
    services,
    shutdown: () => {
      if (timer) clearInterval(timer);
      services.pending.releaseAll();
    },
    onClockAdvance: (listener: (ms: number) => Promise<void>) => {
      clockListeners.add(listener);
      return () => clockListeners.delete(listener);
    },
  });
}
