import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { requireId, requireIsoDate } from '../../core/store/logic';
import { MAX_FAILURE_ERROR, validateSubscription } from '../../core/subscriptions/logic';
import type { SubscriptionStore } from '../../core/subscriptions/ports';
import type { SubscriptionChanges, SubscriptionRecord } from '../../core/subscriptions/records';
import type { SubscriptionHealth } from '../../core/webhooks/policy';
import { ATTEMPT_OUTCOMES, type AttemptOutcome } from '../../core/webhooks/sender';
import {
  getConsistent,
  type Item,
  isConditionalCheckFailed,
  malformed,
  putIfAbsent,
  queryPage,
  queryRange,
  storeFailure,
  type TableContext,
  writeIf,
} from './common';
import { INDEX } from './table';

/**
 * Webhook subscriptions on the single table (README "Webhooks"):
 * `SUB#<id>` / `SUB`; gsi1 `SUBSTATUS#<status>` / `<id>` (the fan-out's active list);
 * gsi2 `SUBSCRIPTIONS` / `<id>` (the management list, creation order). The secret is only ever
 * the ciphertext `secretCiphertext`.
 */
export const subscriptionKeys = {
  subscription: (id: string) => ({ pk: `SUB#${id}`, sk: 'SUB' }),
  byStatus: (status: string) => `SUBSTATUS#${status}`,
  all: 'SUBSCRIPTIONS',
} as const;

const OPTIONAL_LISTS = ['eventTypes', 'vehicleIds', 'enrollmentIds'] as const;

function toItem(s: SubscriptionRecord): Item {
  const { health, ...rest } = s;
  return {
    ...subscriptionKeys.subscription(s.id),
    entity: 'Subscription',
    ...rest,
    ...(health.firstFailureAt ? { firstFailureAt: health.firstFailureAt } : {}),
    ...(health.lastSuccessAt ? { lastSuccessAt: health.lastSuccessAt } : {}),
    ...(health.consecutiveFailures ? { consecutiveFailures: health.consecutiveFailures } : {}),
    ...(health.lastFailure
      ? {
          lastFailureAt: health.lastFailure.at,
          lastFailureOutcome: health.lastFailure.outcome,
          ...(health.lastFailure.statusCode !== undefined
            ? { lastFailureStatus: health.lastFailure.statusCode }
            : {}),
          ...(health.lastFailure.error !== undefined ? { lastFailureError: health.lastFailure.error } : {}),
        }
      : {}),
    gsi1pk: subscriptionKeys.byStatus(s.status),
    gsi1sk: s.id,
    gsi2pk: subscriptionKeys.all,
    gsi2sk: s.id,
  };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const strList = (v: unknown): string[] | undefined =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;

function fromItem(ctx: TableContext, item: Item): SubscriptionRecord {
  const id = str(item.id);
  const key = String(item.pk);
  for (const field of ['id', 'url', 'status', 'secretCiphertext', 'createdAt', 'updatedAt']) {
    if (typeof item[field] !== 'string') throw malformed(ctx, 'subscription', field, key);
  }
  const status = item.status === 'disabled' ? 'disabled' : item.status === 'active' ? 'active' : undefined;
  if (!status || !id) throw malformed(ctx, 'subscription', 'status', key);
  const lastFailureAt = str(item.lastFailureAt);
  const outcome = str(item.lastFailureOutcome);
  const health: SubscriptionHealth = {
    ...(str(item.firstFailureAt) ? { firstFailureAt: str(item.firstFailureAt) } : {}),
    ...(str(item.lastSuccessAt) ? { lastSuccessAt: str(item.lastSuccessAt) } : {}),
    ...(typeof item.consecutiveFailures === 'number' && item.consecutiveFailures > 0
      ? { consecutiveFailures: item.consecutiveFailures }
      : {}),
    ...(lastFailureAt && outcome && (ATTEMPT_OUTCOMES as readonly string[]).includes(outcome)
      ? {
          lastFailure: {
            at: lastFailureAt,
            outcome: outcome as AttemptOutcome,
            ...(typeof item.lastFailureStatus === 'number' ? { statusCode: item.lastFailureStatus } : {}),
            ...(str(item.lastFailureError) !== undefined ? { error: str(item.lastFailureError) } : {}),
          },
        }
      : {}),
  };
  const out: Record<string, unknown> = {
    id,
    url: item.url,
    status,
    secretCiphertext: item.secretCiphertext,
    health,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  };
  for (const f of OPTIONAL_LISTS) {
    const list = strList(item[f]);
    if (list) out[f] = list;
  }
  for (const f of ['description', 'disabledReason', 'disabledAt'])
    if (str(item[f]) !== undefined) out[f] = item[f];
  return out as unknown as SubscriptionRecord;
}

export function createDynamoSubscriptionStore(ctx: TableContext): SubscriptionStore {
  const { doc, tableName: TableName } = ctx;
  const fail = (op: string, error: unknown, id?: string) =>
    storeFailure(ctx, op, error, id ? { subscriptionId: id } : {});

  async function transition(
    id: string,
    op: string,
    update: string,
    condition: string,
    names: Record<string, string>,
    values: Record<string, unknown>,
  ): Promise<boolean> {
    requireId('id', id);
    const command = new UpdateCommand({
      TableName,
      Key: subscriptionKeys.subscription(id),
      UpdateExpression: update,
      ConditionExpression: `attribute_exists(pk) AND ${condition}`,
      ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
    });
    return writeIf(ctx, () => doc.send(command), op, { subscriptionId: id });
  }

  return {
    async create(s) {
      validateSubscription(s);
      return putIfAbsent(ctx, toItem(s), 'PutItem subscription', { subscriptionId: s.id });
    },

    async get(id) {
      requireId('id', id);
      const item = await getConsistent(ctx, subscriptionKeys.subscription(id), 'GetItem subscription', {
        subscriptionId: id,
      });
      return item ? fromItem(ctx, item) : undefined;
    },

    async list(request = {}) {
      return queryPage(
        ctx,
        {
          index: INDEX.gsi2,
          partitionName: 'gsi2pk',
          partitionValue: subscriptionKeys.all,
          sortName: 'gsi2sk',
        },
        request,
        (i) => fromItem(ctx, i),
      );
    },

    async listActive() {
      const items = await queryRange(
        ctx,
        {
          index: INDEX.gsi1,
          partitionName: 'gsi1pk',
          partitionValue: subscriptionKeys.byStatus('active'),
          sortName: 'gsi1sk',
        },
        Number.MAX_SAFE_INTEGER,
      );
      // The GSI may lag a disable by a moment: the fan-out filters on status again (`matches`).
      return items.map((i) => fromItem(ctx, i)).filter((s) => s.status === 'active');
    },

    async update(id, changes: SubscriptionChanges, now) {
      requireId('id', id);
      if (changes.url !== undefined) requireId('url', changes.url);
      const names: Record<string, string> = { '#updatedAt': 'updatedAt' };
      const values: Record<string, unknown> = { ':updatedAt': new Date(now).toISOString() };
      const sets = ['#updatedAt = :updatedAt'];
      const removes: string[] = [];
      for (const [field, value] of Object.entries(changes)) {
        if (value === undefined) continue;
        names[`#${field}`] = field;
        if (value === null) removes.push(`#${field}`);
        else {
          values[`:${field}`] = value;
          sets.push(`#${field} = :${field}`);
        }
      }
      try {
        const out = await doc.send(
          new UpdateCommand({
            TableName,
            Key: subscriptionKeys.subscription(id),
            UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
          }),
        );
        return out.Attributes ? fromItem(ctx, out.Attributes) : undefined;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return undefined;
        throw fail('UpdateItem subscription', error, id);
      }
    },

    async disable(id, reason, now) {
      requireId('reason', reason);
      const at = new Date(now).toISOString();
      return transition(
        id,
        'UpdateItem subscription disable',
        'SET #status = :disabled, gsi1pk = :gsi1pk, disabledReason = :reason, disabledAt = :at, updatedAt = :at',
        '#status = :active',
        { '#status': 'status' },
        {
          ':disabled': 'disabled',
          ':active': 'active',
          ':gsi1pk': subscriptionKeys.byStatus('disabled'),
          ':reason': reason,
          ':at': at,
        },
      );
    },

    async enable(id, now) {
      const at = new Date(now).toISOString();
      return transition(
        id,
        'UpdateItem subscription enable',
        'SET #status = :active, gsi1pk = :gsi1pk, updatedAt = :at REMOVE disabledReason, disabledAt, firstFailureAt, consecutiveFailures',
        '#status = :disabled',
        { '#status': 'status' },
        {
          ':disabled': 'disabled',
          ':active': 'active',
          ':gsi1pk': subscriptionKeys.byStatus('active'),
          ':at': at,
        },
      );
    },

    async recordFailure(id, failure) {
      requireId('id', id);
      requireIsoDate('failure.at', failure.at);
      const values: Record<string, unknown> = {
        ':at': failure.at,
        ':outcome': failure.outcome,
        ':zero': 0,
        ':one': 1,
      };
      const sets = [
        'firstFailureAt = if_not_exists(firstFailureAt, :at)',
        'consecutiveFailures = if_not_exists(consecutiveFailures, :zero) + :one',
        'lastFailureAt = :at',
        'lastFailureOutcome = :outcome',
      ];
      const removes: string[] = [];
      if (failure.statusCode !== undefined) {
        values[':status'] = failure.statusCode;
        sets.push('lastFailureStatus = :status');
      } else removes.push('lastFailureStatus');
      if (failure.error !== undefined) {
        values[':error'] = failure.error.slice(0, MAX_FAILURE_ERROR);
        sets.push('lastFailureError = :error');
      } else removes.push('lastFailureError');
      try {
        // Every failure writes (the streak and the last failure are what the API shows at once).
        const out = await doc.send(
          new UpdateCommand({
            TableName,
            Key: subscriptionKeys.subscription(id),
            UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
          }),
        );
        return out.Attributes ? fromItem(ctx, out.Attributes).health : undefined;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return undefined;
        throw fail('UpdateItem subscription health', error, id);
      }
    },

    async recordSuccess(id, at) {
      requireIsoDate('at', at);
      return transition(
        id,
        'UpdateItem subscription health',
        'SET lastSuccessAt = :at REMOVE firstFailureAt, consecutiveFailures',
        'attribute_exists(pk)',
        {},
        { ':at': at },
      );
    },

    async delete(id) {
      requireId('id', id);
      try {
        const out = await doc.send(
          new DeleteCommand({ TableName, Key: subscriptionKeys.subscription(id), ReturnValues: 'ALL_OLD' }),
        );
        return out.Attributes !== undefined;
      } catch (error) {
        throw fail('DeleteItem subscription', error, id);
      }
    },
  };
}
