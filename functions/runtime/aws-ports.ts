/**
 * The AWS ports of a function, from the environment the CDK stack sets: configuration, the SDK
 * clients its handler lists, the single-table stores, the bound secrets, the bus and the poll
 * queue. ./aws.ts composes the whole runtime over them; ./aws-planner.ts only the planner's.
 *
 * AWS calls go through the AWS SDK v3 clients of ./aws-clients.ts: one per service per process,
 * created on first use (DynamoDB at the first invocation, which always reads the table; EventBridge,
 * SQS and Secrets Manager on a function's first call to them), configured and traced in one place.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { AwsClientConfig } from '../adapters/aws/client-config';
import { createDynamoStores } from '../adapters/dynamodb';
import { createEventBridgeBus, type PutEventsClient } from '../adapters/eventbridge/bus';
import { createSecretsManagerSecrets } from '../adapters/secrets/secrets-manager';
import { type CarhookSecrets, SecretError } from '../adapters/secrets/types';
import { type SqsClientLike, SqsQueue } from '../adapters/sqs/queue';
import type { PollJob } from '../core/polling/jobs';
import type { EventBus, PublishResult } from '../core/publishing/ports';
import type { RateBudget } from '../core/ratelimit/budget';
import type { Stores } from '../core/store/ports';
import { awsClient, onFirstSend } from './aws-clients';
import { type ConfigNeed, loadRuntimeConfig, RUNTIME_ENV, type RuntimeConfig, required } from './config';
import { RuntimeSetupError } from './errors';
import type { RuntimeSettings } from './runtime';

/** How a handler makes an SDK client: `(config) => new SQSClient(config)`. */
export type ClientFactory<C> = (config: AwsClientConfig) => C;

/**
 * The AWS services a function calls, as the handler names them: each handler imports the SDK
 * clients it uses and nothing else, so a bundle carries no client its function never calls.
 */
export interface AwsServices {
  readonly dynamodb: ClientFactory<DynamoDBClient>;
  readonly eventBridge?: ClientFactory<PutEventsClient>;
  readonly sqs?: ClientFactory<SqsClientLike>;
  readonly secretsManager?: ClientFactory<SecretsManagerClient>;
}

export interface AwsClients {
  readonly dynamodb: DynamoDBClient;
  readonly eventBridge: PutEventsClient;
  readonly sqs: SqsClientLike;
  /** Called on the first secret read (Powertools Parameters wants the SDK client itself). */
  readonly secretsManager: () => SecretsManagerClient;
}

export interface AwsPortsOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** What this entry point needs; missing variables are reported together by name. */
  readonly needs: readonly ConfigNeed[];
  /** The SDK clients this function's handler calls (created at their first use). */
  readonly services?: AwsServices;
  /** Ready clients instead (tests: DynamoDB Local, fakes of the others). */
  readonly clients?: Partial<AwsClients>;
}

export interface AwsPorts {
  readonly config: RuntimeConfig;
  readonly clients: AwsClients;
  readonly stores: Stores;
  readonly rateBudget: RateBudget;
  readonly secrets: CarhookSecrets;
  readonly bus: EventBus;
  readonly pollQueue?: SqsQueue<PollJob>;
}

/**
 * The secrets bound to this function (CDK `bindSecret`); reading one that is not bound says which
 * variable is missing. Each function gets only what it reads (the webhook functions: the key ring).
 */
function boundSecrets(config: RuntimeConfig, client: () => SecretsManagerClient): CarhookSecrets {
  const { apiClientArn, tokenKeyRingArn, mapApiArn } = config.secrets;
  const missing = (variable: string) => () =>
    Promise.reject(new SecretError('SecretUnavailable', variable, `${variable}: not set for this function`));
  // One adapter per bound secret (the adapter caches each secret separately anyway).
  const reader = (arn: string) =>
    createSecretsManagerSecrets({
      client,
      apiClientSecretArn: arn,
      tokenKeyRingSecretArn: arn,
      mapApiSecretArn: arn,
    });
  return {
    apiClient: apiClientArn ? reader(apiClientArn).apiClient : missing(RUNTIME_ENV.apiClientSecretArn),
    mapApi: mapApiArn ? reader(mapApiArn).mapApi : async () => undefined,
    keyRing: tokenKeyRingArn
      ? reader(tokenKeyRingArn).keyRing
      : { load: missing(RUNTIME_ENV.tokenKeyRingSecretArn) },
  };
}

/** A bus for functions that publish nothing (the planner): a call is a wiring bug, reported per event. */
const noBus: EventBus = {
  publish: async (events): Promise<PublishResult> => ({
    published: [],
    failed: events.map((e) => ({
      id: e.id,
      retryable: false,
      code: 'NoBusConfigured',
      message: `${RUNTIME_ENV.eventBusName} is not set for this function`,
    })),
  }),
};

/** A service the handler did not list: its first use says so (a wiring bug, never a runtime state). */
function unlisted<C>(service: keyof AwsServices): ClientFactory<C> {
  return () => {
    throw new RuntimeSetupError(`services.${service}`, 'this function was built without that client');
  };
}

/** The process's clients (./aws-clients.ts) from the handler's factories, each created at its first use. */
function processClients(services: AwsServices | undefined) {
  return {
    dynamodb: (): DynamoDBClient =>
      awsClient('dynamodb', services?.dynamodb ?? unlisted<DynamoDBClient>('dynamodb')),
    eventBridge: (): PutEventsClient =>
      onFirstSend(() =>
        awsClient('eventBridge', services?.eventBridge ?? unlisted<PutEventsClient>('eventBridge')),
      ),
    sqs: (): SqsClientLike =>
      onFirstSend(() => awsClient('sqs', services?.sqs ?? unlisted<SqsClientLike>('sqs'))),
    secretsManager: (): SecretsManagerClient =>
      awsClient(
        'secretsManager',
        services?.secretsManager ?? unlisted<SecretsManagerClient>('secretsManager'),
      ),
  };
}

export function awsPorts(options: AwsPortsOptions): AwsPorts {
  const env = options.env ?? process.env;
  const config = loadRuntimeConfig(env, ['table', 'api', ...options.needs]);
  const fromServices = processClients(options.services);
  const clients: AwsClients = {
    dynamodb: options.clients?.dynamodb ?? fromServices.dynamodb(),
    eventBridge: options.clients?.eventBridge ?? fromServices.eventBridge(),
    sqs: options.clients?.sqs ?? fromServices.sqs(),
    secretsManager: options.clients?.secretsManager ?? fromServices.secretsManager,
  };
  const { rateBudget, ...stores } = createDynamoStores({
    client: clients.dynamodb,
    tableName: required(config.tableName, RUNTIME_ENV.tableName),
    eventRetentionMs: config.eventLogRetentionDays * 86_400_000,
    rateBudget: {
      limit: config.quota.requests,
      windowMs: config.quota.windowSeconds * 1000,
      safetyMargin: 0.1,
      ...(config.quota.maxRequests > 0 ? { maxLimit: config.quota.maxRequests } : {}),
    },
  });
  const bus = config.eventBus
    ? createEventBridgeBus({
        client: clients.eventBridge,
        eventBusName: config.eventBus.name,
        source: config.eventBus.source,
      })
    : noBus;
  return {
    config,
    clients,
    stores,
    rateBudget,
    secrets: boundSecrets(config, clients.secretsManager),
    bus,
    ...(config.queues.pollJobs
      ? { pollQueue: new SqsQueue<PollJob>({ client: clients.sqs, queueUrl: config.queues.pollJobs }) }
      : {}),
  };
}

/** The runtime's settings from the function's configuration. */
export function runtimeSettingsOf(config: RuntimeConfig): RuntimeSettings {
  return {
    api: required(config.api, RUNTIME_ENV.apiBaseUrl),
    quota: config.quota,
    pollIntervalSeconds: config.pollIntervalSeconds,
    pollStrategy: config.pollStrategy,
    polling: {
      maintenanceDue: { days: config.maintenanceDue.days, mileageKm: config.maintenanceDue.distanceKm },
      servicesIntervalMs: config.servicesIntervalSeconds * 1000,
      mapIntervalMs: config.mapIntervalSeconds * 1000,
      silenceAfterMs: config.silenceAfterSeconds * 1000,
    },
    version: config.version,
    publicUrl: config.publicUrl,
    ...(Object.keys(config.freshnessTargets).length > 0 ? { freshnessTargets: config.freshnessTargets } : {}),
  };
}

/**
 * Builds the runtime on first use and keeps it for the container's life (config and clients at
 * module scope, as Lambda recommends). A failure is not cached: the next invocation tries again
 * and reports the same clear `ConfigError`.
 */
export function lazy<T>(build: () => T): () => T {
  let value: { v: T } | undefined;
  return () => {
    value ??= { v: build() };
    return value.v;
  };
}
