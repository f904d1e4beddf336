/**
 * Operational events: `webhook.endpoint.disabled` and `webhook.delivery.exhausted`, and Carhook's
 * own (`carhook.quota.changed`, ../ratelimit/announce.ts) always go to the event bus, and to the
 * webhook subscriptions that ask for them by name (`webhook.*`, `carhook.*`, or the exact type;
 * `*` and `vehicle.*` do not include them, so an existing subscription receives nothing new).
 *
 * Three rules keep them from looping or telling the wrong endpoint:
 * - never to the subscription the event is about (its endpoint is the one failing or disabled);
 * - an exhausted delivery of an operational event is reported on the bus only (two failing
 *   endpoints that both subscribe to `webhook.*` would otherwise report each other forever);
 * - the vehicle and enrollment filters do not apply: these events concern no vehicle.
 */
import { buildEvent } from '../events/catalogue';
import type { EventEnvelope } from '../events/envelope';
import { eventId } from '../events/ids';
import type { DeliveryRecord, SubscriptionRecord } from '../subscriptions/records';
import { isBusOnly, matches, type SubscriptionFilter, typeMatches } from '../subscriptions/schemas';
import type { NextStep } from '../webhooks/policy';
import type { DeliveryAttempt } from '../webhooks/sender';

/** Operational event types: `webhook.*` and `carhook.*`. */
export const isOperational = isBusOnly;

/** Does this subscription's type filter name operational events (not through `*` or another prefix)? */
function asksFor(filter: readonly string[] | undefined, type: string): boolean {
  if (!filter) return false;
  return filter.some((entry) => isOperational(entry) && typeMatches(entry, type));
}

function about(envelope: Pick<EventEnvelope, 'data'>): { subscriptionId?: unknown; eventType?: unknown } {
  const data = envelope.data;
  return typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
}

/**
 * The fan-out's rule: vehicle and enrollment events by `matches`; operational events to the active
 * subscriptions that ask for them, except the one they are about.
 */
export function deliveryMatches(
  subscription: SubscriptionFilter & { readonly id: string },
  envelope: Pick<EventEnvelope, 'type' | 'vehicle' | 'enrollment' | 'data'>,
): boolean {
  if (!isOperational(envelope.type)) return matches(subscription, envelope);
  if (subscription.status !== 'active') return false;
  if (!asksFor(subscription.eventTypes, envelope.type)) return false;
  const { subscriptionId, eventType } = about(envelope);
  if (subscriptionId === subscription.id) return false;
  if (typeof eventType === 'string' && isOperational(eventType)) return false;
  return true;
}

// Building the events themselves: ids derived from the subscription and the delivery (or the
// moment of disabling), so a retried step publishes the same event again, never a second one.
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

/** `webhook.delivery.exhausted`: a delivery dead-lettered after its last attempt `done`. */
export function exhaustedEvent(
  subscription: SubscriptionRecord,
  delivery: DeliveryRecord,
  done: DeliveryAttempt,
  attempts: number,
  now: Date,
) {
  const at = now.toISOString();
  return buildEvent('webhook.delivery.exhausted', {
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
      attempts,
      ...(done.statusCode !== undefined ? { lastStatus: done.statusCode } : {}),
      ...(done.error !== undefined ? { lastError: done.error } : {}),
      firstAttemptAt: delivery.firstAttemptAt ?? done.startedAt,
      lastAttemptAt: done.startedAt,
    },
  });
}

/** `webhook.endpoint.disabled`: the subscription was disabled at `now` for `reason`. */
export function disabledEvent(
  subscription: SubscriptionRecord,
  reason: Extract<NextStep, { action: 'disable-subscription' }>['reason'],
  now: Date,
) {
  const at = now.toISOString();
  return buildEvent('webhook.endpoint.disabled', {
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
      reason,
      disabledAt: at,
    },
  });
}
