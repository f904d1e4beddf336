/**
 * DynamoDB Local for the benches and tests: SDK middleware that sees (and may replace) every
 * DynamoDB call, a per-operation request counter built on it, and the table for a run on the
 * simulator's clock.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createTable } from '../../functions/adapters/dynamodb/table';

/**
 * One DynamoDB call: `next()` sends it on (through the SDK's retries) and resolves to the SDK's
 * `{ output }`; the hook may throw instead.
 */
export type DynamoHook = (
  operation: string,
  input: Record<string, unknown>,
  next: () => Promise<unknown>,
) => Promise<unknown>;

/**
 * Adds `hook` to the client's middleware stack at the SDK's `initialize` step: once per call, before
 * the SDK's retries (so counting sees calls, not attempts, and a thrown error is what the caller
 * gets after them). The document clients built on `client` share its stack. `operation` is
 * DynamoDB's name (`UpdateItem`, `Query`…); `input` is the request as the caller gave it (plain
 * values from a document client: lib-dynamodb marshals later, in the serialize step).
 */
export function onDynamoCall(client: DynamoDBClient, hook: DynamoHook): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName ?? '').replace(/Command$/, '');
      return (await hook(operation, args.input as Record<string, unknown>, () => next(args))) as Awaited<
        ReturnType<typeof next>
      >;
    },
    { step: 'initialize' },
  );
}

/**
 * Counts every call the client sends, by DynamoDB operation (`UpdateItem`, `Query`…), into `into`;
 * `when` (default: always) switches counting on and off; `inspect` sees each request.
 */
export function countRequests(
  client: DynamoDBClient,
  into: Record<string, number> = {},
  options: {
    readonly when?: () => boolean;
    readonly inspect?: (operation: string, input: unknown) => void;
  } = {},
): Record<string, number> {
  onDynamoCall(client, (operation, input, next) => {
    if (options.when?.() ?? true) {
      into[operation] = (into[operation] ?? 0) + 1;
      options.inspect?.(operation, input);
    }
    return next();
  });
  return into;
}

/**
 * Carhook's table for a run on the simulator's clock, without TTL: DynamoDB Local deletes expired
 * items against the machine's clock, and the simulator's January 2026 makes every event, lease and
 * delivery look long expired (see `createTable`).
 */
export function createSimulatedClockTable(client: DynamoDBClient, tableName: string): Promise<void> {
  return createTable(client, tableName, { timeToLive: false });
}
