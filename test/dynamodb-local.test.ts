import { CreateTableCommand, DescribeTableCommand, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { localSdkClient, uniqueTableName } from './support/dynamodb';

describe('DynamoDB Local test harness', () => {
  it('answers on the endpoint the global setup provides and can create a table', async () => {
    const client = localSdkClient();
    const TableName = uniqueTableName();
    await client.send(
      new CreateTableCommand({
        TableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      }),
    );
    const described = await client.send(new DescribeTableCommand({ TableName }));
    expect(described.Table?.TableStatus).toBe('ACTIVE');
    const tables = await client.send(new ListTablesCommand({}));
    expect(tables.TableNames).toContain(TableName);
  });
});
