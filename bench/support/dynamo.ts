/**
 * DynamoDB Local for the benches: Carhook's own client (what the stores use in both runtimes) and
 * a per-operation request counter on it.
 */
import { DynamoDb, type DynamoOperation } from '../../functions/adapters/dynamodb/client';
import { createTable } from '../../functions/adapters/dynamodb/table';

/** Carhook's DynamoDB client for a DynamoDB Local endpoint. */
export function localDynamoDb(endpoint: string): DynamoDb {
  return new DynamoDb({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

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
 * Carhook's table for a bench on the simulator's clock, without TTL: DynamoDB Local deletes
 * expired items against the machine's clock, and simulated January 2026 looks long expired.
 */
export function createBenchTable(client: DynamoDb, tableName: string): Promise<void> {
  return createTable(client, tableName, { timeToLive: false });
}
