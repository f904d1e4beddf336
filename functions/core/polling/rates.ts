/**
 * Change rates learned online, per vehicle, for the planner's index (README "How a cycle is
 * planned"). Two resources:
 * - `events`: changes the v2 events feed reveals (alert raised, collision, trip, refuel, fuel
 *   theft). The feed returns everything since the cursor, so the count of changes and the time
 *   they cover are exact: the exposure is simply the time elapsed.
 * - `alerts`: fixes of active alerts, seen only by alert reads. The exposure is the time alerts
 *   were known active (count × time), so the rate is a fix rate per active alert.
 *
 * The estimator keeps exponentially decayed sums (half-life `rateHalfLifeMs`): a count `c` and an
 * exposure `e` in hours, as of time `t`. Between two updates nothing is stored: the count only
 * decays and the exposure grows by a known amount, so the estimate at any later time is computed
 * in closed form. The estimate is written only with a poll that writes anyway (a change always
 * moves the events cursor or the state), so a steady poll still writes nothing.
 *
 * Each estimate is shrunk towards the fleet's pooled rate by a prior whose weight is learned from
 * how much the vehicles really differ (`fleetPrior`, empirical Bayes): a new or silent vehicle
 * stays near the fleet's average instead of at zero, and in a fleet of equal vehicles chance
 * differences between a few counts do not reorder the fleet.
 */
import type { Observation } from '../detection/observations';
import type { CarhookEvent } from '../events/catalogue';

const HOUR = 3_600_000;

/** The decayed sums of one vehicle, as of `t` (epoch ms). */
export interface RateState {
  readonly t: number;
  /** Decayed count of changes the events feed revealed. */
  readonly events: number;
  /** Decayed hours of exposure of the events feed. */
  readonly eventsHours: number;
  /** Decayed count of alert fixes. */
  readonly fixes: number;
  /** Decayed alert-hours (alerts known active × hours). */
  readonly alertHours: number;
  /** Alerts known active since `t` (constant until the next update: a change is a write). */
  readonly active: number;
}

export interface RateSettings {
  readonly rateHalfLifeMs: number;
}

/** Changes revealed by the events feed (its count is exact). */
const EVENTS_FEED_TYPES: ReadonlySet<string> = new Set([
  'vehicle.alert.raised',
  'vehicle.collision.detected',
  'vehicle.trip.completed',
  'vehicle.refuel.detected',
  'vehicle.fuel_theft.detected',
]);

const decayPerHour = (s: RateSettings): number => Math.LN2 / (s.rateHalfLifeMs / HOUR);

/**
 * The sums moved from `state.t` to `now` without observation: counts decay by `d`, exposures by
 * `d` plus the decayed integral of the time in between (`(1 − d) / k`, hours).
 */
export function advance(state: RateState, now: number, s: RateSettings): RateState {
  const dtH = Math.max(0, now - state.t) / HOUR;
  if (dtH === 0) return state;
  const k = decayPerHour(s);
  const d = Math.exp(-k * dtH);
  const grown = (1 - d) / k;
  return {
    t: Math.max(now, state.t),
    events: state.events * d,
    eventsHours: state.eventsHours * d + grown,
    fixes: state.fixes * d,
    alertHours: state.alertHours * d + state.active * grown,
    active: state.active,
  };
}

/** What one poll saw: its events (as emitted) and the alerts known active after it. */
export interface RateObservation {
  readonly events: readonly Pick<CarhookEvent, 'type'>[];
  readonly activeAlerts: number;
  /**
   * A first poll's look-back: the feed's records from `since` (epoch ms) up to the poll, `at` their
   * record times. They are history (baseline, never events), but the feed returns all of them, so
   * they are an exact count over a known exposure: the vehicle's past, before it was enrolled.
   */
  readonly lookBack?: { readonly since: number; readonly at: readonly number[] };
}

/** A vehicle's sums after a poll at `now` (`undefined`: its first poll starts the clock). */
export function observe(
  state: RateState | undefined,
  now: number,
  seen: RateObservation,
  s: RateSettings,
): RateState {
  if (state === undefined) return firstState(now, seen, s);
  const base = advance(state, now, s);
  let events = 0;
  let fixes = 0;
  for (const e of seen.events) {
    if (EVENTS_FEED_TYPES.has(e.type)) events++;
    else if (e.type === 'vehicle.alert.fixed') fixes++;
  }
  return {
    ...base,
    events: base.events + events,
    fixes: base.fixes + fixes,
    active: Math.max(0, seen.activeAlerts),
  };
}

/**
 * The sums of a vehicle's first poll. Its events are the history of the initial look-back (the
 * detection reports none of them); with the look-back's records and start, they are counted as
 * what they are: every record of the feed over `[since, now]`, each decayed by its age, over an
 * exposure of that whole window (decayed as `advance` would have). Without them the clock starts
 * at zero exposure.
 */
function firstState(now: number, seen: RateObservation, s: RateSettings): RateState {
  const start = emptyState(now, Math.max(0, seen.activeAlerts));
  const back = seen.lookBack;
  if (back === undefined || !(back.since < now)) return start;
  const k = decayPerHour(s);
  let events = 0;
  for (const at of back.at) {
    if (!(at >= back.since && at <= now)) continue; // outside the window asked for: not counted
    events += Math.exp((-k * (now - at)) / HOUR);
  }
  const hours = (now - back.since) / HOUR;
  return { ...start, events, eventsHours: (1 - Math.exp(-k * hours)) / k };
}

/**
 * The look-back of a poll's events read: its window start and its records' times, when the read
 * is complete (every page): a first poll counts them (`observe`). A record without a parseable
 * time is left out, so a count is never inflated by damaged data.
 */
export function lookBackOf(observations: readonly Observation[]): RateObservation['lookBack'] {
  const read = observations.find((o) => o.source === 'v2.events');
  if (read === undefined || read.source !== 'v2.events' || !read.complete) return undefined;
  const since = Date.parse(read.window?.since ?? '');
  if (!Number.isFinite(since)) return undefined;
  const at: number[] = [];
  for (const e of read.items) {
    const t = Date.parse(e.createdAt ?? e.updatedAt ?? '');
    if (Number.isFinite(t)) at.push(t);
  }
  return { since, at };
}

export const emptyState = (t: number, active: number): RateState => ({
  t,
  events: 0,
  eventsHours: 0,
  fixes: 0,
  alertHours: 0,
  active,
});

/**
 * The prior both estimates shrink towards: rates per hour, and the weight of each as hours of
 * observation (a Gamma prior of mean `rate` and shape `rate × weight`).
 */
export interface RatePrior {
  readonly eventsPerHour: number;
  /** Fix rate per active alert, per hour (1 / mean hours an alert stays active). */
  readonly fixesPerHour: number;
  /** Weight of the events prior, hours: learned from the fleet's spread (`fleetPrior`). */
  readonly eventsWeightHours: number;
  /** Weight of the fix-rate prior, hours (`ratePriorMs`). */
  readonly fixesWeightHours: number;
}

export interface Rates {
  /** Changes per hour the events feed reveals. */
  readonly eventsPerHour: number;
  /** Fixes per hour per active alert. */
  readonly fixesPerHour: number;
}

/** The posterior mean rates at `now` (the prior alone for a vehicle never observed). */
export function ratesAt(state: RateState | undefined, now: number, prior: RatePrior, s: RateSettings): Rates {
  if (!state) return { eventsPerHour: prior.eventsPerHour, fixesPerHour: prior.fixesPerHour };
  return posterior(advance(state, now, s), prior);
}

/** The posterior mean rates of sums already advanced to the time of the estimate. */
export function posterior(a: RateState, prior: RatePrior): Rates {
  return {
    eventsPerHour:
      (a.events + prior.eventsPerHour * prior.eventsWeightHours) / (a.eventsHours + prior.eventsWeightHours),
    fixesPerHour:
      (a.fixes + prior.fixesPerHour * prior.fixesWeightHours) / (a.alertHours + prior.fixesWeightHours),
  };
}

export interface PriorSettings extends RateSettings {
  /** The least weight of the prior (and the weight of the fix-rate prior), ms of observation. */
  readonly ratePriorMs: number;
  /** Rates assumed before the fleet has any history. */
  readonly priorEventsPerHour: number;
  readonly priorFixesPerHour: number;
}

/** The most weight the events prior gets (hours): a fleet of equal vehicles is planned as one. */
export const MAX_PRIOR_WEIGHT_HOURS = 10_000;

/**
 * The fleet's prior, from every vehicle's sums advanced to `now` (empirical Bayes):
 *
 * - the mean is the pooled rate (all counts over all exposure, the configured prior worth
 *   `ratePriorMs` included, so a fleet without history starts at `priorEventsPerHour`);
 * - the weight of the events prior is learned from how much the vehicles really differ. A vehicle's
 *   observed rate r = c / e spreads around its true rate by Poisson noise (variance λ·e₂ / e², e₂
 *   the exposure with the decay squared) and the true rates spread around the mean m by τ². The
 *   method of moments gives τ² from Σ e (r − m)² ≈ τ² (E − Σe² / E) + m Σ e₂ / e, and a Gamma
 *   prior of mean m and variance τ² weighs m / τ² hours. A fleet whose vehicles all change alike
 *   (τ² ≈ 0) gets a heavy prior, so chance differences in a few counts do not reorder the fleet;
 *   a fleet of vans and parked cars (large τ²) a light one, so each vehicle's own count decides.
 *
 * For the events feed the exposure runs without gaps since the vehicle's first read, so with decay
 * k its squared-decay exposure is e₂ = e − k e² / 2 in closed form. The fix-rate prior keeps the
 * configured weight (its exposure has gaps: alerts are not always active).
 */
export function fleetPrior(advanced: readonly (RateState | undefined)[], s: PriorSettings): RatePrior {
  const h0 = s.ratePriorMs / HOUR;
  const k = decayPerHour(s);
  let events = s.priorEventsPerHour * h0;
  let eventsHours = h0;
  let fixes = s.priorFixesPerHour * h0;
  let alertHours = h0;
  for (const a of advanced) {
    if (!a) continue;
    events += a.events;
    eventsHours += a.eventsHours;
    fixes += a.fixes;
    alertHours += a.alertHours;
  }
  const m = events / eventsHours;
  let n = 0;
  let spread = 0; // Σ e (r − m)²
  let noise = 0; // Σ e₂ / e
  let e1 = 0;
  let e2 = 0;
  for (const a of advanced) {
    if (!a || a.eventsHours <= 0) continue;
    const e = a.eventsHours;
    n++;
    spread += (a.events - m * e) ** 2 / e;
    noise += Math.max(0, 1 - (k * e) / 2);
    e1 += e;
    e2 += e * e;
  }
  let weight = h0;
  const dof = e1 - e2 / Math.max(e1, Number.MIN_VALUE);
  if (n >= 2 && dof > 0) {
    const tau2 = (spread - m * noise) / dof;
    weight = tau2 > 0 ? m / tau2 : MAX_PRIOR_WEIGHT_HOURS;
  }
  return {
    eventsPerHour: m,
    fixesPerHour: fixes / alertHours,
    eventsWeightHours: Math.min(MAX_PRIOR_WEIGHT_HOURS, Math.max(h0, weight)),
    fixesWeightHours: h0,
  };
}

// ---- Encoding: a short string in the vehicle's scheduling hints (`hints.rates`). ----

const VERSION = 'r1';
const num = (x: number): string => String(Number(x.toPrecision(6)));

/** `r1:<t>:<events>:<eventsHours>:<fixes>:<alertHours>:<active>` (numbers at 6 significant digits). */
export function encodeRates(state: RateState): string {
  return [
    VERSION,
    Math.round(state.t),
    num(state.events),
    num(state.eventsHours),
    num(state.fixes),
    num(state.alertHours),
    Math.round(state.active),
  ].join(':');
}

/**
 * The sums of `hints.rates`; `undefined` for an absent, older or damaged value, so the vehicle is
 * planned on the prior (never a crash).
 */
export function decodeRates(text: string | undefined): RateState | undefined {
  if (text === undefined) return undefined;
  const cached = decoded.get(text);
  if (cached !== undefined) return cached;
  const state = parseRates(text);
  // A cache of a pure function (the planner decodes every vehicle each cycle); bounded.
  if (decoded.size >= 50_000) decoded.clear();
  if (state) decoded.set(text, state);
  return state;
}

const decoded = new Map<string, RateState>();

function parseRates(text: string): RateState | undefined {
  const parts = text.split(':');
  if (parts.length !== 7 || parts[0] !== VERSION) return undefined;
  const values = parts.slice(1).map(Number);
  if (values.some((v) => !Number.isFinite(v) || v < 0)) return undefined;
  const [t, events, eventsHours, fixes, alertHours, active] = values as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return { t, events, eventsHours, fixes, alertHours, active };
}
