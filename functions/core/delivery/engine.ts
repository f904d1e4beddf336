import * as z from 'zod';
import { buildEvent } from '../events/catalogue';
import type { EventEnvelope } from '../events/envelope';
import { eventId } from '../events/ids';
import type { EventBus } from '../publishing/ports';
import type { JobQueue, OutgoingMessage } from '../queue/ports';
import { deliveryId, extraDeliveryId, iso } from '../subscriptions/logic';
import type { DeliveryStore, SubscriptionStore } from '../subscriptions/ports';
import type {
  AttemptDecision,
  AttemptRecord,
  DeliveryOrigin,
  DeliveryRecord,
  SubscriptionRecord,
} from '../subscriptions/records';
import { createKeyedLimiter, type KeyedLimiter } from '../webhooks/limiter';
import { serializePayload } from '../webhooks/payload';
import { nextStep, type Random, type SubscriptionHealth } from '../webhooks/policy';
import type { DeliveryAttempt, Sender } from '../webhooks/sender';
import { matches } from '../webhooks/subscription';
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
  /** How long the fan-out reuses the list of active subscriptions (default 1 s; 0 = every event). */
  readonly subscriptionCacheMs?: number;
  readonly onProblem?: (problem: DeliveryProblem) => void;
}

export interface FanOutResult {
  /** New deliveries (a repeated fan-out of the same event creates none). */
  readonly deliveryIds: readonly string[];
  /** Deliveries handed to the queue instead of a direct first attempt (subscription saturated). */
  readonly queued: readonly string[];
  /** Settles when the direct first attempts are finished and recorded; never rejects. */
  readonly settled: Promise<void>;
}

export interface DeliveryEngine {
  /** One event from the bus → one delivery per matching active subscription, first attempt direct. */
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
  // Subscriptions this process saw failing: a success must clear their streak in the store.
  const failing = new Set<string>();
  let cache: { at: number; items: readonly SubscriptionRecord[] } | undefined;

  async function activeSubscriptions(): Promise<readonly SubscriptionRecord[]> {
    const now = Date.now();
    if (cache && cacheMs > 0 && now - cache.at < cacheMs) return cache.items;
    const items = await deps.subscriptions.listActive();
    for (const s of items) if (s.health.firstFailureAt) failing.add(s.id);
    cache = { at: now, items };
    return items;
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

  /** One attempt of a claimed delivery, recorded; the decision applied. Never rejects. */
  async function attemptClaimed(
    delivery: DeliveryRecord,
    subscription: SubscriptionRecord,
  ): Promise<AttemptRecord | undefined> {
    try {
      const body = serializePayload(delivery.envelope);
      let attempt: DeliveryAttempt;
      if (!body.ok) {
        attempt = {
          startedAt: clock().toISOString(),
          durationMs: 0,
          outcome: 'refused',
          error: body.error.message,
        };
      } else {
        let secrets: ReturnType<SecretBox['open']> | undefined;
        try {
          secrets = deps.secrets.open(subscription.secretCiphertext, subscription.id);
        } catch (error) {
          attempt = {
            startedAt: clock().toISOString(),
            durationMs: 0,
            outcome: 'refused',
            error: `the subscription's secret cannot be decrypted: ${describe(error)}`,
          };
        }
        if (secrets) {
          const s = secrets;
          const leaseEnd = Date.parse(delivery.nextAttemptAt);
          const sent = await limiter.run(subscription.id, async () =>
            // Waited too long for a slot: the attempt could outlive the lease and be duplicated.
            clock().getTime() + budgetMs > leaseEnd
              ? undefined
              : deps.sender.send({
                  url: subscription.url,
                  id: delivery.eventId,
                  body: body.value,
                  secrets: s,
                }),
          );
          if (!sent) {
            if (await deps.deliveries.release(delivery.id, delivery.attempts, clock().getTime()))
              await enqueue([delivery.id]);
            return undefined;
          }
          attempt = sent;
        }
      }
      // biome-ignore lint/style/noNonNullAssertion: every branch above assigns it
      const done: DeliveryAttempt = attempt!;
      const now = clock();
      const healthNow = await health(subscription, done);
      const step = nextStep({ attemptNumber: delivery.attempts }, done, now, {
        health: healthNow,
        ...(deps.random ? { random: deps.random } : {}),
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
      const finished = await deps.deliveries.finish({
        deliveryId: delivery.id,
        attemptNumber: delivery.attempts,
        status,
        ...(step.action === 'retry' ? { nextAttemptAt: step.at.toISOString() } : {}),
        attempt: record,
        now: now.getTime(),
      });
      // Stale claim: this attempt outlived its lease and another worker took the delivery over.
      if (!finished) return record;
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
              ...(delivery.firstAttemptAt ? { firstAttemptAt: delivery.firstAttemptAt } : {}),
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
      return record;
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

  return {
    limiter,

    async fanOut(event) {
      const targets = (await activeSubscriptions()).filter((s) => matches(s, event));
      const created: string[] = [];
      const queued: string[] = [];
      const direct: Promise<unknown>[] = [];
      await Promise.all(
        targets.map(async (subscription) => {
          // A subscription with a long line of waiting attempts goes through the queue instead of
          // growing this process's memory without bound.
          const saturated = limiter.stats().queuedFor(subscription.id) >= maxWaiting;
          const record = newDelivery(
            event,
            subscription,
            'event',
            deliveryId(event.id, subscription.id),
            !saturated,
          );
          if (!(await deps.deliveries.create(record))) return;
          created.push(record.id);
          if (saturated) queued.push(record.id);
          else direct.push(attemptClaimed(record, subscription));
        }),
      );
      if (queued.length > 0) await enqueue(queued);
      return {
        deliveryIds: created,
        queued,
        settled: Promise.allSettled(direct).then(() => undefined),
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
  // Resolves once the deliveries are written (crash-safe); the first attempts go on in the
  // background, so a slow endpoint never holds up the bus or the publisher.
  return async (event: EventEnvelope): Promise<void> => {
    await engine.fanOut(event);
  };
}

/** The `deliveries` queue handler for `runConsumer` / the SQS Lambda (`parse: parseDeliveryJob`). */
export function deliveryJobHandler(engine: Pick<DeliveryEngine, 'handleJob'>) {
  return (job: DeliveryJob) => engine.handleJob(job);
}

export const parseDeliveryJob = (raw: unknown): DeliveryJob => deliveryJobSchema.parse(raw);
