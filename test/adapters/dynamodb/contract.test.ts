import { createDynamoStores, createTable } from '../../../functions/adapters/dynamodb/index';
import { storeContract } from '../../store/contract';
import { localDynamoClient, uniqueTableName } from '../../support/dynamodb';

storeContract('DynamoDB stores', async (options) => {
  const client = localDynamoClient();
  const tableName = uniqueTableName();
  await createTable(client, tableName);
  return createDynamoStores({ client, tableName, ...options });
});
