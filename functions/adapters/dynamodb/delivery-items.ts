import type { EventEnvelope } from '../../core/events/envelope';
import { attemptSortKey, DELIVERY_RETENTION_MS, dueSortKey } from '../../core/subscriptions/logic';
import type { AttemptRecord, DeliveryRecord, DeliveryStatus } from '../../core/subscriptions/records';
import { deliveryStatuses } from '../../core/subscriptions/records';
import { type Item, malformed, shardOf, type TableContext } from './common';

/**
 * Deliveries and the attempt log on the single table (README "Webhooks"):
 * - delivery `DLV#<id>` / `DLV`; gsi1 `SUBDLV#<subscriptionId>#<status>` / `<createdAt>#<id>`
 *   (parked deliveries to resume, dead letters); gsi2, only while pending,
 *   `DLVDUE#<shard>` / `<nextAttemptAt>#<id>` (the recovery sweep; sharded like the due index).
 * - attempt `SUBATT#<subscriptionId>` / `<startedAt>#<deliveryId>#<nnn>`, read newest first.
 * A first attempt that ended before the fan-out's hold is recorded by `recordAttempts`: both items
 * put whole in BatchWriteItem (no condition: nothing was written before the attempt); everything
 * else (write-first records, claims, `finish`) stays conditional.
 */
export const DELIVERY_DUE_SHARDS = 4;

export const deliveryKeys = {
  delivery: (id: string) => ({ pk: `DLV#${id}`, sk: 'DLV' }),
  ofSubscription: (subscriptionId: string, status: DeliveryStatus) => `SUBDLV#${subscriptionId}#${status}`,
  due: (shard: number) => `DLVDUE#${shard}`,
  attempts: (subscriptionId: string) => `SUBATT#${subscriptionId}`,
} as const;

export const ttl = (ms: number) => Math.ceil((ms + DELIVERY_RETENTION_MS) / 1000);

export function toItem(d: DeliveryRecord): Item {
  const { envelope, ...rest } = d;
  return {
    ...deliveryKeys.delivery(d.id),
    entity: 'Delivery',
    ...rest,
    envelope: JSON.stringify(envelope),
    gsi1pk: deliveryKeys.ofSubscription(d.subscriptionId, d.status),
    gsi1sk: `${d.createdAt}#${d.id}`,
    ...(d.status === 'pending'
      ? { gsi2pk: deliveryKeys.due(shardOf(d.id, DELIVERY_DUE_SHARDS)), gsi2sk: dueSortKey(d) }
      : {}),
  };
}

export function fromItem(ctx: TableContext, item: Item): DeliveryRecord {
  const key = String(item.pk);
  for (const f of [
    'id',
    'subscriptionId',
    'eventId',
    'eventType',
    'envelope',
    'origin',
    'status',
    'nextAttemptAt',
    'createdAt',
    'updatedAt',
  ]) {
    if (typeof item[f] !== 'string') throw malformed(ctx, 'delivery', f, key);
  }
  if (typeof item.attempts !== 'number') throw malformed(ctx, 'delivery', 'attempts', key);
  if (!deliveryStatuses.includes(item.status as DeliveryStatus))
    throw malformed(ctx, 'delivery', 'status', key);
  let envelope: EventEnvelope;
  try {
    // Parsing boundary: our own JSON text of an envelope validated before it was written.
    envelope = JSON.parse(item.envelope as string) as EventEnvelope;
  } catch {
    throw malformed(ctx, 'delivery', 'envelope', key);
  }
  const out: Record<string, unknown> = { envelope };
  for (const f of [
    'id',
    'subscriptionId',
    'eventId',
    'eventType',
    'origin',
    'status',
    'attempts',
    'nextAttemptAt',
    'createdAt',
    'updatedAt',
    'firstAttemptAt',
    'lastAttemptAt',
    'lastStatusCode',
    'lastError',
  ]) {
    if (item[f] !== undefined) out[f] = item[f];
  }
  return out as unknown as DeliveryRecord;
}

export function attemptItem(a: AttemptRecord, now: number): Item {
  return {
    pk: deliveryKeys.attempts(a.subscriptionId),
    sk: attemptSortKey(a),
    entity: 'DeliveryAttempt',
    ...a,
    expiresAt: ttl(now),
  };
}

/** The delivery item as `recordAttempts` writes it whole: as `toItem`, with the TTL `finish` sets. */
export function recordedItem(d: DeliveryRecord): Item {
  return {
    ...toItem(d),
    ...(d.status === 'succeeded' ? { expiresAt: ttl(Date.parse(d.updatedAt)) } : {}),
  };
}

export function attemptFromItem(item: Item): AttemptRecord {
  const { pk: _pk, sk: _sk, entity: _e, expiresAt: _x, ...rest } = item;
  return rest as unknown as AttemptRecord;
}
