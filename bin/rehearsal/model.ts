/**
 * What the rehearsal built from the templates: every resource it created or stands in for, with
 * the values the templates' references resolved to. The drivers (Lambda containers, event
 * sources, the HTTP API front) run from this and from nothing written by hand.
 */

export interface PolicyDocument {
  readonly Version?: string;
  readonly Statement: readonly Record<string, unknown>[] | Record<string, unknown>;
}

export interface RehearsedFunction {
  readonly logicalId: string;
  readonly stack: string;
  readonly name: string;
  readonly arn: string;
  readonly roleArn: string;
  /** `index.handler`: file `index` (.mjs, .js or .cjs) of `codeDir`, export `handler`. */
  readonly handler: string;
  readonly runtime: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  readonly environment: Readonly<Record<string, string>>;
  readonly codeDir: string;
  readonly tracing: boolean;
  readonly logFormat: 'JSON' | 'Text';
}

export interface RehearsedQueue {
  readonly logicalId: string;
  readonly name: string;
  readonly url: string;
  readonly arn: string;
  readonly deadLetterArn?: string;
  readonly maxReceiveCount?: number;
  readonly visibilityTimeoutSeconds: number;
}

export interface EventSourceMapping {
  readonly logicalId: string;
  readonly functionArn: string;
  readonly queueArn: string;
  readonly batchSize: number;
  readonly reportBatchItemFailures: boolean;
  readonly maximumConcurrency?: number;
  readonly enabled: boolean;
}

export interface RehearsedSchedule {
  readonly logicalId: string;
  readonly name: string;
  readonly expression: string;
  readonly targetArn: string;
  readonly roleArn: string;
  readonly input?: string;
  readonly deadLetterArn?: string;
  readonly maximumRetryAttempts: number;
}

export interface RehearsedRule {
  readonly logicalId: string;
  readonly name: string;
  readonly busName: string;
  readonly arn: string;
  readonly pattern?: unknown;
  readonly targets: readonly { id: string; arn: string; deadLetterArn?: string }[];
}

export interface HttpRoute {
  readonly routeKey: string;
  readonly authorizationType: 'NONE' | 'AWS_IAM' | 'CUSTOM' | 'JWT';
  readonly authorizerId?: string;
  readonly functionArn: string;
  readonly payloadFormatVersion: string;
  readonly timeoutMs: number;
}

export interface HttpAuthorizer {
  readonly id: string;
  readonly name: string;
  readonly functionArn: string;
  readonly identitySource: readonly string[];
  readonly ttlSeconds: number;
  readonly simpleResponses: boolean;
  readonly payloadFormatVersion: string;
}

export interface HttpApi {
  readonly logicalId: string;
  readonly id: string;
  readonly name: string;
  readonly routes: HttpRoute[];
  readonly authorizers: Map<string, HttpAuthorizer>;
}

export interface LambdaPermission {
  readonly functionArn: string;
  readonly principal: string;
  readonly sourceArn?: string;
}

export interface RehearsedSecret {
  readonly logicalId: string;
  readonly arn: string;
  readonly name: string;
  readonly kmsKeyArn?: string;
}

/** A resource the templates declare that the rehearsal neither creates nor drives (alarms, log groups…). */
export interface NotRehearsed {
  readonly stack: string;
  readonly logicalId: string;
  readonly type: string;
}

export interface Deployment {
  readonly region: string;
  readonly account: string;
  readonly functions: RehearsedFunction[];
  readonly queues: RehearsedQueue[];
  readonly eventSourceMappings: EventSourceMapping[];
  readonly schedules: RehearsedSchedule[];
  readonly rules: RehearsedRule[];
  readonly apis: HttpApi[];
  readonly permissions: LambdaPermission[];
  readonly secrets: RehearsedSecret[];
  readonly tables: { logicalId: string; name: string; arn: string }[];
  readonly buses: { logicalId: string; name: string; arn: string }[];
  /** Resource policies by the ARN they protect (SQS queue policies). */
  readonly resourcePolicies: Map<string, PolicyDocument>;
  /** Role ARN → the logical id of the role and the function(s) that run as it. */
  readonly roles: Map<string, { name: string; logicalId: string }>;
  readonly notRehearsed: NotRehearsed[];
  /** Stack outputs, by `<stack>.<output>`. */
  readonly outputs: Map<string, string>;
  /** HTTP API integrations by id, until the routes that target them are created. */
  readonly integrations: Map<
    string,
    { functionArn: string; payloadFormatVersion: string; timeoutMs: number }
  >;
}

export function emptyDeployment(region: string, account: string): Deployment {
  return {
    region,
    account,
    functions: [],
    queues: [],
    eventSourceMappings: [],
    schedules: [],
    rules: [],
    apis: [],
    permissions: [],
    secrets: [],
    tables: [],
    buses: [],
    resourcePolicies: new Map(),
    roles: new Map(),
    notRehearsed: [],
    outputs: new Map(),
    integrations: new Map(),
  };
}

export function functionByArn(deployment: Deployment, arn: string): RehearsedFunction | undefined {
  // A target may name a version or alias (`<arn>:<qualifier>`); the rehearsal runs $LATEST.
  return deployment.functions.find((f) => arn === f.arn || arn.startsWith(`${f.arn}:`));
}

export function queueByArn(deployment: Deployment, arn: string): RehearsedQueue | undefined {
  return deployment.queues.find((q) => q.arn === arn);
}
