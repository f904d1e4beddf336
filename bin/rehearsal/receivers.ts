/**
 * The scenario's webhook endpoints on 127.0.0.1, over HTTPS as Carhook on AWS requires: one that
 * verifies every delivery's Standard Webhooks signature (the `standardwebhooks` reference library)
 * with its subscription's secret, and one that always answers 500 (a subscriber whose endpoint is
 * down). Their certificate is the rehearsal's own (./tls.ts), which the functions trust through
 * `NODE_EXTRA_CA_CERTS`.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Delivery {
  readonly id: string;
  readonly type: string;
  readonly verified: boolean;
  readonly body: { type?: string; timestamp?: string; data?: Record<string, unknown> };
  readonly at: number;
}

export interface Receiver {
  readonly url: string;
  readonly deliveries: Delivery[];
  /** Requests answered 500 (the failing endpoint). */
  attempts: number;
  /** The signing secret, once the subscription is created. */
  secret: string | undefined;
  close(): Promise<void>;
}

export async function startReceiver(
  mode: 'verify' | 'fail',
  tls: { key: string; cert: string },
): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const receiver: Receiver = {
    url: '',
    deliveries,
    attempts: 0,
    secret: undefined,
    close: async () => {},
  };
  const server: Server = createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (mode === 'fail') {
        receiver.attempts += 1;
        res.writeHead(500).end('down for the rehearsal');
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, [v ?? ''].flat().join(',')]),
      );
      let verified = false;
      try {
        if (receiver.secret) {
          new Webhook(receiver.secret).verify(text, headers);
          verified = true;
        }
      } catch {
        verified = false;
      }
      let body: Delivery['body'] = {};
      try {
        body = JSON.parse(text) as Delivery['body'];
      } catch {
        // recorded as is: the check on `verified` and `type` reports it
      }
      deliveries.push({
        id: headers['webhook-id'] ?? '',
        type: body.type ?? '',
        verified,
        body,
        at: Date.now(),
      });
      res.writeHead(verified ? 204 : 401).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(receiver, {
    url: `https://127.0.0.1:${port}/hooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
