/**
 * What each event type means to a subscriber: what triggers it, which API reads reveal it, and its
 * worst-case delay under the default quota, computed from the default polling configuration (so
 * it follows the code). docs/events.md (bin/events-doc.ts) and the console's catalogue page
 * (`GET /event-types`) say the same, from here.
 */

import { FRESHNESS_CHECK_CYCLES } from '../capacity/freshness';
import { MEASURED_MIN_EVENTS } from '../capacity/measured';
import { RETRY_SCHEDULES } from '../delivery/retry-schedule';
import { DEFAULT_CONFIG } from '../detection/config';
import { DEFAULT_POLLING_CONFIG } from '../polling/config';
import { cycleBudget } from '../polling/planner';
import { DEFAULT_RATE_BUDGET } from '../ratelimit/bucket';
import type { EventType } from './catalogue';

const config = DEFAULT_POLLING_CONFIG;
const HOUR = 3_600_000;

/** `90 s`, `15 min`, `6 h`, `36 h`, `5 days`. */
export function span(ms: number): string {
  if (ms >= 3 * 24 * HOUR && ms % (24 * HOUR) === 0) return `${ms / (24 * HOUR)} days`;
  if (ms >= HOUR && ms % (HOUR / 2) === 0) return `${ms / HOUR} h`;
  if (ms >= HOUR) return `${(ms / HOUR).toFixed(1)} h`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 100) / 10} s`;
}

/** Requests per cycle under the default quota, and the fleet size up to which G stays at maxStaleness. */
const perCycle = cycleBudget(config, DEFAULT_RATE_BUDGET);
const fleetAtBound = Math.floor(((config.maxStalenessMs / config.cycleMs) * perCycle) / 2);
const guarantee = `${span(config.maxStalenessMs)} up to ${fleetAtBound.toLocaleString('en')} vehicles, then 2 × N / R (N vehicles, R = ${perCycle} requests a cycle of ${span(config.cycleMs)}); usually the next cycle`;
const standard = RETRY_SCHEDULES.standard;
const fast = RETRY_SCHEDULES.fast;
const total = (ms: readonly number[]) => ms.reduce((a, b) => a + b, 0);

export interface Note {
  readonly trigger: string;
  readonly reads: string;
  readonly delay: string;
}

const EVENTS_FEED = 'the vehicle events feed (v2 `GET /vehicles/{id}/events` with `since`, every cycle)';

export const NOTES: Readonly<Record<EventType, Note>> = {
  'vehicle.alert.raised': {
    trigger: 'An alert becomes active in the car.',
    reads: `${EVENTS_FEED}, then the alert list (v2 \`GET /vehicles/{id}/alerts\`); fleet contracts: v1 \`POST /maintenance/list/alert\``,
    delay: guarantee,
  },
  'vehicle.alert.fixed': {
    trigger: `An active alert is fixed: the API reports it inactive (v2 \`active: false\`, v1 an end date), or it is missing from a complete alert list and that absence is confirmed, by the alert's own record or by a second complete list at least ${span(DEFAULT_CONFIG.absenceConfirmMs)} later (a later cycle). Never from one list alone, nor from an answer older than what was already applied (a stale copy). \`endedAt\` is the API's end when it gives one, else the first read that showed the alert missing (an upper bound), never the time of the confirmation.`,
    reads: `the alert list of vehicles with alerts active (every ${span(config.activeAlertsEveryMs)} when the budget allows), and a full reconciliation every ${span(config.alertsReconcileMs)}; to confirm an absence, the alert itself (v2 \`GET /alerts/{id}\`, in the same poll) or, fleet contracts, the inactive alerts of the VINs in doubt (v1 \`POST /maintenance/list/alert\` with \`active=0\`, one request a batch)`,
    delay: `${guarantee}. Confirming adds nothing when the list states the fix (a v2 list keeps fixed alerts, inactive) or when the alert's record confirms it in the same poll; confirmed by a second list: one cycle more (${span(config.cycleMs)}: the vehicle is read first in the next cycle; a confirming read that fails is made again the cycle after), and one more read of the alert list when the alert was the newest record of a v2 list (the first list without it is taken for a stale copy); an alert that vanished without a fix: ${span(config.alertsReconcileMs)}`,
  },
  'vehicle.collision.detected': {
    trigger: 'A collision is recorded.',
    reads: `${EVENTS_FEED}, then the collisions (v2 \`GET /vehicles/{id}/collisions\`); fleet contracts: v1 \`POST /crash/list\``,
    delay: guarantee,
  },
  'vehicle.maintenance.due': {
    trigger: `A maintenance countdown crosses the due threshold (${config.maintenanceDue.days} days or ${config.maintenanceDue.mileageKm} km by default).`,
    reads:
      'maintenance (v2 `GET /vehicles/{id}/maintenance`; fleet: v1 `POST /maintenance/list`), after each trip and daily',
    delay: `the poll after the next trip; without a trip ${span(config.dailyMs)}, at most ${span(config.dailyMs * 1.5)} when the quota is saturated`,
  },
  'vehicle.maintenance.overdue': {
    trigger: 'A maintenance countdown crosses zero.',
    reads: 'maintenance, as for `vehicle.maintenance.due`',
    delay: `the poll after the next trip; without a trip ${span(config.dailyMs)}, at most ${span(config.dailyMs * 1.5)}`,
  },
  'vehicle.maintenance.reset': {
    trigger: 'A maintenance countdown jumps back up: the service was done.',
    reads: 'maintenance, as for `vehicle.maintenance.due`',
    delay: `the poll after the next trip; without a trip ${span(config.dailyMs)}, at most ${span(config.dailyMs * 1.5)}`,
  },
  'vehicle.trip.completed': {
    trigger: 'A trip ends (with its eco-driving scores when the API has them).',
    reads: `${EVENTS_FEED}, then the trips and the trip's eco-driving (v2); fleet contracts: v1 \`POST /trip/list\``,
    delay: guarantee,
  },
  'vehicle.refuel.detected': {
    trigger: 'The tank is refilled.',
    reads: EVENTS_FEED,
    delay: guarantee,
  },
  'vehicle.fuel_theft.detected': {
    trigger: 'The fuel level drops while the car is parked (fuel stolen).',
    reads: EVENTS_FEED,
    delay: guarantee,
  },
  'vehicle.map_update.available': {
    trigger: 'A newer map version is released for the vehicle.',
    reads: `map update information in bulk (map API \`POST /mapway/bulk\`, ${config.mapBatchSize} VINs a request), every \`--map-interval\` (\`CARHOOK_MAP_INTERVAL_SECONDS\`, CDK \`mapInterval\`)`,
    delay: `${span(config.mapIntervalMs)} by default, with budget to spare (map reads never take the budget of the events)`,
  },
  'vehicle.services.changed': {
    trigger: "A service's activation or eligibility changes.",
    reads:
      "the vehicle's services (`GET /services/vehicles/{vin}`), every `--services-interval` (`CARHOOK_SERVICES_INTERVAL_SECONDS`, CDK `servicesInterval`)",
    delay: `${span(config.servicesIntervalMs)} by default, at most ${span(config.servicesIntervalMs * 1.5)} when the quota is saturated; then one cycle more: a services answer carries no record time, so a change is told once a second read a cycle later shows it too (the event's time is the first read)`,
  },
  'vehicle.reporting.stopped': {
    trigger: `The vehicle's reads succeed but its records stop advancing (no new trip, event, alert start or other record time) for longer than its silence threshold: \`--silence-after\` (\`CARHOOK_SILENCE_AFTER_SECONDS\`, CDK \`silenceAfter\`; ${span(DEFAULT_CONFIG.silenceAfterMs)} by default) until the vehicle has five gaps between records of its own, then three times the longest of them, bounded to a quarter to seven times the setting. Told once per silence, in the vehicle's \`sequence\`; a steady poll writes nothing.`,
    reads: `the reads that show a vehicle's records: ${EVENTS_FEED}, the trips (v2), v1 \`POST /trip/list\`; told when one of them succeeds after the threshold`,
    delay: `the first successful read after the threshold (${guarantee})`,
  },
  'vehicle.reporting.resumed': {
    trigger: 'A vehicle told silent has a newer record again (once per silence).',
    reads: 'any read that returns a newer record (as for `vehicle.reporting.stopped`)',
    delay: guarantee,
  },
  'enrollment.vehicle.added': {
    trigger:
      "A user enrolls (each vehicle of their list), a vehicle appears in an enrolled user's list, or a fleet contract is enrolled (`POST /enrollments/contracts`).",
    reads:
      "the user's vehicle list (v2 `GET /vehicles`; a vehicle removed earlier and listed again is read itself, `GET /vehicles/{id}`, before it is added back); a fleet contract: v1 `GET /vehicle/information/{vin}`, once, at enrollment",
    delay: `at enrollment: immediate; a vehicle added later: ${span(config.discoveryIntervalMs)} (vehicle discovery)`,
  },
  'enrollment.vehicle.removed': {
    trigger:
      "A vehicle leaves an enrolled user's complete vehicle list (confirmed by reading the vehicle itself: 404 / 403), its enrollment is deleted (`DELETE /enrollments/{id}`: one per vehicle, a fleet contract's too), or the v1 API no longer knows a fleet vehicle (its contract no longer covers it): polling stops, its alerts are not fixed by absence.",
    reads:
      "the user's vehicle list (v2 `GET /vehicles`), then the vehicle missing from it (v2 `GET /vehicles/{id}`: 404 / 403); a fleet vehicle: the bulk lists omitting it or answering 404 / 403, confirmed by one v1 `GET /vehicle/information/{vin}` (404 / 403); none for a deletion",
    delay: `a deletion: immediate; a vehicle leaving the list: ${span(config.discoveryIntervalMs)} (vehicle discovery); a fleet vehicle: its next fleet poll (${guarantee})`,
  },
  'enrollment.reauthorization_required': {
    trigger:
      "The API refuses the enrollment's refresh token (`invalid_grant`): the user must authorize again; its vehicles are paused.",
    reads: 'the OAuth token endpoint, when the access token expires or is refused',
    delay:
      "the first poll after the access token stops working (at most the token's lifetime, then one cycle)",
  },
  'webhook.test': {
    trigger: '`POST /subscriptions/{id}/test` (the console\'s and the CLI\'s "test").',
    reads: 'none',
    delay: 'immediate',
  },
  'webhook.endpoint.disabled': {
    trigger: `A subscription is disabled: its endpoint answered 410 Gone, or failed every delivery for ${span(standard.disableAfterFailingMs)} (${span(fast.disableAfterFailingMs)} with \`--retry-schedule fast\`). On the bus, and sent to the subscriptions that name \`webhook.*\` (never to the disabled one).`,
    reads: 'none (webhook deliveries)',
    delay: `410: immediate; failing: ${span(standard.disableAfterFailingMs)} (${span(fast.disableAfterFailingMs)} fast)`,
  },
  'carhook.quota.changed': {
    trigger:
      "The quota Carhook spends changes: the API's `X-RateLimit-Limit` rises (followed at once, up to the ceiling: the configured quota, or `--quota-max` / `CARHOOK_QUOTA_MAX_REQUESTS` / CDK `quota.max` when set higher) or falls (followed at once), or a deploy with another quota, window or ceiling replaces what was followed. On the bus, and sent to the subscriptions that name `carhook.*` or the type.",
    reads: 'every API response (`X-RateLimit-Limit`); none of its own',
    delay: 'the first response that shows it; the planner sizes its cycles from it from the next cycle',
  },
  'carhook.freshness.at_risk': {
    trigger: `A kind of change with a freshness target (\`--freshness-targets\`, \`CARHOOK_FRESHNESS_TARGETS\`, CDK \`freshnessTargets\`) is at risk: the capacity model's p95 lag for the fleet as it is (what \`GET /capacity\` shows), or the p95 lag of its events detected in the last hour (alerts, trips, collisions, fuel and maintenance; ${MEASURED_MIN_EVENTS} events at least; history and fleet-contract vehicles left out), passed the target. At most one per kind per hour; on the bus, and sent to the subscriptions that name \`carhook.*\` or the type.`,
    reads: 'none: the vehicle records (learned rates), the quota followed and the event log',
    delay: `the next freshness check: every ${FRESHNESS_CHECK_CYCLES} planner cycles (${span(FRESHNESS_CHECK_CYCLES * config.cycleMs)} by default), run by the sweeper`,
  },
  'carhook.freshness.restored': {
    trigger:
      'A kind told at risk is back: its predicted and its measured p95 lag are both within the target. Ends the at-risk it names (`atRiskSince`); a kind at risk again within the hour is told again once the hour has passed.',
    reads: 'none: the vehicle records (learned rates), the quota followed and the event log',
    delay: `the next freshness check: every ${FRESHNESS_CHECK_CYCLES} planner cycles (${span(FRESHNESS_CHECK_CYCLES * config.cycleMs)} by default), run by the sweeper`,
  },
  'webhook.delivery.exhausted': {
    trigger: `A delivery failed its first attempt and every retry (${standard.retriesMs.length + 1} attempts; ${fast.retriesMs.length + 1} with \`--retry-schedule fast\`) and is dead-lettered. On the bus, and sent to the subscriptions that name \`webhook.*\` (never to the failing one).`,
    reads: 'none (webhook deliveries)',
    delay: `about ${span(total(standard.retriesMs))} after the first attempt (±20 % jitter); ${span(total(fast.retriesMs))} fast`,
  },
};
