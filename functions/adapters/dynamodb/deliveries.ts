import { paginateQuery, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { invalidInput } from '../../core/store/errors';
import { decodeCursor, requireId, requireIsoDate, requirePageLimit } from '../../core/store/logic';
import {
  validateAttemptFilter,
  validateDelivery,
  validateFinish,
  validateRecordedAttempt,
} from '../../core/subscriptions/logic';
import type { ClaimResult, DeliveryStore, RecordedAttempt } from '../../core/subscriptions/ports';
import type { DeliveryStatus } from '../../core/subscriptions/records';
import {
  conditionFailedItem,
  getConsistent,
  type Item,
  isConditionalCheckFailed,
  pageOf,
  putIfAbsent,
  queryPage,
  queryRange,
  refusalReasons,
  shardOf,
  storeFailure,
  type TableContext,
  writeIf,
} from './common';
import { BATCH_ITEMS, batchWriter, type DeliveryStoreOptions, keyOf } from './delivery-batch';
import {
  attemptFromItem,
  attemptItem,
  DELIVERY_DUE_SHARDS,
  deliveryKeys,
  fromItem,
  recordedItem,
  toItem,
  ttl,
} from './delivery-items';
import { INDEX } from './table';

export type { DeliveryStoreOptions } from './delivery-batch';
export { DELIVERY_DUE_SHARDS, deliveryKeys } from './delivery-items';

export function createDynamoDeliveryStore(
  ctx: TableContext,
  options: DeliveryStoreOptions = {},
): DeliveryStore {
  const { doc, tableName: TableName } = ctx;
  const writeChunk = batchWriter(ctx, options);
  const fail = (op: string, error: unknown, id: string) => storeFailure(ctx, op, error, { deliveryId: id });

  async function transition(
    id: string,
    from: DeliveryStatus,
    to: DeliveryStatus,
    now: number,
  ): Promise<boolean> {
    requireId('id', id);
    const at = new Date(now).toISOString();
    const toPending = to === 'pending';
    // gsi1pk needs the subscription id: it is the part of the old key before `#<status>`.
    const gsi1pk = await gsi1For(id, to);
    const update = new UpdateCommand({
      TableName,
      Key: deliveryKeys.delivery(id),
      UpdateExpression: toPending
        ? 'SET #status = :to, updatedAt = :at, nextAttemptAt = :at, gsi1pk = :gsi1pk, gsi2pk = :gsi2pk, gsi2sk = :gsi2sk'
        : 'SET #status = :to, updatedAt = :at, gsi1pk = :gsi1pk REMOVE gsi2pk, gsi2sk',
      ConditionExpression: 'attribute_exists(pk) AND #status = :from',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':to': to,
        ':from': from,
        ':at': at,
        ':gsi1pk': gsi1pk,
        ...(toPending
          ? { ':gsi2pk': deliveryKeys.due(shardOf(id, DELIVERY_DUE_SHARDS)), ':gsi2sk': `${at}#${id}` }
          : {}),
      },
    });
    return writeIf(ctx, () => doc.send(update), `UpdateItem delivery ${from}→${to}`, { deliveryId: id });
  }

  async function gsi1For(id: string, status: DeliveryStatus): Promise<string> {
    const d = await store.get(id);
    return deliveryKeys.ofSubscription(d?.subscriptionId ?? 'unknown', status);
  }

  const store: DeliveryStore = {
    async create(d) {
      validateDelivery(d);
      return putIfAbsent(ctx, toItem(d), 'PutItem delivery', { deliveryId: d.id });
    },

    async get(id) {
      requireId('id', id);
      const item = await getConsistent(ctx, deliveryKeys.delivery(id), 'GetItem delivery', {
        deliveryId: id,
      });
      return item ? fromItem(ctx, item) : undefined;
    },

    async claim(id, now, leaseMs): Promise<ClaimResult> {
      requireId('id', id);
      if (!Number.isInteger(leaseMs) || leaseMs <= 0)
        throw invalidInput('leaseMs', 'must be a positive integer');
      const nowIso = new Date(now).toISOString();
      const lease = new Date(now + leaseMs).toISOString();
      try {
        const out = await doc.send(
          new UpdateCommand({
            TableName,
            Key: deliveryKeys.delivery(id),
            UpdateExpression:
              'SET attempts = attempts + :one, nextAttemptAt = :lease, gsi2sk = :gsi2sk, updatedAt = :now',
            ConditionExpression: 'attribute_exists(pk) AND #status = :pending AND nextAttemptAt <= :now',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':one': 1,
              ':lease': lease,
              ':gsi2sk': `${lease}#${id}`,
              ':now': nowIso,
              ':pending': 'pending',
            },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        if (!out.Attributes) return { kind: 'NotFound' };
        return { kind: 'Claimed', delivery: fromItem(ctx, out.Attributes) };
      } catch (error) {
        if (isConditionalCheckFailed(error)) {
          const current = conditionFailedItem(error);
          if (!current) return { kind: 'NotFound' };
          const d = fromItem(ctx, current);
          return d.status !== 'pending'
            ? { kind: 'NotPending', status: d.status }
            : { kind: 'NotDue', at: d.nextAttemptAt };
        }
        throw fail('UpdateItem delivery claim', error, id);
      }
    },

    async finish(input) {
      validateFinish(input);
      const a = input.attempt;
      const at = new Date(input.now).toISOString();
      const pending = input.status === 'pending';
      const next = input.nextAttemptAt ?? at;
      const sets = [
        '#status = :status',
        'nextAttemptAt = :next',
        'updatedAt = :at',
        'gsi1pk = :gsi1pk',
        'firstAttemptAt = if_not_exists(firstAttemptAt, :started)',
        'lastAttemptAt = :started',
      ];
      const removes: string[] = [];
      const values: Record<string, unknown> = {
        ':status': input.status,
        ':next': next,
        ':at': at,
        ':gsi1pk': deliveryKeys.ofSubscription(a.subscriptionId, input.status),
        ':started': a.startedAt,
        ':n': input.attemptNumber,
        ':pending': 'pending',
      };
      if (pending) {
        sets.push('gsi2sk = :gsi2sk');
        values[':gsi2sk'] = `${next}#${input.deliveryId}`;
      } else removes.push('gsi2pk', 'gsi2sk');
      if (a.statusCode !== undefined) {
        sets.push('lastStatusCode = :code');
        values[':code'] = a.statusCode;
      } else removes.push('lastStatusCode');
      if (a.error !== undefined) {
        sets.push('lastError = :error');
        values[':error'] = a.error;
      } else removes.push('lastError');
      if (input.status === 'succeeded') {
        sets.push('expiresAt = :ttl');
        values[':ttl'] = ttl(input.now);
      }
      try {
        await doc.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName,
                  Key: deliveryKeys.delivery(input.deliveryId),
                  UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
                  ConditionExpression: 'attribute_exists(pk) AND #status = :pending AND attempts = :n',
                  ExpressionAttributeNames: { '#status': 'status' },
                  ExpressionAttributeValues: values,
                },
              },
              {
                Put: { TableName, Item: attemptItem(a, input.now) },
              },
            ],
          }),
        );
        return true;
      } catch (error) {
        if (refusalReasons(error)?.[0]?.code === 'ConditionalCheckFailed') return false;
        throw fail('TransactWriteItems delivery finish', error, input.deliveryId);
      }
    },

    async recordAttempts(entries: readonly RecordedAttempt[]) {
      for (const e of entries) validateRecordedAttempt(e);
      // By key: one request may not put the same key twice (the last write of a key wins).
      const puts = new Map<string, { id: string; item: Item }>();
      for (const { delivery, attempt } of entries) {
        for (const item of [recordedItem(delivery), attemptItem(attempt, Date.parse(delivery.updatedAt))])
          puts.set(keyOf(item), { id: delivery.id, item });
      }
      const all = [...puts.values()];
      const chunks: (typeof all)[] = [];
      for (let i = 0; i < all.length; i += BATCH_ITEMS) chunks.push(all.slice(i, i + BATCH_ITEMS));
      const failed = new Set<string>();
      await Promise.all(
        chunks.map(async (chunk) => {
          const left = await writeChunk(
            chunk.map((p) => p.item),
            [...new Set(chunk.map((p) => p.id))],
          );
          for (const p of chunk) if (left.has(keyOf(p.item))) failed.add(p.id);
        }),
      );
      return { failed: [...failed] };
    },

    async release(id, attemptNumber, now) {
      requireId('id', id);
      const at = new Date(now).toISOString();
      const update = new UpdateCommand({
        TableName,
        Key: deliveryKeys.delivery(id),
        UpdateExpression:
          'SET attempts = attempts - :one, nextAttemptAt = :at, gsi2sk = :gsi2sk, updatedAt = :at',
        ConditionExpression: 'attribute_exists(pk) AND #status = :pending AND attempts = :n',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':one': 1,
          ':at': at,
          ':gsi2sk': `${at}#${id}`,
          ':pending': 'pending',
          ':n': attemptNumber,
        },
      });
      return writeIf(ctx, () => doc.send(update), 'UpdateItem delivery release', { deliveryId: id });
    },

    park: (id, now) => transition(id, 'pending', 'parked', now),
    resume: (id, now) => transition(id, 'parked', 'pending', now),
    cancel: (id, now) => transition(id, 'pending', 'cancelled', now),

    async listBySubscription(query) {
      requireId('subscriptionId', query.subscriptionId);
      const page = await queryPage(
        ctx,
        {
          index: INDEX.gsi1,
          partitionName: 'gsi1pk',
          partitionValue: deliveryKeys.ofSubscription(query.subscriptionId, query.status),
          sortName: 'gsi1sk',
        },
        query,
        (i) => fromItem(ctx, i),
      );
      return { ...page, items: page.items.filter((d) => d.status === query.status) };
    },

    async listDue(query) {
      requireIsoDate('before', query.before);
      const limit = requirePageLimit(query.limit);
      const after = decodeCursor(query.cursor);
      const shards = await Promise.all(
        Array.from({ length: DELIVERY_DUE_SHARDS }, (_, shard) =>
          queryRange(
            ctx,
            {
              index: INDEX.gsi2,
              partitionName: 'gsi2pk',
              partitionValue: deliveryKeys.due(shard),
              sortName: 'gsi2sk',
              // `#` < `$`: every `<before>#<id>` sorts below `<before>$`.
              to: `${query.before}$`,
              ...(after !== undefined ? { after } : {}),
            },
            limit + 1,
          ),
        ),
      );
      const merged = shards.flat().sort((a, b) => (String(a.gsi2sk) < String(b.gsi2sk) ? -1 : 1));
      const page = pageOf(merged, limit, 'gsi2sk', (i) => fromItem(ctx, i));
      return { ...page, items: page.items.filter((d) => d.status === 'pending') };
    },

    async listAttempts(query) {
      requireId('subscriptionId', query.subscriptionId);
      const limit = requirePageLimit(query.limit);
      const before = decodeCursor(query.cursor);
      validateAttemptFilter(query);
      // The sort key starts with `startedAt`: a time window is a key range. `until` (exclusive) and
      // the cursor are both upper bounds: the lower of the two applies.
      const upper = [before, query.until].filter((x): x is string => x !== undefined).sort()[0];
      const key = ['pk = :pk'];
      const values: Record<string, unknown> = { ':pk': deliveryKeys.attempts(query.subscriptionId) };
      if (upper !== undefined) values[':upper'] = upper;
      if (query.since !== undefined) values[':since'] = query.since;
      if (upper !== undefined && query.since !== undefined) key.push('sk BETWEEN :since AND :upper');
      else if (upper !== undefined) key.push('sk < :upper');
      else if (query.since !== undefined) key.push('sk >= :since');
      const filters: string[] = [];
      const names: Record<string, string> = {};
      if (query.status !== undefined) {
        names['#outcome'] = 'outcome';
        values[':success'] = 'success';
        filters.push(query.status === 'succeeded' ? '#outcome = :success' : '#outcome <> :success');
      }
      if (query.eventType !== undefined) {
        values[':eventType'] = query.eventType;
        filters.push('eventType = :eventType');
      }
      if (query.eventId !== undefined) {
        values[':eventId'] = query.eventId;
        filters.push('eventId = :eventId');
      }
      const items: Item[] = [];
      // One item past the page says whether there is a next one; the paginator stops when we do.
      const pages = paginateQuery(
        { client: doc, pageSize: limit + 1 },
        {
          TableName,
          KeyConditionExpression: key.join(' AND '),
          ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
          ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
          ExpressionAttributeValues: values,
          ScanIndexForward: false,
        },
      );
      try {
        for await (const out of pages) {
          // BETWEEN is inclusive: the cursor's (or until's) own line is not part of the page.
          items.push(...(out.Items ?? []).filter((i) => upper === undefined || String(i.sk) < upper));
          if (items.length >= limit + 1) break;
        }
      } catch (error) {
        throw storeFailure(ctx, 'Query attempts', error, { subscriptionId: query.subscriptionId });
      }
      return pageOf(items, limit, 'sk', attemptFromItem);
    },
  };
  return store;
}
