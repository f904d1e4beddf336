/**
 * DynamoDB Local for the benches and tests: a per-operation request counter on Carhook's client,
 * and the table for a run on the simulator's clock.
 */
import type { DynamoDb, DynamoOperation } from '../../functions/adapters/dynamodb/client';
import { createTable } from '../../functions/adapters/dynamodb/table';

/**
 * Counts every request the client sends, by DynamoDB operation (`UpdateItem`, `Query`…), into
 * `into`; `when` (default: always) switches counting on and off; `inspect` sees each request body
 * (marshalled, as sent).
 */
export function countRequests(
  client: DynamoDb,
  into: Record<string, number> = {},
  options: {
    readonly when?: () => boolean;
    readonly inspect?: (operation: DynamoOperation, body: unknown) => void;
  } = {},
): Record<string, number> {
  client.use((operation, body, next) => {
    if (options.when?.() ?? true) {
      into[operation] = (into[operation] ?? 0) + 1;
      options.inspect?.(operation, body);
    }
    return next(body);
  });
  return into;
}

/**
 * Carhook's table for a run on the simulator's clock, without TTL: DynamoDB Local deletes expired
 * items against the machine's clock, and the simulator's January 2026 makes every event, lease and
 * delivery look long expired (see `createTable`).
 */
export function createSimulatedClockTable(client: DynamoDb, tableName: string): Promise<void> {
  return createTable(client, tableName, { timeToLive: false });
}
