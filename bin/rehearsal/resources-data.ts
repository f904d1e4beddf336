/**
 * The stateful resources as CloudFormation creates them, in DynamoDB Local (the table) and moto
 * (queues, buses, archives, rules, secrets). Each handler takes the template's resolved
 * properties, passes on what the service takes, and returns what `Ref` and `Fn::GetAtt` give.
 * Queue encryption settings are left out: neither moto nor the rehearsal can check them.
 */
import { randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  CreateArchiveCommand,
  CreateEventBusCommand,
  PutRuleCommand,
  PutTargetsCommand,
  type Target,
} from '@aws-sdk/client-eventbridge';
import { CreateSecretCommand, GetRandomPasswordCommand } from '@aws-sdk/client-secrets-manager';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SetQueueAttributesCommand,
} from '@aws-sdk/client-sqs';
import type { PolicyDocument } from './model';
import type { ProvisionContext, ResourceHandler } from './provision';

type Props = Record<string, unknown>;
const json = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
const arnOf = (ctx: ProvisionContext, service: string, resource: string) =>
  `arn:aws:${service}:${ctx.deployment.region}:${ctx.deployment.account}:${resource}`;

const table: ResourceHandler = async (ctx, logicalId, props) => {
  const name = (props.TableName as string | undefined) ?? ctx.physicalName(logicalId, 255);
  const billing = (props.BillingMode as string | undefined) ?? 'PROVISIONED';
  // A global table's write capacity lives under `WriteProvisionedThroughputSettings`; DynamoDB Local
  // only needs a number when the mode is provisioned.
  const throughput =
    billing === 'PAY_PER_REQUEST'
      ? {}
      : { ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 } };
  const indexes = (props.GlobalSecondaryIndexes as Props[] | undefined)?.map((i) => ({
    IndexName: i.IndexName as string,
    KeySchema: i.KeySchema as CreateTableCommandInput['KeySchema'],
    Projection: i.Projection as { ProjectionType: 'ALL' | 'KEYS_ONLY' | 'INCLUDE' },
    ...throughput,
  }));
  const stream = props.StreamSpecification as { StreamViewType?: string } | undefined;
  const created = await ctx.admin.dynamodb.send(
    new CreateTableCommand({
      TableName: name,
      AttributeDefinitions: props.AttributeDefinitions as CreateTableCommandInput['AttributeDefinitions'],
      KeySchema: props.KeySchema as CreateTableCommandInput['KeySchema'],
      BillingMode: billing as 'PAY_PER_REQUEST' | 'PROVISIONED',
      ...throughput,
      ...(indexes ? { GlobalSecondaryIndexes: indexes } : {}),
      ...(props.LocalSecondaryIndexes
        ? {
            LocalSecondaryIndexes:
              props.LocalSecondaryIndexes as CreateTableCommandInput['LocalSecondaryIndexes'],
          }
        : {}),
      ...(stream?.StreamViewType
        ? {
            StreamSpecification: {
              StreamEnabled: true,
              StreamViewType: stream.StreamViewType as 'NEW_IMAGE',
            },
          }
        : {}),
    }),
  );
  const ttl = props.TimeToLiveSpecification as { AttributeName?: string; Enabled?: boolean } | undefined;
  if (ttl?.AttributeName) {
    await ctx.admin.dynamodb.send(
      new UpdateTimeToLiveCommand({
        TableName: name,
        TimeToLiveSpecification: { AttributeName: ttl.AttributeName, Enabled: ttl.Enabled ?? true },
      }),
    );
  }
  const arn = arnOf(ctx, 'dynamodb', `table/${name}`);
  ctx.deployment.tables.push({ logicalId, name, arn });
  const streamArn = created.TableDescription?.LatestStreamArn;
  return { ref: name, attributes: { Arn: arn, ...(streamArn ? { StreamArn: streamArn } : {}) } };
};

const QUEUE_ATTRIBUTES = [
  'DelaySeconds',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'VisibilityTimeout',
  'RedrivePolicy',
  'RedriveAllowPolicy',
  'FifoQueue',
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'FifoThroughputLimit',
] as const;

const queue: ResourceHandler = async (ctx, logicalId, props) => {
  const fifo = props.FifoQueue === true || props.FifoQueue === 'true';
  const name =
    (props.QueueName as string | undefined) ??
    `${ctx.physicalName(logicalId, fifo ? 75 : 80)}${fifo ? '.fifo' : ''}`;
  const attributes: Record<string, string> = {};
  for (const key of QUEUE_ATTRIBUTES) if (props[key] !== undefined) attributes[key] = json(props[key]);
  const created = await ctx.admin.sqs.send(
    new CreateQueueCommand({ QueueName: name, Attributes: attributes }),
  );
  const url = created.QueueUrl ?? '';
  const read = await ctx.admin.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  const arn = read.Attributes?.QueueArn ?? arnOf(ctx, 'sqs', name);
  const redrive = props.RedrivePolicy as
    | { deadLetterTargetArn?: string; maxReceiveCount?: number }
    | undefined;
  ctx.deployment.queues.push({
    logicalId,
    name,
    url,
    arn,
    visibilityTimeoutSeconds: Number(props.VisibilityTimeout ?? 30),
    ...(redrive?.deadLetterTargetArn
      ? { deadLetterArn: redrive.deadLetterTargetArn, maxReceiveCount: Number(redrive.maxReceiveCount) }
      : {}),
  });
  return { ref: url, attributes: { Arn: arn, QueueName: name, QueueUrl: url } };
};

const queuePolicy: ResourceHandler = async (ctx, logicalId, props) => {
  const document = props.PolicyDocument as PolicyDocument;
  for (const url of (props.Queues as string[] | undefined) ?? []) {
    await ctx.admin.sqs.send(
      new SetQueueAttributesCommand({ QueueUrl: url, Attributes: { Policy: json(document) } }),
    );
    const q = ctx.deployment.queues.find((x) => x.url === url);
    if (q) ctx.deployment.resourcePolicies.set(q.arn, document);
  }
  return { ref: ctx.physicalName(logicalId, 64), attributes: {} };
};

const eventBus: ResourceHandler = async (ctx, logicalId, props) => {
  const name = props.Name as string;
  const created = await ctx.admin.events.send(
    new CreateEventBusCommand({
      Name: name,
      ...(props.Description ? { Description: props.Description as string } : {}),
    }),
  );
  const arn = created.EventBusArn ?? arnOf(ctx, 'events', `event-bus/${name}`);
  ctx.deployment.buses.push({ logicalId, name, arn });
  return { ref: name, attributes: { Arn: arn, Name: name } };
};

const archive: ResourceHandler = async (ctx, logicalId, props) => {
  const name = (props.ArchiveName as string | undefined) ?? ctx.physicalName(logicalId, 48);
  const created = await ctx.admin.events.send(
    new CreateArchiveCommand({
      ArchiveName: name,
      EventSourceArn: props.SourceArn as string,
      ...(props.EventPattern ? { EventPattern: json(props.EventPattern) } : {}),
      ...(props.RetentionDays !== undefined ? { RetentionDays: Number(props.RetentionDays) } : {}),
    }),
  );
  return { ref: name, attributes: { Arn: created.ArchiveArn ?? arnOf(ctx, 'events', `archive/${name}`) } };
};

const rule: ResourceHandler = async (ctx, logicalId, props) => {
  const name = (props.Name as string | undefined) ?? ctx.physicalName(logicalId, 64);
  const busName = (props.EventBusName as string | undefined)?.split('/').at(-1) ?? 'default';
  const created = await ctx.admin.events.send(
    new PutRuleCommand({
      Name: name,
      EventBusName: busName,
      ...(props.EventPattern ? { EventPattern: json(props.EventPattern) } : {}),
      ...(props.ScheduleExpression ? { ScheduleExpression: props.ScheduleExpression as string } : {}),
      State: (props.State as 'ENABLED' | 'DISABLED' | undefined) ?? 'ENABLED',
      ...(props.Description ? { Description: props.Description as string } : {}),
    }),
  );
  const targets = ((props.Targets as Props[] | undefined) ?? []).map((t) => ({
    id: t.Id as string,
    arn: t.Arn as string,
    ...((t.DeadLetterConfig as Props | undefined)?.Arn
      ? { deadLetterArn: (t.DeadLetterConfig as Props).Arn as string }
      : {}),
  }));
  if (targets.length > 0) {
    const result = await ctx.admin.events.send(
      new PutTargetsCommand({ Rule: name, EventBusName: busName, Targets: props.Targets as Target[] }),
    );
    if ((result.FailedEntryCount ?? 0) > 0) {
      throw new Error(`targets refused: ${JSON.stringify(result.FailedEntries)}`);
    }
  }
  const arn = created.RuleArn ?? arnOf(ctx, 'events', `rule/${busName}/${name}`);
  ctx.deployment.rules.push({ logicalId, name, busName, arn, pattern: props.EventPattern, targets });
  // A rule on a custom bus is referenced as `<bus>|<rule>`.
  return { ref: busName === 'default' ? name : `${busName}|${name}`, attributes: { Arn: arn } };
};

const secret: ResourceHandler = async (ctx, logicalId, props) => {
  const name = (props.Name as string | undefined) ?? ctx.physicalName(logicalId, 256);
  const value = (props.SecretString as string | undefined) ?? (await generatedSecret(ctx, props));
  const kmsKeyArn = props.KmsKeyId as string | undefined;
  const created = await ctx.admin.secrets.send(
    new CreateSecretCommand({
      Name: name,
      SecretString: value,
      ...(props.Description ? { Description: props.Description as string } : {}),
      ...(kmsKeyArn ? { KmsKeyId: kmsKeyArn } : {}),
    }),
  );
  const arn = created.ARN ?? '';
  ctx.deployment.secrets.push({ logicalId, arn, name, ...(kmsKeyArn ? { kmsKeyArn } : {}) });
  return { ref: arn, attributes: { Id: arn } };
};

/** `GenerateSecretString` as CloudFormation does it: a random password, alone or under a key of the template. */
async function generatedSecret(ctx: ProvisionContext, props: Props): Promise<string> {
  const g = (props.GenerateSecretString ?? {}) as Props;
  const flag = (k: string) => (g[k] === undefined ? {} : { [k]: g[k] === true || g[k] === 'true' });
  const random = await ctx.admin.secrets.send(
    new GetRandomPasswordCommand({
      ...(g.PasswordLength !== undefined ? { PasswordLength: Number(g.PasswordLength) } : {}),
      ...(g.ExcludeCharacters !== undefined ? { ExcludeCharacters: String(g.ExcludeCharacters) } : {}),
      ...flag('ExcludeLowercase'),
      ...flag('ExcludeNumbers'),
      ...flag('ExcludePunctuation'),
      ...flag('ExcludeUppercase'),
      ...flag('IncludeSpace'),
      ...flag('RequireEachIncludedType'),
    }),
  );
  const password = random.RandomPassword ?? '';
  if (typeof g.SecretStringTemplate === 'string' && typeof g.GenerateStringKey === 'string') {
    return JSON.stringify({ ...JSON.parse(g.SecretStringTemplate), [g.GenerateStringKey]: password });
  }
  return password;
}

/** moto's KMS is not used (nothing Carhook runs calls KMS itself); the key policy is kept for IAM checks. */
const kmsKey: ResourceHandler = async (ctx, _logicalId, props) => {
  const id = randomUUID();
  const arn = arnOf(ctx, 'kms', `key/${id}`);
  if (props.KeyPolicy) ctx.deployment.resourcePolicies.set(arn, props.KeyPolicy as PolicyDocument);
  return { ref: id, attributes: { Arn: arn, KeyId: id } };
};

export const DATA_HANDLERS: Record<string, ResourceHandler> = {
  'AWS::KMS::Key': kmsKey,
  'AWS::DynamoDB::GlobalTable': table,
  'AWS::DynamoDB::Table': table,
  'AWS::SQS::Queue': queue,
  'AWS::SQS::QueuePolicy': queuePolicy,
  'AWS::Events::EventBus': eventBus,
  'AWS::Events::Archive': archive,
  'AWS::Events::Rule': rule,
  'AWS::SecretsManager::Secret': secret,
};
