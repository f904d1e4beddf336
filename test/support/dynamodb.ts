import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { DynamoDb } from '../../functions/adapters/dynamodb/client';
import { createTable } from '../../functions/adapters/dynamodb/table';

const local = () => ({
  endpoint: inject('dynamoEndpoint'),
  region: 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

/** Carhook's own DynamoDB client (what the stores use) for the DynamoDB Local of test/setup/global.ts. */
export function localDynamoClient(): DynamoDb {
  return new DynamoDb(local());
}

/**
 * The AWS SDK's client for the same DynamoDB Local: tests that check what Carhook wrote (or how the
 * table is set up) read through it, independently of Carhook's client.
 */
export function localSdkClient(): DynamoDBClient {
  return new DynamoDBClient(local());
}

/** A table name no other test uses. */
export function uniqueTableName(prefix = 'carhook-test'): string {
  return `${prefix}-${randomUUID()}`;
}

/**
 * Carhook's table for a test on simulated time, without TTL: DynamoDB Local's TTL job deletes
 * expired items against the real clock, and the simulator's time (January 2026) makes every event,
 * lease and delivery written in a test look long expired (see `createTable`).
 */
export function createTestTable(client: DynamoDb, tableName: string): Promise<void> {
  return createTable(client, tableName, { timeToLive: false });
}
