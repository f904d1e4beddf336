import { createDynamoSubscriptionStores } from '../../functions/adapters/dynamodb/index';
import { createSimulatedClockTable, localDynamoClient, uniqueTableName } from '../support/dynamodb';
import { subscriptionStoreContract } from './contract';

subscriptionStoreContract('DynamoDB subscription stores', async () => {
  const client = localDynamoClient();
  const tableName = uniqueTableName();
  await createSimulatedClockTable(client, tableName);
  return createDynamoSubscriptionStores({ client, tableName });
});
