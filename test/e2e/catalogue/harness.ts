/**
 * What the catalogue test drives the local runtime with: a receiver that keeps every webhook, the
 * management API and the simulator's control API, and stepping the simulated clock until what is
 * expected is there.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventEnvelope } from '../../../functions/core/events/envelope';
import type { LocalRuntime } from '../../../functions/local/runtime';

interface Received {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly envelope: EventEnvelope;
}

/** One step of the simulated clock: the planner's cadence. */
export const STEP_MS = 1000;
/** Steps after which something expected is reported missing (simulated seconds). */
export const MAX_STEPS = 60;

/** A receiver: `/gone` answers 410, `/fail` 500, every other path 204. */
export async function startReceiver() {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      received.push({ path, headers, body, envelope: (JSON.parse(body) as { data: EventEnvelope }).data });
      res.writeHead(path === '/gone' ? 410 : path === '/fail' ? 500 : 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path: string) => `${base}${path}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The runtime's management API, the simulator's control API and its clock, for the runtime `rt()` gives. */
export function driver(rt: () => LocalRuntime) {
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${rt().apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${rt().adminToken}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    // biome-ignore lint/suspicious/noExplicitAny: JSON answers, read freely by the test.
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as any };
  };
  const control = async (method: string, path: string, body?: unknown) => {
    const sim = rt().sim as NonNullable<LocalRuntime['sim']>;
    const res = await fetch(`${sim.url}/_sim${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    // biome-ignore lint/suspicious/noExplicitAny: JSON answers, read freely by the test.
    return { status: res.status, body: (await res.json()) as any };
  };
  /** Requests the simulator served for operations whose id contains `op`. */
  const reads = async (op: string): Promise<number> => {
    const stats = (await control('GET', '/stats')).body as { byOperation: Record<string, number> };
    return Object.entries(stats.byOperation)
      .filter(([id]) => id.includes(op))
      .reduce((a, [, n]) => a + n, 0);
  };
  /**
   * Advances the simulated clock a step at a time until `probe` finds what it looks for; fails
   * naming `what` after MAX_STEPS steps.
   */
  async function stepUntil<T>(
    what: string,
    probe: () => Promise<T | undefined> | T | undefined,
    maxSteps = MAX_STEPS,
  ): Promise<T> {
    for (let step = 0; ; step++) {
      const found = await probe();
      if (found !== undefined) return found;
      if (step >= maxSteps) throw new Error(`${what}: not there after ${maxSteps} simulated seconds`);
      await rt().advance(STEP_MS);
    }
  }
  /** Steps until Carhook has read `op` at least twice more (the state it sees includes what came before). */
  const twoReadsOf = async (op: string) => {
    const from = await reads(op);
    await stepUntil(`two more ${op} reads`, async () => ((await reads(op)) >= from + 2 ? true : undefined));
  };

  return { api, control, reads, stepUntil, twoReadsOf };
}
