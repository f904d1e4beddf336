/**
 * Webhook sender benchmark: deliveries per second to a local receiver through the real sender
 * (URL policy, guarded lookup, Standard Webhooks signing, bounded response read), and the latency
 * the sender adds over a bare `http.request` to the same receiver, measured in the same run.
 *
 *   npx tsx bench/webhooks.ts            (prints JSON)
 *   import { run } from './webhooks'     (returns the figures)
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createSender } from '../functions/adapters/webhooks/sender';
import type { EventEnvelope } from '../functions/core/events/envelope';
import { serializePayload } from '../functions/core/webhooks/payload';
import { generateSecret } from '../functions/core/webhooks/signing';
import { compileAllowList } from '../functions/core/webhooks/ssrf';

export interface WebhooksBenchOptions {
  /** Deliveries in the throughput phase (default 5,000). */
  readonly deliveries?: number;
  /** Deliveries in flight at once in the throughput phase (default 32). */
  readonly concurrency?: number;
  /** Sequential samples per client in the latency phase (default 1,000). */
  readonly latencySamples?: number;
}

export interface WebhooksBenchResult {
  readonly node: string;
  readonly throughput: {
    readonly deliveries: number;
    readonly concurrency: number;
    readonly succeeded: number;
    readonly seconds: number;
    /** Through the Carhook sender, payload serialization included. */
    readonly deliveriesPerSecond: number;
    /** Same receiver, same concurrency, bare http.request: the ceiling on this machine. */
    readonly bareRequestsPerSecond: number;
    /** Process CPU (sender, receiver and client together) per delivery: less sensitive to machine load. */
    readonly senderCpuMicrosPerDelivery: number;
    readonly bareCpuMicrosPerRequest: number;
  };
  readonly latency: {
    readonly samples: number;
    readonly senderP50Ms: number;
    readonly senderP99Ms: number;
    readonly bareP50Ms: number;
    readonly bareP99Ms: number;
    /** Sender minus bare, per percentile: what Carhook adds. */
    readonly addedP50Ms: number;
    readonly addedP99Ms: number;
    readonly ratioP50: number;
    readonly ratioP99: number;
  };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

function envelope(i: number): EventEnvelope {
  return {
    id: `evt_bench_${i}`,
    type: 'vehicle.alert.raised',
    schemaVersion: 1,
    occurredAt: '2026-11-22T10:00:00.000Z',
    detectedAt: '2026-11-22T10:00:01.000Z',
    sequence: i,
    vehicle: { id: `veh_${i % 50}`, vin: 'VF1AAAAA555555555', brand: 'renault' },
    enrollment: { id: 'enr_1', kind: 'fleet-contract' },
    source: { api: 'v2', operation: 'getVehicleAlerts' },
    data: { alertId: `al_${i}`, message: 'LOW_TYRE_PRESSURE', severity: 'medium', active: true },
  };
}

async function startReceiver(): Promise<{ url: string; port: number; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/hooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function bareClient(port: number) {
  const agent = new http.Agent({ keepAlive: true });
  const post = (body: string, headers: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const req = http.request(
        { method: 'POST', hostname: '127.0.0.1', port, path: '/hooks', agent, headers },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return { post, close: () => agent.destroy() };
}

async function pool(
  count: number,
  concurrency: number,
  work: (i: number) => Promise<boolean>,
): Promise<number> {
  let next = 0;
  let ok = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      if (await work(i)) ok++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return ok;
}

export async function run(options: WebhooksBenchOptions = {}): Promise<WebhooksBenchResult> {
  const deliveries = options.deliveries ?? 5_000;
  const concurrency = options.concurrency ?? 32;
  const samples = options.latencySamples ?? 1_000;
  const receiver = await startReceiver();
  const allowList = compileAllowList({ cidrs: ['127.0.0.1/32'] });
  if (!allowList.ok) throw new Error(allowList.error.message);
  const sender = createSender({ allowInsecureLoopback: true, allowList: allowList.value });
  const bare = bareClient(receiver.port);
  const secrets = { current: generateSecret() };
  const body0 = serializePayload(envelope(0));
  if (!body0.ok) throw new Error(body0.error.message);
  const bareHeaders = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body0.value)),
    'user-agent': 'bench',
  };

  try {
    const deliver = async (i: number) => {
      const body = serializePayload(envelope(i));
      if (!body.ok) return false;
      const attempt = await sender.send({
        url: receiver.url,
        id: `evt_bench_${i}`,
        body: body.value,
        secrets,
      });
      return attempt.outcome === 'success';
    };

    // Warm up both clients (JIT, connection pools).
    await pool(500, concurrency, deliver);
    await pool(500, concurrency, async () => (await bare.post(body0.value, bareHeaders)) === 204);

    // Throughput: the two clients alternate in rounds so both see the same (shared, noisy) machine;
    // CPU time per delivery is reported too, as it depends far less on what else the machine runs.
    const rounds = 5;
    let succeeded = 0;
    let seconds = 0;
    let bareSeconds = 0;
    let senderCpuMicros = 0;
    let bareCpuMicros = 0;
    const barePost = async () => (await bare.post(body0.value, bareHeaders)) === 204;
    for (let round = 0; round < rounds; round++) {
      const count = Math.floor(deliveries / rounds) + (round < deliveries % rounds ? 1 : 0);
      const phases = [
        async () => {
          const c0 = process.cpuUsage();
          const t0 = performance.now();
          succeeded += await pool(count, concurrency, deliver);
          seconds += (performance.now() - t0) / 1000;
          const c = process.cpuUsage(c0);
          senderCpuMicros += c.user + c.system;
        },
        async () => {
          const c0 = process.cpuUsage();
          const t0 = performance.now();
          await pool(count, concurrency, barePost);
          bareSeconds += (performance.now() - t0) / 1000;
          const c = process.cpuUsage(c0);
          bareCpuMicros += c.user + c.system;
        },
      ];
      if (round % 2 === 1) phases.reverse();
      for (const phase of phases) await phase();
    }

    // Latency: one request at a time, the two clients interleaved so both see the same machine state.
    const senderTimes: number[] = [];
    const bareTimes: number[] = [];
    for (let i = 0; i < samples; i++) {
      const s0 = performance.now();
      await deliver(i);
      senderTimes.push(performance.now() - s0);
      const s1 = performance.now();
      await bare.post(body0.value, bareHeaders);
      bareTimes.push(performance.now() - s1);
    }
    senderTimes.sort((a, b) => a - b);
    bareTimes.sort((a, b) => a - b);
    const sp50 = percentile(senderTimes, 50);
    const sp99 = percentile(senderTimes, 99);
    const bp50 = percentile(bareTimes, 50);
    const bp99 = percentile(bareTimes, 99);

    return {
      node: process.version,
      throughput: {
        deliveries,
        concurrency,
        succeeded,
        seconds: round(seconds),
        deliveriesPerSecond: Math.round(deliveries / seconds),
        bareRequestsPerSecond: Math.round(deliveries / bareSeconds),
        senderCpuMicrosPerDelivery: Math.round(senderCpuMicros / deliveries),
        bareCpuMicrosPerRequest: Math.round(bareCpuMicros / deliveries),
      },
      latency: {
        samples,
        senderP50Ms: round(sp50),
        senderP99Ms: round(sp99),
        bareP50Ms: round(bp50),
        bareP99Ms: round(bp99),
        addedP50Ms: round(sp50 - bp50),
        addedP99Ms: round(sp99 - bp99),
        ratioP50: round(sp50 / bp50, 2),
        ratioP99: round(sp99 / bp99, 2),
      },
    };
  } finally {
    sender.close();
    bare.close();
    await receiver.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run().then(
    (result) => console.log(JSON.stringify(result, null, 2)),
    (e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}
