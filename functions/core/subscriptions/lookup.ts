import type { EventLog } from '../store/ports';
import type { StoredEvent } from '../store/records';
import { deliveryId } from './logic';
import type { DeliveryStore, SubscriptionStore } from './ports';
import type { DeliveryRecord } from './records';

/**
 * An event of the log with its deliveries: for each subscription, the delivery the fan-out (or a
 * recovery) made of it, found by its deterministic id `deliveryId(event, subscription)`. Replays
 * are other deliveries (found in the subscription's attempt log by event id).
 */
export interface EventDelivery {
  readonly subscriptionId: string;
  readonly url: string;
  readonly delivery: Omit<DeliveryRecord, 'envelope'>;
}

export async function eventWithDeliveries(
  deps: {
    readonly events: Pick<EventLog, 'get'>;
    readonly subscriptions: Pick<SubscriptionStore, 'list'>;
    readonly deliveries: Pick<DeliveryStore, 'get'>;
  },
  eventId: string,
  now: number,
): Promise<{ readonly event: StoredEvent; readonly deliveries: readonly EventDelivery[] } | undefined> {
  if (!/^evt_[A-Za-z0-9_-]{1,64}$/.test(eventId)) return undefined;
  const event = await deps.events.get(eventId, now);
  if (!event) return undefined;
  const found: EventDelivery[] = [];
  let cursor: string | undefined;
  do {
    const page = await deps.subscriptions.list({ limit: 100, ...(cursor ? { cursor } : {}) });
    const deliveries = await Promise.all(
      page.items.map((s) => deps.deliveries.get(deliveryId(eventId, s.id))),
    );
    for (const [i, d] of deliveries.entries()) {
      const s = page.items[i];
      if (!d || !s) continue;
      const { envelope: _envelope, ...rest } = d;
      found.push({ subscriptionId: s.id, url: s.url, delivery: rest });
    }
    cursor = page.cursor;
  } while (cursor);
  return { event, deliveries: found };
}
