import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AWS_CLIENT_SETTINGS } from '../../functions/adapters/aws/client-config';
import { createAwsRuntime } from '../../functions/runtime/aws';
import { awsClient, forgetAwsClients, onFirstSend } from '../../functions/runtime/aws-clients';
import { processTracer } from '../../functions/runtime/tracing';

/** What every function's runtime needs: the table and the API's addresses. */
const MINIMAL_ENV = {
  CARHOOK_TABLE_NAME: 'carhook-test',
  CARHOOK_API_BASE_URL: 'https://api.example.net',
  CARHOOK_AUTH_URL: 'https://id.example.net',
  CARHOOK_BRANDS: 'cielo',
};

type Client = { send(command: string): Promise<string> };

describe('onFirstSend (a client created at its first call)', () => {
  it('asks for the client only when sending, and sends through it', async () => {
    let asked = 0;
    const client = onFirstSend<Client>(() => {
      asked++;
      return { send: async (command) => `sent ${command}` };
    });
    expect(asked).toBe(0);
    expect(await client.send('a')).toBe('sent a');
    expect(asked).toBe(1);
  });

  it('passes a rejection of the real client through unchanged', async () => {
    const refused = Object.assign(new Error('denied'), { name: 'AccessDeniedException' });
    const client = onFirstSend<Client>(() => ({ send: () => Promise.reject(refused) }));
    await expect(client.send('a')).rejects.toBe(refused);
  });
});

describe('awsClient (one SDK client per service per process)', () => {
  it('creates a service’s client once, with its retry mode, attempts and timeouts', async () => {
    let created = 0;
    const make = () =>
      awsClient('dynamodb', (config) => {
        created++;
        return new DynamoDBClient({ ...config, region: 'eu-west-1' });
      });
    const first = make();
    expect(make()).toBe(first);
    expect(created).toBe(1);
    expect(await first.config.retryStrategy()).toMatchObject({ mode: 'adaptive' });
    expect(await first.config.maxAttempts()).toBe(AWS_CLIENT_SETTINGS.dynamodb.maxAttempts);
    // NodeHttpHandler resolves its options when first used; its `configProvider` holds them until then.
    const handler = first.config.requestHandler as unknown as { configProvider: Promise<unknown> };
    expect(await handler.configProvider).toMatchObject({
      connectionTimeout: AWS_CLIENT_SETTINGS.dynamodb.connectionTimeoutMs,
      requestTimeout: AWS_CLIENT_SETTINGS.dynamodb.requestTimeoutMs,
    });
  });

  it('wraps each client once with Powertools Tracer captureAWSv3Client when tracing is on (Lambda)', async () => {
    forgetAwsClients();
    const tracer = await processTracer();
    if (!tracer) throw new Error('outside a bundle the Tracer always loads');
    const enabled = vi.spyOn(tracer, 'isTracingEnabled').mockReturnValue(true);
    const capture = vi.spyOn(tracer, 'captureAWSv3Client').mockImplementation((client: unknown) => client);
    try {
      const make = () => awsClient('sqs', (config) => new SQSClient({ ...config, region: 'eu-west-1' }));
      const client = make();
      expect(make()).toBe(client);
      expect(capture.mock.calls).toEqual([[client]]);
    } finally {
      enabled.mockRestore();
      capture.mockRestore();
      forgetAwsClients();
    }
  });

  it('uses the standard retry mode where throttling is not expected', async () => {
    const client = awsClient(
      'eventBridge',
      (config) => new EventBridgeClient({ ...config, region: 'eu-west-1' }),
    );
    expect(await client.config.retryStrategy()).toMatchObject({ mode: 'standard' });
  });
});

/** A loopback stand-in for the AWS JSON APIs: records each call's `X-Amz-Target`, answers from `replies`. */
async function startFakeAws(replies: Record<string, unknown>) {
  const targets: string[] = [];
  const authorizations: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      targets.push(target);
      authorizations.push(String(req.headers.authorization ?? ''));
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(replies[target] ?? {}));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { targets, authorizations, endpoint: `http://127.0.0.1:${port}`, close: () => server.close() };
}

describe('createAwsRuntime without injected clients', () => {
  const saved = { ...process.env };
  afterEach(() => {
    forgetAwsClients();
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  });

  it('says which client a function was built without, at its first use', async () => {
    forgetAwsClients();
    const runtime = createAwsRuntime({
      env: MINIMAL_ENV,
      needs: [],
      services: { dynamodb: (c) => new DynamoDBClient({ ...c, region: 'eu-west-1' }) },
    });
    await expect(
      (async () => runtime.clients.eventBridge.send(new PutEventsCommand({ Entries: [] }) as never))(),
    ).rejects.toThrow('services.eventBridge: this function was built without that client');
    expect(() => runtime.clients.secretsManager()).toThrow('services.secretsManager');
    forgetAwsClients();
  });

  it('creates the SDK’s DynamoDB, EventBridge, Secrets Manager and SQS clients, signed with the env credentials, and they work', async () => {
    const aws = await startFakeAws({
      'AWSEvents.PutEvents': { FailedEntryCount: 0, Entries: [{ EventId: 'eb-1' }] },
      'secretsmanager.GetSecretValue': { Name: 'carhook/api-client', SecretString: '{"clientId":"c"}' },
      'DynamoDB_20120810.GetItem': { Item: { pk: { S: 'VEH#v1' }, sk: { S: 'VEH' } } },
    });
    try {
      // The SDK reads its endpoint and credentials from the process environment, as on Lambda.
      Object.assign(process.env, {
        AWS_ENDPOINT_URL: aws.endpoint,
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
      });
      const runtime = createAwsRuntime({
        env: MINIMAL_ENV,
        needs: [],
        // As the handlers list them (functions/handlers/*.ts): each client from its own package.
        services: {
          dynamodb: (c) => new DynamoDBClient(c),
          eventBridge: (c) => new EventBridgeClient(c),
          sqs: (c) => new SQSClient(c),
          secretsManager: (c) => new SecretsManagerClient(c),
        },
      });
      expect(aws.targets).toEqual([]);
      const got = await runtime.clients.dynamodb.send(
        new GetItemCommand({ TableName: 'carhook-test', Key: { pk: { S: 'VEH#v1' }, sk: { S: 'VEH' } } }),
      );
      expect(got.Item).toEqual({ pk: { S: 'VEH#v1' }, sk: { S: 'VEH' } });
      expect(aws.authorizations[0]).toMatch(
        /^AWS4-HMAC-SHA256 Credential=test\/\d{8}\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/,
      );
      const put = await runtime.clients.eventBridge.send(
        new PutEventsCommand({ Entries: [{ Source: 'carhook', DetailType: 'webhook.test', Detail: '{}' }] }),
      );
      expect(put.Entries?.[0]?.EventId).toBe('eb-1');
      const secret = await runtime.clients
        .secretsManager()
        .send(new GetSecretValueCommand({ SecretId: 'carhook/api-client' }));
      expect(secret.SecretString).toBe('{"clientId":"c"}');
      await runtime.clients.sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: `${aws.endpoint}/123456789012/carhook-poll-jobs`,
          ReceiptHandle: 'rh-1',
          VisibilityTimeout: 30,
        }),
      );
      expect(aws.targets).toEqual([
        'DynamoDB_20120810.GetItem',
        'AWSEvents.PutEvents',
        'secretsmanager.GetSecretValue',
        'AmazonSQS.ChangeMessageVisibility',
      ]);
    } finally {
      aws.close();
    }
  });
});
