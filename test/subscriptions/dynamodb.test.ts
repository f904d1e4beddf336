import { createDynamoSubscriptionStores, createTable } from '../../functions/adapters/dynamodb/index';
import { localDynamoClient, uniqueTableName } from '../support/dynamodb';
import { subscriptionStoreContract } from './contract';

subscriptionStoreContract('DynamoDB subscription stores', async () => {
  const client = localDynamoClient();
  const tableName = uniqueTableName();
  await createTable(client, tableName);
  return createDynamoSubscriptionStores({ client, tableName });
});
