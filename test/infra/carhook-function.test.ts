import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CarhookFunction } from '../../lib/constructs/carhook-function';
import { CarhookTable } from '../../lib/constructs/carhook-table';
import { CarhookConfigError } from '../../lib/validation';
import {
  actionsOn,
  allStatements,
  FIXTURE_HANDLER,
  resourcesOf,
  roleStatements,
  type Statement,
  testApp,
  XRAY_ACTIONS,
} from './support';

/** TableV2 grantReadData: GetRecords and GetShardIterator come with it (streams; the table has none). */
const READ = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
];
const WRITE = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

describe('CarhookFunction (house NodejsFunction)', () => {
  let stack: Stack;
  let template: Template;
  let outdir: string;
  let table: CarhookTable;
  let key: Key;
  let bus: EventBus;
  let secret: Secret;
  let queue: Queue;
  let reader: CarhookFunction;
  let writer: CarhookFunction;
  let consumer: CarhookFunction;
  let importedReader: CarhookFunction;

  // One synthesis (and one esbuild per function) for the whole file.
  beforeAll(() => {
    const app = testApp({}, { bundle: true });
    outdir = app.outdir;
    stack = new Stack(app, 'FunctionTest', { env: { region: 'eu-west-1' } });
    key = new Key(stack, 'Key', { enableKeyRotation: true });
    table = new CarhookTable(stack, 'Table', {
      definition: {
        partitionKey: { name: 'pk', type: 'S' },
        sortKey: { name: 'sk', type: 'S' },
        globalSecondaryIndexes: [
          {
            indexName: 'gsi1',
            partitionKey: { name: 'gsi1pk', type: 'S' },
            sortKey: { name: 'gsi1sk', type: 'S' },
          },
        ],
        timeToLiveAttribute: 'expiresAt',
      },
      encryptionKey: key,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    bus = new EventBus(stack, 'Bus');
    secret = new Secret(stack, 'Secret', { encryptionKey: key });
    queue = new Queue(stack, 'Queue', {
      encryption: QueueEncryption.KMS,
      encryptionMasterKey: key,
      enforceSSL: true,
    });

    reader = new CarhookFunction(stack, 'Reader', { entry: FIXTURE_HANDLER }).bindTable(table, 'read');
    writer = new CarhookFunction(stack, 'Writer', {
      entry: FIXTURE_HANDLER,
      logLevel: 'DEBUG',
      serviceName: 'carhook-dev',
    })
      .bindTable(table, 'readWrite')
      .bindBus(bus, 'carhook')
      .bindSecret(secret, 'CARHOOK_API_CLIENT_SECRET_ARN')
      .bindQueue(queue, 'send', 'CARHOOK_POLL_QUEUE_URL');
    consumer = new CarhookFunction(stack, 'Consumer', { entry: FIXTURE_HANDLER }).bindQueue(queue, 'consume');
    const imported = TableV2.fromTableName(stack, 'Imported', 'other-table');
    importedReader = new CarhookFunction(stack, 'ImportedReader', { entry: FIXTURE_HANDLER }).bindTable(
      imported,
      'read',
    );
    template = Template.fromStack(stack);
  });

  const fnProps = (fn: CarhookFunction) => {
    const id = stack.getLogicalId(fn.node.defaultChild as never);
    const resource = template.toJSON().Resources[id] as { Properties: Record<string, unknown> };
    return resource.Properties;
  };
  const statements = (fn: CarhookFunction): Statement[] => roleStatements(template, stack, fn.serviceRole);
  const resolve = (v: unknown) => stack.resolve(v);
  const env = (fn: CarhookFunction) =>
    (fnProps(fn).Environment as { Variables: Record<string, unknown> }).Variables;

  it('runs Node 22 on ARM_64 with active X-Ray tracing and the memory/timeout defaults', () => {
    const props = fnProps(reader);
    expect(props.Runtime).toBe('nodejs22.x');
    expect(props.Architectures).toEqual(['arm64']);
    expect(props.TracingConfig).toEqual({ Mode: 'Active' });
    expect(props.MemorySize).toBe(512);
    expect(props.Timeout).toBe(30);
    expect(props.Handler).toBe('index.handler');
  });

  it('sets the Powertools variables, source maps, and keeps handler responses out of traces', () => {
    expect((fnProps(reader).Environment as { Variables: Record<string, unknown> }).Variables).toMatchObject({
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_SERVICE_NAME: 'carhook',
      POWERTOOLS_METRICS_NAMESPACE: 'Carhook',
      POWERTOOLS_LOG_LEVEL: 'INFO',
      POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
    });
    expect((fnProps(writer).Environment as { Variables: Record<string, unknown> }).Variables).toMatchObject({
      POWERTOOLS_SERVICE_NAME: 'carhook-dev',
      POWERTOOLS_LOG_LEVEL: 'DEBUG',
    });
    expect(fnProps(writer).LoggingConfig).toMatchObject({
      ApplicationLogLevel: 'DEBUG',
      LogFormat: 'JSON',
      SystemLogLevel: 'INFO',
    });
  });

  it('logs to its own log group with one month of retention', () => {
    expect(fnProps(reader).LoggingConfig).toMatchObject({
      LogFormat: 'JSON',
      LogGroup: resolve(reader.logGroup.logGroupName),
    });
    const groupId = stack.getLogicalId(stack.node.findChild('ReaderLogGroup').node.defaultChild as never);
    template.hasResource('AWS::Logs::LogGroup', { Properties: { RetentionInDays: 30 } });
    expect(template.toJSON().Resources[groupId].Properties.RetentionInDays).toBe(30);
  });

  it('uses a role without managed policies that may write only its own log group', () => {
    const roleId = stack.getLogicalId(reader.serviceRole.node.defaultChild as never);
    const role = template.toJSON().Resources[roleId] as { Properties: Record<string, unknown> };
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    expect(role.Properties.AssumeRolePolicyDocument).toMatchObject({
      Statement: [{ Action: 'sts:AssumeRole', Principal: { Service: 'lambda.amazonaws.com' } }],
    });
    const logs = statements(reader).find((s) => s.Action.includes('logs:PutLogEvents'));
    expect(logs).toEqual({
      Effect: 'Allow',
      Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      Resource: [resolve(reader.logGroup.logGroupArn)],
    });
  });

  it('bundles an ESM, minified bundle with a linked source map and the require banner', () => {
    const assets = readdirSync(outdir).filter((d) => d.startsWith('asset.'));
    const bundles = assets.filter((d) => readdirSync(join(outdir, d)).includes('index.mjs'));
    expect(bundles.length).toBeGreaterThan(0);
    for (const dir of bundles) {
      const files = readdirSync(join(outdir, dir));
      expect(files).toContain('index.mjs.map');
      const code = readFileSync(join(outdir, dir, 'index.mjs'), 'utf8');
      expect(code.startsWith("import { createRequire as topLevelCreateRequire } from 'node:module';")).toBe(
        true,
      );
      expect(code).toContain('fixture invoked');
      expect(code).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
      // Minified: the fixture's comments and the Logger's long identifiers are gone.
      expect(code).not.toContain('Test fixture for the house function');
      const map = JSON.parse(readFileSync(join(outdir, dir, 'index.mjs.map'), 'utf8')) as {
        sourcesContent?: unknown;
      };
      expect(map.sourcesContent).toBeUndefined();
      const kb = statSync(join(outdir, dir, 'index.mjs')).size / 1024;
      console.info(`fixture bundle ${dir}: ${kb.toFixed(1)} KB`);
      expect(kb).toBeLessThan(500);
    }
  });

  it("bindTable('read') grants only reads on the table and its named indexes, and decrypt on the table key", () => {
    const s = statements(reader);
    const tableArn = resolve(table.tableArn);
    const indexArn = resolve(`${table.tableArn}/index/gsi1`);
    expect(actionsOn(s, tableArn)).toEqual([...READ].sort());
    expect(actionsOn(s, indexArn)).toEqual([...READ].sort());
    expect(resourcesOf(s, 'dynamodb:Query')).toEqual([tableArn, indexArn]);
    expect(actionsOn(s, resolve(key.keyArn))).toEqual(['kms:Decrypt', 'kms:DescribeKey']);
    expect(s.flatMap((x) => x.Action).filter((a) => WRITE.includes(a))).toEqual([]);
    expect(env(reader).CARHOOK_TABLE_NAME).toEqual(resolve(table.tableName));
  });

  it("bindTable('readWrite') adds writes and the table key's encrypt side", () => {
    const s = statements(writer);
    expect(actionsOn(s, resolve(table.tableArn))).toEqual([...READ, ...WRITE].sort());
    expect(actionsOn(s, resolve(`${table.tableArn}/index/gsi1`))).toEqual([...READ, ...WRITE].sort());
    // The key also serves the queue (send: data key + decrypt): the union is what the role holds.
    expect(actionsOn(s, resolve(key.keyArn))).toEqual([
      'kms:Decrypt',
      'kms:DescribeKey',
      'kms:Encrypt',
      'kms:GenerateDataKey*',
      'kms:ReEncrypt*',
    ]);
  });

  it('bindTable on an imported table (indexes unknown) grants its index/* only', () => {
    const s = statements(importedReader);
    const resources = resourcesOf(s, 'dynamodb:Query');
    expect(resources).toHaveLength(2);
    expect(JSON.stringify(resources[1])).toContain('/index/*');
    expect(s.some((x) => x.Action.some((a) => a.startsWith('kms:')))).toBe(false);
  });

  it('bindBus grants PutEvents on that bus for its own source only, and sets bus name and source', () => {
    const put = statements(writer).filter((x) => x.Action.includes('events:PutEvents'));
    expect(put).toEqual([
      {
        Effect: 'Allow',
        Action: ['events:PutEvents'],
        Resource: [resolve(bus.eventBusArn)],
        Condition: { 'ForAnyValue:StringEquals': { 'events:source': 'carhook' } },
      },
    ]);
    expect(env(writer)).toMatchObject({
      CARHOOK_EVENT_BUS_NAME: resolve(bus.eventBusName),
      CARHOOK_EVENT_SOURCE: 'carhook',
    });
  });

  it('bindSecret grants read of that secret only, decrypt through Secrets Manager, and sets its ARN', () => {
    const s = statements(writer);
    expect(actionsOn(s, resolve(secret.secretArn))).toEqual([
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
    ]);
    expect(resourcesOf(s, 'secretsmanager:GetSecretValue')).toEqual([resolve(secret.secretArn)]);
    // Decrypt of the secret's key: in the role (never the key policy, see bindSecret), only via Secrets Manager.
    expect(
      s.filter((x) => x.Condition !== undefined && JSON.stringify(x.Condition).includes('kms:ViaService')),
    ).toEqual([
      {
        Effect: 'Allow',
        Action: ['kms:Decrypt'],
        Resource: [resolve(key.keyArn)],
        Condition: {
          StringEquals: { 'kms:ViaService': resolve(`secretsmanager.eu-west-1.${stack.urlSuffix}`) },
        },
      },
    ]);
    const keyPolicy =
      template.toJSON().Resources[stack.getLogicalId(key.node.defaultChild as never)].Properties.KeyPolicy;
    expect(JSON.stringify(keyPolicy)).not.toContain(
      stack.getLogicalId(writer.serviceRole.node.defaultChild as never),
    );
    expect(env(writer).CARHOOK_API_CLIENT_SECRET_ARN).toEqual(resolve(secret.secretArn));
  });

  it("bindQueue('send') and ('consume') grant the producer and consumer sides of that queue only", () => {
    expect(actionsOn(statements(writer), resolve(queue.queueArn))).toEqual([
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:SendMessage',
    ]);
    expect(actionsOn(statements(consumer), resolve(queue.queueArn))).toEqual([
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
    ]);
    expect(actionsOn(statements(consumer), resolve(key.keyArn))).toEqual(['kms:Decrypt']);
    expect(env(writer).CARHOOK_POLL_QUEUE_URL).toEqual(resolve(queue.queueUrl));
    expect(env(consumer).CARHOOK_POLL_QUEUE_URL).toBeUndefined();
  });

  it('grants wildcard actions only as the CDK key grants do (on one key), and Resource "*" only to X-Ray', () => {
    const all = allStatements(template);
    expect(all.length).toBeGreaterThan(0);
    for (const s of all) {
      for (const action of s.Action.filter((a) => a.includes('*'))) {
        expect(['kms:GenerateDataKey*', 'kms:ReEncrypt*'], `${s.policy}: ${action}`).toContain(action);
        expect(s.Resource, s.policy).toEqual([resolve(key.keyArn)]);
      }
      if (s.Resource.includes('*')) expect([...s.Action].sort(), s.policy).toEqual([...XRAY_ACTIONS].sort());
    }
  });

  it('refuses an environment variable name that is malformed, reserved, or already bound', () => {
    const other = new Stack(testApp({ 'aws:cdk:bundling-stacks': [] }), 'Errors');
    const fn = new CarhookFunction(other, 'Fn', { entry: FIXTURE_HANDLER });
    const localSecret = new Secret(other, 'Secret');
    const localTable = TableV2.fromTableName(other, 'Table', 'some-table');
    expect(() => fn.bindSecret(localSecret, 'api-secret')).toThrow(CarhookConfigError);
    expect(() => fn.bindSecret(localSecret, 'api-secret')).toThrow(
      /bindSecret\(envVar\).*upper-case.*'api-secret'/,
    );
    expect(() => fn.bindSecret(localSecret, 'AWS_REGION')).toThrow(/AWS_ prefix/);
    fn.bindSecret(localSecret, 'CARHOOK_SECRET_ARN');
    expect(() => fn.bindSecret(localSecret, 'CARHOOK_SECRET_ARN')).toThrow(/already bound/);
    fn.bindTable(localTable, 'read');
    expect(() => fn.bindTable(localTable, 'readWrite')).toThrow(
      /bindTable\(envVar\).*CARHOOK_TABLE_NAME.*already bound/,
    );
  });

  it('has exactly the four functions this file created', () => {
    template.resourceCountIs('AWS::Lambda::Function', 4);
    template.hasResourceProperties('AWS::Lambda::Function', {
      TracingConfig: { Mode: 'Active' },
      Runtime: Match.exact('nodejs22.x'),
    });
  });
});
