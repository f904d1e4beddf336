import { expect } from 'vitest';
import { DynamoDbError } from '../../../functions/adapters/dynamodb/client';

/** The DynamoDbError a call rejects with (fails the test if it resolves or rejects with anything else). */
export const callError = async (promise: Promise<unknown>): Promise<DynamoDbError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DynamoDbError);
  return error as DynamoDbError;
};
