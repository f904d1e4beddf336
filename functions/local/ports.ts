/**
 * Listening on this machine: a busy port fails fast with one sentence naming the flag that
 * chooses another (before DynamoDB Local spends seconds starting), and the HTTP API's server closes
 * its idle connections at once and the busy ones after a short grace.
 */
import { createServer as createNetServer } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { LocalRuntimeError } from './errors';

function listenError(
  error: NodeJS.ErrnoException,
  port: number,
  host: string,
  flag: string,
): LocalRuntimeError {
  return error.code === 'EADDRINUSE'
    ? new LocalRuntimeError(
        'PortInUse',
        `port ${port} on ${host} is already in use: stop what uses it or choose another with ${flag}`,
        flag,
      )
    : new LocalRuntimeError(
        'StartFailed',
        `cannot listen on ${host}:${port} (${flag}): ${error.message}`,
        flag,
      );
}

/** Resolves when `port` (0 = any, not checked) is free on `host`. */
export async function ensurePortFree(port: number, host: string, flag: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, port, host, flag)));
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

export interface ListeningServer {
  /** The bound port (the OS's choice when 0 was asked). */
  readonly port: number;
  close(): Promise<void>;
}

/** Serves a fetch handler (the Hono app) on `host:port`. */
export async function listenHttp(
  fetch: (request: Request) => Response | Promise<Response>,
  port: number,
  host: string,
): Promise<ListeningServer> {
  const server = createAdaptorServer({ fetch });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, port, host, '--port')));
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeIdleConnections' in server) server.closeIdleConnections();
        setTimeout(() => {
          if ('closeAllConnections' in server) server.closeAllConnections();
        }, 200).unref();
      }),
  };
}
