/**
 * The poll tests' view of the one pipeline harness (bench/support/pipeline.ts): a bus that can be
 * made to fail, `advance` in seconds, `cycle` giving the job results, a second worker on demand.
 */
import {
  MemoryQueue,
  type PollPipeline,
  type PollPipelineOptions,
  REDIRECT_URI,
  type SimStats,
  STATE_KEY,
  startPollPipeline,
} from '../../bench/support/pipeline';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import type { JobResult } from '../../functions/core/jobs/worker';
import type { PollDeps } from '../../functions/core/polling';
import type { EventBus, PublishResult } from '../../functions/core/publishing/ports';
import type { Stores } from '../../functions/core/store/ports';
import type { TokenManager } from '../../functions/core/tokens';
import type { RunningSimulator } from '../../sim';
import type { SimUser } from '../../sim/world/types';

export { MemoryQueue, REDIRECT_URI, type SimStats, STATE_KEY };

/** An in-memory event bus: records what it accepted; `failing` makes every publish throw. */
export class MemoryBus implements EventBus {
  readonly received: EventEnvelope[] = [];
  failing = false;
  async publish(events: readonly EventEnvelope[]): Promise<PublishResult> {
    if (this.failing) throw new Error('bus unavailable (test)');
    this.received.push(...events);
    return { published: events.map((e) => e.id), failed: [] };
  }
  ids(type?: string): string[] {
    return this.received.filter((e) => type === undefined || e.type === type).map((e) => e.id);
  }
}

export interface Pipeline extends Omit<PollPipeline<MemoryBus>, 'control' | 'advance' | 'cycle'> {
  readonly tokens: TokenManager;
  // biome-ignore lint/suspicious/noExplicitAny: JSON from the control API, read freely by tests.
  control(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  advance(seconds: number): Promise<void>;
  /** One planner run and every job it enqueued. */
  cycle(): Promise<JobResult[]>;
  /** `n` cycles a simulated minute apart (each cycle, then the clock moves 60 s); every job result. */
  cycles(n: number): Promise<JobResult[]>;
  /** A second worker (own token manager, same stores/budget/bus): for concurrency tests. */
  worker(): PollDeps;
}

/** The harness on 6 vehicles, seed 7 (unless `options.sim` says otherwise), with a MemoryBus. */
export async function startPipeline(options: PollPipelineOptions = {}): Promise<Pipeline> {
  const p = await startPollPipeline(
    { ...options, sim: { vehicles: 6, seed: 7, ...options.sim } },
    () => new MemoryBus(),
  );
  const cycle = async () => (await p.cycle()).results;
  return {
    ...p,
    tokens: p.pollDeps.tokens,
    advance: (seconds) => p.advance(seconds * 1000),
    cycle,
    cycles: async (n) => {
      const out: JobResult[] = [];
      for (let i = 0; i < n; i++) {
        out.push(...(await cycle()));
        await p.advance(60_000);
      }
      return out;
    },
    worker: () => p.workerDeps(),
  };
}

/** Users with at least `n` vehicles (the world assigns vehicles to users). */
export function userWithVehicles(sim: RunningSimulator, n = 1): SimUser {
  const user = sim.world.users().find((u) => u.vehicleIds.length >= n);
  if (!user) throw new Error(`no user with ${n} vehicles`);
  return user;
}

/** Stores whose `getVehicleWithState` holds every reader until `n` have read (forces a race). */
export function gateReads(stores: Stores, n: number): Stores {
  const states = stores.states;
  let arrived = 0;
  let release: () => void = () => {};
  const barrier = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    ...stores,
    states: {
      getState: (id) => states.getState(id),
      commitPoll: (input) => states.commitPoll(input),
      getVehicleWithState: async (id) => {
        const read = await states.getVehicleWithState(id);
        arrived++;
        if (arrived >= n) release();
        await barrier;
        return read;
      },
    },
  };
}
