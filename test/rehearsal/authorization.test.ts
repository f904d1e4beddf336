import { describe, expect, it } from 'vitest';
import { authorizationChecks, UnmappedRequestError } from '../../bin/rehearsal/authorization';

const deployment = {
  region: 'eu-west-1',
  account: '123456789012',
  secrets: [
    {
      logicalId: 'Ring',
      arn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ring-AbCdEf',
      name: 'ring',
      kmsKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/k',
    },
  ],
};
const table = 'arn:aws:dynamodb:eu-west-1:123456789012:table/t';

describe('what IAM authorizes for one request', () => {
  it('DynamoDB: a transaction as its item actions, a batch per table, a query on an index as the index', () => {
    expect(
      authorizationChecks(
        'dynamodb',
        'TransactWriteItems',
        {
          TransactItems: [
            { Put: { TableName: 't' } },
            { Update: { TableName: 't' } },
            { ConditionCheck: { TableName: 'u' } },
          ],
        },
        deployment,
      ).map((c) => `${c.action} ${c.resource}`),
    ).toEqual([
      `dynamodb:PutItem ${table}`,
      `dynamodb:UpdateItem ${table}`,
      'dynamodb:ConditionCheckItem arn:aws:dynamodb:eu-west-1:123456789012:table/u',
    ]);
    expect(
      authorizationChecks('dynamodb', 'BatchWriteItem', { RequestItems: { t: [] } }, deployment),
    ).toEqual([{ action: 'dynamodb:BatchWriteItem', resource: table, context: {} }]);
    expect(
      authorizationChecks('dynamodb', 'Query', { TableName: 't', IndexName: 'gsi1' }, deployment),
    ).toEqual([{ action: 'dynamodb:Query', resource: `${table}/index/gsi1`, context: {} }]);
    expect(() =>
      authorizationChecks('dynamodb', 'ExecuteStatement', { Statement: 'SELECT' }, deployment),
    ).toThrow(UnmappedRequestError);
  });

  it('SQS: a batch as its single action, on the queue of the URL', () => {
    expect(
      authorizationChecks(
        'sqs',
        'SendMessageBatch',
        { QueueUrl: 'http://127.0.0.1:1/123456789012/jobs' },
        deployment,
      ),
    ).toEqual([
      { action: 'sqs:SendMessage', resource: 'arn:aws:sqs:eu-west-1:123456789012:jobs', context: {} },
    ]);
  });

  it('EventBridge: each PutEvents entry on its bus with its source and detail type', () => {
    expect(
      authorizationChecks(
        'events',
        'PutEvents',
        {
          Entries: [
            { EventBusName: 'bus', Source: 'carhook', DetailType: 'vehicle.alert.raised' },
            { Source: 'other', DetailType: 'x' },
          ],
        },
        deployment,
      ),
    ).toEqual([
      {
        action: 'events:PutEvents',
        resource: 'arn:aws:events:eu-west-1:123456789012:event-bus/bus',
        context: { 'events:source': ['carhook'], 'events:detail-type': ['vehicle.alert.raised'] },
      },
      {
        action: 'events:PutEvents',
        resource: 'arn:aws:events:eu-west-1:123456789012:event-bus/default',
        context: { 'events:source': ['other'], 'events:detail-type': ['x'] },
      },
    ]);
  });

  it('Secrets Manager: a read of a secret under a customer key also decrypts with it, through Secrets Manager', () => {
    const checks = authorizationChecks(
      'secretsmanager',
      'GetSecretValue',
      { SecretId: deployment.secrets[0]?.arn },
      deployment,
    );
    expect(checks).toEqual([
      { action: 'secretsmanager:GetSecretValue', resource: deployment.secrets[0]?.arn, context: {} },
      {
        action: 'kms:Decrypt',
        resource: 'arn:aws:kms:eu-west-1:123456789012:key/k',
        context: { 'kms:ViaService': 'secretsmanager.eu-west-1.amazonaws.com' },
      },
    ]);
    expect(() =>
      authorizationChecks('secretsmanager', 'GetSecretValue', { SecretId: 'other' }, deployment),
    ).toThrow(/SecretId other is not a secret of this deployment/);
    expect(() => authorizationChecks('s3', 'GetObject', {}, deployment)).toThrow(/does not authorize/);
  });
});
