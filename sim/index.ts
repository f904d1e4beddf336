import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { createSimulatorApp, type SimulatorOptions } from './app';
import type { World } from './world/world';

export type { SimulatorApp, SimulatorOptions } from './app';
export { createSimulatorApp } from './app';
export type { SimClientConfig } from './auth/clients';
export { DEFAULT_CLIENT } from './auth/clients';
export type { ChaosMode } from './http/chaos';
export { CHAOS_MODES } from './http/chaos';
export type { Quota } from './http/ratelimit';
export { BRANDS } from './world/catalog';
export type { ClockMode } from './world/clock';
export type { CollisionRequest, TripCreated, TripRequest, WorldError, WorldOptions } from './world/world';
export { World } from './world/world';

export interface RunningSimulator {
  /** `http://host:port`, no trailing slash. */
  readonly url: string;
  /** `{base_url}` of the spec (same as `url`). */
  readonly baseUrl: string;
  /** `{auth_url}` of the spec (same as `url`). */
  readonly authUrl: string;
  readonly port: number;
  readonly world: World;
  readonly clientId: string;
  readonly clientSecret: string;
  /** See `SimulatorApp.onClockAdvance`. */
  onClockAdvance(listener: (ms: number) => Promise<void>): () => void;
  /** The app's own handler: a request answered in this process, exactly as over the socket. */
  readonly fetch: (request: Request) => Response | Promise<Response>;
  close(): Promise<void>;
}

/** Why the simulator could not start, with what a person needs to fix it. */
export class SimulatorStartError extends Error {
  readonly kind = 'SimulatorStart';
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/** Starts the simulator on `host:port` (default 127.0.0.1, any free port). */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const sim = createSimulatorApp(options);
  const host = options.host ?? '127.0.0.1';
  const server = createAdaptorServer({ fetch: sim.fetch });
  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      sim.shutdown();
      reject(
        new SimulatorStartError(
          err.code === 'EADDRINUSE'
            ? `Port ${options.port ?? 0} on ${host} is already in use`
            : `Cannot listen on ${host}:${options.port ?? 0}: ${err.message}`,
          err.code,
        ),
      );
    };
    server.once('error', onError);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = host.includes(':') ? `[${host}]` : host;
  const url = `http://${hostForUrl}:${port}`;
  const client = sim.services.clients.all()[0];
  let closing: Promise<void> | undefined;
  return {
    url,
    baseUrl: url,
    authUrl: url,
    port,
    world: sim.world,
    clientId: client?.clientId ?? '',
    clientSecret: client?.clientSecret ?? '',
    onClockAdvance: (listener) => sim.onClockAdvance(listener),
    fetch: (request) => sim.fetch(request),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        // Hung and slow requests answer 503 first, then idle keep-alive sockets are dropped.
        sim.shutdown();
        server.close(() => resolve());
        if ('closeIdleConnections' in server) server.closeIdleConnections();
        setTimeout(() => {
          if ('closeAllConnections' in server) server.closeAllConnections();
        }, 50).unref();
      });
      return closing;
    },
  };
}
