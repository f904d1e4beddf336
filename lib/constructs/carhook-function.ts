import { isAbsolute, join } from 'node:path';
import { type RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import {
  type BundlingOptions,
  NodejsFunction,
  type NodejsFunctionProps,
  OutputFormat,
} from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { CARHOOK_DEFAULTS, CARHOOK_ENV } from '../config';
import { LOCK_FILE, REPO_ROOT } from '../paths';
import { CarhookConfigError } from '../validation';
import { CarhookTable } from './carhook-table';

export type CarhookLogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

/** What a function may do with a table: `read` never writes, `readWrite` adds puts, updates, deletes. */
export type TableAccess = 'read' | 'readWrite';
/** `send` for producers, `consume` for the function an SQS event source drives. */
export type QueueAccess = 'send' | 'consume';

/** The bundling knobs a handler may change; the rest (ESM, minify, source maps, target) is house policy. */
export type CarhookBundlingOptions = Pick<
  BundlingOptions,
  'externalModules' | 'nodeModules' | 'bundleAwsSDK' | 'metafile' | 'define'
>;

export interface CarhookFunctionProps
  extends Omit<
    NodejsFunctionProps,
    | 'runtime'
    | 'architecture'
    | 'tracing'
    | 'logGroup'
    | 'logRetention'
    | 'logRemovalPolicy'
    | 'loggingFormat'
    | 'logFormat'
    | 'applicationLogLevel'
    | 'applicationLogLevelV2'
    | 'systemLogLevel'
    | 'systemLogLevelV2'
    | 'bundling'
    | 'role'
    | 'depsLockFilePath'
    | 'projectRoot'
    | 'code'
  > {
  /** The handler module (TypeScript), e.g. `functions/handlers/poll-worker.ts`, absolute or from the repo root. */
  readonly entry: string;
  /**
   * Powertools service name: the logger's `service` and the `service` dimension of every metric.
   * Alarms filter on it, so all functions of one deployment share it.
   * @default 'carhook'
   */
  readonly serviceName?: string;
  /** @default 'Carhook' */
  readonly metricsNamespace?: string;
  /** @default 'INFO' */
  readonly logLevel?: CarhookLogLevel;
  /** @default one month */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the log group when the function is removed.
   * @default RETAIN (the CDK default for log groups)
   */
  readonly logRemovalPolicy?: RemovalPolicy;
  readonly bundling?: CarhookBundlingOptions;
}

/**
 * ESM bundles lose `require`; some dependencies (the X-Ray SDK under Powertools Tracer) still call
 * it for Node built-ins, so the bundle recreates it (the banner Powertools documents for ESM).
 */
/** Stands in for `semver` in the bundles (see the bundling options below). */
export const SEMVER_STAND_IN = 'lib/bundling/semver-gte.cjs';

const ESM_REQUIRE_BANNER =
  "import { createRequire as topLevelCreateRequire } from 'node:module';const require = topLevelCreateRequire(import.meta.url);";

/** Names a binding may set (upper snake case); `AWS_` is refused separately: Lambda reserves it. */
const ENV_VAR_NAME = /^[A-Z][A-Z0-9_]*$/;

/**
 * The house Lambda function: Node 22 on ARM_64, ESM bundle (minified, tree-shaken, source maps),
 * X-Ray tracing, its own log group with retention, Powertools configuration, a role that can only
 * write its own logs, and `bind*` helpers that grant least privilege and set the matching
 * environment variable in one call.
 */
export class CarhookFunction extends NodejsFunction {
  /** The execution role (also `role`), typed as a concrete Role. */
  readonly serviceRole: Role;
  /** The handler module, absolute (bench/bundles.ts names bundles by it). */
  readonly entryPath: string;
  private readonly boundEnv = new Set<string>();

  constructor(scope: Construct, id: string, props: CarhookFunctionProps) {
    const {
      serviceName,
      metricsNamespace,
      logLevel,
      logRetention,
      logRemovalPolicy,
      bundling,
      environment,
      ...rest
    } = props;
    const level = logLevel ?? 'INFO';
    // Documented as "absolute or from the repo root": not from wherever synth was started.
    const entryPath = isAbsolute(rest.entry) ? rest.entry : join(REPO_ROOT, rest.entry);
    // Created next to the function because a subclass cannot own children before super().
    const logGroup = new LogGroup(scope, `${id}LogGroup`, {
      retention: logRetention ?? CARHOOK_DEFAULTS.logRetention,
      ...(logRemovalPolicy === undefined ? {} : { removalPolicy: logRemovalPolicy }),
    });
    // An explicit role instead of AWSLambdaBasicExecutionRole: the managed policy lets a function
    // write to every log group of the account; this one may write only to its own.
    const serviceRole = new Role(scope, `${id}ServiceRole`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of the ${id} function`,
    });
    super(scope, id, {
      memorySize: CARHOOK_DEFAULTS.function.memorySize,
      timeout: CARHOOK_DEFAULTS.function.timeout,
      ...rest,
      entry: entryPath,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      tracing: Tracing.ACTIVE,
      role: serviceRole,
      logGroup,
      // JSON platform logs so Logs Insights queries cover START/REPORT lines as well as Powertools'.
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel[level],
      // INFO keeps the platform's START/REPORT lines (duration, memory, init) for investigations.
      systemLogLevelV2: SystemLogLevel.INFO,
      depsLockFilePath: LOCK_FILE,
      projectRoot: REPO_ROOT,
      bundling: {
        minify: true,
        sourceMap: true,
        // The .map file stays small without the sources; stack traces still point at the TS lines.
        sourcesContent: false,
        target: 'node22',
        format: OutputFormat.ESM,
        // Prefer ESM entry points so esbuild can tree-shake dependencies.
        mainFields: ['module', 'main'],
        banner: ESM_REQUIRE_BANNER,
        // aws-xray-sdk-core (Powertools Tracer) requires all of `semver` for an AWS SDK v2 check
        // Carhook never runs: a 1 KB stand-in saves ~29 KB per bundle (lib/bundling/semver-gte.cjs).
        // Relative to the project root, where local bundling runs esbuild.
        esbuildArgs: { '--alias': `semver=./${SEMVER_STAND_IN}` },
        ...bundling,
      },
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: serviceName ?? CARHOOK_DEFAULTS.serviceName,
        POWERTOOLS_METRICS_NAMESPACE: metricsNamespace ?? CARHOOK_DEFAULTS.metricsNamespace,
        POWERTOOLS_LOG_LEVEL: level,
        // Handler results can carry tokens (OAuth callback): never copy them into traces.
        POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
        ...environment,
      },
    });
    this.serviceRole = serviceRole;
    this.entryPath = entryPath;
    logGroup.grantWrite(serviceRole);
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Node.js 22 is the runtime Carhook is built, tested and benchmarked on (package.json engines, bench/); moving to a newer one is a deliberate change made with those, not a silent default.',
    });
    Validations.of(serviceRole).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Only X-Ray tracing (xray:PutTraceSegments, xray:PutTelemetryRecords) uses Resource "*": X-Ray has no resource-level permissions. Every other statement of this role names its resource (checked by test/infra).',
    });
  }

  /**
   * Grants `read` (Get/BatchGet/Query/Scan/ConditionCheck) or `readWrite` (adds Put/Update/Delete/
   * BatchWrite) on the table and its named indexes, the matching KMS use of the table key, and sets
   * `CARHOOK_TABLE_NAME`.
   */
  bindTable(table: ITableV2, access: TableAccess): this {
    this.claimEnv(CARHOOK_ENV.tableName, 'bindTable');
    const read = [
      'dynamodb:GetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:Query',
      'dynamodb:Scan',
      'dynamodb:ConditionCheckItem',
      'dynamodb:DescribeTable',
    ];
    const write = [
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:BatchWriteItem',
    ];
    // Index ARNs by name when the table is ours; an imported table's indexes are unknown to us.
    const indexArns =
      table instanceof CarhookTable
        ? table.indexNames.map((name) => `${table.tableArn}/index/${name}`)
        : [`${table.tableArn}/index/*`];
    this.addToRolePolicy(
      new PolicyStatement({
        actions: access === 'read' ? read : [...read, ...write],
        resources: [table.tableArn, ...indexArns],
      }),
    );
    const key = table instanceof CarhookTable ? table.tableKey : table.encryptionKey;
    if (key) {
      // DynamoDB decrypts with the table key on reads and encrypts on writes, on the caller's behalf.
      key.grant(
        this,
        ...(access === 'read'
          ? ['kms:Decrypt', 'kms:DescribeKey']
          : ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey']),
      );
    }
    this.addEnvironment(CARHOOK_ENV.tableName, table.tableName);
    return this;
  }

  /**
   * Grants `events:PutEvents` on this bus only and sets `CARHOOK_EVENT_BUS_NAME`. With `source`,
   * the grant is limited to events of that `Source` (IAM condition `events:source`) and
   * `CARHOOK_EVENT_SOURCE` is set, so a function cannot impersonate another producer on a shared bus.
   */
  bindBus(bus: IEventBus, source?: string): this {
    this.claimEnv(CARHOOK_ENV.eventBusName, 'bindBus');
    this.addToRolePolicy(
      new PolicyStatement({
        actions: ['events:PutEvents'],
        resources: [bus.eventBusArn],
        ...(source === undefined ? {} : { conditions: { StringEquals: { 'events:source': source } } }),
      }),
    );
    this.addEnvironment(CARHOOK_ENV.eventBusName, bus.eventBusName);
    if (source !== undefined) {
      this.claimEnv(CARHOOK_ENV.eventSource, 'bindBus');
      this.addEnvironment(CARHOOK_ENV.eventSource, source);
    }
    return this;
  }

  /**
   * Grants read of the secret, decrypt of its key through Secrets Manager only, and puts the
   * secret's ARN in `envVar`. Both grants go in the function's role (the key policy trusts the
   * account): `secret.grantRead` would write the role into the key policy, and with the key in the
   * stateful stack that makes the two stacks depend on each other.
   */
  bindSecret(secret: ISecret, envVar: string): this {
    this.claimEnv(envVar, 'bindSecret');
    this.addToRolePolicy(
      new PolicyStatement({
        actions: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
        resources: [secret.secretArn],
      }),
    );
    if (secret.encryptionKey) {
      this.addToRolePolicy(
        new PolicyStatement({
          actions: ['kms:Decrypt'],
          resources: [secret.encryptionKey.keyArn],
          conditions: {
            StringEquals: {
              'kms:ViaService': `secretsmanager.${Stack.of(this).region}.${Stack.of(this).urlSuffix}`,
            },
          },
        }),
      );
    }
    this.addEnvironment(envVar, secret.secretArn);
    return this;
  }

  /**
   * `send`: SendMessage (+ KMS data key for an encrypted queue); `consume`: receive, delete and
   * change visibility (the poll worker pushes a rate-limited job back). With `envVar`, the queue URL
   * is put there.
   */
  bindQueue(queue: IQueue, access: QueueAccess, envVar?: string): this {
    if (envVar !== undefined) this.claimEnv(envVar, 'bindQueue');
    const common = ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl'];
    this.addToRolePolicy(
      new PolicyStatement({
        actions:
          access === 'send'
            ? ['sqs:SendMessage', ...common]
            : ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', ...common],
        resources: [queue.queueArn],
      }),
    );
    // SQS SSE with a customer key: producers need a data key, consumers only decrypt.
    queue.encryptionMasterKey?.grant(
      this,
      ...(access === 'send' ? ['kms:GenerateDataKey', 'kms:Decrypt'] : ['kms:Decrypt']),
    );
    if (envVar !== undefined) this.addEnvironment(envVar, queue.queueUrl);
    return this;
  }

  /** One binding per variable: a second one would silently overwrite the first. */
  private claimEnv(name: string, by: string): void {
    if (!Token.isUnresolved(name) && !ENV_VAR_NAME.test(name)) {
      throw new CarhookConfigError(
        `${by}(envVar)`,
        `must be an upper-case environment variable name, got '${name}'`,
      );
    }
    if (name.startsWith('AWS_')) {
      throw new CarhookConfigError(
        `${by}(envVar)`,
        `must not use the AWS_ prefix Lambda reserves, got '${name}'`,
      );
    }
    if (this.boundEnv.has(name)) {
      throw new CarhookConfigError(
        `${by}(envVar)`,
        `'${name}' is already bound on function ${this.node.path}`,
      );
    }
    this.boundEnv.add(name);
  }
}
