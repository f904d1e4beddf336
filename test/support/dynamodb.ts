import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { dynamoDbLocalClient } from '../../functions/adapters/local/dynamodb-local';

export { createSimulatedClockTable, onDynamoCall } from '../../bench/support/dynamo';

/** The AWS SDK's DynamoDB client (what the stores use) for the DynamoDB Local of test/setup/global.ts. */
export function localDynamoClient(): DynamoDBClient {
  return dynamoDbLocalClient(inject('dynamoEndpoint'));
}

/**
 * A second, separate client for the same DynamoDB Local: tests that check what Carhook wrote (or
 * how the table is set up) read through it, with none of the middleware a test added to the first.
 */
export function localSdkClient(): DynamoDBClient {
  return dynamoDbLocalClient(inject('dynamoEndpoint'));
}

/** A table name no other test uses. */
export function uniqueTableName(prefix = 'carhook-test'): string {
  return `${prefix}-${randomUUID()}`;
}
