import { isAbsolute, join } from 'node:path';
import { type RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import { type ITableV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
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
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { bundleDefines, CARHOOK_BUNDLING } from '../bundling';
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
export type CarhookBundlingOptions = Pick<BundlingOptions, 'metafile' | 'define'>;

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
  /**
   * X-Ray active tracing, with Powertools Tracer in the bundle. Without it the function is not
   * traced and its bundle carries neither the Tracer nor the X-Ray SDK.
   * @default true
   */
  readonly tracing?: boolean;
  readonly bundling?: CarhookBundlingOptions;
}

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
      tracing,
      bundling,
      environment,
      ...rest
    } = props;
    const traced = tracing ?? true;
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
      tracing: traced ? Tracing.ACTIVE : Tracing.DISABLED,
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
        ...CARHOOK_BUNDLING,
        mainFields: [...CARHOOK_BUNDLING.mainFields],
        externalModules: [...CARHOOK_BUNDLING.externalModules],
        format: OutputFormat.ESM,
        ...bundling,
        define: { ...bundleDefines({ tracing: traced }), ...bundling?.define },
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
    // The construct grants on a customer-managed key (the table's, an encrypted queue's) give
    // `kms:GenerateDataKey*` and `kms:ReEncrypt*`, always on that one key.
    for (const action of ['kms:GenerateDataKey*', 'kms:ReEncrypt*']) {
      Validations.of(serviceRole).acknowledge({
        id: `AwsSolutions-IAM5[Action::${action}]`,
        reason: `${action} comes from the CDK grants on a customer-managed key (table grantReadWriteData, queue grantSendMessages) and is scoped to that key's ARN (checked by test/infra).`,
      });
    }
    Validations.of(serviceRole).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Only X-Ray tracing (xray:PutTraceSegments, xray:PutTelemetryRecords) uses Resource "*": X-Ray has no resource-level permissions. Every other statement of this role names its resource (checked by test/infra).',
    });
  }

  /**
   * Grants `grantReadData` (`read`) or `grantReadWriteData` (`readWrite`): the data actions on the
   * table and its indexes, and the matching use of the table key. Sets `CARHOOK_TABLE_NAME`.
   *
   * TableV2's grants name a table's indexes `index/*`. Carhook's table knows its index names, so
   * the grant is made on references to the same table without index permissions (with its key)
   * and to each named index (an index ARN is the table's plus `/index/<name>`), and the role names
   * every resource it may touch; an imported table's indexes are unknown: it keeps `index/*`.
   */
  bindTable(table: ITableV2, access: TableAccess): this {
    this.claimEnv(CARHOOK_ENV.tableName, 'bindTable');
    const targets =
      table instanceof CarhookTable
        ? [
            TableV2.fromTableAttributes(this, 'BoundTable', {
              tableArn: table.tableArn,
              encryptionKey: table.tableKey,
            }),
            ...table.indexNames.map((name) =>
              TableV2.fromTableAttributes(this, `BoundIndex-${name}`, {
                tableArn: `${table.tableArn}/index/${name}`,
              }),
            ),
          ]
        : [
            TableV2.fromTableAttributes(this, 'BoundTable', {
              tableArn: table.tableArn,
              ...(table.encryptionKey ? { encryptionKey: table.encryptionKey } : {}),
              grantIndexPermissions: true,
            }),
          ];
    for (const target of targets) {
      if (access === 'read') target.grantReadData(this);
      else target.grantReadWriteData(this);
    }
    this.addEnvironment(CARHOOK_ENV.tableName, table.tableName);
    return this;
  }

  /**
   * Grants `events:PutEvents` on this bus only (`grantPutEventsTo`) and sets
   * `CARHOOK_EVENT_BUS_NAME`. With `source`, the grant is narrowed to events of that `Source` (IAM
   * condition `events:source`) and `CARHOOK_EVENT_SOURCE` is set, so a function cannot impersonate
   * another producer on a shared bus. The Service Authorization Reference types `events:source` as
   * ArrayOfString, so the condition uses the set operator `ForAnyValue:` (a single-valued operator on
   * a multivalued key does not match); PutEvents is authorized per entry, one source each, so it
   * allows exactly the entries whose `Source` is `source`, and none without one.
   */
  bindBus(bus: IEventBus, source?: string): this {
    this.claimEnv(CARHOOK_ENV.eventBusName, 'bindBus');
    const grant = bus.grantPutEventsTo(this);
    if (source !== undefined) {
      for (const statement of grant.principalStatements) {
        statement.addCondition('ForAnyValue:StringEquals', { 'events:source': source });
      }
    }
    this.addEnvironment(CARHOOK_ENV.eventBusName, bus.eventBusName);
    if (source !== undefined) {
      this.claimEnv(CARHOOK_ENV.eventSource, 'bindBus');
      this.addEnvironment(CARHOOK_ENV.eventSource, source);
    }
    return this;
  }

  /**
   * Grants read of the secret (`grantRead`: GetSecretValue and DescribeSecret on it), decrypt of its
   * key (`grantDecrypt`, narrowed to calls made through Secrets Manager: `kms:ViaService`), and puts
   * the secret's ARN in `envVar`. Both grants land in the function's role: `grantRead` on the secret
   * itself would also write the role into the key policy (Secrets Manager's via-service principal),
   * and with the key in the stateful stack the two stacks would depend on each other; so the read is
   * granted on a key-less reference to the same secret.
   */
  bindSecret(secret: ISecret, envVar: string): this {
    this.claimEnv(envVar, 'bindSecret');
    Secret.fromSecretCompleteArn(this, `${envVar}Secret`, secret.secretArn).grantRead(this);
    const decrypt = secret.encryptionKey?.grantDecrypt(this);
    for (const statement of decrypt?.principalStatements ?? []) {
      statement.addCondition('StringEquals', {
        'kms:ViaService': `secretsmanager.${Stack.of(this).region}.${Stack.of(this).urlSuffix}`,
      });
    }
    this.addEnvironment(envVar, secret.secretArn);
    return this;
  }

  /**
   * `send`: `grantSendMessages` (+ the key's data key for an encrypted queue); `consume`:
   * `grantConsumeMessages` (receive, delete, change visibility: the poll worker pushes a
   * rate-limited job back). With `envVar`, the queue URL is put there.
   */
  bindQueue(queue: IQueue, access: QueueAccess, envVar?: string): this {
    if (envVar !== undefined) this.claimEnv(envVar, 'bindQueue');
    if (access === 'send') queue.grantSendMessages(this);
    else queue.grantConsumeMessages(this);
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
