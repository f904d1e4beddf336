import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { invalidInput } from '../../core/store/errors';
import { requireEpochMs, requireId } from '../../core/store/logic';
import type { LeaseStore } from '../../core/store/ports';
import { keys, type TableContext, writeIf } from './common';

/** TTL cleans abandoned leases well after they expired (the condition, not TTL, decides ownership). */
const LEASE_TTL_SLACK_SECONDS = 3600;

/**
 * A lease is one item; taking it is one conditional PutItem, so of any number of concurrent
 * acquirers exactly one wins (e.g. the refresh of a user's rotating refresh token). The lease
 * time is in milliseconds (`leaseUntil`); `expiresAt` is only the TTL clean-up, in seconds.
 */
export function createDynamoLeaseStore(ctx: TableContext): LeaseStore {
  const { tableName: TableName, doc } = ctx;
  return {
    async acquire(name, owner, ttlMs, now) {
      requireId('name', name);
      requireId('owner', owner);
      requireEpochMs('now', now);
      if (!Number.isInteger(ttlMs) || ttlMs <= 0) throw invalidInput('ttlMs', 'must be a positive integer');
      const leaseUntil = now + ttlMs;
      const put = new PutCommand({
        TableName,
        Item: {
          ...keys.lease(name),
          entity: 'Lease',
          name,
          owner,
          leaseUntil,
          expiresAt: Math.ceil(leaseUntil / 1000) + LEASE_TTL_SLACK_SECONDS,
        },
        // Free, expired, or renewed by its holder.
        ConditionExpression: 'attribute_not_exists(pk) OR #leaseUntil <= :now OR #owner = :owner',
        ExpressionAttributeNames: { '#leaseUntil': 'leaseUntil', '#owner': 'owner' },
        ExpressionAttributeValues: { ':now': now, ':owner': owner },
      });
      return writeIf(ctx, () => doc.send(put), 'PutItem lease', { lease: name });
    },

    async release(name, owner) {
      requireId('name', name);
      requireId('owner', owner);
      const remove = new DeleteCommand({
        TableName,
        Key: keys.lease(name),
        ConditionExpression: '#owner = :owner',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': owner },
      });
      return writeIf(ctx, () => doc.send(remove), 'DeleteItem lease', { lease: name });
    },
  };
}
