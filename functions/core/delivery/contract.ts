import * as z from 'zod';
import type { ProcessTimer } from '../clock';
import type { EventEnvelope } from '../events/envelope';
import type { EventBus } from '../publishing/ports';
import type { JobQueue } from '../queue/ports';
import type { DeliveryStore, SubscriptionStore } from '../subscriptions/ports';
import type { AttemptRecord, DeliveryRecord, SubscriptionRecord } from '../subscriptions/records';
import type { KeyedLimiter } from '../webhooks/limiter';
import type { Random } from '../webhooks/policy';
import type { Sender } from '../webhooks/sender';
import type { RetrySchedule } from './retry-schedule';
import type { SecretBox } from './secrets';

// The delivery engine's public contract: its dependencies, its defaults, what it returns.

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
/**
 * The fan-out's hold on a first attempt made before any write. An attempt whose request has been in
 * flight for a whole hold is written claimed (leased) so the fan-out can be acknowledged, and its
 * subscription is written first for `DEFAULT_SLOW_FOR_MS`: a hung endpoint costs the bus a hold or
 * two, not one per event. One still waiting for a slot is written claimed after 10 holds.
 */
export const DEFAULT_DIRECT_HOLD_MS = 1000;
export const DEFAULT_SLOW_FOR_MS = 60_000;
/** Outcome writes in flight at once; outcomes arriving meanwhile leave together in the next one. */
export const DEFAULT_RECORD_CONCURRENCY = 8;

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
  /** Process time and timer for the hold (default `performance.now` and `setTimeout`). */
  readonly timer?: ProcessTimer;
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
  /** Sends a sample of an event type (its envelope, re-stamped, `sample: true`) now; resolves with the attempt. */
  sendSample(
    subscription: SubscriptionRecord,
    sample: EventEnvelope,
  ): Promise<{ delivery: DeliveryRecord; attempt: AttemptRecord }>;
  /** New deliveries of already-published events (replay), same `webhook-id`s, through the queue. */
  enqueueReplay(
    subscription: SubscriptionRecord,
    events: readonly EventEnvelope[],
    runId: string,
  ): Promise<readonly string[]>;
  /**
   * Events the subscription missed while disabled (from the event log), queued in order under their
   * fan-out delivery ids, so none is delivered twice. Returns the delivery ids created.
   */
  enqueueRecovery(
    subscription: SubscriptionRecord,
    events: readonly EventEnvelope[],
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

export const parseDeliveryJob = (raw: unknown): DeliveryJob => deliveryJobSchema.parse(raw);
