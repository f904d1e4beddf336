import { buildEvent } from '../events/catalogue';
import { eventId } from '../events/ids';
import type { DeliveryRecord, SubscriptionRecord } from '../subscriptions/records';
import type { NextStep } from '../webhooks/policy';
import type { DeliveryAttempt } from '../webhooks/sender';

// The operational events the engine publishes about deliveries themselves (not about vehicles).

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
