import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { createAwsRuntime, onFirstSend } from '../../functions/runtime/aws';

type Client = { send(command: string): Promise<string> };

describe('onFirstSend (clients created at their first call: issue 7)', () => {
  it('creates nothing until the first send, then one client for every later send', async () => {
    let created = 0;
    const client = onFirstSend<Client>(async () => {
      created++;
      return { send: async (command) => `sent ${command} with client ${created}` };
    });
    expect(created).toBe(0);
    const [a, b] = await Promise.all([client.send('a'), client.send('b')]);
    expect([a, b, await client.send('c')]).toEqual([
      'sent a with client 1',
      'sent b with client 1',
      'sent c with client 1',
    ]);
    expect(created).toBe(1);
  });

  it('reports a failed creation to the caller and tries again on the next send', async () => {
    let attempts = 0;
    const client = onFirstSend<Client>(async () => {
      attempts++;
      if (attempts === 1) throw Object.assign(new Error('package not found'), { name: 'LoadError' });
      return { send: async (command) => `sent ${command}` };
    });
    await expect(client.send('a')).rejects.toMatchObject({ name: 'LoadError' });
    expect(await client.send('b')).toBe('sent b');
    expect(attempts).toBe(2);
  });

  it('passes a rejection of the real client through unchanged', async () => {
    const refused = Object.assign(new Error('denied'), { name: 'AccessDeniedException' });
    const client = onFirstSend<Client>(async () => ({ send: () => Promise.reject(refused) }));
    await expect(client.send('a')).rejects.toBe(refused);
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
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  });

  it('creates Carhook’s DynamoDB client and the real EventBridge, Secrets Manager and SQS clients at their first call, and they work', async () => {
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
        env: {
          CARHOOK_TABLE_NAME: 'carhook-test',
          CARHOOK_API_BASE_URL: 'https://api.example.net',
          CARHOOK_AUTH_URL: 'https://id.example.net',
          CARHOOK_BRANDS: 'cielo',
        },
        needs: [],
      });
      expect(aws.targets).toEqual([]);
      // Carhook's DynamoDB client honours AWS_ENDPOINT_URL (as the SDK does), region and keys from the env.
      const got = await runtime.clients.dynamodb.call('GetItem', {
        TableName: 'carhook-test',
        Key: { pk: { S: 'VEH#v1' }, sk: { S: 'VEH' } },
      });
      expect(got).toEqual({ Item: { pk: { S: 'VEH#v1' }, sk: { S: 'VEH' } } });
      expect(aws.authorizations[0]).toMatch(
        /^AWS4-HMAC-SHA256 Credential=test\/\d{8}\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/,
      );
      const put = await runtime.clients.eventBridge.send(
        new PutEventsCommand({ Entries: [{ Source: 'carhook', DetailType: 'webhook.test', Detail: '{}' }] }),
      );
      expect(put.Entries?.[0]?.EventId).toBe('eb-1');
      const secret = await runtime.clients.secretsManager.send(
        new GetSecretValueCommand({ SecretId: 'carhook/api-client' }),
      );
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
