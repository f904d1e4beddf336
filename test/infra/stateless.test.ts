import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { type CfnElement, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { subscriptionSchemas } from '../../functions/core/subscriptions/schemas';
import { createHttpApp } from '../../functions/http/app';
import { type ConfigNeed, parseRuntimeConfig, RUNTIME_ENV } from '../../functions/runtime/config';
import { buildCarhookApp, readAppSettings } from '../../lib/app';
import type { Carhook } from '../../lib/carhook';
import { CarhookStack } from '../../lib/carhook-stack';
import { CARHOOK_DEFAULTS, CARHOOK_ENV } from '../../lib/config';
import {
  CARHOOK_HTTP_ROUTES,
  CarhookHttpApi,
  CONSOLE_API_PREFIX,
} from '../../lib/constructs/carhook-http-api';
import { CarhookQueue } from '../../lib/constructs/carhook-queue';
import { CarhookSchedule } from '../../lib/constructs/carhook-schedule';
import { REPO_ROOT } from '../../lib/paths';
import type { CarhookDataStack } from '../../lib/stateful-stack';
import { carhookTableDefinition } from '../../lib/table-definition';
import { CarhookConfigError } from '../../lib/validation';
import { roleStatements, type Statement, testApp, XRAY_ACTIONS } from './support';

const env = { account: '111111111111', region: 'eu-west-1' };
const context: Record<string, unknown> = {
  apiBaseUrl: 'https://api.example.net',
  authUrl: 'https://id.example.net',
  brands: 'cielo,pavo',
};

let dataStack: CarhookDataStack;
let stack: CarhookStack;
let carhook: Carhook;
let template: Template;

// One synthesis of the ready app (templates only; bundles.test.ts bundles the handlers).
beforeAll(() => {
  const built = buildCarhookApp(
    testApp(),
    readAppSettings((key) => context[key]),
    env,
  );
  dataStack = built.dataStack;
  stack = built.stack;
  carhook = stack.carhook;
  template = Template.fromStack(stack);
});

const logicalId = (scope: IConstruct) => stack.getLogicalId(scope.node.defaultChild as CfnElement);
const getAtt = (scope: IConstruct, attr = 'Arn') => ({ 'Fn::GetAtt': [logicalId(scope), attr] });
const sorted = (xs: readonly string[]) => [...xs].sort();

describe('queues', () => {
  const cases = () =>
    [
      ['poll jobs', carhook.queues.pollJobs, CARHOOK_DEFAULTS.timeouts.pollWorker, 5],
      ['fan-out', carhook.queues.fanOut, CARHOOK_DEFAULTS.timeouts.fanOut, 5],
      ['deliveries', carhook.queues.deliveries, CARHOOK_DEFAULTS.timeouts.delivery, 25],
    ] as const;

  it('redrives each work queue to its own dead-letter queue, with a visibility of 6x its consumer timeout', () => {
    for (const [name, q, timeout, maxReceiveCount] of cases()) {
      const props = template.toJSON().Resources[logicalId(q.queue)].Properties;
      expect(props, name).toEqual({
        RedrivePolicy: { deadLetterTargetArn: getAtt(q.deadLetterQueue), maxReceiveCount },
        SqsManagedSseEnabled: true,
        VisibilityTimeout: timeout.toSeconds() * 6,
      });
    }
  });

  it('keeps dead letters 14 days, encrypted', () => {
    for (const dlq of [
      carhook.queues.pollJobs.deadLetterQueue,
      carhook.queues.fanOut.deadLetterQueue,
      carhook.queues.deliveries.deadLetterQueue,
      carhook.queues.scheduleDeadLetters,
    ]) {
      expect(template.toJSON().Resources[logicalId(dlq)].Properties).toEqual({
        MessageRetentionPeriod: 14 * 86_400,
        SqsManagedSseEnabled: true,
      });
    }
  });

  it('refuses plain HTTP on every queue (enforceSSL)', () => {
    template.resourceCountIs('AWS::SQS::Queue', 7);
    const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy'));
    const covered = new Set<string>();
    for (const policy of policies) {
      const doc = policy.Properties.PolicyDocument as { Statement: Array<Record<string, unknown>> };
      const denies = doc.Statement.some(
        (s) =>
          s.Effect === 'Deny' && JSON.stringify(s.Condition) === '{"Bool":{"aws:SecureTransport":"false"}}',
      );
      if (denies) for (const q of policy.Properties.Queues as unknown[]) covered.add(JSON.stringify(q));
    }
    expect(covered.size).toBe(7);
  });

  it('puts an alarm on every dead-letter queue', () => {
    expect([...carhook.monitoring.deadLetterQueueAlarms.keys()].sort()).toEqual([
      'Deliveries',
      'FanOut',
      'PollJobs',
      'Schedules',
    ]);
    for (const dlq of [
      carhook.queues.pollJobs.deadLetterQueue,
      carhook.queues.fanOut.deadLetterQueue,
      carhook.queues.deliveries.deadLetterQueue,
      carhook.queues.scheduleDeadLetters,
    ]) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: getAtt(dlq, 'QueueName') }],
        Threshold: 1,
      });
    }
  });
});

describe('functions', () => {
  const ids = ['Planner', 'PollWorker', 'Sweeper', 'FanOut', 'Delivery', 'HttpApi'];
  const allIds = [...ids, 'ConsoleAuthorizer'];

  it('wires every handler of functions/handlers, one function each', () => {
    const handlers = readdirSync(join(REPO_ROOT, 'functions/handlers')).filter((f) => f.endsWith('.ts'));
    expect(sorted([...carhook.functions.values()].map((fn) => basename(fn.entryPath)))).toEqual(
      sorted(handlers),
    );
    expect(sorted([...carhook.functions.keys()])).toEqual(sorted(allIds));
    template.resourceCountIs('AWS::Lambda::Function', 7);
  });

  it('runs each on Node 22, ARM_64, traced, with its timeout', () => {
    const timeouts: Record<string, Duration> = {
      Planner: CARHOOK_DEFAULTS.timeouts.planner,
      PollWorker: CARHOOK_DEFAULTS.timeouts.pollWorker,
      Sweeper: CARHOOK_DEFAULTS.timeouts.sweeper,
      FanOut: CARHOOK_DEFAULTS.timeouts.fanOut,
      Delivery: CARHOOK_DEFAULTS.timeouts.delivery,
      HttpApi: CARHOOK_DEFAULTS.timeouts.httpApi,
      ConsoleAuthorizer: CARHOOK_DEFAULTS.timeouts.consoleAuthorizer,
    };
    for (const [id, fn] of carhook.functions) {
      const props = template.toJSON().Resources[logicalId(fn)].Properties;
      expect(props, id).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
        Timeout: timeouts[id]?.toSeconds(),
      });
    }
    // The HTTP function answers within API Gateway's 30 s integration timeout.
    expect(CARHOOK_DEFAULTS.timeouts.httpApi.toSeconds()).toBeLessThan(30);
  });

  const common = [
    RUNTIME_ENV.apiBaseUrl,
    RUNTIME_ENV.authUrl,
    RUNTIME_ENV.brands,
    RUNTIME_ENV.quotaRequests,
    RUNTIME_ENV.quotaWindowSeconds,
    RUNTIME_ENV.pollIntervalSeconds,
    RUNTIME_ENV.pollStrategy,
    RUNTIME_ENV.maintenanceDueDays,
    RUNTIME_ENV.maintenanceDueKm,
    RUNTIME_ENV.eventLogRetentionDays,
    RUNTIME_ENV.tableName,
  ];
  const bus = [RUNTIME_ENV.eventBusName, RUNTIME_ENV.eventSource];
  const expectedEnv: Record<string, string[]> = {
    Planner: [...common, RUNTIME_ENV.pollQueueUrl, RUNTIME_ENV.mapApiSecretArn],
    PollWorker: [
      ...common,
      ...bus,
      RUNTIME_ENV.apiClientSecretArn,
      RUNTIME_ENV.tokenKeyRingSecretArn,
      RUNTIME_ENV.mapApiSecretArn,
    ],
    Sweeper: [...common, ...bus, RUNTIME_ENV.deliveryQueueUrl],
    FanOut: [...common, ...bus, RUNTIME_ENV.tokenKeyRingSecretArn, RUNTIME_ENV.deliveryQueueUrl],
    Delivery: [...common, ...bus, RUNTIME_ENV.tokenKeyRingSecretArn, RUNTIME_ENV.deliveryQueueUrl],
    HttpApi: [
      ...common,
      ...bus,
      RUNTIME_ENV.apiClientSecretArn,
      RUNTIME_ENV.tokenKeyRingSecretArn,
      RUNTIME_ENV.deliveryQueueUrl,
      RUNTIME_ENV.version,
    ],
  };
  const variablesOf = (id: string): Record<string, unknown> => {
    const fn = carhook.functions.get(id);
    if (!fn) throw new Error(`no function ${id}`);
    return template.toJSON().Resources[logicalId(fn)].Properties.Environment.Variables;
  };

  it('gives the console authorizer only the ARN of the console token, and read access to that secret only', () => {
    const variables = variablesOf('ConsoleAuthorizer');
    expect(Object.keys(variables).filter((k) => k.startsWith('CARHOOK_'))).toEqual([
      CARHOOK_ENV.consoleTokenSecretArn,
    ]);
    expect(variables).toMatchObject({ POWERTOOLS_SERVICE_NAME: 'carhook' });
    const role = carhook.handlers.consoleAuthorizer.role;
    if (!role) throw new Error('no role');
    const statements = roleStatements(template, stack, role);
    const actions = statements.flatMap((s) => s.Action);
    expect(actions).toContain('secretsmanager:GetSecretValue');
    expect(actions.filter((a) => /^(dynamodb|events|sqs):/.test(a))).toEqual([]);
    // Secrets Manager actions on the console token only.
    for (const s of statements.filter((x) => x.Action.some((a) => a.startsWith('secretsmanager:')))) {
      expect(JSON.stringify(s.Resource)).toContain(
        dataStack.getLogicalId(dataStack.data.consoleToken.node.defaultChild as CfnElement),
      );
    }
  });

  it('sets exactly the Carhook variables each handler reads, and the Powertools ones', () => {
    for (const id of ids) {
      const variables = variablesOf(id);
      const carhookVars = Object.keys(variables).filter((k) => k.startsWith('CARHOOK_'));
      expect(sorted(carhookVars), id).toEqual(sorted(expectedEnv[id] ?? []));
      expect(variables, id).toMatchObject({
        POWERTOOLS_SERVICE_NAME: 'carhook',
        POWERTOOLS_METRICS_NAMESPACE: 'Carhook',
        CARHOOK_EVENT_LOG_RETENTION_DAYS: '30',
      });
    }
    expect(variablesOf('PollWorker')[RUNTIME_ENV.eventSource]).toBe('carhook');
    expect(variablesOf('Planner')[RUNTIME_ENV.pollQueueUrl]).toEqual({
      Ref: logicalId(carhook.queues.pollJobs.queue),
    });
    for (const id of ['Sweeper', 'FanOut', 'Delivery', 'HttpApi']) {
      expect(variablesOf(id)[RUNTIME_ENV.deliveryQueueUrl], id).toEqual({
        Ref: logicalId(carhook.queues.deliveries.queue),
      });
    }
  });

  // The runtime's own check (functions/runtime/config.ts), given the `needs` each handler declares:
  // a variable the stack forgot would fail the function's first invocation.
  it("satisfies each handler's runtime configuration check", () => {
    const sources: Record<string, string> = {
      Planner: 'planner.ts',
      PollWorker: 'poll-worker.ts',
      Sweeper: 'sweeper.ts',
      FanOut: 'fanout.ts',
      Delivery: 'delivery.ts',
      HttpApi: 'http-api.ts',
    };
    const plausible = (name: string, value: unknown): string => {
      if (typeof value === 'string') return value;
      // Deploy-time values (Ref, GetAtt, imports): a value of the right shape.
      if (name.endsWith('_QUEUE_URL')) return 'https://sqs.eu-west-1.amazonaws.com/111111111111/q';
      if (name.endsWith('_SECRET_ARN'))
        return 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:s-AbCdEf';
      if (name === RUNTIME_ENV.tableName) return 'Carhook-Data-Table';
      if (name === RUNTIME_ENV.eventBusName) return 'Carhook-Data-Bus';
      return 'x';
    };
    for (const [id, file] of Object.entries(sources)) {
      const source = readFileSync(join(REPO_ROOT, 'functions/handlers', file), 'utf8');
      const declared = /needs:\s*\[([^\]]*)\]/.exec(source)?.[1];
      expect(declared, `${file} declares its needs`).toBeDefined();
      const needs = [...(declared ?? '').matchAll(/'([A-Za-z]+)'/g)].map((m) => m[1] as ConfigNeed);
      const fakeEnv = Object.fromEntries(
        Object.entries(variablesOf(id)).map(([name, value]) => [name, plausible(name, value)]),
      );
      // createAwsRuntime always asks for the table and the API on top of `needs`.
      const parsed = parseRuntimeConfig(fakeEnv, ['table', 'api', ...needs]);
      expect(parsed.ok ? [] : parsed.issues, id).toEqual([]);
    }
  });
});

describe('IAM: every statement of every role of the stateless stack', () => {
  // What TableV2's grantReadData / grantReadWriteData give (GetRecords and GetShardIterator come with
  // its reads; the table has no stream, so they open nothing).
  const tableActions = {
    read: [
      'dynamodb:BatchGetItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:DescribeTable',
      'dynamodb:GetItem',
      'dynamodb:GetRecords',
      'dynamodb:GetShardIterator',
      'dynamodb:Query',
      'dynamodb:Scan',
    ],
    write: ['dynamodb:BatchWriteItem', 'dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
  };
  const indexNames = carhookTableDefinition.globalSecondaryIndexes.map((i) => i.indexName);
  const table = (access: 'read' | 'readWrite') => {
    const actions = sorted(
      access === 'read' ? tableActions.read : [...tableActions.read, ...tableActions.write],
    );
    return Object.fromEntries([
      ['table', actions],
      ...indexNames.map((n) => [`table/index/${n}`, actions]),
      [
        'key',
        sorted(
          access === 'read'
            ? ['kms:Decrypt', 'kms:DescribeKey']
            : ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey*', 'kms:ReEncrypt*'],
        ),
      ],
    ]);
  };
  const secret = ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'];
  const consume = sorted([
    'sqs:ChangeMessageVisibility',
    'sqs:DeleteMessage',
    'sqs:GetQueueAttributes',
    'sqs:GetQueueUrl',
    'sqs:ReceiveMessage',
  ]);
  const send = ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'];
  const base = (id: string) => ({
    '*': sorted(XRAY_ACTIONS),
    [`logs:${id}`]: ['logs:CreateLogStream', 'logs:PutLogEvents'],
  });

  /** A readable name for each resource a statement may name; anything else shows up as `?`. */
  const labelOf = (): ((resource: unknown) => string) => {
    const data = dataStack.data;
    const dataIds: Array<[string, string]> = [
      [dataStack.getLogicalId(data.table.node.defaultChild as CfnElement), 'table'],
      [dataStack.getLogicalId(data.key.node.defaultChild as CfnElement), 'key'],
      [dataStack.getLogicalId(data.createdEventBus?.node.defaultChild as CfnElement), 'bus'],
      [dataStack.getLogicalId(data.apiClientCredentials.node.defaultChild as CfnElement), 'secret:apiClient'],
      [dataStack.getLogicalId(data.tokenKeyRing.node.defaultChild as CfnElement), 'secret:keyRing'],
      [dataStack.getLogicalId(data.mapApiCredentials.node.defaultChild as CfnElement), 'secret:mapApi'],
    ];
    const local = new Map<string, string>([
      [JSON.stringify(getAtt(carhook.queues.pollJobs.queue)), 'queue:pollJobs'],
      [JSON.stringify(getAtt(carhook.queues.fanOut.queue)), 'queue:fanOut'],
      [JSON.stringify(getAtt(carhook.queues.deliveries.queue)), 'queue:deliveries'],
      [JSON.stringify(getAtt(carhook.queues.scheduleDeadLetters)), 'queue:scheduleDeadLetters'],
      [JSON.stringify(getAtt(carhook.handlers.planner)), 'function:Planner'],
      [JSON.stringify(getAtt(carhook.handlers.sweeper)), 'function:Sweeper'],
    ]);
    for (const [id, fn] of carhook.functions) {
      const logGroup = fn.node.scope?.node.tryFindChild(`${id}LogGroup`);
      if (logGroup) local.set(JSON.stringify(getAtt(logGroup)), `logs:${id}`);
    }
    return (resource) => {
      const json = JSON.stringify(resource);
      if (json === '"*"') return '*';
      const known = local.get(json);
      if (known) return known;
      const data = dataIds.find(([id]) => json.includes(id));
      if (!data) return `? ${json}`;
      const index = /\/index\/([A-Za-z0-9_.-]+)/.exec(json);
      return index ? `${data[1]}/index/${index[1]}` : data[1];
    };
  };

  const grants = (statements: readonly Statement[]): Record<string, string[]> => {
    const label = labelOf();
    const out: Record<string, Set<string>> = {};
    for (const s of statements) {
      expect(s.Effect).toBe('Allow');
      for (const r of s.Resource) {
        const key = label(r);
        out[key] ??= new Set();
        for (const a of s.Action) out[key].add(a);
      }
    }
    return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, sorted([...v])]));
  };
  const statementsOf = (id: string) => {
    const fn = carhook.functions.get(id);
    if (!fn) throw new Error(`no function ${id}`);
    return roleStatements(template, stack, fn.serviceRole);
  };

  it('planner: reads the table, sends poll jobs, reads the map credentials', () => {
    expect(grants(statementsOf('Planner'))).toEqual({
      ...base('Planner'),
      ...table('read'),
      'queue:pollJobs': sorted(send),
      'secret:mapApi': secret,
    });
  });

  it('poll worker: table, bus, the three secrets, consumes poll jobs', () => {
    expect(grants(statementsOf('PollWorker'))).toEqual({
      ...base('PollWorker'),
      ...table('readWrite'),
      bus: ['events:PutEvents'],
      'secret:apiClient': secret,
      'secret:keyRing': secret,
      'secret:mapApi': secret,
      'queue:pollJobs': consume,
    });
  });

  it('sweeper: table, bus, sends deliveries; consumes nothing, no secret', () => {
    expect(grants(statementsOf('Sweeper'))).toEqual({
      ...base('Sweeper'),
      ...table('readWrite'),
      bus: ['events:PutEvents'],
      'queue:deliveries': sorted(send),
    });
  });

  it('sweeper: statement by statement, no secret and so no decryption through Secrets Manager', () => {
    const label = labelOf();
    const byJson = (xs: readonly Statement[]) =>
      [...xs].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
    const labelled = statementsOf('Sweeper').map((s) => ({ ...s, Resource: s.Resource.map(label) }));
    const allow = (Action: string[], Resource: string[], Condition?: Record<string, unknown>): Statement => ({
      Effect: 'Allow',
      Action,
      Resource,
      ...(Condition ? { Condition } : {}),
    });
    const tableResources = ['table', ...indexNames.map((n) => `table/index/${n}`)];
    expect(byJson(labelled)).toEqual(
      byJson([
        allow(sorted(XRAY_ACTIONS), ['*']),
        allow(['logs:CreateLogStream', 'logs:PutLogEvents'], ['logs:Sweeper']),
        allow(sorted([...tableActions.read, ...tableActions.write]), tableResources),
        allow(
          ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey*', 'kms:ReEncrypt*'],
          ['key'],
        ),
        allow(['events:PutEvents'], ['bus'], { 'ForAnyValue:StringEquals': { 'events:source': 'carhook' } }),
        allow(sorted(send), ['queue:deliveries']),
      ]),
    );
  });

  it('fan-out: table, bus, key ring, sends deliveries, consumes the fan-out queue; no API secret', () => {
    expect(grants(statementsOf('FanOut'))).toEqual({
      ...base('FanOut'),
      ...table('readWrite'),
      bus: ['events:PutEvents'],
      'secret:keyRing': secret,
      'queue:deliveries': sorted(send),
      'queue:fanOut': consume,
    });
  });

  it('delivery: table, bus, key ring, sends and consumes deliveries', () => {
    expect(grants(statementsOf('Delivery'))).toEqual({
      ...base('Delivery'),
      ...table('readWrite'),
      bus: ['events:PutEvents'],
      'secret:keyRing': secret,
      'queue:deliveries': sorted([...consume, 'sqs:SendMessage']),
    });
  });

  it('HTTP API: table, bus, API client and key ring (OAuth), sends deliveries', () => {
    expect(grants(statementsOf('HttpApi'))).toEqual({
      ...base('HttpApi'),
      ...table('readWrite'),
      bus: ['events:PutEvents'],
      'secret:apiClient': secret,
      'secret:keyRing': secret,
      'queue:deliveries': sorted(send),
    });
  });

  it('publishes only as the Carhook source, decrypts secrets only through Secrets Manager', () => {
    for (const id of carhook.functions.keys()) {
      for (const s of statementsOf(id)) {
        if (s.Action.includes('events:PutEvents')) {
          expect(s.Condition, id).toEqual({ 'ForAnyValue:StringEquals': { 'events:source': 'carhook' } });
        }
      }
    }
    const viaSecretsManager = statementsOf('HttpApi').filter(
      (s) => s.Condition !== undefined && JSON.stringify(s.Condition).includes('kms:ViaService'),
    );
    expect(viaSecretsManager.map((s) => s.Action)).toEqual([['kms:Decrypt']]);
  });

  it('schedule roles: invoke exactly their function (no versions or aliases) and send to the DLQ', () => {
    expect(grants(roleStatements(template, stack, carhook.plannerSchedule.role))).toEqual({
      'function:Planner': ['lambda:InvokeFunction'],
      'queue:scheduleDeadLetters': ['sqs:SendMessage'],
    });
    expect(grants(roleStatements(template, stack, carhook.sweeperSchedule.role))).toEqual({
      'function:Sweeper': ['lambda:InvokeFunction'],
      'queue:scheduleDeadLetters': ['sqs:SendMessage'],
    });
    for (const schedule of [carhook.plannerSchedule, carhook.sweeperSchedule]) {
      template.hasResourceProperties('AWS::IAM::Role', {
        RoleName: Match.absent(),
        AssumeRolePolicyDocument: {
          Statement: [
            {
              Action: 'sts:AssumeRole',
              Effect: 'Allow',
              Principal: { Service: 'scheduler.amazonaws.com' },
              Condition: { StringEquals: { 'aws:SourceAccount': env.account } },
            },
          ],
        },
      });
      expect(logicalId(schedule.role)).toMatch(/ScheduleRole/);
    }
  });

  it('has no role the tests above do not cover', () => {
    const covered = new Set(
      [
        ...[...carhook.functions.values()].map((fn) => fn.serviceRole),
        carhook.plannerSchedule.role,
        carhook.sweeperSchedule.role,
      ].map((role) => logicalId(role)),
    );
    expect(sorted(Object.keys(template.findResources('AWS::IAM::Role')))).toEqual(sorted([...covered]));
  });
});

describe('event sources, schedules and the fan-out rule', () => {
  it('drives the poll worker, fan-out and delivery from their queues with partial batch failures', () => {
    const mappings: Array<[IConstruct, IConstruct, { batchSize: number; maxConcurrency: number }]> = [
      [carhook.handlers.pollWorker, carhook.queues.pollJobs.queue, CARHOOK_DEFAULTS.eventSources.pollWorker],
      [carhook.handlers.fanOut, carhook.queues.fanOut.queue, CARHOOK_DEFAULTS.eventSources.fanOut],
      [carhook.handlers.delivery, carhook.queues.deliveries.queue, CARHOOK_DEFAULTS.eventSources.delivery],
    ];
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 3);
    for (const [fn, queue, tuning] of mappings) {
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: logicalId(fn) },
        EventSourceArn: getAtt(queue),
        BatchSize: tuning.batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: tuning.maxConcurrency },
      });
    }
  });

  it('runs the planner every poll interval and the sweeper every minute, with retries and a DLQ', () => {
    const cases: Array<[CarhookScheduleLike, IConstruct, string]> = [
      [carhook.plannerSchedule, carhook.handlers.planner, 'rate(1 minute)'],
      [carhook.sweeperSchedule, carhook.handlers.sweeper, 'rate(1 minute)'],
    ];
    for (const [schedule, fn, expression] of cases) {
      template.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: expression,
        State: 'ENABLED',
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: {
          Arn: getAtt(fn),
          RoleArn: getAtt(schedule.role),
          DeadLetterConfig: { Arn: getAtt(carhook.queues.scheduleDeadLetters) },
          RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 300 },
        },
      });
    }
  });

  it('follows pollInterval', () => {
    const s = new CarhookStack(testApp(), 'Five', {
      env,
      carhook: {
        apiBaseUrl: 'https://api.example.net',
        authUrl: 'https://id.example.net',
        brands: ['cielo'],
        pollInterval: Duration.minutes(5),
      },
    });
    Template.fromStack(s).hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(5 minutes)',
      Target: {
        Arn: {
          'Fn::GetAtt': [s.getLogicalId(s.carhook.handlers.planner.node.defaultChild as CfnElement), 'Arn'],
        },
      },
    });
  });

  it("sends Carhook's events, operational webhook.* ones included, to the fan-out queue", () => {
    template.resourceCountIs('AWS::Events::Rule', 1);
    const rule = template.toJSON().Resources[logicalId(carhook.fanOutRule)].Properties;
    expect(rule.EventPattern).toEqual({ source: ['carhook'] });
    expect(JSON.stringify(rule.EventBusName)).toContain(
      dataStack.getLogicalId(dataStack.data.createdEventBus?.node.defaultChild as CfnElement),
    );
    expect(rule.Targets).toEqual([
      {
        Id: 'Target0',
        Arn: getAtt(carhook.queues.fanOut.queue),
        DeadLetterConfig: { Arn: getAtt(carhook.queues.fanOut.deadLetterQueue) },
      },
    ]);
    // Only this rule may send to the queue (and, when the queue is unreachable, to its DLQ).
    const allowsRule = (queue: IConstruct, action: unknown) =>
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: logicalId(queue) }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Allow',
              Principal: { Service: 'events.amazonaws.com' },
              Action: action,
              Condition: { ArnEquals: { 'aws:SourceArn': getAtt(carhook.fanOutRule) } },
            }),
          ]),
        },
      });
    allowsRule(carhook.queues.fanOut.queue, ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
    allowsRule(carhook.queues.fanOut.deadLetterQueue, 'sqs:SendMessage');
  });
});

describe('HTTP API', () => {
  it('declares exactly the routes of the Hono app', () => {
    const app = createHttpApp(
      // Route registration only: nothing is called.
      {
        runtime: { ports: { stores: {} } } as never,
        // The body schemas are mounted as the routes' validators.
        subscriptions: { schemas: subscriptionSchemas({ knownTypes: [] }) } as never,
      },
      { auth: { kind: 'iam' } },
    );
    // A route with a body validator appears twice (validator, then handler): counted once.
    const honoRoutes = [
      ...new Set(
        app.routes
          .filter((r) => r.method !== 'ALL') // middleware
          .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z]+)/g, '{$1}')}`),
      ),
    ];
    expect(sorted(CARHOOK_HTTP_ROUTES.map((r) => `${r.method} ${r.path}`))).toEqual(sorted(honoRoutes));
  });

  it('leaves OAuth and /health public and puts IAM on every management route', () => {
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route'))
      .map((r) => ({
        key: r.Properties.RouteKey as string,
        auth: r.Properties.AuthorizationType as string,
      }))
      .filter((r) => !r.key.includes(CONSOLE_API_PREFIX));
    expect(routes).toHaveLength(CARHOOK_HTTP_ROUTES.length);
    const publicRoutes = routes.filter((r) => r.auth === 'NONE').map((r) => r.key);
    expect(sorted(publicRoutes)).toEqual([
      'GET /',
      'GET /console/app.css',
      'GET /console/app.js',
      'GET /favicon.ico',
      'GET /health',
      'GET /oauth/callback',
      'GET /oauth/{brand}/authorize',
      'GET /openapi.json',
    ]);
    for (const r of routes.filter((x) => x.auth !== 'NONE')) {
      expect(r.key).toMatch(
        /^(GET|POST|PATCH|DELETE) \/(subscriptions|enrollments|events|event-types|vehicles|metrics|capacity)(\/|$)/,
      );
      expect(r.auth, r.key).toBe('AWS_IAM');
    }
    // No catch-all: an unknown path never reaches the function.
    expect(routes.map((r) => r.key)).not.toContain('$default');
  });

  it('declares a console copy of every IAM route, authorized by the admin-token Lambda authorizer', () => {
    // biome-ignore lint/suspicious/noExplicitAny: template JSON, read freely by the assertions.
    type Json = any;
    const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Json }>;
    const authorizers = Object.entries(resources).filter(
      ([, r]) => r.Type === 'AWS::ApiGatewayV2::Authorizer',
    );
    expect(authorizers).toHaveLength(1);
    const [authorizerId, authorizer] = authorizers[0] as [string, { Properties: Json }];
    expect(authorizer.Properties).toMatchObject({
      AuthorizerType: 'REQUEST',
      AuthorizerPayloadFormatVersion: '2.0',
      EnableSimpleResponses: true,
      IdentitySource: ['$request.header.Authorization'],
      AuthorizerResultTtlInSeconds: 60,
    });
    expect(JSON.stringify(authorizer.Properties.AuthorizerUri)).toContain(
      logicalId(carhook.handlers.consoleAuthorizer),
    );
    const consoleRoutes = Object.values(resources)
      .filter((r) => r.Type === 'AWS::ApiGatewayV2::Route')
      .map((r) => r.Properties)
      .filter((p) => String(p.RouteKey).includes(CONSOLE_API_PREFIX));
    const iamRoutes = CARHOOK_HTTP_ROUTES.filter((r) => r.access === 'iam');
    expect(sorted(consoleRoutes.map((p) => p.RouteKey))).toEqual(
      sorted(iamRoutes.map((r) => `${r.method} ${CONSOLE_API_PREFIX}${r.path}`)),
    );
    for (const route of consoleRoutes) {
      expect(route.AuthorizationType, route.RouteKey).toBe('CUSTOM');
      expect(route.AuthorizerId, route.RouteKey).toEqual({ Ref: authorizerId });
    }
    // API Gateway may invoke the authorizer from this API only.
    const permission = Object.values(resources).find(
      (r) =>
        r.Type === 'AWS::Lambda::Permission' &&
        JSON.stringify(r.Properties.FunctionName).includes(logicalId(carhook.handlers.consoleAuthorizer)),
    );
    expect(permission?.Properties).toMatchObject({ Principal: 'apigateway.amazonaws.com' });
  });

  it('integrates every route with the HTTP function (payload 2.0)', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Integration', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      IntegrationUri: getAtt(carhook.handlers.httpApi),
      PayloadFormatVersion: '2.0',
    });
    // API Gateway may invoke the function only from this API.
    const httpPermissions = Object.values(template.findResources('AWS::Lambda::Permission')).filter(
      (p) =>
        !JSON.stringify(p.Properties.FunctionName).includes(logicalId(carhook.handlers.consoleAuthorizer)),
    );
    expect(httpPermissions.length).toBeGreaterThan(0);
    for (const permission of httpPermissions) {
      expect(permission.Properties).toMatchObject({
        Action: 'lambda:InvokeFunction',
        Principal: 'apigateway.amazonaws.com',
        FunctionName: getAtt(carhook.handlers.httpApi),
      });
      expect(JSON.stringify(permission.Properties.SourceArn)).toContain(logicalId(carhook.httpApi.api));
    }
  });

  it('throttles the $default stage and writes JSON access logs without query strings', () => {
    const stage = template.toJSON().Resources[logicalId(carhook.httpApi.stage)].Properties;
    expect(stage).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: {
        ThrottlingRateLimit: CARHOOK_DEFAULTS.httpThrottle.rateLimit,
        ThrottlingBurstLimit: CARHOOK_DEFAULTS.httpThrottle.burstLimit,
      },
      AccessLogSettings: { DestinationArn: getAtt(carhook.httpApi.accessLogs) },
    });
    const format = JSON.parse(stage.AccessLogSettings.Format) as Record<string, string>;
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      caller: '$context.identity.userArn',
      routeKey: '$context.routeKey',
      status: '$context.status',
    });
    // The OAuth callback carries `code` and `state` in its query string: never logged.
    expect(stage.AccessLogSettings.Format).not.toMatch(/path|querystring|requestOverride/i);
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
  });

  it('outputs the API URL, the bus name and the table name', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.ApiUrl?.Value).toEqual(stack.resolve(carhook.httpApi.url));
    expect(JSON.stringify(outputs.EventBusName?.Value)).toContain(
      dataStack.getLogicalId(dataStack.data.createdEventBus?.node.defaultChild as CfnElement),
    );
    expect(JSON.stringify(outputs.TableName?.Value)).toContain(
      dataStack.getLogicalId(dataStack.data.table.node.defaultChild as CfnElement),
    );
  });
});

type CarhookScheduleLike = Carhook['plannerSchedule'];

describe('lib/README.md architecture diagram', () => {
  it('names every function, queue and dead-letter queue the stack synthesizes, and the public routes', () => {
    const readme = readFileSync(join(REPO_ROOT, 'lib/README.md'), 'utf8');
    const diagram = /```mermaid\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const nodes = {
      Planner: 'planner[Planner λ]',
      PollWorker: 'pollWorker[Poll worker λ]',
      Sweeper: 'sweeper[Sweeper λ]',
      FanOut: 'fanOut[Fan-out λ]',
      Delivery: 'delivery[Delivery λ]',
      HttpApi: 'httpFn[HTTP API λ]',
      ConsoleAuthorizer: 'consoleAuth[Console authorizer λ]',
    };
    expect(sorted(Object.keys(nodes))).toEqual(sorted([...carhook.functions.keys()]));
    for (const node of Object.values(nodes)) expect(diagram).toContain(node);
    for (const queue of ['poll-jobs queue', 'fan-out queue', 'deliveries queue'])
      expect(diagram).toContain(queue);
    // One DLQ node per dead-letter queue alarm.
    expect(diagram.match(/\[\[[a-z-]+ DLQ\]\]/g)?.length).toBe(carhook.monitoring.deadLetterQueueAlarms.size);
    for (const [, , count] of [
      ['pollJobs', 'poll-jobs', CARHOOK_DEFAULTS.maxReceiveCount.pollJobs],
      ['fanOut', 'fan-out', CARHOOK_DEFAULTS.maxReceiveCount.fanOut],
      ['deliveries', 'deliveries', CARHOOK_DEFAULTS.maxReceiveCount.deliveries],
    ] as const) {
      expect(diagram).toContain(`${count} receives`);
    }
    expect(diagram).toContain('detail-type not webhook.*');
    expect(diagram).toContain('sweeperSchedule(["Scheduler rate(1 minute)"]) --> sweeper');
    expect(diagram).toContain('sweeper -- expired claims --> deliveries');
  });
});

describe('building blocks refuse what they cannot build safely, naming the prop', () => {
  const scope = () => new Stack(testApp(), 'Blocks', { env });
  const fn = (stack: Stack) => LambdaFunction.fromFunctionName(stack, 'Fn', 'existing');

  it.each<[string, (stack: Stack) => unknown, RegExp]>([
    [
      'a queue with no redrive',
      (stack) =>
        new CarhookQueue(stack, 'Jobs', { consumerTimeout: Duration.seconds(30), maxReceiveCount: 0 }),
      /`Jobs\.maxReceiveCount` must be an integer from 1 to 1000, got 0/,
    ],
    [
      'a consumer timeout above the 15-minute Lambda maximum',
      (stack) =>
        new CarhookQueue(stack, 'Jobs', { consumerTimeout: Duration.minutes(16), maxReceiveCount: 5 }),
      /`Jobs\.consumerTimeout` must be a whole number of seconds from 1 to 900/,
    ],
    [
      'a schedule faster than Scheduler allows',
      (stack) =>
        new CarhookSchedule(stack, 'Tick', {
          target: fn(stack),
          rate: Duration.seconds(30),
          deadLetterQueue: new CarhookQueue(stack, 'Q', {
            consumerTimeout: Duration.seconds(30),
            maxReceiveCount: 5,
          }).deadLetterQueue,
          description: 'a test tick',
        }),
      /`Tick\.rate` must be a whole number of minutes from 1 to 1440, got 30 seconds/,
    ],
    [
      'an HTTP API throttle of zero',
      (stack) =>
        new CarhookHttpApi(stack, 'Http', { handler: fn(stack), throttle: { rateLimit: 0, burstLimit: 10 } }),
      /`throttle\.rateLimit` must be an integer from 1 to 10000, got 0/,
    ],
    [
      'a public route without a reason',
      (stack) =>
        new CarhookHttpApi(stack, 'Http', {
          handler: fn(stack),
          routes: [{ method: 'GET', path: '/open', access: 'public' }],
        }),
      /`routes GET \/open` is public: say why/,
    ],
  ])('refuses %s', (_what, build, message) => {
    const stack = scope();
    expect(() => build(stack)).toThrow(CarhookConfigError);
    expect(() => build(scope())).toThrow(message);
  });
});
