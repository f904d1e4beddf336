import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import type { DynamoDb } from '../../functions/adapters/dynamodb/client';
import { dynamoDbLocalClient } from '../../functions/adapters/local/dynamodb-local';

export { createSimulatedClockTable } from '../../bench/support/dynamo';

/** Carhook's own DynamoDB client (what the stores use) for the DynamoDB Local of test/setup/global.ts. */
export function localDynamoClient(): DynamoDb {
  return dynamoDbLocalClient(inject('dynamoEndpoint'));
}

/**
 * The AWS SDK's client for the same DynamoDB Local: tests that check what Carhook wrote (or how the
 * table is set up) read through it, independently of Carhook's client.
 */
export function localSdkClient(): DynamoDBClient {
  return new DynamoDBClient({
    endpoint: inject('dynamoEndpoint'),
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** A table name no other test uses. */
export function uniqueTableName(prefix = 'carhook-test'): string {
  return `${prefix}-${randomUUID()}`;
}
