/**
 * The metrics the runtime emits (namespace `Carhook`, dimension `service`), in one place: the
 * Lambda code records them (./observability.ts) and the CDK alarms and dashboard read them
 * (lib/config.ts, lib/monitoring.ts). No imports, so neither side drags the other into its bundle.
 */
export const METRICS_NAMESPACE = 'Carhook';

export const CARHOOK_METRIC_NAMES = {
  /** Count: one per completed poll of a vehicle. */
  pollsCompleted: 'PollsCompleted',
  /** Count: requests sent to the connected-car API. */
  apiRequests: 'ApiRequests',
  /** Count: 429 answers (rate limited) from the API. */
  apiRateLimited: 'ApiRateLimited',
  /** Count (gauge): `X-RateLimit-Remaining` (the requests left in the window) as last seen. */
  quotaRemaining: 'QuotaRemaining',
  /**
   * Milliseconds: from `occurredAt` of a change to its `detectedAt`. Not for what a first poll found
   * already there (`data.initial`: an alert raised last year is history, not a lag): HistoryFound.
   */
  detectionLagMs: 'DetectionLagMs',
  /** Count: events telling what was already there at enrollment (`data.initial: true`). */
  historyFound: 'HistoryFound',
  /** Count, dimension `type`: events published to the bus. */
  eventsPublished: 'EventsPublished',
  /** Count: webhook deliveries answered 2xx. */
  deliveriesSucceeded: 'DeliveriesSucceeded',
  /** Count: webhook delivery attempts that failed (each attempt counts). */
  deliveriesFailed: 'DeliveriesFailed',
  /** Count: enrollments that moved to `reauthorization_required` (`invalid_grant`). */
  reauthorizationRequired: 'ReauthorizationRequired',
  /**
   * Count: API answers a poll found stale (an alert list older than what was already applied):
   * they fixed nothing. A steady stream means the API, or a proxy before it, serves old copies.
   */
  staleAnswers: 'StaleAnswers',
} as const;

export type CarhookMetric = (typeof CARHOOK_METRIC_NAMES)[keyof typeof CARHOOK_METRIC_NAMES];
