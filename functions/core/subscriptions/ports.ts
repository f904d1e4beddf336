import type { IsoDate, Page, PageRequest } from '../store/records';
import type { SubscriptionHealth } from '../webhooks';
import type {
  AttemptRecord,
  DeliveryRecord,
  DeliveryStatus,
  FailureNote,
  SubscriptionChanges,
  SubscriptionRecord,
} from './records';

/**
 * Persistence ports of webhook subscriptions and deliveries. Implemented in memory (./memory.ts)
 * and on the single DynamoDB table (functions/adapters/dynamodb/subscriptions.ts, deliveries.ts);
 * test/subscriptions/contract.ts runs one behaviour suite against both. `now` is epoch ms.
 * Expected outcomes are values; StoreError is thrown for bad input and storage failures.
 */
export interface SubscriptionStore {
  /** False when the id exists already (nothing written). */
  create(subscription: SubscriptionRecord): Promise<boolean>;
  get(id: string): Promise<SubscriptionRecord | undefined>;
  /** Every subscription, by id (= creation order). */
  list(request?: PageRequest): Promise<Page<SubscriptionRecord>>;
  /** Every active subscription: what the fan-out matches events against. */
  listActive(): Promise<readonly SubscriptionRecord[]>;
  /** Applies management changes; undefined when the subscription does not exist. */
  update(id: string, changes: SubscriptionChanges, now: number): Promise<SubscriptionRecord | undefined>;
  /** active → disabled. True only for the call that made the transition (one event is published). */
  disable(id: string, reason: string, now: number): Promise<boolean>;
  /**
   * disabled → active, the failing streak cleared (`lastSuccessAt` and `lastFailure` kept as history).
   * True only for the call that made the transition.
   */
  enable(id: string, now: number): Promise<boolean>;
  /**
   * A failed attempt: starts the failing streak (`firstFailureAt = failure.at`) unless one is
   * running, counts it (`consecutiveFailures + 1`) and keeps it as `lastFailure`. Returns the stored
   * health (the 5-day rule counts from the streak's start); undefined if missing.
   */
  recordFailure(id: string, failure: FailureNote, now: number): Promise<SubscriptionHealth | undefined>;
  /** A success: ends the failing streak (`lastSuccessAt = at`, no streak, `lastFailure` kept). False when missing. */
  recordSuccess(id: string, at: IsoDate, now: number): Promise<boolean>;
  /** True when it existed. Its deliveries are cancelled lazily by the worker. */
  delete(id: string): Promise<boolean>;
}

/** Which lines of the attempt log to list (all of them by default). */
export interface AttemptFilter {
  /** Started at or after this instant. */
  readonly since?: IsoDate;
  /** Started before this instant. */
  readonly until?: IsoDate;
  /** `succeeded`: 2xx; `failed`: anything else. */
  readonly status?: 'succeeded' | 'failed';
  readonly eventType?: string;
  readonly eventId?: string;
}

export type ClaimResult =
  | { readonly kind: 'Claimed'; readonly delivery: DeliveryRecord }
  /** Pending but not due (a retry's time, or another worker's attempt lease): come back at `at`. */
  | { readonly kind: 'NotDue'; readonly at: IsoDate }
  | { readonly kind: 'NotPending'; readonly status: DeliveryStatus }
  | { readonly kind: 'NotFound' };

export interface FinishInput {
  readonly deliveryId: string;
  /** The claim being finished; a stale claim (someone claimed since) writes nothing. */
  readonly attemptNumber: number;
  readonly status: 'pending' | 'succeeded' | 'dead' | 'parked';
  /** Required for `pending` (the retry time); `parked` deliveries are due when resumed. */
  readonly nextAttemptAt?: IsoDate;
  readonly attempt: AttemptRecord;
  readonly now: number;
}

/**
 * A direct first attempt's outcome (README of functions/core/delivery, "Writes per delivery"): the
 * delivery in its state after the attempt and the attempt's log line. Nothing about the delivery was
 * written before the attempt (the fan-out message was its record), so these writes are unconditional.
 */
export interface RecordedAttempt {
  readonly delivery: DeliveryRecord;
  readonly attempt: AttemptRecord;
}

export interface DeliveryStore {
  /** Idempotent by id: false (nothing written) when the delivery exists already. */
  create(delivery: DeliveryRecord): Promise<boolean>;
  get(id: string): Promise<DeliveryRecord | undefined>;
  /**
   * Starts an attempt: `pending` and due (`nextAttemptAt <= now`) → attempts + 1 and
   * `nextAttemptAt = now + leaseMs` (a worker that dies mid-attempt leaves it due again then).
   * Of concurrent claimers exactly one wins.
   */
  claim(id: string, now: number, leaseMs: number): Promise<ClaimResult>;
  /** Ends the attempt `attemptNumber`: the attempt log line and the new state, together. */
  finish(input: FinishInput): Promise<boolean>;
  /**
   * Writes each delivery (its whole record: a repeat replaces it) and its attempt line, batched
   * (DynamoDB: BatchWriteItem, retried with backoff while items come back unprocessed or throttled).
   * Returns the ids whose writes did not all land; the caller must not acknowledge their fan-out.
   */
  recordAttempts(entries: readonly RecordedAttempt[]): Promise<{ readonly failed: readonly string[] }>;
  /**
   * Gives a claim back without an attempt (it waited too long for a concurrency slot): attempts − 1,
   * due now. False when the claim is stale.
   */
  release(id: string, attemptNumber: number, now: number): Promise<boolean>;
  /** pending → parked (subscription disabled). True when this call parked it. */
  park(id: string, now: number): Promise<boolean>;
  /** parked → pending, due now. True when this call resumed it. */
  resume(id: string, now: number): Promise<boolean>;
  /** pending → cancelled (subscription deleted). */
  cancel(id: string, now: number): Promise<boolean>;
  /** One subscription's deliveries in one status, oldest first. */
  listBySubscription(
    query: { readonly subscriptionId: string; readonly status: DeliveryStatus } & PageRequest,
  ): Promise<Page<DeliveryRecord>>;
  /** Pending deliveries with `nextAttemptAt <= before`, earliest first (the recovery sweep). */
  listDue(query: { readonly before: IsoDate } & PageRequest): Promise<Page<DeliveryRecord>>;
  /** The attempt log of a subscription, newest first, optionally filtered. */
  listAttempts(
    query: { readonly subscriptionId: string } & AttemptFilter & PageRequest,
  ): Promise<Page<AttemptRecord>>;
}
