import { createDynamoStores } from '../../../functions/adapters/dynamodb/index';
import { storeContract } from '../../store/contract';
import { createSimulatedClockTable, localDynamoClient, uniqueTableName } from '../../support/dynamodb';

storeContract('DynamoDB stores', async (options) => {
  const client = localDynamoClient();
  const tableName = uniqueTableName();
  await createSimulatedClockTable(client, tableName);
  return createDynamoStores({ client, tableName, ...options });
});
