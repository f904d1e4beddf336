/**
 * The connected-car API of a rehearsal: Carhook's simulator on the wall clock, without background
 * activity (the scenario makes every change), served on 127.0.0.1 with a log of the API requests it
 * answered, so the scenario knows when a vehicle's first read (its baseline) has been made: a
 * change made before it is history, and history is not reported.
 */
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { createSimulatorApp, type World } from '../../sim';

export interface RehearsalSimulator {
  readonly url: string;
  readonly world: World;
  readonly clientId: string;
  readonly clientSecret: string;
  /** `GET /connectedcar/v2/vehicles/<id>/events`… as answered, oldest first (query and status kept). */
  readonly requests: {
    readonly method: string;
    readonly path: string;
    readonly query: string;
    readonly status: number;
    readonly at: number;
  }[];
  close(): Promise<void>;
}

export async function startRehearsalSimulator(seed: number): Promise<RehearsalSimulator> {
  const app = createSimulatorApp({ clock: 'real', activity: false, vehicles: 4, seed });
  const requests: RehearsalSimulator['requests'] = [];
  const server = createAdaptorServer({
    fetch: async (request: Request) => {
      const response = await app.fetch(request);
      const { pathname, search } = new URL(request.url);
      if (!pathname.startsWith('/_sim')) {
        requests.push({
          method: request.method,
          path: pathname,
          query: search,
          status: response.status,
          at: Date.now(),
        });
      }
      return response;
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = app.services.clients.all()[0];
  return {
    url,
    world: app.world,
    clientId: client?.clientId ?? '',
    clientSecret: client?.clientSecret ?? '',
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        app.shutdown();
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
