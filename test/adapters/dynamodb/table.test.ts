import { DescribeTableCommand, DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { createDynamoStores, createTable, tableDefinition } from '../../../functions/adapters/dynamodb/index';
import { StoreError } from '../../../functions/core/store/errors';
import { envelope, newVehicle, T0 } from '../../store/fixtures';
import { localDynamoClient, localSdkClient, uniqueTableName } from '../../support/dynamodb';

describe('the Carhook table', () => {
  it('is created from the exported definition: keys, every GSI and TTL on expiresAt', async () => {
    const TableName = uniqueTableName();
    await createTable(localDynamoClient(), TableName);
    // Read back through a second client: what createTable asked for is what the table has.
    const client = localSdkClient();
    const { Table } = await client.send(new DescribeTableCommand({ TableName }));
    expect(Table?.TableStatus).toBe('ACTIVE');
    expect(Table?.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort()).toEqual(
      tableDefinition.globalSecondaryIndexes.map((index) => index.indexName).sort(),
    );
    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName }));
    expect(ttl.TimeToLiveDescription).toMatchObject({
      AttributeName: 'expiresAt',
      TimeToLiveStatus: 'ENABLED',
    });
  });

  it('leaves TTL off when asked: DynamoDB Local would delete simulated-time items against the real clock', async () => {
    const TableName = uniqueTableName();
    await createTable(localDynamoClient(), TableName, { timeToLive: false });
    const ttl = await localSdkClient().send(new DescribeTimeToLiveCommand({ TableName }));
    expect(ttl.TimeToLiveDescription?.TimeToLiveStatus).toBe('DISABLED');
  });

  it('reports a DynamoDB failure as a StoreFailure naming the table and the operation', async () => {
    const tableName = uniqueTableName('missing');
    const stores = createDynamoStores({ client: localDynamoClient(), tableName });
    const failure = await stores.vehicles.get('veh-1').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreError);
    expect(failure).toMatchObject({
      kind: 'StoreFailure',
      context: {
        table: tableName,
        operation: 'GetItem vehicle',
        awsError: 'ResourceNotFoundException',
        vehicleId: 'veh-1',
      },
    });
    await expect(
      stores.states.commitPoll({
        vehicleId: 'v',
        expectedVersion: 0,
        state: 's',
        stateFormat: 'f',
        events: [envelope('e')],
        now: T0,
      }),
    ).rejects.toMatchObject({ kind: 'StoreFailure', context: { table: tableName } });
    await expect(stores.vehicles.put(newVehicle('v', 'e', T0), T0)).rejects.toMatchObject({
      kind: 'StoreFailure',
    });
  });

  it('refuses options that would break the key design', () => {
    const client = localDynamoClient();
    expect(() => createDynamoStores({ client, tableName: 't-1', dueShards: 0 })).toThrow(/dueShards/);
    expect(() => createDynamoStores({ client, tableName: 't-1', eventRetentionMs: -1 })).toThrow(
      /eventRetentionMs/,
    );
  });
});
