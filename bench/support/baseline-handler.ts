/**
 * The cold-start baseline of bench/bundles.ts: the least a Lambda handler making Carhook's two
 * typical calls can be. Bare AWS SDK v3 clients created at module scope, one DynamoDB GetItem and
 * one EventBridge PutEvents per invocation; no Powertools, no validation, no code of ours. Bundled
 * with the same esbuild options as every Carhook function (lib/bundling.ts).
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';

const dynamodb = new DynamoDBClient({});
const eventBridge = new EventBridgeClient({});

export const handler = async (): Promise<{ found: boolean; published: number }> => {
  const got = await dynamodb.send(
    new GetItemCommand({
      TableName: process.env.CARHOOK_TABLE_NAME,
      Key: { pk: { S: 'BENCH#baseline' }, sk: { S: 'BENCH' } },
    }),
  );
  const put = await eventBridge.send(
    new PutEventsCommand({
      Entries: [
        {
          EventBusName: process.env.CARHOOK_EVENT_BUS_NAME,
          Source: 'carhook.bench',
          DetailType: 'bench.baseline',
          Detail: '{}',
        },
      ],
    }),
  );
  return { found: got.Item !== undefined, published: put.Entries?.length ?? 0 };
};
