/**
 * Operational events for webhook users: `webhook.endpoint.disabled` and `webhook.delivery.exhausted`
 * always go to the event bus, and to the webhook subscriptions that ask for them by name
 * (`webhook.*`, or the exact type; `*` and `vehicle.*` do not include them, so an existing
 * subscription receives nothing new).
 *
 * Three rules keep them from looping or telling the wrong endpoint:
 * - never to the subscription the event is about (its endpoint is the one failing or disabled);
 * - an exhausted delivery of an operational event is reported on the bus only (two failing
 *   endpoints that both subscribe to `webhook.*` would otherwise report each other forever);
 * - the vehicle and enrollment filters do not apply: these events concern no vehicle.
 */
import type { EventEnvelope } from '../events/envelope';
import { BUS_ONLY_PREFIX, matches, type SubscriptionFilter, typeMatches } from '../webhooks/subscription';

/** The prefix of operational event types. */
export const OPERATIONAL_PREFIX = BUS_ONLY_PREFIX;

export const isOperational = (type: string): boolean => type.startsWith(OPERATIONAL_PREFIX);

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
