/**
 * The local workers: poll jobs and webhook deliveries consumed from their durable queues (the
 * Lambda SQS event sources' stand-ins), and the fan-out as a bus subscriber (the EventBridge rule's
 * stand-in) whose first attempts are tracked so a shutdown lets them finish.
 */
import type { LocalBus } from '../adapters/local/bus';
import type { LocalQueue } from '../adapters/local/queue';
import { watchFreshness } from '../core/capacity/watch';
import { type DeliveryJob, deliveryJobHandler, parseDeliveryJob } from '../core/delivery/engine';
import { runPollJob } from '../core/jobs/worker';
import { republishPending } from '../core/polling/commit';
import type { PollJob } from '../core/polling/jobs';
import { runConsumer } from '../core/queue/process';
import { recordJobResult } from '../runtime/observability';
import type { Runtime } from '../runtime/runtime';
import type { Webhooks } from '../runtime/webhooks';
import type { Writer } from './options';

export interface FanOut {
  /** Resolves, with how many there were, when the first attempts still running have finished. */
  drain(): Promise<number>;
  unsubscribe(): void;
}

/** The fan-out as a bus subscriber: subscribed before anything can publish (enrollment does). */
export function subscribeFanOut(bus: LocalBus, webhooks: Webhooks): FanOut {
  // fanOutSubscriber's contract, plus the first attempts tracked, so a shutdown lets them finish.
  const firstAttempts = new Set<Promise<void>>();
  const unsubscribe = bus.subscribe(
    async (event) => {
      const { settled } = await webhooks.engine.fanOut(event);
      const tracked = settled.catch(() => {}).finally(() => firstAttempts.delete(tracked));
      firstAttempts.add(tracked);
    },
    { name: 'webhooks' },
  );
  return {
    // A first attempt still going finishes (bounded by the sender's timeout); its record stays
    // pending otherwise and the sweeper queues it again after a restart.
    drain: async () => {
      const running = [...firstAttempts];
      await Promise.all(running);
      return running.length;
    },
    unsubscribe,
  };
}

export interface LocalWorkers {
  /** Stops receiving; resolves when the jobs in flight have finished or gone back to their queue. */
  stop(): Promise<void>;
}

export interface LocalWorkersOptions {
  readonly runtime: Runtime;
  readonly webhooks: Webhooks;
  readonly pollQueue: LocalQueue<PollJob>;
  readonly deliveryQueue: LocalQueue<DeliveryJob>;
  readonly pollConcurrency: number;
  readonly err: Writer | null;
  /** The runtime's clock (a message's `notBefore` is compared with it). */
  readonly now?: () => number;
}

/** The poll and delivery consumers; with `untilEmpty` they stop once their queue has nothing visible. */
function consume(o: LocalWorkersOptions, signal: AbortSignal, untilEmpty: boolean) {
  const { runtime, webhooks, err } = o;
  const report = (what: string) => (e: { stage?: string; message: string }) =>
    err?.write(`carhook: ${what}${e.stage ? ` ${e.stage}` : ''}: ${e.message}\n`);
  const failed = (what: string) => (r: { status: string; error?: string; id: string }) => {
    if (r.status === 'failed') err?.write(`carhook: ${what} failed: ${r.error ?? r.id}\n`);
  };

  const common = { signal, untilEmpty, ...(o.now ? { now: o.now } : {}) };
  const pollWorkers = runConsumer<unknown>(
    o.pollQueue,
    async (body, { signal }) => {
      const result = await runPollJob(await runtime.pollDeps({ signal }), body);
      recordJobResult(runtime.metrics, result);
    },
    {
      ...common,
      concurrency: o.pollConcurrency,
      visibilityTimeoutSeconds: 60,
      onError: report('poll queue'),
      onResult: failed('poll job'),
    },
  );
  const deliveryWorkers = runConsumer<DeliveryJob>(o.deliveryQueue, deliveryJobHandler(webhooks.engine), {
    ...common,
    concurrency: 8,
    visibilityTimeoutSeconds: 60,
    parse: parseDeliveryJob,
    onError: report('delivery queue'),
    onResult: failed('delivery job'),
  });

  return Promise.all([pollWorkers, deliveryWorkers]);
}

export function startLocalWorkers(o: LocalWorkersOptions): LocalWorkers {
  const stop = new AbortController();
  const running = consume(o, stop.signal, false);
  return {
    async stop() {
      stop.abort();
      await running;
    },
  };
}

/**
 * Handles every message visible now in both queues, and what handling them sends, until neither
 * queue has a visible message (the simulated clock's step). Resolves with how many were received.
 */
export async function drainLocalQueues(o: LocalWorkersOptions): Promise<number> {
  const [poll, delivery] = await consume(o, new AbortController().signal, true);
  return poll.received + delivery.received;
}

/**
 * The sweeper, as the scheduled function runs it: events committed but not published (a crash
 * between commit and publish) and deliveries whose queue message was lost go out again, with the
 * same ids; then the freshness check, when targets are set.
 */
export async function sweepOnce(runtime: Runtime, webhooks: Webhooks): Promise<void> {
  await republishPending(runtime.republishDeps());
  await webhooks.engine.sweep();
  const freshness = runtime.freshnessDeps();
  if (freshness) await watchFreshness(freshness);
}
