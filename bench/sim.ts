/**
 * Simulator benchmark: start-up time for 20 and 1,000 vehicles, and requests per second served on
 * loopback for a mix of v2 reads against a 1,000-vehicle world. Bounded: a fixed number of requests
 * with a fixed concurrency, so it stops by itself. `npx tsx bench/sim.ts`, or `run()` from bench/run.ts.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { startSimulator } from '../sim/index';

export interface SimBenchResult {
  /** Milliseconds from `startSimulator()` to listening, 20 vehicles. */
  readonly startup20Ms: number;
  /** Same, 1,000 vehicles. */
  readonly startup1000Ms: number;
  /** Milliseconds for the first full `GET /_sim/world` of 1,000 vehicles (whole history generated). */
  readonly worldSnapshot1000Ms: number;
  readonly requests: number;
  readonly concurrency: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Non-200 answers seen (must be 0). */
  readonly errors: number;
}

export interface SimBenchOptions {
  readonly requests?: number;
  readonly concurrency?: number;
}

async function timedStart(
  vehicles: number,
): Promise<{ ms: number; sim: Awaited<ReturnType<typeof startSimulator>> }> {
  const t0 = performance.now();
  const sim = await startSimulator({
    port: 0,
    vehicles,
    seed: 1,
    clock: 'manual',
    quota: { limit: 1e6, windowSeconds: 60 },
  });
  return { ms: performance.now() - t0, sim };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

export async function run(options: SimBenchOptions = {}): Promise<SimBenchResult> {
  const requests = options.requests ?? 4000;
  const concurrency = options.concurrency ?? 16;

  const small = await timedStart(20);
  await small.sim.close();

  const big = await timedStart(1000);
  const sim = big.sim;
  try {
    const s0 = performance.now();
    await (await fetch(`${sim.url}/_sim/world`)).arrayBuffer();
    const worldSnapshot1000Ms = performance.now() - s0;

    // One token per user, and a request mix that touches many vehicles.
    const users = sim.world.users();
    const tokens = new Map<string, string>();
    for (const u of users.slice(0, 50)) {
      const r = await fetch(`${sim.url}/_sim/users/${u.id}/tokens`, { method: 'POST' });
      tokens.set(u.id, ((await r.json()) as { access_token: string }).access_token);
    }
    const paths: { path: string; token: string }[] = [];
    for (const u of users.slice(0, 50)) {
      const token = tokens.get(u.id) as string;
      const v = u.vehicleIds[0] as string;
      paths.push(
        { path: '/connectedcar/v2/vehicles', token },
        { path: `/connectedcar/v2/vehicles/${v}/alerts`, token },
        { path: `/connectedcar/v2/vehicles/${v}/telemetry?limit=10`, token },
        { path: `/connectedcar/v2/vehicles/${v}/trips`, token },
        { path: `/connectedcar/v2/vehicles/${v}/maintenance`, token },
      );
    }
    // node:http with keep-alive: lighter than fetch, so the figure is about the server, not the client.
    const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
    const get = (url: string, token: string): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = request(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      });
    let next = 0;
    let errors = 0;
    const latencies: number[] = [];
    const worker = async (): Promise<void> => {
      while (next < requests) {
        const i = next++;
        const p = paths[i % paths.length] as { path: string; token: string };
        const sep = p.path.includes('?') ? '&' : '?';
        const t0 = performance.now();
        const status = await get(`${sim.url}${p.path}${sep}client_id=${sim.clientId}`, p.token);
        latencies.push(performance.now() - t0);
        if (status !== 200) errors++;
      }
    };
    const t0 = performance.now();
    await Promise.all(Array.from({ length: concurrency }, worker));
    const seconds = (performance.now() - t0) / 1000;
    agent.destroy();
    latencies.sort((a, b) => a - b);
    return {
      startup20Ms: round(small.ms),
      startup1000Ms: round(big.ms),
      worldSnapshot1000Ms: round(worldSnapshot1000Ms),
      requests,
      concurrency,
      requestsPerSecond: Math.round(requests / seconds),
      p50Ms: round(percentile(latencies, 50)),
      p99Ms: round(percentile(latencies, 99)),
      errors,
    };
  } finally {
    await sim.close();
  }
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

export function toMarkdown(r: SimBenchResult): string {
  return [
    '| simulator | value |',
    '|---|---|',
    `| start-up, 20 vehicles | ${r.startup20Ms} ms |`,
    `| start-up, 1,000 vehicles | ${r.startup1000Ms} ms |`,
    `| first GET /_sim/world, 1,000 vehicles | ${r.worldSnapshot1000Ms} ms |`,
    `| v2 reads served (loopback, ${r.requests} requests, concurrency ${r.concurrency}) | ${r.requestsPerSecond} req/s |`,
    `| latency p50 / p99 | ${r.p50Ms} ms / ${r.p99Ms} ms |`,
    `| non-200 answers | ${r.errors} |`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await run();
  console.log(toMarkdown(result));
}
