import type { Alert, EcoDriving, IsoDate, V1Alert } from '../api/model';
import type { CarhookEvent } from '../events/catalogue';
import { absentAlerts, staleAlertList } from './absence';
import { type AlertRecord, applyAlert, fromV1Alert, fromV2Alert } from './alerts';
import { applyMaintenance, applyMap, applyServices, readingBeforeTrip } from './conditions';
import { foldLatest } from './latest';
import {
  checkObservation,
  DEFAULT_OPERATION,
  type Observation,
  type RejectedInput,
  SOURCE_API,
} from './observations';
import {
  applyCollision,
  applyTrip,
  applyV1Crash,
  applyV1Trip,
  applyVehicleEvent,
  releaseTrips,
} from './records';
import { checkReporting } from './reporting';
import type { VehicleState } from './state';
import { toInstant, withInstants } from './times';
import { type DiffContext, type EventSource, maxIso, type StaleAnswer, Work } from './work';

export type { DiffContext, StaleAnswer } from './work';

/**
 * What to read next for this vehicle, for the scheduler.
 * `now`: worth reading at the next cycle; `reconcile`: a slow full read is due when budget allows;
 * `daily`: nothing before its regular period; `skip`: not needed.
 */
export interface PollHints {
  /** Read the v2 events with this `since` (newest event minus an overlap); undefined = no cursor yet. */
  readonly eventsSince?: IsoDate;
  /** `now` while alerts are active (to see them fixed) or events revealed one. */
  readonly alerts: 'now' | 'reconcile' | 'skip';
  /** `now` when an event announced a collision without embedding it. */
  readonly collisions: 'now' | 'skip';
  /** `now` when an event announced a trip without embedding it. */
  readonly trips: 'now' | 'skip';
  /** Trips waiting for their eco-driving evaluation (GET /trips/{id}/ecodriving). */
  readonly ecodrivingFor: readonly string[];
  /** `now` after a trip, when never read, or when the daily read is due. */
  readonly maintenance: 'now' | 'daily';
  readonly services: 'now' | 'daily';
  readonly map: 'now' | 'daily';
  readonly hasActiveAlerts: boolean;
  readonly activeAlerts: number;
  /**
   * Active alerts (`v2:<id>` / `v1:<idAlert>`) a complete list missed and nothing has confirmed
   * yet: read their records, or the list again in a later cycle (README "Alerts").
   */
  readonly alertsUnconfirmed: readonly string[];
  /** A services change read once, waiting for a second read to confirm it. */
  readonly servicesUnconfirmed: boolean;
  /** Newest trip end, event or alert start: recently active vehicles go first when budget is short. */
  readonly lastActivityAt?: IsoDate;
}

export interface DiffResult {
  readonly state: VehicleState;
  /** In the order they happened within this poll; `sequence` increases along the array. */
  readonly events: readonly CarhookEvent[];
  readonly next: PollHints;
  /** What the store must write: see `stateChanged`. */
  readonly changed: 'none' | 'cursors' | 'state';
  /**
   * Observations or items refused as malformed, and record times that do not parse (the item was
   * applied without them); the rest of the poll was applied.
   */
  readonly rejected: readonly RejectedInput[];
  /**
   * Answers that contradicted newer known state (an alert list older than what was applied):
   * they fixed nothing. Count them: a source that keeps answering stale needs looking at.
   */
  readonly stale: readonly StaleAnswer[];
}

/**
 * The diff engine: previous state + fresh observations → new state, events, poll hints.
 * Pure: no I/O, no clock (time is `context.now`), no randomness. Observations are applied in the
 * order given (a poll's observations split over several calls give the same events, README);
 * `v2.vehicles` observations belong to `diffEnrollmentVehicles` and are ignored here.
 */
export const diff = (
  state: VehicleState | undefined,
  observations: readonly Observation[],
  context: DiffContext,
): DiffResult => {
  const owner = context.identity ?? context.vehicle.id;
  if (state !== undefined && state.vehicleId !== owner) {
    // A state of another vehicle: applying anything would corrupt both.
    const w = new Work(state, context);
    return {
      state,
      events: [],
      next: hints(w, state),
      changed: 'none',
      rejected: [
        {
          kind: 'Malformed',
          observation: -1,
          source: 'state',
          field: 'state.vehicleId',
          reason: `state of vehicle ${state.vehicleId} given for vehicle ${owner}; nothing applied`,
        },
      ],
      stale: [],
    };
  }
  const w = new Work(state, context);
  for (const [i, o] of observations.entries()) {
    const problem = checkObservation(o, i);
    if (problem !== undefined) {
      w.rejected.push(problem);
      continue;
    }
    const read = readTimes(o, itemProblem(w, o, i));
    applyObservation(w, read, i);
    if (!readingBeforeTrip(w, read)) w.noteFetched(read.source, read.fetchedAt);
    w.markSource(read.source);
  }
  releaseTrips(w, new Map());
  checkReporting(w, state, observations);
  w.finish();
  // The snapshot moves only with events, so only in a write the poll makes anyway.
  if (w.events.length > 0) {
    const latest = foldLatest(w.s.latest, w.events);
    if (latest !== undefined) w.s = { ...w.s, latest };
  }

  const s = w.s;
  const changed = w.dirty ? 'state' : w.cursorsChanged ? 'cursors' : 'none';
  // Stryker disable next-line ConditionalExpression: a first poll is always 'state' (Work marks it dirty), so 'none' comes with a given state
  const result = changed === 'none' && state !== undefined ? state : s;
  return {
    state: result,
    events: w.events,
    next: hints(w, result),
    changed,
    rejected: w.rejected,
    stale: w.stale,
  };
};

type ItemProblem = (i: number, field: string, reason: string) => void;

/** Reports a refused item (or one field of it) of observation `index`. */
const itemProblem =
  (w: Work, o: Observation, index: number): ItemProblem =>
  (i, field, reason) => {
    w.rejected.push({
      kind: 'Malformed',
      observation: index,
      source: o.source,
      field: `items[${i}].${field}`,
      reason,
    });
  };

const applyObservation = (w: Work, o: Observation, index: number): void => {
  const source: EventSource = {
    api: SOURCE_API[o.source],
    operation: o.operation ?? DEFAULT_OPERATION[o.source],
  };
  const bad = itemProblem(w, o, index);
  switch (o.source) {
    case 'v2.events': {
      let newest: IsoDate | undefined;
      const valid: (typeof o.items)[number][] = [];
      for (const [i, ev] of o.items.entries()) {
        if (typeof ev?.id === 'string' && typeof ev.type === 'string') valid.push(ev);
        else bad(i, 'id', 'event without id or type');
      }
      // Canonical order (oldest event first): pages read in any order give the same events.
      valid.sort(byTimeThenId((e) => e.createdAt));
      for (const ev of valid) {
        applyVehicleEvent(w, ev, o, source, {
          alert: (a) => applyAlert(w, fromV2Alert(a), o, source, false),
        });
        // A future-dated event does not move the cursor (the next read would skip what comes before it).
        // Stryker disable next-line ConditionalExpression: times are canonical or absent here (readTimes), and undefined <= now is false
        if (ev.createdAt !== undefined && ev.createdAt <= w.nowIso) newest = maxIso(newest, ev.createdAt);
      }
      // The cursor only moves forward (noteCursor): an older newest event leaves it where it is.
      if (newest !== undefined) {
        w.noteCursor('eventsSince', new Date(Date.parse(newest) - w.config.eventsOverlapMs).toISOString());
      }
      return;
    }
    case 'v2.alerts':
    case 'v1.alerts': {
      const v2 = o.source === 'v2.alerts';
      const records: AlertRecord[] = [];
      for (const [i, a] of (o.items as readonly unknown[]).entries()) {
        const r = isObject(a) ? (v2 ? fromV2Alert(a as Alert) : fromV1Alert(a as V1Alert)) : undefined;
        if (r === undefined || typeof r.id !== 'string' || r.id === '')
          bad(i, v2 ? 'id' : 'idAlert', 'alert without id');
        else if (typeof r.message !== 'string') bad(i, v2 ? 'message' : 'alert', 'must be a string');
        else records.push(r);
      }
      // Canonical order (older versions first): pages read in any order give the same events.
      records.sort(byTimeThenId((r) => r.updatedAt ?? r.startedAt));
      // Judged before anything is applied: against what was known when the list arrived.
      const stale = staleAlertList(w, o, records);
      if (stale !== undefined) w.stale.push({ observation: index, source: o.source, reason: stale });
      const present = new Set<string>();
      for (const r of records) {
        present.add(`${r.api}:${r.id}`);
        applyAlert(w, r, o, source, true, stale !== undefined);
      }
      // A stale list fixes nothing, raises no doubt and is no reconciliation.
      if (stale !== undefined) return;
      absentAlerts(w, o, present, source);
      if (o.complete && o.window?.since === undefined && o.window?.until === undefined) {
        w.noteCursor('alertsReconciledAt', o.fetchedAt);
      }
      return;
    }
    case 'v2.collisions':
      for (const [i, c] of o.items.entries()) {
        if (typeof c?.id !== 'string' || c.id === '') {
          bad(i, 'id', 'collision without id');
          continue;
        }
        applyCollision(w, c, o, source);
      }
      return;
    case 'v2.trips':
      for (const [i, t] of o.items.entries()) {
        if (typeof t?.id !== 'string' || t.id === '') {
          bad(i, 'id', 'trip without id');
          continue;
        }
        applyTrip(w, t, o, source);
      }
      return;
    case 'v2.maintenance':
      for (const [i, m] of o.items.entries()) {
        if (isObject(m) && countdownsUsable(i, m.days, m.mileage, bad)) {
          applyMaintenance(
            w,
            { days: m.days, mileageKm: m.mileage, updatedAt: m.updatedAt ?? m.createdAt },
            o,
            source,
          );
        }
      }
      return;
    case 'v1.maintenance':
      for (const [i, m] of o.items.entries()) {
        if (isObject(m) && countdownsUsable(i, m.days, m.mileage, bad))
          applyMaintenance(w, { days: m.days, mileageKm: m.mileage, updatedAt: m.lastUpdate }, o, source);
      }
      return;
    case 'v1.crash':
      for (const c of o.items) if (isObject(c) && isObject(c.raw)) applyV1Crash(w, c, o, source);
      return;
    case 'v1.trips':
      for (const [i, t] of o.items.entries()) {
        if (typeof t?.tripId !== 'number' || !Number.isFinite(t.tripId)) {
          bad(i, 'tripId', 'must be a number');
          continue;
        }
        applyV1Trip(w, t, o, source);
      }
      return;
    case 'services':
      applyServices(w, o, o.items.filter(isObject), source);
      return;
    case 'map':
      for (const m of o.items) {
        if (!isObject(m) || typeof m.availableVersion !== 'string') continue;
        // A bulk read lists many VINs: only this vehicle's entry counts.
        if (m.vin === w.ctx.vehicle.vin || o.items.length === 1) applyMap(w, o, m, source);
      }
      return;
    case 'v2.ecodriving': {
      // Applied in order: it completes the trips held for it (README "Trips").
      const eco = new Map<string, EcoDriving>();
      for (const e of o.items) {
        const tripId = e?.tripId ?? e?.id;
        if (tripId !== undefined && isObject(e.global) && isObject(e.detailed)) eco.set(tripId, e);
      }
      releaseTrips(w, eco, true);
      return;
    }
    // Stryker disable next-line ConditionalExpression,StringLiteral: without this case nothing matches and nothing is applied all the same
    case 'v2.vehicles':
      return;
  }
};

/**
 * The observation with every record time in canonical UTC form (./times.ts), so times compare as
 * instants; a time that does not parse is reported with its field and read as absent.
 */
const readTimes = (o: Observation, bad: ItemProblem): Observation => {
  let items: unknown[] | undefined;
  for (const [i, item] of (o.items as readonly unknown[]).entries()) {
    const read = withInstants(item, (field, reason) => bad(i, field, reason));
    if (read === item) continue;
    items ??= [...o.items];
    items[i] = read;
  }
  // checkObservation let through only UTC timestamps of real dates: each has a canonical form.
  const fetchedAt = toInstant(o.fetchedAt) ?? o.fetchedAt;
  const since = o.window?.since === undefined ? undefined : toInstant(o.window.since);
  const until = o.window?.until === undefined ? undefined : toInstant(o.window.until);
  const window =
    o.window === undefined || (since === o.window.since && until === o.window.until)
      ? o.window
      : { ...(since === undefined ? {} : { since }), ...(until === undefined ? {} : { until }) };
  if (items === undefined && fetchedAt === o.fetchedAt && window === o.window) return o;
  return {
    ...o,
    fetchedAt,
    ...(window === undefined ? {} : { window }),
    items: items ?? o.items,
  } as Observation;
};

/** Sort key of validated items (each has a string id): time (missing first), then id. */
const byTimeThenId =
  <T extends { readonly id: string }>(time: (x: T) => string | undefined) =>
  (a: T, b: T): number => {
    const ta = time(a) ?? '';
    const tb = time(b) ?? '';
    if (ta !== tb) return ta < tb ? -1 : 1;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null;

/**
 * Maintenance countdowns become integers in events (days, km): a value beyond ±2^53 (`1e308`) has
 * no integer form, so the reading is refused instead of producing an event its schema rejects.
 */
const countdownsUsable = (i: number, days: unknown, mileage: unknown, bad: ItemProblem): boolean => {
  // NaN and ±Infinity fail the bound too (a comparison with NaN is false).
  const usable = (v: unknown) =>
    v === undefined || (typeof v === 'number' && Math.abs(v) <= Number.MAX_SAFE_INTEGER);
  if (!usable(days)) bad(i, 'days', 'must be a finite number of days within ±2^53');
  else if (!usable(mileage)) bad(i, 'mileage', 'must be a finite number of km within ±2^53');
  else return true;
  return false;
};

const hints = (w: Work, s: VehicleState): PollHints => {
  const { config, nowMs } = w;
  let activeAlerts = 0;
  const unconfirmed: string[] = [];
  for (const [key, e] of Object.entries(s.alerts)) {
    if (e.active) activeAlerts += 1;
    if (e.missingSince !== undefined) unconfirmed.push(key);
  }
  const olderThan = (at: IsoDate | undefined, ms: number) => at === undefined || nowMs - Date.parse(at) >= ms;
  const fetched = s.cursors.fetched;
  const lastMaintenance = maxIso(fetched['v2.maintenance'], fetched['v1.maintenance']);
  // A trip ended after the last maintenance read (never read: olderThan below asks for it anyway).
  const tripAt = s.lastTripAt ?? '';
  // Stryker disable next-line StringLiteral: with no maintenance read, olderThan(undefined) asks for one whatever afterTrip is
  const readAt = lastMaintenance ?? '';
  const afterTrip = tripAt > readAt;
  const out: {
    -readonly [K in keyof PollHints]: PollHints[K];
  } = {
    alerts:
      activeAlerts > 0 || w.revealed.alerts
        ? 'now'
        : olderThan(s.cursors.alertsReconciledAt, config.alertsReconcileMs)
          ? 'reconcile'
          : 'skip',
    collisions: w.revealed.collisions ? 'now' : 'skip',
    trips: w.revealed.trips ? 'now' : 'skip',
    ecodrivingFor: Object.keys(s.pendingTrips).sort(),
    maintenance: afterTrip || olderThan(lastMaintenance, config.dailyMs) ? 'now' : 'daily',
    services:
      s.services?.pending !== undefined || olderThan(fetched.services, config.servicesMs) ? 'now' : 'daily',
    map: olderThan(fetched.map, config.mapMs) ? 'now' : 'daily',
    hasActiveAlerts: activeAlerts > 0,
    activeAlerts,
    alertsUnconfirmed: unconfirmed.sort(),
    servicesUnconfirmed: s.services?.pending !== undefined,
  };
  if (s.cursors.eventsSince !== undefined) out.eventsSince = s.cursors.eventsSince;
  if (s.lastActivityAt !== undefined) out.lastActivityAt = s.lastActivityAt;
  return out;
};
