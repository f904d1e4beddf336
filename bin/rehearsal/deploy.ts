/**
 * A rehearsed deployment, up and running: the assembly linted and provisioned onto moto and
 * DynamoDB Local, every function's role assumed, the IAM gate in front of AWS, each function in
 * its Lambda host, its SQS mappings polling, each HTTP API behind its front. Everything it starts
 * is stopped by `stop()`, on any failure of `startDeployment` itself, and with this process.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { AssumeRoleCommand } from '@aws-sdk/client-sts';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../functions/adapters/local/dynamodb-local';
import {
  ADMIN_BOOTSTRAP_REQUESTS,
  type AdminClients,
  type Credentials,
  createAdmin,
  destroyAdmin,
  routeSqsThrough,
} from './admin';
import { readAssembly } from './assembly';
import { type SourceIncident, SqsPoller, tick } from './event-sources';
import { type Denial, type Gate, startGate } from './gate';
import { type HttpFront, startHttpFront } from './http-front';
import { PolicyEvaluator, type Principal, Principals, rolePolicies } from './iam';
import { FunctionHost, type InvokeOutcome } from './lambda-host';
import { type LintReport, lintTemplates } from './lint';
import { type Deployment, emptyDeployment, functionByArn, queueByArn } from './model';
import { allowUnauthenticated, type MotoServer, startMoto } from './moto';
import { provision } from './provision';

export interface Incident {
  readonly at: number;
  readonly where: string;
  readonly message: string;
}

export interface DeploymentOptions {
  readonly assemblyDir: string;
  readonly runMarker: string;
  readonly logDir: string;
  /** Per function environment variables the caller replaces (the API's address outside AWS). */
  readonly overrides: (env: Readonly<Record<string, string>>) => Record<string, string>;
  readonly onStep?: (message: string) => void;
  /** Where problems are reported as they happen (a function's error, an AccessDenied…). */
  readonly incidents?: Incident[];
}

export interface RunningDeployment {
  readonly deployment: Deployment;
  readonly admin: AdminClients;
  readonly lint: LintReport;
  readonly hosts: ReadonlyMap<string, FunctionHost>;
  readonly fronts: ReadonlyMap<string, HttpFront>;
  readonly principals: Principals;
  readonly evaluator: PolicyEvaluator;
  readonly gate: Gate;
  readonly incidents: Incident[];
  readonly denials: readonly Denial[];
  readonly motoEndpoint: string;
  readonly pollers: readonly SqsPoller[];
  /** One Scheduler tick of every schedule (as their rates would fire together). */
  tickSchedules(): Promise<{ schedule: string; outcome: InvokeOutcome }[]>;
  /** Messages visible or in flight in a queue. */
  queueDepth(queueArn: string): Promise<number>;
  stop(): Promise<void>;
}

export async function startDeployment(options: DeploymentOptions): Promise<RunningDeployment> {
  const stacks = readAssembly(options.assemblyDir);
  const region = stacks.find((s) => s.region)?.region ?? 'us-east-1';
  const account = stacks.find((s) => s.account)?.account ?? '123456789012';
  const step = options.onStep ?? (() => {});
  const cleanups: (() => Promise<void> | void)[] = [];
  const stopAll = async () => {
    for (const c of cleanups.splice(0).reverse()) {
      try {
        await c();
      } catch {
        // keep stopping the rest
      }
    }
  };
  try {
    const lintPromise = lintTemplates(
      options.assemblyDir,
      stacks.map((s) => `${s.name}.template.json`),
    );
    lintPromise.catch(() => {});
    const [moto, dynamo] = await Promise.all([
      startMoto({ initialNoAuthActions: ADMIN_BOOTSTRAP_REQUESTS, env: { MOTO_ACCOUNT_ID: account } }).then(
        (m: MotoServer) => {
          cleanups.push(() => m.stop());
          return m;
        },
      ),
      startDynamoDbLocal().then((d: DynamoDbLocal) => {
        cleanups.push(() => d.stop());
        return d;
      }),
    ]);
    step(`moto ${moto.endpoint} (IAM enforced), DynamoDB Local ${dynamo.endpoint}`);
    const admin = await createAdmin({
      motoEndpoint: moto.endpoint,
      dynamoEndpoint: dynamo.endpoint,
      region,
      account,
    });
    cleanups.push(() => destroyAdmin(admin));
    const incidents: Incident[] = options.incidents ?? [];
    const incident = (where: string, message: string) => incidents.push({ at: Date.now(), where, message });

    // The gate runs before anything is created: the queues are created through it (see routeSqsThrough).
    const deployment = emptyDeployment(region, account);
    const principals = new Principals();
    principals.add({
      arn: admin.arn,
      label: 'rehearsal administrator',
      credentials: admin.credentials,
      policies: [{ name: 'administrator', policy: admin.policy }],
    });
    const evaluator = new PolicyEvaluator(account, deployment.resourcePolicies);
    const gate = await startGate({
      deployment,
      principals,
      evaluator,
      motoEndpoint: moto.endpoint,
      dynamoEndpoint: dynamo.endpoint,
      admin: admin.credentials,
      onDenial: (d) => incident(d.principal, `AccessDenied: ${d.action} on ${d.resource} (${d.reason})`),
    });
    cleanups.push(() => gate.close());
    routeSqsThrough(admin, gate.endpoint, region);

    await provision(stacks, { admin, deployment, assemblyDir: options.assemblyDir, region, account });
    step(
      `created from ${stacks.map((s) => s.name).join(', ')}: ${deployment.functions.length} functions, ${deployment.queues.length} queues, ` +
        `${deployment.rules.length} rules, ${deployment.schedules.length} schedules, ${deployment.secrets.length} secrets, ` +
        `${deployment.apis.reduce((n, a) => n + a.routes.length, 0)} routes (${deployment.notRehearsed.length} resources not rehearsed)`,
    );
    const lint = await lintPromise;

    const roleSessions = new Map<string, Principal>();
    // Lambda (and Scheduler) assume these roles as services, which moto's trust check cannot express:
    // the window is exactly one request per role, so nothing else may call moto meanwhile.
    await allowUnauthenticated(moto.endpoint, deployment.roles.size);
    const sessions: [string, { name: string; logicalId: string }, Credentials, string][] = [];
    for (const [roleArn, role] of deployment.roles) {
      const fn = deployment.functions.find((f) => f.roleArn === roleArn);
      const assumed = await admin.sts.send(
        new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: (fn?.name ?? role.name).slice(0, 64) }),
      );
      const c = assumed.Credentials;
      sessions.push([
        roleArn,
        role,
        {
          accessKeyId: c?.AccessKeyId ?? '',
          secretAccessKey: c?.SecretAccessKey ?? '',
          sessionToken: c?.SessionToken ?? '',
        },
        assumed.AssumedRoleUser?.Arn ?? roleArn,
      ]);
    }
    for (const [roleArn, role, credentials, arn] of sessions) {
      const fn = deployment.functions.find((f) => f.roleArn === roleArn);
      const principal: Principal = {
        arn,
        label: fn?.logicalId ?? role.logicalId,
        credentials,
        policies: await rolePolicies(admin.iam, role.name),
      };
      principals.add(principal);
      roleSessions.set(roleArn, principal);
    }

    mkdirSync(options.logDir, { recursive: true });
    const hosts = new Map<string, FunctionHost>();
    for (const fn of deployment.functions) {
      const session = roleSessions.get(fn.roleArn);
      if (!session) throw new Error(`${fn.logicalId}: its role ${fn.roleArn} is not a role of the templates`);
      const host = new FunctionHost(fn, {
        credentials: session.credentials,
        region,
        awsEndpoint: gate.endpoint,
        overrides: options.overrides(fn.environment),
        runMarker: options.runMarker,
        onLog: (f, line) => appendFileSync(join(options.logDir, `${f.logicalId}.log`), `${line}\n`),
      });
      hosts.set(fn.logicalId, host);
      cleanups.push(() => host.stop());
    }

    const pollers: SqsPoller[] = [];
    for (const mapping of deployment.eventSourceMappings) {
      const fn = functionByArn(deployment, mapping.functionArn);
      const queue = queueByArn(deployment, mapping.queueArn);
      const host = fn && hosts.get(fn.logicalId);
      const principal = fn && roleSessions.get(fn.roleArn);
      if (!fn || !queue || !host || !principal)
        throw new Error(`${mapping.logicalId}: its function or queue is not part of the deployment`);
      const poller = new SqsPoller({
        mapping,
        queue,
        host,
        principal,
        awsEndpoint: gate.endpoint,
        region,
        onIncident: (i: SourceIncident) => incident(`${i.function} (${i.source})`, i.message),
      });
      poller.start();
      pollers.push(poller);
      cleanups.push(() => poller.stop());
    }

    const fronts = new Map<string, HttpFront>();
    for (const api of deployment.apis) {
      const front = await startHttpFront({
        api,
        deployment,
        hosts,
        principals,
        evaluator,
        onIncident: (i) => incident(`HTTP API ${i.route}`, i.message),
      });
      fronts.set(api.logicalId, front);
      cleanups.push(() => front.close());
    }
    step(
      `${hosts.size} functions ready to run, ${pollers.length} SQS mappings polling, ${fronts.size} HTTP API(s) at ${[...fronts.values()].map((f) => f.url).join(', ')}`,
    );

    return {
      deployment,
      admin,
      lint,
      hosts,
      fronts,
      principals,
      evaluator,
      gate,
      incidents,
      denials: gate.denials,
      motoEndpoint: moto.endpoint,
      pollers,
      tickSchedules: async () =>
        Promise.all(
          deployment.schedules.map(async (schedule) => {
            const fn = functionByArn(deployment, schedule.targetArn);
            const host = fn && hosts.get(fn.logicalId);
            const role = roleSessions.get(schedule.roleArn);
            if (!host || !role)
              throw new Error(`${schedule.logicalId}: its target or role is not part of the deployment`);
            const outcome = await tick(schedule, host, role, evaluator);
            if (!outcome.ok)
              incident(
                `${host.fn.logicalId} (${schedule.logicalId})`,
                `${outcome.kind}: ${outcome.errorType}: ${outcome.errorMessage}`,
              );
            return { schedule: schedule.logicalId, outcome };
          }),
        ),
      queueDepth: async (queueArn) => {
        const q = queueByArn(deployment, queueArn);
        if (!q) throw new Error(`${queueArn} is not a queue of the deployment`);
        const a = await admin.sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: q.url,
            AttributeNames: [
              'ApproximateNumberOfMessages',
              'ApproximateNumberOfMessagesNotVisible',
              'ApproximateNumberOfMessagesDelayed',
            ],
          }),
        );
        const n = (k: string) => Number(a.Attributes?.[k as 'ApproximateNumberOfMessages'] ?? 0);
        return (
          n('ApproximateNumberOfMessages') +
          n('ApproximateNumberOfMessagesNotVisible') +
          n('ApproximateNumberOfMessagesDelayed')
        );
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
