import { performance } from 'node:perf_hooks';
import * as z from 'zod';
import { buildEvent } from '../events/catalogue';
import type { EventEnvelope } from '../events/envelope';
import { eventId } from '../events/ids';
import type { EventBus } from '../publishing/ports';
import type { JobQueue, OutgoingMessage } from '../queue/ports';
import { invalidInput } from '../store/errors';
import { deliveryId, extraDeliveryId, iso } from '../subscriptions/logic';
import type { DeliveryStore, FinishInput, RecordedAttempt, SubscriptionStore } from '../subscriptions/ports';
import type {
  AttemptDecision,
  AttemptRecord,
  DeliveryOrigin,
  DeliveryRecord,
  SubscriptionRecord,
} from '../subscriptions/records';
import { createKeyedLimiter, type KeyedLimiter } from '../webhooks/limiter';
import { serializePayload } from '../webhooks/payload';
import { type NextStep, nextStep, type Random, type SubscriptionHealth } from '../webhooks/policy';
import type { DeliveryAttempt, Sender } from '../webhooks/sender';
import { deliveryMatches } from './operational';
import type { RetrySchedule } from './retry-schedule';
import type { SecretBox } from './secrets';

/** A message of the `deliveries` queue: which delivery to attempt (its state is in the store). */
export const deliveryJobSchema = z.strictObject({ deliveryId: z.string().min(1).max(256) });
export type DeliveryJob = z.infer<typeof deliveryJobSchema>;

/** Must exceed the sender's whole-attempt timeout (15 s) with room for the store writes. */
export const DEFAULT_LEASE_MS = 60_000;
/** The sweep leaves alone what is due by less than this (its own queue message is on its way). */
export const DEFAULT_SWEEP_GRACE_MS = 60_000;
export const DEFAULT_PER_SUBSCRIPTION_CONCURRENCY = 16;
export const DEFAULT_GLOBAL_CONCURRENCY = 512;
/**
 * Waiting direct attempts per subscription (in this process's memory) before the fan-out hands new
 * ones to the queue. A claim that waited so long for a slot that its attempt might outlive the lease
 * is given back (`release`) and queued instead, so a long line never causes duplicate attempts.
 */
export const DEFAULT_MAX_WAITING_PER_SUBSCRIPTION = 2000;
/** Sender timeout (15 s) plus room for the writes after it: what must remain of a lease to start. */
export const DEFAULT_ATTEMPT_BUDGET_MS = 20_000;
const MAX_QUEUE_RETRY_SECONDS = 11 * 3600;
/**
 * The fan-out's hold on a first attempt made before any write. An attempt whose request has been in
 * flight for a whole hold is written claimed (leased) so the fan-out can be acknowledged, and its
 * subscription is written first for `DEFAULT_SLOW_FOR_MS`: a hung endpoint costs the bus a hold or
 * two, not one per event. One still waiting for a slot is written claimed after 10 holds.
 */
export const DEFAULT_DIRECT_HOLD_MS = 1000;
export const DEFAULT_SLOW_FOR_MS = 60_000;
/** A direct attempt still waiting for a slot after this many holds is written claimed all the same. */
const LINE_HOLDS = 10;
/** Outcome writes in flight at once; outcomes arriving meanwhile leave together in the next one. */
export const DEFAULT_RECORD_CONCURRENCY = 8;
/** Outcomes per `recordAttempts` call: 2 items each, so one 25-item BatchWriteItem. */
const RECORD_BATCH = 12;
/** Delivery ids a process remembers having fanned out (a repeat in the same process is a no-op). */
const SEEN_MEMORY = 10_000;

/** Something that went wrong outside the request path (store write after an attempt, queue send…). */
export interface DeliveryProblem {
  readonly kind: 'StoreFailure' | 'QueueFailure' | 'BusFailure';
  readonly deliveryId?: string;
  readonly subscriptionId?: string;
  readonly message: string;
}

export interface DeliveryEngineDeps {
  readonly subscriptions: SubscriptionStore;
  readonly deliveries: DeliveryStore;
  /** The `deliveries` queue: retries, replays, resumed and recovered deliveries. */
  readonly queue: JobQueue<DeliveryJob>;
  /** Where `webhook.delivery.exhausted` and `webhook.endpoint.disabled` go. */
  readonly bus: EventBus;
  readonly sender: Sender;
  readonly secrets: SecretBox;
  readonly limiter?: KeyedLimiter;
  readonly perSubscriptionConcurrency?: number;
  readonly maxWaitingPerSubscription?: number;
  readonly now?: () => Date;
  readonly random?: Random;
  readonly leaseMs?: number;
  /** Lease time an attempt needs to start (default 20 s: the 15 s timeout and the writes). */
  readonly attemptBudgetMs?: number;
  readonly sweepGraceMs?: number;
  /** The hold on a direct first attempt (default 1 s; README "The hold"). */
  readonly directHoldMs?: number;
  /** How long a subscription whose attempt outlived the hold gets write-first fan-outs (default 60 s). */
  readonly slowForMs?: number;
  /** `recordAttempts` calls in flight at once (default 8). */
  readonly recordConcurrency?: number;
  /** How long the fan-out reuses the list of active subscriptions (default 1 s; 0 = every event). */
  readonly subscriptionCacheMs?: number;
  readonly onProblem?: (problem: DeliveryProblem) => void;
  /** The retry schedule (default `standard`; ./retry-schedule.ts). */
  readonly retrySchedule?: RetrySchedule;
}

export interface FanOutResult {
  /** New deliveries (a repeated fan-out of the same event creates none). */
  readonly deliveryIds: readonly string[];
  /** Deliveries handed to the queue instead of a direct first attempt (subscription saturated). */
  readonly queued: readonly string[];
  /** Settles when every first attempt is finished and recorded (held ones too); never rejects. */
  readonly settled: Promise<void>;
}

export interface DeliveryEngine {
  /**
   * One event from the bus → one delivery per matching active subscription, first attempt direct and
   * before any write. Resolves when the event may be acknowledged (every delivery durable); rejects
   * (DeliveryError `StoreFailure`) when some could not be recorded: the event must come back.
   */
  fanOut(event: EventEnvelope): Promise<FanOutResult>;
  /** The `deliveries` queue handler (local consumer and Lambda alike). */
  handleJob(job: DeliveryJob): Promise<undefined | { retryInSeconds: number }>;
  /** Sends a `webhook.test` event to one subscription now; resolves with the attempt. */
  sendTest(subscription: SubscriptionRecord): Promise<{ delivery: DeliveryRecord; attempt: AttemptRecord }>;
  /** New deliveries of already-published events (replay), same `webhook-id`s, through the queue. */
  enqueueReplay(
    subscription: SubscriptionRecord,
    events: readonly EventEnvelope[],
    runId: string,
  ): Promise<readonly string[]>;
  /** After `enable`: parked deliveries become pending and are queued. Returns how many. */
  resume(subscriptionId: string): Promise<number>;
  /** Recovery: pending deliveries overdue by more than the grace (a worker died) go to the queue. */
  sweep(options?: { readonly limit?: number }): Promise<number>;
  readonly limiter: KeyedLimiter;
}

export class DeliveryError extends Error {
  override readonly name = 'DeliveryError';
  constructor(
    readonly kind: 'StoreFailure',
    message: string,
    readonly context: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

function whole(field: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw invalidInput(field, `must be an integer ≥ ${min}`);
  return value;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

export function createDeliveryEngine(deps: DeliveryEngineDeps): DeliveryEngine {
  const clock = deps.now ?? (() => new Date());
  const perKey = deps.perSubscriptionConcurrency ?? DEFAULT_PER_SUBSCRIPTION_CONCURRENCY;
  const limiter = deps.limiter ?? createKeyedLimiter({ perKey, global: DEFAULT_GLOBAL_CONCURRENCY });
  const maxWaiting = deps.maxWaitingPerSubscription ?? DEFAULT_MAX_WAITING_PER_SUBSCRIPTION;
  const leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
  const graceMs = deps.sweepGraceMs ?? DEFAULT_SWEEP_GRACE_MS;
  const budgetMs = Math.min(deps.attemptBudgetMs ?? DEFAULT_ATTEMPT_BUDGET_MS, leaseMs);
  const cacheMs = deps.subscriptionCacheMs ?? 1000;
  const report = deps.onProblem ?? (() => undefined);
  const random = deps.random ?? Math.random;
  const holdMs = whole('directHoldMs', deps.directHoldMs ?? DEFAULT_DIRECT_HOLD_MS, 1);
  const lineHoldMs = holdMs * LINE_HOLDS;
  const slowForMs = whole('slowForMs', deps.slowForMs ?? DEFAULT_SLOW_FOR_MS, 0);
  const recordConcurrency = whole(
    'recordConcurrency',
    deps.recordConcurrency ?? DEFAULT_RECORD_CONCURRENCY,
    1,
  );
  // Subscriptions whose direct attempts lately outlived the hold: their fan-outs write first until then.
  const slowUntil = new Map<string, number>();
  // Subscriptions this process saw failing: a success must clear their streak in the store.
  const failing = new Set<string>();
  let cache: { at: number; items: readonly SubscriptionRecord[] } | undefined;

  // One read in flight at a time: fan-outs arriving while the cache refreshes share it.
  let reading: Promise<readonly SubscriptionRecord[]> | undefined;
  async function activeSubscriptions(): Promise<readonly SubscriptionRecord[]> {
    const now = Date.now();
    if (cache && cacheMs > 0 && now - cache.at < cacheMs) return cache.items;
    if (reading && cacheMs > 0) return reading;
    const read = deps.subscriptions.listActive().then((items) => {
      for (const s of items) if (s.health.firstFailureAt) failing.add(s.id);
      cache = { at: now, items };
      return items;
    });
    reading = read;
    try {
      return await read;
    } finally {
      if (reading === read) reading = undefined;
    }
  }

  function newDelivery(
    event: EventEnvelope,
    subscription: SubscriptionRecord,
    origin: DeliveryOrigin,
    id: string,
    claimed: boolean,
  ): DeliveryRecord {
    const now = clock().getTime();
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
      nextAttemptAt: iso(claimed ? now + leaseMs : now),
      createdAt: iso(now),
      updatedAt: iso(now),
    };
  }

  async function enqueue(ids: readonly string[], delaySeconds = 0): Promise<void> {
    for (let i = 0; i < ids.length; i += 100) {
      const messages: OutgoingMessage<DeliveryJob>[] = ids
        .slice(i, i + 100)
        .map((id) => ({ body: { deliveryId: id }, delaySeconds }));
      try {
        await deps.queue.send(messages);
      } catch (error) {
        // The deliveries are pending in the store: the sweep queues them again.
        report({ kind: 'QueueFailure', message: `queue send failed: ${describe(error)}` });
      }
    }
  }

  async function publish(event: EventEnvelope): Promise<void> {
    try {
      const result = await deps.bus.publish([event]);
      for (const f of result.failed) report({ kind: 'BusFailure', message: `${f.code}: ${f.message}` });
    } catch (error) {
      report({ kind: 'BusFailure', message: `publishing ${event.type} ${event.id}: ${describe(error)}` });
    }
  }

  function operationalEvent<T extends 'webhook.delivery.exhausted' | 'webhook.endpoint.disabled'>(
    type: T,
    id: string,
    at: string,
  ) {
    return {
      id,
      occurredAt: at,
      detectedAt: at,
      sequence: 0,
      source: { api: 'carhook' as const, operation: type },
    };
  }

  async function health(
    subscription: SubscriptionRecord,
    attempt: DeliveryAttempt,
  ): Promise<SubscriptionHealth> {
    const now = clock().getTime();
    try {
      if (attempt.outcome === 'success') {
        if (subscription.health.firstFailureAt || failing.has(subscription.id)) {
          failing.delete(subscription.id);
          await deps.subscriptions.recordSuccess(subscription.id, attempt.startedAt, now);
        }
        return { lastSuccessAt: attempt.startedAt };
      }
      failing.add(subscription.id);
      return (
        (await deps.subscriptions.recordFailure(subscription.id, attempt.startedAt, now)) ?? {
          firstFailureAt: attempt.startedAt,
        }
      );
    } catch (error) {
      report({ kind: 'StoreFailure', subscriptionId: subscription.id, message: describe(error) });
      return attempt.outcome === 'success'
        ? { lastSuccessAt: attempt.startedAt }
        : { firstFailureAt: subscription.health.firstFailureAt ?? attempt.startedAt };
    }
  }

  function refused(error: string): DeliveryAttempt {
    return { startedAt: clock().toISOString(), durationMs: 0, outcome: 'refused', error };
  }

  /**
   * Sends one attempt (in the subscription's concurrency slot). `leaseEnd` is read once the slot is
   * held: under a lease, an attempt that could outlive it is not sent (undefined: give the claim back).
   */
  async function attemptOnce(
    delivery: DeliveryRecord,
    subscription: SubscriptionRecord,
    leaseEnd: () => Promise<number | undefined>,
  ): Promise<DeliveryAttempt | undefined> {
    const body = serializePayload(delivery.envelope);
    if (!body.ok) return refused(body.error.message);
    let secrets: ReturnType<SecretBox['open']>;
    try {
      secrets = deps.secrets.open(subscription.secretCiphertext, subscription.id);
    } catch (error) {
      return refused(`the subscription's secret cannot be decrypted: ${describe(error)}`);
    }
    return limiter.run(subscription.id, async () => {
      const end = await leaseEnd();
      // Waited too long for a slot: the attempt could outlive the lease and be duplicated.
      if (end !== undefined && clock().getTime() + budgetMs > end) return undefined;
      return deps.sender.send({ url: subscription.url, id: delivery.eventId, body: body.value, secrets });
    });
  }

  interface Decided {
    readonly now: Date;
    readonly step: NextStep;
    readonly record: AttemptRecord;
    readonly status: FinishInput['status'];
  }

  /** The policy's decision on attempt number `delivery.attempts`, and its attempt log line. */
  async function decide(
    delivery: DeliveryRecord,
    subscription: SubscriptionRecord,
    done: DeliveryAttempt,
  ): Promise<Decided> {
    const now = clock();
    const healthNow = await health(subscription, done);
    const step = nextStep({ attemptNumber: delivery.attempts }, done, now, {
      health: healthNow,
      ...(deps.random ? { random: deps.random } : {}),
      ...(deps.retrySchedule ? { schedule: deps.retrySchedule } : {}),
    });
    const decision: AttemptDecision =
      step.action === 'disable-subscription'
        ? 'disabled'
        : step.action === 'dead-letter'
          ? 'dead-letter'
          : step.action;
    const record: AttemptRecord = {
      subscriptionId: subscription.id,
      deliveryId: delivery.id,
      eventId: delivery.eventId,
      eventType: delivery.eventType,
      attemptNumber: delivery.attempts,
      startedAt: done.startedAt,
      durationMs: done.durationMs,
      outcome: done.outcome,
      ...(done.statusCode !== undefined ? { statusCode: done.statusCode } : {}),
      ...(done.error !== undefined ? { error: done.error } : {}),
      ...(done.responseExcerpt !== undefined ? { responseExcerpt: done.responseExcerpt } : {}),
      ...(done.responseTruncated ? { responseTruncated: true } : {}),
      ...(done.retryAfterMs !== undefined ? { retryAfterMs: done.retryAfterMs } : {}),
      decision,
      ...(step.action === 'retry' ? { nextAttemptAt: step.at.toISOString() } : {}),
    };
    const status =
      step.action === 'done'
        ? 'succeeded'
        : step.action === 'retry'
          ? 'pending'
          : step.action === 'dead-letter'
            ? 'dead'
            : 'parked';
    return { now, step, record, status };
  }

  /** What follows a recorded decision: the retry's message, the dead letter's or disabling's event. */
  async function afterRecorded(
    delivery: DeliveryRecord,
    subscription: SubscriptionRecord,
    done: DeliveryAttempt,
    { now, step }: Decided,
  ): Promise<void> {
    if (step.action === 'retry') await enqueue([delivery.id], Math.ceil(step.delayMs / 1000));
    if (step.action === 'dead-letter') {
      const at = now.toISOString();
      await publish(
        buildEvent('webhook.delivery.exhausted', {
          ...operationalEvent(
            'webhook.delivery.exhausted',
            eventId({
              scope: subscription.id,
              type: 'webhook.delivery.exhausted',
              key: delivery.id,
              transition: 'dead',
            }),
            at,
          ),
          data: {
            subscriptionId: subscription.id,
            eventId: delivery.eventId,
            eventType: delivery.eventType,
            attempts: step.attempts,
            ...(done.statusCode !== undefined ? { lastStatus: done.statusCode } : {}),
            ...(done.error !== undefined ? { lastError: done.error } : {}),
            firstAttemptAt: delivery.firstAttemptAt ?? done.startedAt,
            lastAttemptAt: done.startedAt,
          },
        }),
      );
    }
    if (step.action === 'disable-subscription') {
      const at = now.toISOString();
      if (await deps.subscriptions.disable(subscription.id, step.reason, now.getTime())) {
        cache = undefined;
        await publish(
          buildEvent('webhook.endpoint.disabled', {
            ...operationalEvent(
              'webhook.endpoint.disabled',
              eventId({
                scope: subscription.id,
                type: 'webhook.endpoint.disabled',
                key: subscription.id,
                transition: at,
              }),
              at,
            ),
            data: {
              subscriptionId: subscription.id,
              url: subscription.url,
              reason: step.reason,
              disabledAt: at,
            },
          }),
        );
      }
    }
  }

  /** Ends attempt `delivery.attempts` of a claimed delivery: `finish` (conditional), then what follows. */
  async function finishClaimed(
    delivery: DeliveryRecord,
    subscription: SubscriptionRecord,
    done: DeliveryAttempt,
  ): Promise<AttemptRecord> {
    const decided = await decide(delivery, subscription, done);
    const finished = await deps.deliveries.finish({
      deliveryId: delivery.id,
      attemptNumber: delivery.attempts,
      status: decided.status,
      ...(decided.step.action === 'retry' ? { nextAttemptAt: decided.step.at.toISOString() } : {}),
      attempt: decided.record,
      now: decided.now.getTime(),
    });
    // Stale claim: this attempt outlived its lease and another worker took the delivery over.
    if (finished) await afterRecorded(delivery, subscription, done, decided);
    return decided.record;
  }

  /** One attempt of a claimed delivery, recorded; the decision applied. Never rejects. */
  async function attemptClaimed(
    delivery: DeliveryRecord,
    subscription: SubscriptionRecord,
  ): Promise<AttemptRecord | undefined> {
    try {
      const leaseEnd = Date.parse(delivery.nextAttemptAt);
      const done = await attemptOnce(delivery, subscription, async () => leaseEnd);
      if (!done) {
        if (await deps.deliveries.release(delivery.id, delivery.attempts, clock().getTime()))
          await enqueue([delivery.id]);
        return undefined;
      }
      return await finishClaimed(delivery, subscription, done);
    } catch (error) {
      // The delivery stays claimed: when its lease ends the sweep (or its queue message) retries it.
      report({
        kind: 'StoreFailure',
        deliveryId: delivery.id,
        subscriptionId: subscription.id,
        message: describe(error),
      });
      return undefined;
    }
  }

  // Group commit of direct attempts' outcomes: while `recordConcurrency` writes are out, outcomes
  // wait and leave together (up to RECORD_BATCH per write), so under load one BatchWriteItem carries
  // many deliveries, and alone an outcome is written at once (no timer, no added latency).
  const recordLine: {
    entry: RecordedAttempt;
    resolve: () => void;
    reject: (error: unknown) => void;
  }[] = [];
  let recording = 0;
  function pumpRecords(): void {
    while (recording < recordConcurrency && recordLine.length > 0) {
      const batch = recordLine.splice(0, RECORD_BATCH);
      recording++;
      deps.deliveries
        .recordAttempts(batch.map((b) => b.entry))
        .then(
          ({ failed }) => {
            const lost = new Set(failed);
            for (const b of batch) {
              const id = b.entry.delivery.id;
              if (!lost.has(id)) b.resolve();
              else
                b.reject(
                  new DeliveryError('StoreFailure', `delivery ${id}: its attempt could not be recorded`, {
                    deliveryId: id,
                    subscriptionId: b.entry.delivery.subscriptionId,
                  }),
                );
            }
          },
          (error: unknown) => {
            for (const b of batch) b.reject(error);
          },
        )
        .finally(() => {
          recording--;
          pumpRecords();
        });
    }
  }
  const recordAttempt = (entry: RecordedAttempt) =>
    new Promise<void>((resolve, reject) => {
      recordLine.push({ entry, resolve, reject });
      pumpRecords();
    });

  /**
   * A fan-out's first attempt before any write: the fan-out message (SQS; the unpublished event
   * locally) is the delivery's record until `durable` settles, which is when the outcome is written
   * (batched) or, for an attempt still unfinished after `directHoldMs`, when the delivery has been
   * written claimed with a lease (it then ends through `finish`, like a queued attempt). `durable`
   * rejects when neither could be written: the fan-out fails and its message comes back.
   */
  function attemptDirect(
    delivery: DeliveryRecord,
    subscription: SubscriptionRecord,
  ): { durable: Promise<void>; done: Promise<void> } {
    let markDurable: () => void = () => undefined;
    let markFailed: (error: unknown) => void = () => undefined;
    const durable = new Promise<void>((resolve, reject) => {
      markDurable = resolve;
      markFailed = reject;
    });
    const first: DeliveryRecord = { ...delivery, attempts: 1 };
    let over = false;
    // Resolves to the lease end when the claimed record was written, undefined when it was not.
    let escalation: Promise<number | undefined> | undefined;
    let sendingSince: number | undefined;
    const startedAt = performance.now();
    const escalate = () => {
      const now = clock().getTime();
      const lease = now + leaseMs;
      const claimed: DeliveryRecord = { ...first, nextAttemptAt: iso(lease), updatedAt: iso(now) };
      escalation = deps.deliveries.create(claimed).then(
        (created) => {
          // Not created: a record of this delivery exists (another process's fan-out of the same
          // event); this attempt's outcome then replaces it like any direct outcome.
          if (!created) return undefined;
          markDurable();
          return lease;
        },
        (error: unknown) => {
          report({
            kind: 'StoreFailure',
            deliveryId: delivery.id,
            subscriptionId: subscription.id,
            message: describe(error),
          });
          return undefined;
        },
      );
    };
    // Every hold: is the endpoint slow (a request in flight for a whole hold), already known slow, or
    // has the line for a slot lasted `lineHoldMs`? Then write the claimed record. A wait that is only
    // this process being busy, or a short line, writes nothing: under load, extra writes would make
    // every attempt later still.
    let timer: ReturnType<typeof setTimeout>;
    const tick = () => {
      if (over) return;
      const t = performance.now();
      const slowEndpoint = sendingSince !== undefined && t - sendingSince >= holdMs;
      if (slowEndpoint) slowUntil.set(subscription.id, clock().getTime() + slowForMs);
      if (
        slowEndpoint ||
        (slowUntil.get(subscription.id) ?? 0) > clock().getTime() ||
        t - startedAt >= lineHoldMs
      )
        escalate();
      else timer = setTimeout(tick, holdMs);
    };
    timer = setTimeout(tick, holdMs);
    const done = (async () => {
      let attempt: DeliveryAttempt | undefined;
      try {
        attempt = await attemptOnce(first, subscription, async () => {
          sendingSince = performance.now();
          return escalation ? await escalation : undefined;
        });
      } finally {
        over = true;
        clearTimeout(timer);
      }
      const leaseEnd = escalation ? await escalation : undefined;
      if (leaseEnd !== undefined) {
        const claimed: DeliveryRecord = { ...first, nextAttemptAt: iso(leaseEnd) };
        if (!attempt) {
          if (await deps.deliveries.release(claimed.id, claimed.attempts, clock().getTime()))
            await enqueue([claimed.id]);
          return;
        }
        await finishClaimed(claimed, subscription, attempt);
        return;
      }
      // Without a lease nothing limits the attempt's start: attemptOnce always attempts.
      if (!attempt) throw new DeliveryError('StoreFailure', `delivery ${delivery.id}: no attempt was made`);
      const decided = await decide(first, subscription, attempt);
      const a = decided.record;
      const at = iso(decided.now.getTime());
      await recordAttempt({
        delivery: {
          ...first,
          status: decided.status,
          nextAttemptAt: decided.step.action === 'retry' ? decided.step.at.toISOString() : at,
          updatedAt: at,
          firstAttemptAt: a.startedAt,
          lastAttemptAt: a.startedAt,
          ...(a.statusCode !== undefined ? { lastStatusCode: a.statusCode } : {}),
          ...(a.error !== undefined ? { lastError: a.error } : {}),
        },
        attempt: a,
      });
      await afterRecorded(first, subscription, attempt, decided);
      markDurable();
    })().catch((error: unknown) => {
      report({
        kind: 'StoreFailure',
        deliveryId: delivery.id,
        subscriptionId: subscription.id,
        message: describe(error),
      });
      markFailed(error);
    });
    return { durable, done };
  }

  // Delivery ids this process has fanned out (bounded): a repeated fan-out here is a no-op.
  const seen = new Set<string>();
  const remember = (id: string) => {
    seen.add(id);
    if (seen.size > SEEN_MEMORY) {
      const oldest = seen.values().next().value;
      if (oldest !== undefined) seen.delete(oldest);
    }
  };

  return {
    limiter,

    async fanOut(event) {
      const targets = (await activeSubscriptions()).filter((s) => deliveryMatches(s, event));
      const now = clock().getTime();
      const created: string[] = [];
      const queued: string[] = [];
      const durable: { id: string; written: Promise<void> }[] = [];
      const done: Promise<unknown>[] = [];
      const started = await Promise.allSettled(
        targets.map(async (subscription) => {
          const id = deliveryId(event.id, subscription.id);
          if (seen.has(id)) return;
          remember(id);
          try {
            const stats = limiter.stats();
            // A subscription with a long line of waiting attempts goes through the queue instead of
            // growing this process's memory without bound.
            if (stats.queuedFor(subscription.id) >= maxWaiting) {
              if (!(await deps.deliveries.create(newDelivery(event, subscription, 'event', id, false))))
                return;
              created.push(id);
              queued.push(id);
              return;
            }
            // Write first (claimed, leased) for a subscription whose endpoint lately kept an attempt
            // past the hold: its attempts would not end soon, and the fan-out should.
            if ((slowUntil.get(subscription.id) ?? 0) > now) {
              const record = newDelivery(event, subscription, 'event', id, true);
              if (!(await deps.deliveries.create(record))) return;
              created.push(id);
              done.push(attemptClaimed(record, subscription));
              return;
            }
            created.push(id);
            const direct = attemptDirect(newDelivery(event, subscription, 'event', id, false), subscription);
            durable.push({ id, written: direct.durable });
            done.push(direct.done);
          } catch (error) {
            seen.delete(id);
            throw error;
          }
        }),
      );
      if (queued.length > 0) await enqueue(queued);
      const written = await Promise.allSettled(durable.map((d) => d.written));
      const lost = durable.filter((_, i) => written[i]?.status === 'rejected').map((d) => d.id);
      for (const id of lost) seen.delete(id);
      const failures = [...started, ...written].filter((r) => r.status === 'rejected');
      if (failures.length > 0) {
        // The caller must not acknowledge the event: its redelivery attempts these again (same
        // webhook-id); what was recorded is recorded again, idempotently.
        throw new DeliveryError(
          'StoreFailure',
          `fan-out of ${event.id}: ${failures.length} of ${targets.length} deliveries not recorded: ${describe(
            (failures[0] as PromiseRejectedResult).reason,
          )}`,
          { eventId: event.id, ...(lost.length > 0 ? { deliveryIds: lost.join(',') } : {}) },
        );
      }
      return {
        deliveryIds: created,
        queued,
        settled: Promise.allSettled(done).then(() => undefined),
      };
    },

    async handleJob(job) {
      const now = clock().getTime();
      const delivery = await deps.deliveries.get(job.deliveryId);
      if (delivery?.status !== 'pending') return undefined;
      const subscription = await deps.subscriptions.get(delivery.subscriptionId);
      if (!subscription) {
        await deps.deliveries.cancel(delivery.id, now);
        return undefined;
      }
      if (subscription.status !== 'active') {
        // Resumed by `enable` (the engine's `resume`).
        await deps.deliveries.park(delivery.id, now);
        return undefined;
      }
      // A subscription at its limit with a line already waiting: come back later (jittered, so a
      // burst does not return as one herd) rather than hold a consumer slot that others need.
      const stats = limiter.stats();
      if (stats.inFlightFor(subscription.id) >= perKey && stats.queuedFor(subscription.id) >= perKey)
        return { retryInSeconds: 1 + Math.floor(random() * 5) };
      const claim = await deps.deliveries.claim(delivery.id, now, leaseMs);
      if (claim.kind === 'NotDue') {
        const wait = Date.parse(claim.at) - now;
        // Within a lease: another worker's attempt; if it dies, this message takes over. A later
        // time is a scheduled retry, which has its own message: drop this duplicate.
        if (wait > leaseMs) return undefined;
        return { retryInSeconds: Math.min(MAX_QUEUE_RETRY_SECONDS, Math.max(1, Math.ceil(wait / 1000))) };
      }
      if (claim.kind !== 'Claimed') return undefined;
      await attemptClaimed(claim.delivery, subscription);
      return undefined;
    },

    async sendTest(subscription) {
      const at = clock().toISOString();
      const id = eventId({ scope: subscription.id, type: 'webhook.test', key: 'test', transition: at });
      const event = buildEvent('webhook.test', {
        id,
        occurredAt: at,
        detectedAt: at,
        sequence: 0,
        source: { api: 'carhook', operation: 'webhook.test' },
        data: { subscriptionId: subscription.id, message: 'A test delivery from Carhook.' },
      });
      const record = newDelivery(
        event,
        subscription,
        'test',
        extraDeliveryId('test', id, subscription.id, at),
        true,
      );
      await deps.deliveries.create(record);
      const attempt = await attemptClaimed(record, subscription);
      const delivery = (await deps.deliveries.get(record.id)) ?? record;
      if (!attempt) {
        throw new DeliveryError('StoreFailure', `test delivery ${record.id} could not be recorded`, {
          subscriptionId: subscription.id,
          deliveryId: record.id,
        });
      }
      return { delivery, attempt };
    },

    async enqueueReplay(subscription, events, runId) {
      const ids: string[] = [];
      // 16 writes at a time: a large replay is bounded by the store's latency, not serialized on it.
      for (let i = 0; i < events.length; i += 16) {
        const created = await Promise.all(
          events.slice(i, i + 16).map(async (event) => {
            const id = extraDeliveryId('replay', event.id, subscription.id, runId);
            return (await deps.deliveries.create(newDelivery(event, subscription, 'replay', id, false)))
              ? id
              : undefined;
          }),
        );
        for (const id of created) if (id) ids.push(id);
      }
      await enqueue(ids);
      return ids;
    },

    async resume(subscriptionId) {
      const now = clock().getTime();
      const resumed: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await deps.deliveries.listBySubscription({
          subscriptionId,
          status: 'parked',
          limit: 500,
          ...(cursor ? { cursor } : {}),
        });
        for (const d of page.items) if (await deps.deliveries.resume(d.id, now)) resumed.push(d.id);
        cursor = page.cursor;
      } while (cursor);
      cache = undefined;
      await enqueue(resumed);
      return resumed.length;
    },

    async sweep(options = {}) {
      const before = iso(clock().getTime() - graceMs);
      const page = await deps.deliveries.listDue({ before, limit: options.limit ?? 500 });
      await enqueue(page.items.map((d) => d.id));
      return page.items.length;
    },
  };
}

/** The local runtime's bus subscriber: `localBus.subscribe(fanOutSubscriber(engine), {name: 'webhooks'})`. */
export function fanOutSubscriber(engine: Pick<DeliveryEngine, 'fanOut'>) {
  // Resolves once every delivery is durable (its first attempt's outcome recorded, or, for an attempt
  // outliving the hold, its claimed record written); a failure to write rejects, so the bus keeps the
  // event for a retry. A slow endpoint holds the bus for the hold at most (README "The hold").
  return async (event: EventEnvelope): Promise<void> => {
    await engine.fanOut(event);
  };
}

/** The `deliveries` queue handler for `runConsumer` / the SQS Lambda (`parse: parseDeliveryJob`). */
export function deliveryJobHandler(engine: Pick<DeliveryEngine, 'handleJob'>) {
  return (job: DeliveryJob) => engine.handleJob(job);
}

export const parseDeliveryJob = (raw: unknown): DeliveryJob => deliveryJobSchema.parse(raw);
