import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { RUNTIME_ENV } from '../functions/runtime/config';
import { CARHOOK_METRIC_NAMES } from '../functions/runtime/metric-names';
import { DEFAULT_EVENT_SOURCE, DEFAULT_SETTINGS } from '../functions/runtime/settings';

/**
 * Every default of the CDK app in one place, so a reader sees what "secure by default" means
 * without opening each construct. Constructs read from here; nothing else hard-codes a figure. The
 * runtime settings' defaults are the runtime's own (functions/runtime/settings.ts), so a prop left
 * unset and a variable left unset mean the same.
 */
export const CARHOOK_DEFAULTS = {
  /** The API's rate limit: 120 requests per 60 seconds per client unless a higher quota was granted. */
  quota: {
    requests: DEFAULT_SETTINGS.quotaRequests,
    window: Duration.seconds(DEFAULT_SETTINGS.quotaWindowSeconds),
  },
  /** The planner's cadence. EventBridge Scheduler's shortest rate is one minute (aws-facts). */
  pollInterval: Duration.seconds(DEFAULT_SETTINGS.pollIntervalSeconds),
  /** `vehicle.maintenance.due` fires when a countdown crosses either of these (DESIGN "Events"). */
  maintenanceDueThreshold: {
    days: DEFAULT_SETTINGS.maintenanceDueDays,
    distanceKm: DEFAULT_SETTINGS.maintenanceDueKm,
  },
  /** EventBridge `Source` of every event Carhook publishes (DESIGN "Events"). */
  eventSource: DEFAULT_EVENT_SOURCE,
  /** How long published events stay in the event log (DynamoDB, TTL) and in the bus archive. */
  eventLogRetention: Duration.days(DEFAULT_SETTINGS.eventLogRetentionDays),
  /** Stateful resources outlive the stack unless a dev deployment asks otherwise. */
  removalPolicy: RemovalPolicy.RETAIN,
  /** Powertools metrics namespace; alarms and the dashboard read the same one. */
  metricsNamespace: 'Carhook',
  /** Powertools service name: the `service` dimension of every metric, and the logger's service. */
  serviceName: 'carhook',
  /** Lambda log retention. */
  logRetention: RetentionDays.ONE_MONTH,
  /** When the alarms fire: "a person should look", not paging on one blip (lib/monitoring.ts). */
  alarms: { deliveryFailureRatePercent: 10, rateLimitedPerFiveMinutes: 1 },
  /** Lambda defaults of the house function; handlers override per need (the poll worker waits on the API). */
  function: { memorySize: 512, timeout: Duration.seconds(30) },
  /**
   * How often the sweeper runs: it republishes events the event log still holds unpublished and
   * re-queues pending deliveries overdue by more than the engine's grace (60 s, after a lease of 60 s:
   * functions/core/delivery/engine.ts), e.g. after a Lambda died mid-attempt. Every minute, the
   * cadence the engine is designed for (functions/core/delivery/README.md) and Scheduler's shortest
   * rate (aws-facts): such a delivery goes out again within lease + grace + 1 min = 3 min, instead of
   * 7 with a 5-minute rate. An idle tick is a few queries on sparse indexes that come back empty
   * (~43,800 invocations a month). Overlapping ticks, retried ticks, and a delivery queued again
   * while the deliveries queue is backlogged are harmless: a delivery is attempted only by whoever
   * claims it, an event is republished with its own id.
   */
  sweepInterval: Duration.minutes(1),
  /**
   * Per-function timeouts of the stateless part. The HTTP API's stays under API Gateway's 30 s
   * integration timeout (aws-facts); the webhook functions cover the sender's 15 s attempt timeout
   * plus the store writes, well inside the delivery lease (functions/core/delivery/engine.ts).
   */
  timeouts: {
    planner: Duration.seconds(60),
    pollWorker: Duration.seconds(60),
    sweeper: Duration.seconds(60),
    fanOut: Duration.seconds(60),
    delivery: Duration.seconds(60),
    httpApi: Duration.seconds(29),
    /** Reads one secret at most: short, so a stuck read fails closed well within API Gateway's 10 s. */
    consoleAuthorizer: Duration.seconds(5),
  },
  /**
   * SQS: a queue's visibility timeout is this many times its consumer's timeout (AWS's advice for
   * Lambda event sources: a retried batch never reappears while the first attempt still runs).
   */
  visibilityTimeoutFactor: 6,
  /** Dead-letter queues keep messages as long as SQS allows (aws-facts: retention ≤ 14 days). */
  deadLetterRetention: Duration.days(14),
  /**
   * Receives before a message goes to its dead-letter queue. Poll jobs are planned again every cycle,
   * so a job that failed 5 times is broken, not unlucky. A delivery message is re-timed while its
   * subscription is saturated and deferred past SQS's 12 h visibility limit (functions/core/queue/
   * limits.ts: each costs a receive), so it gets more room; the engine itself gives up after its
   * retry schedule and publishes `webhook.delivery.exhausted`.
   */
  maxReceiveCount: { pollJobs: 5, fanOut: 5, deliveries: 25 },
  /**
   * SQS event sources. `maxConcurrency` caps the invocations one queue drives (aws-facts: 2–1000):
   * poll workers share one API quota through the token bucket, so a few are enough; deliveries go
   * to many independent endpoints.
   */
  eventSources: {
    pollWorker: { batchSize: 5, maxConcurrency: 5 },
    fanOut: { batchSize: 10, maxConcurrency: 10 },
    delivery: { batchSize: 10, maxConcurrency: 20 },
  },
  /** EventBridge Scheduler target retries and how long an invocation may wait before going to the DLQ. */
  scheduleRetry: { attempts: 2, maxEventAge: Duration.minutes(5) },
  /** HTTP API stage throttling (all routes); raise it for large fleets of callers. */
  httpThrottle: { rateLimit: 50, burstLimit: 100 },
  /** HTTP API access log retention. */
  accessLogRetention: RetentionDays.THREE_MONTHS,
} as const;

/**
 * Metric names the runtime emits (Powertools Metrics, namespace `CARHOOK_DEFAULTS.metricsNamespace`,
 * dimension `service`; `EventsPublished` also has dimension `type`). Alarms and the dashboard are
 * built on exactly these names, so the runtime must not rename them.
 */
/** The metric names the runtime emits (functions/runtime/metric-names.ts): alarms and dashboard read them. */
export const CARHOOK_METRICS = CARHOOK_METRIC_NAMES;

export type CarhookMetricName = (typeof CARHOOK_METRICS)[keyof typeof CARHOOK_METRICS];

/**
 * Environment variables the stack sets, named by the runtime's own table (functions/runtime/config.ts
 * `RUNTIME_ENV`), so the CDK app and the handlers cannot disagree on a name.
 */
export const CARHOOK_ENV = {
  tableName: RUNTIME_ENV.tableName,
  eventBusName: RUNTIME_ENV.eventBusName,
  eventSource: RUNTIME_ENV.eventSource,
  /** ARNs of the secrets of CarhookData, for `bindSecret(secret, CARHOOK_ENV.…)`. */
  apiClientCredentialsSecretArn: RUNTIME_ENV.apiClientSecretArn,
  tokenKeyRingSecretArn: RUNTIME_ENV.tokenKeyRingSecretArn,
  mapApiCredentialsSecretArn: RUNTIME_ENV.mapApiSecretArn,
  /** The console authorizer's admin token (functions/http/console-authorizer.ts). */
  consoleTokenSecretArn: RUNTIME_ENV.consoleTokenSecretArn,
  /** Queue URLs (the consumers find their own queue's URL from the SQS record). */
  pollQueueUrl: RUNTIME_ENV.pollQueueUrl,
  deliveryQueueUrl: RUNTIME_ENV.deliveryQueueUrl,
  /** Reported by `GET /health`. */
  version: RUNTIME_ENV.version,
} as const;
