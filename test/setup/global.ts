import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../functions/adapters/local/dynamodb-local';

/**
 * One DynamoDB Local for the whole run; tests create their own uniquely named tables on it
 * (see test/support/dynamodb.ts), so files can run in parallel without sharing state.
 */
let dynamo: DynamoDbLocal | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  dynamo = await startDynamoDbLocal();
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return async () => {
    await dynamo?.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}
