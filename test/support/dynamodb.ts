import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';

/** A client for the DynamoDB Local started by test/setup/global.ts. */
export function localDynamoClient(): DynamoDBClient {
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
