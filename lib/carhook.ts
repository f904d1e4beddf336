import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Stack, Token, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { type IEventBus, Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  type CarhookConfig,
  type CarhookProps,
  carhookRuntimeEnvironment,
  resolveCarhookConfig,
} from './carhook-props';
import { CARHOOK_DEFAULTS, CARHOOK_ENV } from './config';
import { CarhookData } from './constructs/carhook-data';
import { CarhookFunction, type CarhookFunctionProps } from './constructs/carhook-function';
import { CarhookHttpApi } from './constructs/carhook-http-api';
import { CarhookQueue, carhookDeadLetterQueue } from './constructs/carhook-queue';
import { CarhookSchedule } from './constructs/carhook-schedule';
import type { CarhookTable } from './constructs/carhook-table';
import { CarhookMonitoring } from './monitoring';
import { REPO_ROOT } from './paths';
import { CarhookConfigError } from './validation';

export {
  type CarhookConfig,
  type CarhookProps,
  carhookRuntimeEnvironment,
  resolveCarhookConfig,
} from './carhook-props';

/** The queues of the stateless part; each work queue has its own dead-letter queue. */
export interface CarhookQueues {
  /** Planner → poll worker. */
  readonly pollJobs: CarhookQueue;
  /** Bus rule → webhook fan-out. */
  readonly fanOut: CarhookQueue;
  /** Webhook retries, replays and resumed deliveries → delivery worker. */
  readonly deliveries: CarhookQueue;
  /** Scheduler invocations (planner, sweeper) that failed every retry. */
  readonly scheduleDeadLetters: Queue;
}

/** The Lambda functions of the stateless part, one per handler of functions/handlers. */
export interface CarhookHandlers {
  readonly planner: CarhookFunction;
  readonly pollWorker: CarhookFunction;
  readonly sweeper: CarhookFunction;
  readonly fanOut: CarhookFunction;
  readonly delivery: CarhookFunction;
  readonly httpApi: CarhookFunction;
  /** The HTTP API's Lambda authorizer of the console routes (the admin token). */
  readonly consoleAuthorizer: CarhookFunction;
}

/**
 * Carhook: turns a connected-car API that can only be polled into events on EventBridge and signed
 * webhooks. Drop it into any stack; give it `data` from a CarhookDataStack to keep the stateful
 * resources in their own stack (recommended, and what bin/app.ts does).
 *
 * Composition:
 * - `data` (CarhookData): key, table, bus + archive, schema registry, secrets.
 * - `monitoring` (CarhookMonitoring): alarm topic, metric alarms, dashboard.
 * - Stateless part, built from `config`, `data` and `monitoring`:
 *   - planner on an EventBridge Scheduler schedule → `poll-jobs` queue → poll worker;
 *   - sweeper on its own schedule (republishes what the event log holds unpublished, and re-queues
 *     pending deliveries whose claim expired: the webhook engine's `sweep`);
 *   - a rule on the bus (Carhook's events, operational `webhook.*` ones included) → `fan-out` queue →
 *     webhook fan-out → first attempts, retries through the `deliveries` queue → delivery worker;
 *   - the HTTP API (OAuth public, management IAM-authorized) → the HTTP function.
 *   Every function comes from `addFunction` with exactly the grants its handler uses; every
 *   dead-letter queue has an alarm (`monitoring.addDeadLetterQueue`).
 */
export class Carhook extends Construct {
  /**
   * The bus every Carhook event is published to (`Source` = `config.eventSource`, `DetailType` =
   * the event type, e.g. `vehicle.alert.raised`): add your own rules on it.
   */
  readonly eventBus: IEventBus;
  /** The HTTP API (OAuth, management with IAM, the console); its URL is `httpApi.url`. */
  readonly api: HttpApi;
  /** The single DynamoDB table (enrollments, vehicles, state, the event log, subscriptions). */
  readonly table: CarhookTable;
  readonly config: CarhookConfig;
  readonly data: CarhookData;
  readonly monitoring: CarhookMonitoring;
  readonly queues: CarhookQueues;
  readonly handlers: CarhookHandlers;
  readonly plannerSchedule: CarhookSchedule;
  readonly sweeperSchedule: CarhookSchedule;
  /** Carhook's events on the bus → the fan-out queue. */
  readonly fanOutRule: Rule;
  readonly httpApi: CarhookHttpApi;
  private readonly functionsById = new Map<string, CarhookFunction>();

  constructor(scope: Construct, id: string, props: CarhookProps) {
    super(scope, id);
    this.config = resolveCarhookConfig(props);
    if (props.data) assertSameEnvironment(this, props.data);

    this.data =
      props.data ??
      new CarhookData(this, 'Data', {
        eventSource: this.config.eventSource,
        archiveRetention: props.archiveRetention ?? this.config.eventLogRetention,
        ...(props.existingEventBus ? { existingEventBus: props.existingEventBus } : {}),
        ...(props.removalPolicy === undefined ? {} : { removalPolicy: props.removalPolicy }),
      });

    this.monitoring = new CarhookMonitoring(this, 'Monitoring', {
      ...(props.alarmEmail === undefined ? {} : { alarmEmail: props.alarmEmail }),
      ...(props.existingAlarmTopic ? { existingAlarmTopic: props.existingAlarmTopic } : {}),
      ...(props.alarmThresholds ? { thresholds: props.alarmThresholds } : {}),
      metricsNamespace: this.config.metricsNamespace,
      serviceName: this.config.serviceName,
      quota: this.config.quota,
    });

    const { timeouts, eventSources, maxReceiveCount } = CARHOOK_DEFAULTS;
    const { table, eventBus, apiClientCredentials, tokenKeyRing, mapApiCredentials } = this.data;
    const source = this.config.eventSource;

    this.queues = {
      pollJobs: new CarhookQueue(this, 'PollJobsQueue', {
        consumerTimeout: timeouts.pollWorker,
        maxReceiveCount: maxReceiveCount.pollJobs,
      }),
      fanOut: new CarhookQueue(this, 'FanOutQueue', {
        consumerTimeout: timeouts.fanOut,
        maxReceiveCount: maxReceiveCount.fanOut,
      }),
      deliveries: new CarhookQueue(this, 'DeliveriesQueue', {
        consumerTimeout: timeouts.delivery,
        maxReceiveCount: maxReceiveCount.deliveries,
      }),
      scheduleDeadLetters: carhookDeadLetterQueue(this, 'ScheduleDeadLetters'),
    };
    const { pollJobs, fanOut, deliveries, scheduleDeadLetters } = this.queues;
    Validations.of(scheduleDeadLetters).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "It is a dead-letter queue: EventBridge Scheduler's (the schedules' DeadLetterConfig), not an SQS redrive target, which is all the rule can see.",
    });
    this.monitoring.addDeadLetterQueue('PollJobs', pollJobs.deadLetterQueue);
    this.monitoring.addDeadLetterQueue('FanOut', fanOut.deadLetterQueue);
    this.monitoring.addDeadLetterQueue('Deliveries', deliveries.deadLetterQueue);
    this.monitoring.addDeadLetterQueue('Schedules', scheduleDeadLetters);

    // Grants follow what each handler's runtime asks for (functions/handlers/*.ts `needs`) and the
    // ports it calls: the planner only reads and sends jobs; only the poll worker and the HTTP API
    // (OAuth) read the API client credentials.
    const planner = this.addFunction('Planner', {
      entry: 'functions/handlers/planner.ts',
      description: 'Plans the poll jobs of one cycle within the quota and sends them to the poll-jobs queue',
      timeout: timeouts.planner,
    })
      .bindTable(table, 'read')
      .bindQueue(pollJobs.queue, 'send', CARHOOK_ENV.pollQueueUrl)
      // Map credentials decide whether map jobs are planned at all.
      .bindSecret(mapApiCredentials, CARHOOK_ENV.mapApiCredentialsSecretArn);

    const pollWorker = this.addFunction('PollWorker', {
      entry: 'functions/handlers/poll-worker.ts',
      description:
        'Runs poll jobs: calls the API within the shared budget, diffs, commits state, publishes events',
      timeout: timeouts.pollWorker,
    })
      .bindTable(table, 'readWrite')
      .bindBus(eventBus, source)
      .bindSecret(apiClientCredentials, CARHOOK_ENV.apiClientCredentialsSecretArn)
      .bindSecret(tokenKeyRing, CARHOOK_ENV.tokenKeyRingSecretArn)
      .bindSecret(mapApiCredentials, CARHOOK_ENV.mapApiCredentialsSecretArn)
      .bindQueue(pollJobs.queue, 'consume');
    pollWorker.addEventSource(
      new SqsEventSource(pollJobs.queue, { ...eventSources.pollWorker, reportBatchItemFailures: true }),
    );

    // The sweeper builds the webhook engine only to run its recovery sweep: that reads the due
    // deliveries and queues them, and opens no subscription secret (no key ring).
    const sweeper = this.addFunction('Sweeper', {
      entry: 'functions/handlers/sweeper.ts',
      description:
        'Republishes events the event log still holds unpublished; re-queues deliveries whose claim expired',
      timeout: timeouts.sweeper,
    })
      .bindTable(table, 'readWrite')
      .bindBus(eventBus, source)
      .bindQueue(deliveries.queue, 'send', CARHOOK_ENV.deliveryQueueUrl);

    const fanOutFn = this.webhookFunction('FanOut', {
      entry: 'functions/handlers/fanout.ts',
      description:
        'One delivery per matching webhook subscription for each Carhook event; first attempt direct',
      timeout: timeouts.fanOut,
    }).bindQueue(fanOut.queue, 'consume');
    fanOutFn.addEventSource(
      new SqsEventSource(fanOut.queue, { ...eventSources.fanOut, reportBatchItemFailures: true }),
    );

    const delivery = this.webhookFunction('Delivery', {
      entry: 'functions/handlers/delivery.ts',
      description:
        'Webhook delivery attempts from the deliveries queue: retries, replays, resumed deliveries',
      timeout: timeouts.delivery,
    }).bindQueue(deliveries.queue, 'consume');
    delivery.addEventSource(
      new SqsEventSource(deliveries.queue, { ...eventSources.delivery, reportBatchItemFailures: true }),
    );

    const httpFn = this.addFunction('HttpApi', {
      entry: 'functions/handlers/http-api.ts',
      description: 'Carhook HTTP API: OAuth enrollment, enrollments, events, webhook subscriptions',
      timeout: timeouts.httpApi,
      environment: { [CARHOOK_ENV.version]: packageVersion() },
    })
      .bindTable(table, 'readWrite')
      .bindBus(eventBus, source)
      .bindSecret(apiClientCredentials, CARHOOK_ENV.apiClientCredentialsSecretArn)
      .bindSecret(tokenKeyRing, CARHOOK_ENV.tokenKeyRingSecretArn)
      .bindQueue(deliveries.queue, 'send', CARHOOK_ENV.deliveryQueueUrl);

    this.plannerSchedule = new CarhookSchedule(this, 'PlannerSchedule', {
      target: planner,
      rate: this.config.pollInterval,
      deadLetterQueue: scheduleDeadLetters,
      description: 'the Carhook planner once per poll cycle',
    });
    this.sweeperSchedule = new CarhookSchedule(this, 'SweeperSchedule', {
      target: sweeper,
      rate: CARHOOK_DEFAULTS.sweepInterval,
      deadLetterQueue: scheduleDeadLetters,
      description: 'the Carhook sweeper (republishes unpublished events, re-queues expired deliveries)',
    });

    this.fanOutRule = new Rule(this, 'FanOutRule', {
      eventBus,
      description: `Carhook events (source '${source}') to the webhook fan-out queue`,
      // Operational `webhook.*` events too: the fan-out sends them only to subscriptions that name
      // them, never to the endpoint they are about, and reports an exhausted delivery of one on the
      // bus only, so they cannot loop (functions/core/delivery/operational.ts).
      eventPattern: { source: [source] },
      targets: [
        new SqsQueue(fanOut.queue, {
          // What EventBridge could not hand to the queue after its retries lands next to what the
          // fan-out could not process: one place to inspect and redrive.
          deadLetterQueue: fanOut.deadLetterQueue,
        }),
      ],
    });

    // The console in a browser on AWS: the admin token (CarhookData `consoleToken`) as a bearer on
    // `/console-api/…`, checked by this authorizer; IAM stays on the routes themselves.
    // Not through addFunction: it reads one secret and nothing of the runtime configuration.
    const consoleAuthorizer = new CarhookFunction(this, 'ConsoleAuthorizer', {
      serviceName: this.config.serviceName,
      metricsNamespace: this.config.metricsNamespace,
      logLevel: this.config.logLevel,
      tracing: this.config.tracing,
      entry: 'functions/handlers/console-authorizer.ts',
      description:
        "Authorizes the console's requests (/console-api/...) by the admin token in Secrets Manager",
      timeout: timeouts.consoleAuthorizer,
    }).bindSecret(this.data.consoleToken, CARHOOK_ENV.consoleTokenSecretArn);
    this.functionsById.set('ConsoleAuthorizer', consoleAuthorizer);

    this.httpApi = new CarhookHttpApi(this, 'Gateway', { handler: httpFn, consoleAuthorizer });
    this.eventBus = this.data.eventBus;
    this.table = this.data.table;
    this.api = this.httpApi.api;
    this.handlers = {
      planner,
      pollWorker,
      sweeper,
      fanOut: fanOutFn,
      delivery,
      httpApi: httpFn,
      consoleAuthorizer,
    };
  }

  /**
   * A house function configured for this deployment: service name, metrics namespace, log level
   * and the runtime configuration (carhookRuntimeEnvironment) as environment; grants are added with
   * its `bind*` helpers.
   */
  addFunction(id: string, props: CarhookFunctionProps): CarhookFunction {
    if (this.functionsById.has(id)) throw new CarhookConfigError(`addFunction(${id})`, 'is already defined');
    const fn = new CarhookFunction(this, id, {
      serviceName: this.config.serviceName,
      metricsNamespace: this.config.metricsNamespace,
      logLevel: this.config.logLevel,
      tracing: this.config.tracing,
      ...props,
      environment: { ...carhookRuntimeEnvironment(this.config), ...props.environment },
    });
    this.functionsById.set(id, fn);
    return fn;
  }

  /**
   * Fan-out and delivery: the webhook engine (functions/runtime/webhooks.ts) reads and writes the
   * subscriptions and deliveries, seals secrets with the token key ring, queues retries and publishes
   * the operational `webhook.*` events. It never calls the connected-car API: no API client secret.
   */
  private webhookFunction(id: string, props: CarhookFunctionProps): CarhookFunction {
    return this.addFunction(id, props)
      .bindTable(this.data.table, 'readWrite')
      .bindBus(this.data.eventBus, this.config.eventSource)
      .bindSecret(this.data.tokenKeyRing, CARHOOK_ENV.tokenKeyRingSecretArn)
      .bindQueue(this.queues.deliveries.queue, 'send', CARHOOK_ENV.deliveryQueueUrl);
  }

  /** Every function created with `addFunction`, by id. */
  get functions(): ReadonlyMap<string, CarhookFunction> {
    return this.functionsById;
  }
}

/** The version `GET /health` reports: the package's, read at synth time. */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : 'unknown';
}

/** Cross-region or cross-account references cannot be wired by CloudFormation exports. */
function assertSameEnvironment(scope: Construct, data: CarhookData): void {
  const here = Stack.of(scope);
  const there = Stack.of(data);
  for (const attr of ['region', 'account'] as const) {
    const a = here[attr];
    const b = there[attr];
    if (!Token.isUnresolved(a) && !Token.isUnresolved(b) && a !== b) {
      throw new CarhookConfigError(
        'data',
        `is in ${attr} ${b} but Carhook is in ${attr} ${a}: deploy both in the same one`,
      );
    }
  }
}
