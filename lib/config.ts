import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';

/**
 * Every default of the CDK app in one place, so a reader sees what "secure by default" means
 * without opening each construct. Constructs read from here; nothing else hard-codes a figure.
 */
export const CARHOOK_DEFAULTS = {
  /** spec 8: 120 requests per 60 seconds per client unless a higher quota was granted. */
  quota: { requests: 120, window: Duration.seconds(60) },
  /** The planner's cadence. EventBridge Scheduler's shortest rate is one minute (aws-facts). */
  pollInterval: Duration.minutes(1),
  /** `vehicle.maintenance.due` fires when a countdown crosses either of these (DESIGN "Events"). */
  maintenanceDueThreshold: { days: 30, distanceKm: 1_000 },
  /** EventBridge `Source` of every event Carhook publishes (DESIGN "Events"). */
  eventSource: 'carhook',
  /** How long published events stay in the event log (DynamoDB, TTL) and in the bus archive. */
  eventLogRetention: Duration.days(30),
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
} as const;

/**
 * Metric names the runtime emits (Powertools Metrics, namespace `CARHOOK_DEFAULTS.metricsNamespace`,
 * dimension `service`; `EventsPublished` also has dimension `type`). Alarms and the dashboard are
 * built on exactly these names, so the runtime must not rename them.
 */
export const CARHOOK_METRICS = {
  /** Count: one per completed poll of a vehicle. */
  pollsCompleted: 'PollsCompleted',
  /** Count: requests sent to the connected-car API. */
  apiRequests: 'ApiRequests',
  /** Count: 429 answers from the API (spec 7). */
  apiRateLimited: 'ApiRateLimited',
  /** Count (gauge): `X-RateLimit-Remaining` as last seen (spec 8). */
  quotaRemaining: 'QuotaRemaining',
  /** Milliseconds: from `occurredAt` of a change to its `detectedAt`. */
  detectionLagMs: 'DetectionLagMs',
  /** Count, dimension `type`: events published to the bus. */
  eventsPublished: 'EventsPublished',
  /** Count: webhook deliveries answered 2xx. */
  deliveriesSucceeded: 'DeliveriesSucceeded',
  /** Count: webhook delivery attempts that failed (each attempt counts). */
  deliveriesFailed: 'DeliveriesFailed',
  /** Count: enrollments that moved to `reauthorization_required` (`invalid_grant`). */
  reauthorizationRequired: 'ReauthorizationRequired',
} as const;

export type CarhookMetricName = (typeof CARHOOK_METRICS)[keyof typeof CARHOOK_METRICS];

/** Environment variables the house function sets; the runtime's adapters read exactly these. */
export const CARHOOK_ENV = {
  tableName: 'CARHOOK_TABLE_NAME',
  eventBusName: 'CARHOOK_EVENT_BUS_NAME',
  eventSource: 'CARHOOK_EVENT_SOURCE',
  /** ARNs of the secrets of CarhookData, for `bindSecret(secret, CARHOOK_ENV.…)`. */
  apiClientCredentialsSecretArn: 'CARHOOK_API_CLIENT_SECRET_ARN',
  tokenKeyRingSecretArn: 'CARHOOK_TOKEN_KEY_RING_SECRET_ARN',
  mapApiCredentialsSecretArn: 'CARHOOK_MAP_API_SECRET_ARN',
} as const;
