import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { compileAllowList } from '../../functions/core/webhooks/ssrf';

export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export interface Receiver {
  readonly port: number;
  /** `http://127.0.0.1:<port><path>` */
  readonly url: (path?: string) => string;
  readonly requests: ReceivedRequest[];
  readonly close: () => Promise<void>;
}

/**
 * A real HTTP receiver on 127.0.0.1, port chosen by the OS. The handler runs after the request
 * body has been read (it is recorded in `requests` first).
 */
export async function startReceiver(
  handler: (req: ReceivedRequest, res: http.ServerResponse) => void = (_req, res) => {
    res.writeHead(204).end();
  },
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(received);
      handler(received, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path = '/hooks') => `http://127.0.0.1:${port}${path}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Test receivers live on loopback: every sender/url test that reaches one allow-lists it explicitly. */
export function loopbackAllowList() {
  const compiled = compileAllowList({ cidrs: ['127.0.0.1/32'] });
  if (!compiled.ok) throw new Error(compiled.error.message);
  return compiled.value;
}
