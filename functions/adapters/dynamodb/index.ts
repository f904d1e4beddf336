import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_RATE_BUDGET, type RateBudgetConfig } from '../../core/ratelimit/bucket';
import type { RateBudget } from '../../core/ratelimit/budget';
import { invalidInput } from '../../core/store/errors';
import { DEFAULT_EVENT_RETENTION_MS } from '../../core/store/logic';
import type { Stores } from '../../core/store/ports';
import type { TableContext } from './common';
import { createDynamoDeliveryStore } from './deliveries';
import { createDynamoEnrollmentStore } from './enrollments';
import { createDynamoEventLog } from './events';
import { createDynamoLeaseStore } from './leases';
import { createDynamoRateBudget } from './rate-budget';
import { createDynamoVehicleStateStore } from './states';
import { createDynamoSubscriptionStore } from './subscriptions';
import { createDynamoVehicleStore } from './vehicles';

export { createTable, createTableInput, INDEX, tableDefinition } from './table';

/** Default partitions of the due index (README "Hot partitions"). */
export const DEFAULT_DUE_SHARDS = 4;

export interface DynamoStoreOptions {
  /** The AWS SDK's DynamoDB client (the process's, from runtime/aws-clients.ts, or DynamoDB Local's). */
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** Event log retention (default 30 days). */
  readonly eventRetentionMs?: number;
  /** Partitions of the due-for-polling index (default 4). Fixed for the life of a table. */
  readonly dueShards?: number;
  readonly rateBudget?: RateBudgetConfig;
}

/**
 * lib-dynamodb's document client: items as plain objects; attributes set to `undefined` are left
 * out (never written as NULL). It shares `client`'s configuration and middleware stack.
 */
export function documentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
}

/** The DynamoDB operations that write items (what write counters count). */
export const WRITE_OPERATIONS: ReadonlySet<string> = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
]);

/** Every store port and the rate budget over one table. */
export function createDynamoStores(
  options: DynamoStoreOptions,
): Stores & { readonly rateBudget: RateBudget } {
  const dueShards = options.dueShards ?? DEFAULT_DUE_SHARDS;
  if (!Number.isInteger(dueShards) || dueShards < 1 || dueShards > 100) {
    throw invalidInput('dueShards', 'must be an integer from 1 to 100');
  }
  const eventRetentionMs = options.eventRetentionMs ?? DEFAULT_EVENT_RETENTION_MS;
  if (!Number.isInteger(eventRetentionMs) || eventRetentionMs <= 0) {
    throw invalidInput('eventRetentionMs', 'must be a positive integer');
  }
  if (options.tableName.length < 3) throw invalidInput('tableName', 'must be a DynamoDB table name');
  const ctx: TableContext = {
    doc: documentClient(options.client),
    tableName: options.tableName,
    eventRetentionMs,
    dueShards,
  };
  return {
    enrollments: createDynamoEnrollmentStore(ctx),
    vehicles: createDynamoVehicleStore(ctx),
    states: createDynamoVehicleStateStore(ctx),
    events: createDynamoEventLog(ctx),
    leases: createDynamoLeaseStore(ctx),
    rateBudget: createDynamoRateBudget(ctx, options.rateBudget ?? DEFAULT_RATE_BUDGET),
  };
}

// Webhook subscriptions and deliveries: same table, own key prefixes (README "Webhooks").
export { createDynamoDeliveryStore, DELIVERY_DUE_SHARDS, deliveryKeys } from './deliveries';
export { createDynamoSubscriptionStore, subscriptionKeys } from './subscriptions';

/** The webhook stores over one table (the poll pipeline's `createDynamoStores` is separate). */
export function createDynamoSubscriptionStores(options: Pick<DynamoStoreOptions, 'client' | 'tableName'>) {
  if (options.tableName.length < 3) throw invalidInput('tableName', 'must be a DynamoDB table name');
  const ctx: TableContext = {
    doc: documentClient(options.client),
    tableName: options.tableName,
    eventRetentionMs: DEFAULT_EVENT_RETENTION_MS,
    dueShards: DEFAULT_DUE_SHARDS,
  };
  return { subscriptions: createDynamoSubscriptionStore(ctx), deliveries: createDynamoDeliveryStore(ctx) };
}
