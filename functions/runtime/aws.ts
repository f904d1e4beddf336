/**
 * The AWS side of the composition root: the whole runtime (poll worker, HTTP API, sweeper,
 * webhook functions) over the ports of ./aws-ports.ts. Lambda handlers call `createAwsRuntime`
 * once per container (lazily, on the first invocation); tests pass their own clients (DynamoDB
 * Local, fake EventBridge/SQS/Secrets Manager `{ send }`). The planner builds less: ./aws-planner.ts.
 */
import { createDynamoSubscriptionStores } from '../adapters/dynamodb';
import { SqsQueue } from '../adapters/sqs/queue';
import type { SenderOptions } from '../adapters/webhooks/sender';
import type { DeliveryJob } from '../core/delivery/engine';
import { RETRY_SCHEDULES } from '../core/delivery/retry-schedule';
import { type AwsClients, type AwsPortsOptions, awsPorts, runtimeSettingsOf } from './aws-ports';
import { RUNTIME_ENV, type RuntimeConfig, required } from './config';
import { logger, type MetricSink, powertoolsMetricSink } from './observability';
import { createRuntime, type Runtime } from './runtime';
import type { createWebhooks, Webhooks } from './webhooks';

export {
  type AwsClients,
  type AwsPortsOptions,
  type AwsServices,
  type ClientFactory,
  lazy,
} from './aws-ports';

export interface AwsRuntimeOptions extends AwsPortsOptions {
  readonly metrics?: MetricSink;
  readonly now?: () => number;
  readonly fetch?: typeof fetch;
  /**
   * `createWebhooks` from ./webhooks, passed by the handlers that deliver or manage webhooks only,
   * so the other bundles do not carry the delivery engine.
   */
  readonly webhooks?: typeof createWebhooks;
  /** Webhook sender policy (tests: a loopback receiver); the secure defaults otherwise. */
  readonly webhookSender?: SenderOptions;
}

export interface AwsRuntime {
  readonly config: RuntimeConfig;
  readonly runtime: Runtime;
  readonly clients: AwsClients;
  /**
   * The delivery engine and subscription service, built once (they need the key ring). Undefined
   * when `CARHOOK_DELIVERY_QUEUE_URL` is not set for this function or `options.webhooks` was not given.
   */
  webhooks(): Promise<Webhooks> | undefined;
}

export function createAwsRuntime(options: AwsRuntimeOptions): AwsRuntime {
  const { config, clients, stores, rateBudget, secrets, bus, pollQueue } = awsPorts(options);
  const runtime = createRuntime(runtimeSettingsOf(config), {
    stores,
    rateBudget,
    bus,
    secrets,
    pollQueue,
    metrics: options.metrics ?? powertoolsMetricSink(),
    now: options.now,
    fetch: options.fetch,
  });
  const deliveriesUrl = config.queues.deliveries;
  let webhooks: Promise<Webhooks> | undefined;
  const tableName = required(config.tableName, RUNTIME_ENV.tableName);
  return {
    config,
    runtime,
    clients,
    webhooks: () => {
      const create = options.webhooks;
      if (!deliveriesUrl || !create) return undefined;
      webhooks ??= create(runtime, {
        ...createDynamoSubscriptionStores({ client: clients.dynamodb, tableName }),
        deliveryQueue: new SqsQueue<DeliveryJob>({ client: clients.sqs, queueUrl: deliveriesUrl }),
        ...(options.webhookSender ? { senderOptions: options.webhookSender } : {}),
        allowHosts: config.webhookAllowHosts,
        retrySchedule: RETRY_SCHEDULES[config.retrySchedule],
        eventRetentionMs: config.eventLogRetentionDays * 86_400_000,
        onProblem: (problem) => logger.warn('webhook delivery problem', { ...problem }),
      }).catch((error: unknown) => {
        webhooks = undefined; // not cached: the next invocation tries again
        throw error;
      });
      return webhooks;
    },
  };
}
