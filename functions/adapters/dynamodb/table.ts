import {
  CreateTableCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';

/**
 * Carhook's one table (design and access patterns: ./README.md). This plain data is the single
 * source of the table's shape: `createTable` below builds the local/test table from it, and the
 * CDK stack maps it onto `TableV2` (`partitionKey`, `sortKey`, `globalSecondaryIndexes`,
 * `timeToLiveAttribute`: attribute types are the same 'S'/'N' strings as CDK's `AttributeType`).
 */
export interface KeyAttribute {
  readonly name: string;
  readonly type: 'S' | 'N';
}

export interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey: KeyAttribute;
  readonly projectionType: 'ALL';
}

export interface TableDefinition {
  readonly partitionKey: KeyAttribute;
  readonly sortKey: KeyAttribute;
  readonly globalSecondaryIndexes: readonly IndexDefinition[];
  /** Epoch seconds; DynamoDB deletes lazily (days), DynamoDB Local against the machine's clock: reads filter it. */
  readonly timeToLiveAttribute: string;
  readonly billingMode: 'PAY_PER_REQUEST';
}

export const INDEX = {
  /** Overloaded: enrollments by status, vehicles by enrollment, events by vehicle. */
  gsi1: 'gsi1',
  /** Overloaded: all enrollments, vehicles due for polling (sharded), events by day. */
  gsi2: 'gsi2',
  /** Sparse: only events not yet published carry `unpublished`. */
  unpublished: 'unpublished',
} as const;

export const tableDefinition: TableDefinition = {
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  globalSecondaryIndexes: [
    {
      indexName: INDEX.gsi1,
      partitionKey: { name: 'gsi1pk', type: 'S' },
      sortKey: { name: 'gsi1sk', type: 'S' },
      projectionType: 'ALL',
    },
    {
      indexName: INDEX.gsi2,
      partitionKey: { name: 'gsi2pk', type: 'S' },
      sortKey: { name: 'gsi2sk', type: 'S' },
      projectionType: 'ALL',
    },
    {
      indexName: INDEX.unpublished,
      partitionKey: { name: 'unpublished', type: 'S' },
      sortKey: { name: 'gsi2sk', type: 'S' },
      projectionType: 'ALL',
    },
  ],
  timeToLiveAttribute: 'expiresAt',
  billingMode: 'PAY_PER_REQUEST',
};

export function createTableInput(
  tableName: string,
  definition: TableDefinition = tableDefinition,
): CreateTableCommandInput {
  const attributes = new Map<string, 'S' | 'N'>();
  for (const key of [
    definition.partitionKey,
    definition.sortKey,
    ...definition.globalSecondaryIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  ]) {
    attributes.set(key.name, key.type);
  }
  return {
    TableName: tableName,
    BillingMode: definition.billingMode,
    AttributeDefinitions: [...attributes].map(([AttributeName, AttributeType]) => ({
      AttributeName,
      AttributeType,
    })),
    KeySchema: [
      { AttributeName: definition.partitionKey.name, KeyType: 'HASH' },
      { AttributeName: definition.sortKey.name, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: definition.globalSecondaryIndexes.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
        { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: index.projectionType },
    })),
  };
}

/**
 * Creates the table (local runtime and tests; AWS gets it from CDK), waits until it is active and
 * turns TTL on.
 */
export async function createTable(
  client: DynamoDBClient,
  tableName: string,
  options: {
    readonly maxWaitSeconds?: number;
    /**
     * Turn TTL on (default). DynamoDB Local deletes expired items in the background against the
     * machine's clock, so a table written on a simulated clock (tests, benches: the simulator's
     * January 2026) must be created without it, or its events, leases and deliveries vanish
     * moments after they are written. Reads filter expired items either way.
     */
    readonly timeToLive?: boolean;
  } = {},
): Promise<void> {
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  await waitUntilTableExists(
    { client, maxWaitTime: options.maxWaitSeconds ?? 60, minDelay: 1, maxDelay: 2 },
    { TableName: tableName },
  );
  if (options.timeToLive === false) return;
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
    }),
  );
}
