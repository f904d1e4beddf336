import type { EventEnvelope } from '../events/envelope';
import type { IsoDate } from '../store/records';
import type { AttemptOutcome, DeliveryAttempt } from '../webhooks/outcome';
import type { SubscriptionHealth } from '../webhooks/policy';
import type { SubscriptionStatus } from './schemas';

/**
 * What the webhook side persists: subscriptions (webhook endpoints), deliveries (one
 * event to one subscription, with its retry state) and the attempt log. Secrets are only ever
 * stored as ciphertext (functions/core/crypto/token-cipher.ts, AAD = the subscription id).
 */
export interface SubscriptionRecord {
  /** `sub_…`, sortable by creation time. */
  readonly id: string;
  readonly url: string;
  readonly eventTypes?: readonly string[];
  readonly vehicleIds?: readonly string[];
  readonly enrollmentIds?: readonly string[];
  readonly description?: string;
  readonly status: SubscriptionStatus;
  readonly disabledReason?: string;
  readonly disabledAt?: IsoDate;
  /** Ciphertext of the JSON of `SubscriptionSecrets` (current + previous during rotation). */
  readonly secretCiphertext: string;
  readonly health: SubscriptionHealth;
  readonly createdAt: IsoDate;
  readonly updatedAt: IsoDate;
}

/** The fields a management update may change; `null` removes an optional field. */
export interface SubscriptionChanges {
  readonly url?: string;
  readonly eventTypes?: readonly string[] | null;
  readonly vehicleIds?: readonly string[] | null;
  readonly enrollmentIds?: readonly string[] | null;
  readonly description?: string | null;
  readonly secretCiphertext?: string;
}

export const deliveryStatuses = ['pending', 'succeeded', 'dead', 'parked', 'cancelled'] as const;
/**
 * - `pending`: due at `nextAttemptAt` (while an attempt is in flight, `nextAttemptAt` is the end of
 *   its lease: if the worker dies, the delivery is due again then).
 * - `succeeded`: a 2xx came back.
 * - `dead`: the retry schedule ran out (dead letter: kept, replayable).
 * - `parked`: its subscription was disabled; `enable` makes it pending again.
 * - `cancelled`: its subscription was deleted.
 */
export type DeliveryStatus = (typeof deliveryStatuses)[number];

/**
 * - `event`: the fan-out of a published event.
 * - `recovery`: an event its subscription missed while disabled, delivered by `enable` (same id as
 *   the fan-out would have given it).
 * - `replay`: an event delivered again on request (a new delivery, same `webhook-id`).
 * - `test`: a `webhook.test` or a sample event sent on request.
 */
export type DeliveryOrigin = 'event' | 'recovery' | 'replay' | 'test';

export interface DeliveryRecord {
  /** Deterministic: `deliveryId(eventId, subscriptionId)` for fan-out, so a repeated fan-out is a no-op. */
  readonly id: string;
  readonly subscriptionId: string;
  readonly eventId: string;
  readonly eventType: string;
  /** The event itself: the body is re-serialized from it, byte-identical on every attempt. */
  readonly envelope: EventEnvelope;
  readonly origin: DeliveryOrigin;
  readonly status: DeliveryStatus;
  /** Attempts started so far (an attempt abandoned by a dead worker counts: see README). */
  readonly attempts: number;
  readonly nextAttemptAt: IsoDate;
  readonly createdAt: IsoDate;
  readonly updatedAt: IsoDate;
  readonly firstAttemptAt?: IsoDate;
  readonly lastAttemptAt?: IsoDate;
  readonly lastStatusCode?: number;
  readonly lastError?: string;
}

/** What the worker decided after an attempt (shown in the attempt log). */
export type AttemptDecision = 'done' | 'retry' | 'dead-letter' | 'disabled';

/**
 * One line of `GET /subscriptions/{id}/deliveries`: the attempt as the sender made it (without the
 * address it connected to), and where it stands in its delivery.
 */
export interface AttemptRecord extends Omit<DeliveryAttempt, 'remoteAddress'> {
  readonly subscriptionId: string;
  readonly deliveryId: string;
  readonly eventId: string;
  readonly eventType: string;
  /** 1-based; a gap means an attempt was abandoned by a worker that died mid-attempt. */
  readonly attemptNumber: number;
  readonly decision: AttemptDecision;
  readonly nextAttemptAt?: IsoDate;
}

/** The last failed attempt of a subscription, as its health keeps it. */
export interface FailureNote {
  readonly at: string;
  readonly outcome: AttemptOutcome;
  readonly statusCode?: number;
  readonly error?: string;
}
