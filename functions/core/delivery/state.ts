import { type ProcessTimer, systemDate, systemNow, systemTimer } from '../clock';
import type { EventEnvelope } from '../events/envelope';
import type { OutgoingMessage } from '../queue/ports';
import { invalidInput } from '../store/errors';
import { iso } from '../subscriptions/logic';
import type { RecordedAttempt } from '../subscriptions/ports';
import type { DeliveryOrigin, DeliveryRecord, SubscriptionRecord } from '../subscriptions/records';
import { createKeyedLimiter, type KeyedLimiter } from '../webhooks/limiter';
import type { Random } from '../webhooks/policy';
import {
  DEFAULT_ATTEMPT_BUDGET_MS,
  DEFAULT_DIRECT_HOLD_MS,
  DEFAULT_GLOBAL_CONCURRENCY,
  DEFAULT_LEASE_MS,
  DEFAULT_MAX_WAITING_PER_SUBSCRIPTION,
  DEFAULT_PER_SUBSCRIPTION_CONCURRENCY,
  DEFAULT_RECORD_CONCURRENCY,
  DEFAULT_SLOW_FOR_MS,
  DEFAULT_SWEEP_GRACE_MS,
  type DeliveryEngineDeps,
  type DeliveryJob,
  type DeliveryProblem,
} from './contract';

/** A direct attempt still waiting for a slot after this many holds is written claimed all the same. */
const LINE_HOLDS = 10;
/** Delivery ids a process remembers having fanned out (a repeat in the same process is a no-op). */
const SEEN_MEMORY = 10_000;

/** An outcome waiting for its group-commit write (recording.ts), with its caller's promise. */
export interface RecordWaiter {
  readonly entry: RecordedAttempt;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Everything one engine holds between calls: its settings (the deps with their defaults applied)
 * and the process-local memory its functions share. Each engine function takes this as its first
 * argument; nothing else is shared.
 */
export interface EngineState {
  readonly deps: DeliveryEngineDeps;
  readonly clock: () => Date;
  /** Process time for the hold: how long an attempt has been in line or in flight. */
  readonly timer: ProcessTimer;
  readonly report: (problem: DeliveryProblem) => void;
  readonly random: Random;
  readonly limiter: KeyedLimiter;
  readonly perKey: number;
  readonly maxWaiting: number;
  readonly leaseMs: number;
  readonly graceMs: number;
  /** Lease time an attempt needs to start; never more than the lease. */
  readonly budgetMs: number;
  readonly cacheMs: number;
  readonly holdMs: number;
  /** How long a direct attempt may wait for a slot before it is written claimed. */
  readonly lineHoldMs: number;
  readonly slowForMs: number;
  readonly recordConcurrency: number;
  /** Subscriptions whose direct attempts lately outlived the hold: their fan-outs write first until then. */
  readonly slowUntil: Map<string, number>;
  /** Subscriptions this process saw failing: a success must clear their streak in the store. */
  readonly failing: Set<string>;
  /**
   * The active subscriptions as last read: `at` is when (process time, for the cache's age),
   * `startedAt` when the read began on the engine's clock (the clock that stamps `detectedAt`).
   */
  cache: { at: number; startedAt: number; items: readonly SubscriptionRecord[] } | undefined;
  /** The read in flight, and when it began on the engine's clock: fan-outs it is new enough for share it. */
  reading: { startedAt: number; items: Promise<readonly SubscriptionRecord[]> } | undefined;
  /** Delivery ids this process has fanned out (bounded by SEEN_MEMORY, oldest dropped first). */
  readonly seen: Set<string>;
  /** Outcomes waiting for a `recordAttempts` write, and how many such writes are out. */
  readonly recordLine: RecordWaiter[];
  recording: number;
}

function whole(field: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw invalidInput(field, `must be an integer ≥ ${min}`);
  return value;
}

export function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** The deps with their defaults applied and validated, and empty memory. */
export function createEngineState(deps: DeliveryEngineDeps): EngineState {
  const perKey = deps.perSubscriptionConcurrency ?? DEFAULT_PER_SUBSCRIPTION_CONCURRENCY;
  const leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
  const holdMs = whole('directHoldMs', deps.directHoldMs ?? DEFAULT_DIRECT_HOLD_MS, 1);
  return {
    deps,
    clock: deps.now ?? systemDate,
    timer: deps.timer ?? systemTimer,
    report: deps.onProblem ?? (() => undefined),
    random: deps.random ?? Math.random,
    limiter: deps.limiter ?? createKeyedLimiter({ perKey, global: DEFAULT_GLOBAL_CONCURRENCY }),
    perKey,
    maxWaiting: deps.maxWaitingPerSubscription ?? DEFAULT_MAX_WAITING_PER_SUBSCRIPTION,
    leaseMs,
    graceMs: deps.sweepGraceMs ?? DEFAULT_SWEEP_GRACE_MS,
    budgetMs: Math.min(deps.attemptBudgetMs ?? DEFAULT_ATTEMPT_BUDGET_MS, leaseMs),
    cacheMs: deps.subscriptionCacheMs ?? 1000,
    holdMs,
    lineHoldMs: holdMs * LINE_HOLDS,
    slowForMs: whole('slowForMs', deps.slowForMs ?? DEFAULT_SLOW_FOR_MS, 0),
    recordConcurrency: whole('recordConcurrency', deps.recordConcurrency ?? DEFAULT_RECORD_CONCURRENCY, 1),
    slowUntil: new Map(),
    failing: new Set(),
    cache: undefined,
    reading: undefined,
    seen: new Set(),
    recordLine: [],
    recording: 0,
  };
}

/**
 * The active subscriptions for an event detected at `detectedAt` (engine clock, epoch ms): from the
 * cache while it is younger than `cacheMs` and was read after the event was detected, else from a
 * read in flight that began after it, else a new read. So a subscription created before an event
 * was detected receives it (as far as the store's list is up to date: DynamoDB serves the list from
 * an index, eventually consistent, usually within a second), and a burst of events detected
 * together still shares one read.
 */
export async function activeSubscriptions(
  state: EngineState,
  detectedAt = Number.NEGATIVE_INFINITY,
): Promise<readonly SubscriptionRecord[]> {
  const now = systemNow();
  const cache = state.cache;
  if (cache && state.cacheMs > 0 && now - cache.at < state.cacheMs && cache.startedAt > detectedAt)
    return cache.items;
  if (state.reading && state.cacheMs > 0 && state.reading.startedAt > detectedAt) return state.reading.items;
  const startedAt = state.clock().getTime();
  const items = state.deps.subscriptions.listActive().then((list) => {
    for (const s of list) if (s.health.firstFailureAt) state.failing.add(s.id);
    state.cache = { at: now, startedAt, items: list };
    return list;
  });
  const reading = { startedAt, items };
  state.reading = reading;
  try {
    return await items;
  } finally {
    if (state.reading === reading) state.reading = undefined;
  }
}

/** Remembers a fanned-out delivery id, forgetting the oldest past SEEN_MEMORY. */
export function remember(state: EngineState, id: string): void {
  state.seen.add(id);
  if (state.seen.size > SEEN_MEMORY) {
    const oldest = state.seen.values().next().value;
    if (oldest !== undefined) state.seen.delete(oldest);
  }
}

export function newDelivery(
  state: EngineState,
  event: EventEnvelope,
  subscription: SubscriptionRecord,
  origin: DeliveryOrigin,
  id: string,
  claimed: boolean,
): DeliveryRecord {
  const now = state.clock().getTime();
  return {
    id,
    subscriptionId: subscription.id,
    eventId: event.id,
    eventType: event.type,
    envelope: event,
    origin,
    status: 'pending',
    // Written already claimed (attempt 1 in flight, leased) so the first attempt costs no extra write.
    attempts: claimed ? 1 : 0,
    nextAttemptAt: iso(claimed ? now + state.leaseMs : now),
    createdAt: iso(now),
    updatedAt: iso(now),
  };
}

/** A store write of one delivery failed: reported (the delivery's lease or its sweep retries it), not thrown. */
export function reportStoreFailure(
  state: EngineState,
  delivery: Pick<DeliveryRecord, 'id'>,
  subscription: Pick<SubscriptionRecord, 'id'>,
  error: unknown,
): void {
  state.report({
    kind: 'StoreFailure',
    deliveryId: delivery.id,
    subscriptionId: subscription.id,
    message: describe(error),
  });
}

/** Sends deliveries to the queue, 100 per call; a failed send is reported, not thrown. */
export async function enqueue(state: EngineState, ids: readonly string[], delaySeconds = 0): Promise<void> {
  for (let i = 0; i < ids.length; i += 100) {
    const messages: OutgoingMessage<DeliveryJob>[] = ids
      .slice(i, i + 100)
      .map((id) => ({ body: { deliveryId: id }, delaySeconds }));
    try {
      await state.deps.queue.send(messages);
    } catch (error) {
      // The deliveries are pending in the store: the sweep queues them again.
      state.report({ kind: 'QueueFailure', message: `queue send failed: ${describe(error)}` });
    }
  }
}

/** Publishes one operational event; a failure is reported, not thrown. */
export async function publish(state: EngineState, event: EventEnvelope): Promise<void> {
  try {
    const result = await state.deps.bus.publish([event]);
    for (const f of result.failed) state.report({ kind: 'BusFailure', message: `${f.code}: ${f.message}` });
  } catch (error) {
    state.report({ kind: 'BusFailure', message: `publishing ${event.type} ${event.id}: ${describe(error)}` });
  }
}
