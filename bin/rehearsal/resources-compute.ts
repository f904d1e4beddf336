/**
 * The compute side as the templates declare it: IAM roles and their policies (in moto's IAM, so
 * moto enforces them), Lambda functions, their SQS event source mappings and permissions, the
 * Scheduler schedules (created in moto's Scheduler), and the HTTP API's routes, integrations and
 * authorizers. Lambda and API Gateway are not moto services here: they are recorded, and the
 * rehearsal's own drivers (./lambda-host.ts, ./event-sources.ts, ./http-front.ts) play them.
 */
import { randomBytes } from 'node:crypto';
import { AttachRolePolicyCommand, CreateRoleCommand, PutRolePolicyCommand } from '@aws-sdk/client-iam';
import { CreateScheduleCommand, type CreateScheduleCommandInput } from '@aws-sdk/client-scheduler';
import { assetDir } from './assembly';
import type { HttpApi } from './model';
import type { ProvisionContext, ResourceHandler } from './provision';

type Props = Record<string, unknown>;
const json = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
const arnOf = (ctx: ProvisionContext, service: string, resource: string, region = ctx.deployment.region) =>
  `arn:aws:${service}:${region}:${ctx.deployment.account}:${resource}`;
const shortId = () => randomBytes(5).toString('hex');

const role: ResourceHandler = async (ctx, logicalId, props) => {
  const name = (props.RoleName as string | undefined) ?? ctx.physicalName(logicalId, 64);
  const created = await ctx.admin.iam.send(
    new CreateRoleCommand({
      RoleName: name,
      AssumeRolePolicyDocument: json(props.AssumeRolePolicyDocument),
      ...(props.Path ? { Path: props.Path as string } : {}),
      ...(props.Description ? { Description: props.Description as string } : {}),
    }),
  );
  for (const p of (props.Policies as Props[] | undefined) ?? []) {
    await ctx.admin.iam.send(
      new PutRolePolicyCommand({
        RoleName: name,
        PolicyName: p.PolicyName as string,
        PolicyDocument: json(p.PolicyDocument),
      }),
    );
  }
  for (const arn of (props.ManagedPolicyArns as string[] | undefined) ?? []) {
    await ctx.admin.iam.send(new AttachRolePolicyCommand({ RoleName: name, PolicyArn: arn }));
  }
  const arn = created.Role?.Arn ?? arnOf(ctx, 'iam', `role/${name}`, '');
  ctx.deployment.roles.set(arn, { name, logicalId });
  return { ref: name, attributes: { Arn: arn, RoleId: created.Role?.RoleId ?? name } };
};

const policy: ResourceHandler = async (ctx, logicalId, props) => {
  const name = props.PolicyName as string;
  for (const roleName of (props.Roles as string[] | undefined) ?? []) {
    await ctx.admin.iam.send(
      new PutRolePolicyCommand({
        RoleName: roleName,
        PolicyName: name,
        PolicyDocument: json(props.PolicyDocument),
      }),
    );
  }
  if ((props.Users as unknown[] | undefined)?.length || (props.Groups as unknown[] | undefined)?.length) {
    throw new Error('policies attached to users or groups are not rehearsed: only roles run code here');
  }
  return { ref: ctx.physicalName(logicalId, 64), attributes: { Id: name } };
};

const lambdaFunction: ResourceHandler = async (ctx, logicalId, props, resource) => {
  const name = (props.FunctionName as string | undefined) ?? ctx.physicalName(logicalId, 64);
  const arn = arnOf(ctx, 'lambda', `function:${name}`);
  const code = props.Code as Props | undefined;
  if (code?.ZipFile !== undefined) {
    // Inline code (CDK's custom resource providers): not a Carhook bundle; listed as not rehearsed.
    ctx.deployment.notRehearsed.push({
      stack: ctx.stack,
      logicalId,
      type: 'AWS::Lambda::Function (inline code)',
    });
    return { ref: name, attributes: { Arn: arn } };
  }
  const environment = ((props.Environment as Props | undefined)?.Variables ?? {}) as Record<string, unknown>;
  ctx.deployment.functions.push({
    logicalId,
    stack: ctx.stack,
    name,
    arn,
    roleArn: props.Role as string,
    handler: (props.Handler as string | undefined) ?? 'index.handler',
    runtime: (props.Runtime as string | undefined) ?? 'nodejs22.x',
    timeoutSeconds: Number(props.Timeout ?? 3),
    memoryMb: Number(props.MemorySize ?? 128),
    environment: Object.fromEntries(Object.entries(environment).map(([k, v]) => [k, String(v)])),
    codeDir: assetDir(ctx.assemblyDir, logicalId, resource),
    tracing: (props.TracingConfig as Props | undefined)?.Mode === 'Active',
    logFormat: (props.LoggingConfig as Props | undefined)?.LogFormat === 'JSON' ? 'JSON' : 'Text',
  });
  return { ref: name, attributes: { Arn: arn } };
};

/** `FunctionName` of a mapping or permission: a name, a (partial) ARN, or a qualified ARN. */
function functionArnOf(ctx: ProvisionContext, value: string): string {
  if (value.startsWith('arn:')) return value;
  const f = ctx.deployment.functions.find((x) => x.name === value);
  return f?.arn ?? arnOf(ctx, 'lambda', `function:${value}`);
}

const eventSourceMapping: ResourceHandler = async (ctx, logicalId, props) => {
  const queueArn = props.EventSourceArn as string;
  if (!queueArn?.startsWith('arn:aws:sqs:')) {
    ctx.deployment.notRehearsed.push({
      stack: ctx.stack,
      logicalId,
      type: 'AWS::Lambda::EventSourceMapping (not SQS)',
    });
  } else {
    const scaling = props.ScalingConfig as Props | undefined;
    ctx.deployment.eventSourceMappings.push({
      logicalId,
      functionArn: functionArnOf(ctx, props.FunctionName as string),
      queueArn,
      batchSize: Number(props.BatchSize ?? 10),
      reportBatchItemFailures: ((props.FunctionResponseTypes as string[] | undefined) ?? []).includes(
        'ReportBatchItemFailures',
      ),
      ...(scaling?.MaximumConcurrency !== undefined
        ? { maximumConcurrency: Number(scaling.MaximumConcurrency) }
        : {}),
      enabled: props.Enabled !== false && props.Enabled !== 'false',
    });
  }
  return { ref: shortId(), attributes: {} };
};

const permission: ResourceHandler = async (ctx, _logicalId, props) => {
  ctx.deployment.permissions.push({
    functionArn: functionArnOf(ctx, props.FunctionName as string),
    principal: props.Principal as string,
    ...(props.SourceArn ? { sourceArn: props.SourceArn as string } : {}),
  });
  return { ref: shortId(), attributes: {} };
};

const schedule: ResourceHandler = async (ctx, logicalId, props) => {
  const name = (props.Name as string | undefined) ?? ctx.physicalName(logicalId, 64);
  const target = props.Target as Props;
  const retry = target.RetryPolicy as Props | undefined;
  const deadLetterArn = (target.DeadLetterConfig as Props | undefined)?.Arn as string | undefined;
  await ctx.admin.scheduler.send(
    new CreateScheduleCommand({
      Name: name,
      ScheduleExpression: props.ScheduleExpression as string,
      ...(props.ScheduleExpressionTimezone
        ? { ScheduleExpressionTimezone: props.ScheduleExpressionTimezone as string }
        : {}),
      FlexibleTimeWindow: props.FlexibleTimeWindow as CreateScheduleCommandInput['FlexibleTimeWindow'],
      Target: target as unknown as CreateScheduleCommandInput['Target'],
      ...(props.State ? { State: props.State as 'ENABLED' | 'DISABLED' } : {}),
    }),
  );
  ctx.deployment.schedules.push({
    logicalId,
    name,
    expression: props.ScheduleExpression as string,
    targetArn: target.Arn as string,
    roleArn: target.RoleArn as string,
    ...(target.Input !== undefined ? { input: String(target.Input) } : {}),
    ...(deadLetterArn ? { deadLetterArn } : {}),
    maximumRetryAttempts: Number(retry?.MaximumRetryAttempts ?? 185),
  });
  return { ref: name, attributes: { Arn: arnOf(ctx, 'scheduler', `schedule/default/${name}`) } };
};

function apiOf(ctx: ProvisionContext, apiId: string): HttpApi {
  const api = ctx.deployment.apis.find((a) => a.id === apiId);
  if (!api) throw new Error(`ApiId ${apiId} is not an HTTP API of this deployment`);
  return api;
}

const httpApi: ResourceHandler = async (ctx, logicalId, props) => {
  if (props.ProtocolType !== 'HTTP')
    throw new Error(`ProtocolType ${String(props.ProtocolType)}: only HTTP APIs are rehearsed`);
  const id = shortId();
  ctx.deployment.apis.push({
    logicalId,
    id,
    name: String(props.Name ?? logicalId),
    routes: [],
    authorizers: new Map(),
  });
  return {
    ref: id,
    attributes: {
      ApiId: id,
      ApiEndpoint: `https://${id}.execute-api.${ctx.deployment.region}.amazonaws.com`,
    },
  };
};

const integration: ResourceHandler = async (ctx, _logicalId, props) => {
  if (props.IntegrationType !== 'AWS_PROXY')
    throw new Error(
      `IntegrationType ${String(props.IntegrationType)}: only Lambda proxy integrations are rehearsed`,
    );
  const id = shortId();
  ctx.deployment.integrations.set(id, {
    functionArn: props.IntegrationUri as string,
    payloadFormatVersion: String(props.PayloadFormatVersion ?? '2.0'),
    timeoutMs: Number(props.TimeoutInMillis ?? 30_000),
  });
  return { ref: id, attributes: {} };
};

const route: ResourceHandler = async (ctx, _logicalId, props) => {
  const api = apiOf(ctx, props.ApiId as string);
  const integrationId = String(props.Target ?? '').replace(/^integrations\//, '');
  const target = ctx.deployment.integrations.get(integrationId);
  if (!target) throw new Error(`Target ${String(props.Target)} is not an integration of this API`);
  api.routes.push({
    routeKey: props.RouteKey as string,
    authorizationType: ((props.AuthorizationType as string | undefined) ?? 'NONE') as 'NONE',
    ...(props.AuthorizerId ? { authorizerId: props.AuthorizerId as string } : {}),
    ...target,
  });
  return { ref: shortId(), attributes: {} };
};

const authorizer: ResourceHandler = async (ctx, _logicalId, props) => {
  const api = apiOf(ctx, props.ApiId as string);
  if (props.AuthorizerType !== 'REQUEST')
    throw new Error(
      `AuthorizerType ${String(props.AuthorizerType)}: only Lambda REQUEST authorizers are rehearsed`,
    );
  // `arn:aws:apigateway:<region>:lambda:path/2015-03-31/functions/<function ARN>/invocations`
  const functionArn = /functions\/(.+)\/invocations$/.exec(String(props.AuthorizerUri))?.[1];
  if (!functionArn) throw new Error(`AuthorizerUri ${String(props.AuthorizerUri)} names no Lambda function`);
  const id = shortId();
  api.authorizers.set(id, {
    id,
    name: String(props.Name ?? id),
    functionArn,
    identitySource: (props.IdentitySource as string[] | undefined) ?? [],
    ttlSeconds: Number(props.AuthorizerResultTtlInSeconds ?? 0),
    simpleResponses: props.EnableSimpleResponses === true,
    payloadFormatVersion: String(props.AuthorizerPayloadFormatVersion ?? '2.0'),
  });
  return { ref: id, attributes: { AuthorizerId: id } };
};

export const COMPUTE_HANDLERS: Record<string, ResourceHandler> = {
  'AWS::IAM::Role': role,
  'AWS::IAM::Policy': policy,
  'AWS::Lambda::Function': lambdaFunction,
  'AWS::Lambda::EventSourceMapping': eventSourceMapping,
  'AWS::Lambda::Permission': permission,
  'AWS::Scheduler::Schedule': schedule,
  'AWS::ApiGatewayV2::Api': httpApi,
  'AWS::ApiGatewayV2::Integration': integration,
  'AWS::ApiGatewayV2::Route': route,
  'AWS::ApiGatewayV2::Authorizer': authorizer,
};
