/**
 * A local webhook endpoint that verifies every request (Standard Webhooks signature, timestamp
 * tolerance) and prints what it got: `carhook receiver --secret …` and the `--demo` receiver.
 * Verified requests answer 204, others 401 with the reason, so the sender's retry logic shows too.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HEADER_ID, verify } from '../core/webhooks/signing';
import { LocalRuntimeError } from './errors';

export interface ReceivedWebhook {
  readonly id: string;
  readonly type: string;
  readonly vehicleId?: string;
  readonly verified: boolean;
  /** Why verification failed. */
  readonly reason?: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface ReceiverOptions {
  readonly port?: number;
  readonly host?: string;
  /** `whsec_…`; may also be set later (`setSecret`), e.g. once the subscription is created. */
  readonly secret?: string;
  readonly path?: string;
  /** One line per request; `null` = silent. */
  readonly out?: { write(chunk: string): unknown } | null;
  readonly onWebhook?: (webhook: ReceivedWebhook) => void;
}

export interface RunningReceiver {
  readonly url: string;
  readonly port: number;
  setSecret(secret: string): void;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const flatHeaders = (req: IncomingMessage): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
};

/** What a webhook body says about itself (best effort: the body is the sender's, not ours). */
export function describeBody(body: string): { type: string; vehicleId?: string } {
  try {
    // parsing boundary: any JSON may arrive here
    const parsed = JSON.parse(body) as { type?: unknown; data?: { vehicle?: { id?: unknown } } };
    const type = typeof parsed.type === 'string' ? parsed.type : '(no type)';
    const vehicleId = typeof parsed.data?.vehicle?.id === 'string' ? parsed.data.vehicle.id : undefined;
    return vehicleId === undefined ? { type } : { type, vehicleId };
  } catch {
    return { type: '(not JSON)' };
  }
}

export const formatWebhookLine = (w: ReceivedWebhook): string =>
  `${w.verified ? 'webhook ✓' : 'webhook ✗'} ${w.type.padEnd(32)} ${(w.vehicleId ?? '-').padEnd(20)} ${w.id}${w.reason ? `  (${w.reason})` : ''}\n`;

export async function startReceiver(options: ReceiverOptions = {}): Promise<RunningReceiver> {
  let secret = options.secret;
  const out = options.out === undefined ? process.stdout : options.out;
  const path = options.path ?? '/webhooks';
  const host = options.host ?? '127.0.0.1';
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://receiver');
      if (req.method !== 'POST' || url.pathname !== path) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end(`POST ${path} only\n`);
        return;
      }
      const body = await readBody(req);
      if (body === undefined) {
        res.writeHead(413).end();
        return;
      }
      const headers = flatHeaders(req);
      const { type, vehicleId } = describeBody(body);
      const checked = secret ? verify(headers, body, secret) : undefined;
      const verified = checked?.ok === true;
      const reason =
        checked === undefined ? 'no secret set yet' : checked.ok ? undefined : checked.error.message;
      const webhook: ReceivedWebhook = {
        id: headers[HEADER_ID] ?? '(no webhook-id)',
        type,
        ...(vehicleId !== undefined ? { vehicleId } : {}),
        verified,
        ...(reason !== undefined ? { reason } : {}),
        body,
        headers,
      };
      out?.write(formatWebhookLine(webhook));
      options.onWebhook?.(webhook);
      if (verified) res.writeHead(204).end();
      else res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: reason }));
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new LocalRuntimeError(
              'PortInUse',
              `receiver: port ${options.port ?? 0} on ${host} is already in use: choose another with --port`,
              '--port',
            )
          : new LocalRuntimeError(
              'StartFailed',
              `receiver: cannot listen on ${host}:${options.port ?? 0}: ${error.message}`,
            ),
      ),
    );
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}${path}`,
    port,
    setSecret(s: string) {
      secret = s;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
