/**
 * A subscriber's endpoint for the fault suite: a real HTTP server on 127.0.0.1 that checks every
 * request's Standard Webhooks signature with the `standardwebhooks` package and can be taken down
 * (connections reset, as a crashed host does) and brought back. The signature is recomputed with
 * the package's `sign` for the request's own id and timestamp: its `verify` also rejects timestamps
 * more than 5 min from the wall clock, and the suite runs on the simulator's clock.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Reception {
  readonly webhookId: string;
  readonly type: string;
  readonly signatureValid: boolean;
}

export interface FaultReceiver {
  readonly url: string;
  readonly receptions: Reception[];
  /** Connections refused (reset) while down. */
  readonly refused: () => number;
  setSecret(secret: string): void;
  setUp(up: boolean): void;
  close(): Promise<void>;
}

function signatureMatches(secret: string, id: string, timestamp: string, body: string, header: string) {
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  const expected = new Webhook(secret).sign(id, new Date(Number(timestamp) * 1000), body);
  return header.split(' ').includes(expected);
}

export async function startFaultReceiver(): Promise<FaultReceiver> {
  const receptions: Reception[] = [];
  let secret = '';
  let up = true;
  let refused = 0;
  const server: Server = createServer((req, res) => {
    if (!up) {
      refused++;
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['webhook-id'] ?? '');
      const timestamp = String(req.headers['webhook-timestamp'] ?? '');
      const signature = String(req.headers['webhook-signature'] ?? '');
      let type = '';
      try {
        type = String((JSON.parse(body) as { type?: unknown }).type ?? '');
      } catch {
        type = '(not JSON)';
      }
      receptions.push({
        webhookId: id,
        type,
        signatureValid: secret !== '' && signatureMatches(secret, id, timestamp, body, signature),
      });
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    receptions,
    refused: () => refused,
    setSecret: (s) => {
      secret = s;
    },
    setUp: (value) => {
      up = value;
      // Kept-alive connections from before the outage would otherwise still be answered.
      if (!value) server.closeIdleConnections();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
