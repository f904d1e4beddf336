/**
 * What the Lambda handlers run against in tests: DynamoDB Local (a table per test), the simulator
 * (manual clock), fake EventBridge / SQS clients (`{ send }`) and a stubbed Secrets Manager client
 * that record every call. Events are built as AWS sends them.
 */

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type {
  PutEventsCommand,
  PutEventsCommandOutput,
  PutEventsRequestEntry,
} from '@aws-sdk/client-eventbridge';
import type { SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, Context, SQSEvent, SQSRecord } from 'aws-lambda';
import type { SqsClientLike, SqsCommand } from '../../functions/adapters/sqs/queue';
import { generateKey } from '../../functions/core/crypto/token-cipher';
import { type AwsRuntime, createAwsRuntime } from '../../functions/runtime/aws';
import { type AwsPlanner, createAwsPlanner } from '../../functions/runtime/aws-planner';
import type { ConfigNeed } from '../../functions/runtime/config';
import { createWebhooks } from '../../functions/runtime/webhooks';
import { type RunningSimulator, startSimulator } from '../../sim';
import { recordingSink } from '../runtime/support';
import { createSimulatedClockTable, localDynamoClient, uniqueTableName } from '../support/dynamodb';
import { stubbedSecretsManager } from '../support/secrets';
import { loopbackAllowList } from '../webhooks/receiver';

export const ACCOUNT = '123456789012';
export const POLL_QUEUE_ARN = `arn:aws:sqs:eu-west-1:${ACCOUNT}:carhook-poll-jobs`;
export const POLL_QUEUE_URL = `https://sqs.eu-west-1.amazonaws.com/${ACCOUNT}/carhook-poll-jobs`;
export const FANOUT_QUEUE_ARN = `arn:aws:sqs:eu-west-1:${ACCOUNT}:carhook-fan-out`;
export const DELIVERY_QUEUE_ARN = `arn:aws:sqs:eu-west-1:${ACCOUNT}:carhook-deliveries`;
export const DELIVERY_QUEUE_URL = `https://sqs.eu-west-1.amazonaws.com/${ACCOUNT}/carhook-deliveries`;
const secretArn = (name: string) =>
  `arn:aws:secretsmanager:eu-west-1:${ACCOUNT}:secret:carhook/${name}-AbCdEf`;
export const SECRET_ARNS = {
  apiClient: secretArn('api-client'),
  keyRing: secretArn('token-keys'),
  map: secretArn('map'),
};

export class FakeEventBridge {
  readonly entries: PutEventsRequestEntry[] = [];
  failing = false;
  async send(command: PutEventsCommand): Promise<PutEventsCommandOutput> {
    const entries = command.input.Entries ?? [];
    if (this.failing) {
      return {
        FailedEntryCount: entries.length,
        Entries: entries.map(() => ({ ErrorCode: 'InternalFailure', ErrorMessage: 'test outage' })),
        $metadata: {},
      };
    }
    this.entries.push(...entries);
    return {
      FailedEntryCount: 0,
      Entries: entries.map((_, i) => ({ EventId: `eb-${this.entries.length}-${i}` })),
      $metadata: {},
    };
  }
  detailTypes(): string[] {
    return this.entries.map((e) => e.DetailType ?? '');
  }
}

export class FakeSqs implements SqsClientLike {
  readonly sent: SendMessageBatchRequestEntry[] = [];
  readonly visibilityChanges: { receipt: string; seconds: number }[] = [];
  // biome-ignore lint/suspicious/noExplicitAny: the union of SQS outputs; only the fields the adapter reads are set.
  async send(command: SqsCommand): Promise<any> {
    const input = command.input as {
      Entries?: SendMessageBatchRequestEntry[];
      ReceiptHandle?: string;
      VisibilityTimeout?: number;
    };
    if (input.Entries) {
      this.sent.push(...input.Entries);
      return {
        Successful: input.Entries.map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}`, MD5OfMessageBody: '' })),
        Failed: [],
        $metadata: {},
      };
    }
    if (input.ReceiptHandle !== undefined) {
      this.visibilityChanges.push({ receipt: input.ReceiptHandle, seconds: input.VisibilityTimeout ?? 0 });
    }
    return { $metadata: {} };
  }
  /** The sent messages as the Lambda event source delivers them. */
  drainAsEvent(extra: SQSRecord[] = []): SQSEvent {
    const records = this.sent
      .splice(0)
      .map((e, i) => sqsRecord(e.MessageBody ?? '', `msg-${i}-${Math.random().toString(36).slice(2)}`));
    return { Records: [...records, ...extra] };
  }
}

export function sqsRecord(body: string, messageId: string, queueArn = POLL_QUEUE_ARN): SQSRecord {
  return {
    messageId,
    receiptHandle: `rh-${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(Date.now()),
      SenderId: 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'eu-west-1',
  };
}

export function lambdaContext(name: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:${ACCOUNT}:function:${name}`,
    memoryLimitInMB: '512',
    awsRequestId: `req-${Math.random().toString(36).slice(2)}`,
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'stream',
    getRemainingTimeInMillis: () => 30_000,
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

export function schedulerEvent(): Record<string, unknown> {
  return {
    version: '0',
    id: 'b2a2f5a1-0000-4000-8000-000000000000',
    'detail-type': 'Scheduled Event',
    source: 'aws.scheduler',
    account: ACCOUNT,
    time: new Date().toISOString(),
    region: 'eu-west-1',
    resources: [`arn:aws:scheduler:eu-west-1:${ACCOUNT}:schedule/default/carhook-planner`],
    detail: '{}',
  };
}

export function httpEvent(
  method: string,
  path: string,
  query = '',
  headers: Record<string, string> = {},
  body?: string,
): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: query,
    headers: { host: 'abc123.execute-api.eu-west-1.amazonaws.com', 'x-forwarded-proto': 'https', ...headers },
    requestContext: {
      accountId: ACCOUNT,
      apiId: 'abc123',
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'test' },
      requestId: 'r1',
      routeKey: '$default',
      stage: '$default',
      time: '22/Nov/2026:04:00:00 +0000',
      timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
    ...(body !== undefined ? { body } : {}),
  };
}

export interface HandlerWorld {
  readonly sim: RunningSimulator;
  readonly eventBridge: FakeEventBridge;
  readonly sqs: FakeSqs;
  /** The DynamoDB Local client every runtime of this world uses (tests reach the stores with it). */
  readonly dynamodb: DynamoDBClient;
  readonly env: Record<string, string>;
  readonly metrics: ReturnType<typeof recordingSink>;
  /**
   * The runtime of one function; `unbound` drops variables its CDK function does not get, `overrides`
   * replaces some (a secret that does not exist, say).
   */
  /** The planner function's own composition (no token manager, OAuth client or catalogue). */
  planner(): AwsPlanner;
  runtime(
    needs: readonly ConfigNeed[],
    unbound?: readonly string[],
    overrides?: Readonly<Record<string, string>>,
  ): AwsRuntime;
  close(): Promise<void>;
}

export async function startHandlerWorld(options: { apiClientSecret?: string } = {}): Promise<HandlerWorld> {
  const sim = await startSimulator({ port: 0, clock: 'manual', vehicles: 4, seed: 5 });
  const dynamodb = localDynamoClient();
  const tableName = uniqueTableName('carhook-handlers');
  await createSimulatedClockTable(dynamodb, tableName);
  const eventBridge = new FakeEventBridge();
  const sqs = new FakeSqs();
  const metrics = recordingSink();
  const secretsManager = stubbedSecretsManager({
    [SECRET_ARNS.apiClient]:
      options.apiClientSecret ?? JSON.stringify({ clientId: sim.clientId, clientSecret: sim.clientSecret }),
    [SECRET_ARNS.keyRing]: JSON.stringify({ current: 'k1', k1: generateKey() }),
    [SECRET_ARNS.map]: JSON.stringify({ username: '', password: '' }),
  });
  const env = {
    CARHOOK_TABLE_NAME: tableName,
    CARHOOK_EVENT_BUS_NAME: 'carhook-test',
    CARHOOK_EVENT_SOURCE: 'carhook',
    CARHOOK_API_BASE_URL: sim.baseUrl,
    CARHOOK_AUTH_URL: sim.authUrl,
    CARHOOK_BRANDS: 'cielo,pavo',
    CARHOOK_API_CLIENT_SECRET_ARN: SECRET_ARNS.apiClient,
    CARHOOK_TOKEN_KEY_RING_SECRET_ARN: SECRET_ARNS.keyRing,
    CARHOOK_MAP_API_SECRET_ARN: SECRET_ARNS.map,
    CARHOOK_POLL_QUEUE_URL: POLL_QUEUE_URL,
    CARHOOK_DELIVERY_QUEUE_URL: DELIVERY_QUEUE_URL,
    // The simulator only accepts loopback redirect URIs: the tests' OAuth callback origin is allowed
    // the way a deployment allows its console.
    CARHOOK_OAUTH_REDIRECT_ORIGINS: 'http://127.0.0.1:9',
  };
  return {
    sim,
    eventBridge,
    sqs,
    dynamodb,
    env,
    metrics,
    runtime: (needs, unbound = [], overrides = {}) =>
      createAwsRuntime({
        env: {
          ...Object.fromEntries(Object.entries(env).filter(([k]) => !unbound.includes(k))),
          ...overrides,
        },
        needs,
        clients: { dynamodb, eventBridge, sqs, secretsManager: () => secretsManager.client },
        metrics,
        now: () => sim.world.now(),
        webhooks: createWebhooks,
        webhookSender: { allowInsecureLoopback: true, allowList: loopbackAllowList() },
      }),
    planner: () =>
      createAwsPlanner({
        env,
        needs: ['pollQueue'],
        clients: { dynamodb, sqs, secretsManager: () => secretsManager.client },
        now: () => sim.world.now(),
      }),
    close: async () => {
      await sim.close();
      dynamodb.destroy();
    },
  };
}
