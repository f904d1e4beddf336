/**
 * A runtime over the simulator (manual clock): memory stores (or DynamoDB Local), a recording bus,
 * local secrets holding the simulator's client, and a recording metric sink.
 */

import { createMemoryStores } from '../../functions/adapters/memory/stores';
import { createLocalSecrets } from '../../functions/adapters/secrets';
import { generateKey } from '../../functions/core/crypto/token-cipher';
import type { PollJob } from '../../functions/core/polling/jobs';
import { createMemoryRateBudget, type RateBudget } from '../../functions/core/ratelimit/budget';
import type { Stores } from '../../functions/core/store/ports';
import type { MetricSink } from '../../functions/runtime/observability';
import { createRuntime, type Runtime, type RuntimeSettings } from '../../functions/runtime/runtime';
import { type RunningSimulator, type SimulatorOptions, startSimulator } from '../../sim';
import { MemoryBus, MemoryQueue } from '../polling/support';

type Recorded = { name: string; unit: string; value: number; dimensions?: Readonly<Record<string, string>> };

export function recordingSink(): MetricSink & { readonly recorded: Recorded[]; total(name: string): number } {
  const recorded: Recorded[] = [];
  return {
    recorded,
    record: (name, unit, value, dimensions) => {
      recorded.push({ name, unit, value, ...(dimensions ? { dimensions } : {}) });
    },
    total: (name) => recorded.filter((r) => r.name === name).reduce((s, r) => s + r.value, 0),
  };
}

export interface SimRuntime {
  readonly sim: RunningSimulator;
  readonly runtime: Runtime;
  readonly stores: Stores;
  readonly bus: MemoryBus;
  readonly queue: MemoryQueue<PollJob>;
  readonly metrics: ReturnType<typeof recordingSink>;
  close(): Promise<void>;
}

export async function startSimRuntime(
  options: {
    sim?: SimulatorOptions;
    backend?: { stores: Stores; budget: RateBudget };
    clientSecret?: string;
    /** Where users reach the HTTP API: reauthorization links point there. */
    publicUrl?: string;
    /** Further runtime settings (freshness targets…). */
    settings?: Partial<RuntimeSettings>;
  } = {},
): Promise<SimRuntime> {
  const sim = await startSimulator({ port: 0, clock: 'manual', vehicles: 4, seed: 11, ...options.sim });
  const stores = options.backend?.stores ?? createMemoryStores();
  const budget = options.backend?.budget ?? createMemoryRateBudget();
  const bus = new MemoryBus();
  const queue = new MemoryQueue<PollJob>();
  const metrics = recordingSink();
  const runtime = createRuntime(
    {
      api: { baseUrl: sim.baseUrl, authUrl: sim.authUrl, brands: ['cielo', 'pavo'] },
      quota: { requests: 120, windowSeconds: 60 },
      pollIntervalSeconds: 60,
      version: 'test',
      ...(options.publicUrl !== undefined ? { publicUrl: options.publicUrl } : {}),
      ...options.settings,
    },
    {
      stores,
      rateBudget: budget,
      bus,
      pollQueue: queue,
      metrics,
      now: () => sim.world.now(),
      sleep: () => new Promise((r) => setImmediate(r)),
      publish: { sleep: async () => {}, maxAttempts: 2 },
      secrets: createLocalSecrets({
        apiClient: {
          kind: 'value',
          json: JSON.stringify({
            clientId: sim.clientId,
            clientSecret: options.clientSecret ?? sim.clientSecret,
          }),
        },
        keyRing: { kind: 'value', json: JSON.stringify({ current: 'k1', k1: generateKey() }) },
      }),
    },
  );
  return { sim, runtime, stores, bus, queue, metrics, close: () => sim.close() };
}
