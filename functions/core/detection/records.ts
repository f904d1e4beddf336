import type {
  Alert,
  Collision,
  EcoDriving,
  IsoDate,
  Trip,
  V1Crash,
  V1Trip,
  VehicleEvent,
} from '../api/model';
import { wPosition } from '../api/wire/common';
import type { EventData } from '../events/catalogue';
import type { Observation, ObservationSource } from './observations';
import { toPosition, toScores } from './project';
import type { EventSource, Work } from './work';

// ---------------------------------------------------------------------------------------------
// Collisions: emitted once per collision id, whichever source shows it first (list or event).

const LEVEL_RANK: Readonly<Record<string, number>> = { none: 0, fixable: 1, low: 2, medium: 3, high: 4 };

const maxLevel = (levels: readonly string[]): string => {
  // Stryker disable next-line StringLiteral: every caller passes three levels, so the fallback never applies
  let best = levels[0] ?? 'none';
  for (const l of levels) if ((LEVEL_RANK[l] ?? -1) > (LEVEL_RANK[best] ?? -1)) best = l;
  return best;
};

export const applyCollision = (w: Work, c: Collision, obs: Observation, source: EventSource): void => {
  if (c.id === '') return;
  emitCollisionOnce(w, c.id, c.createdAt, obs.source, source, () => ({
    collisionId: c.id,
    front: c.front,
    rear: c.rear,
    lateral: c.lateral,
    maxLevel: maxLevel([c.front, c.rear, c.lateral]),
    rollOver: c.rollOver,
    pedestrian: c.pedestrian,
    tripId: c.tripId,
    position: toPosition(c.position),
    collidedAt: c.createdAt,
  }));
};

const emitCollisionOnce = (
  w: Work,
  key: string,
  time: IsoDate | undefined,
  obsSource: ObservationSource,
  source: EventSource,
  data: () => EventData<'vehicle.collision.detected'>,
): void => {
  if (!w.isNew('collisions', key, time)) return;
  w.remember('collisions', key, time);
  w.noteActivity(time);
  if (w.isHistory(time, obsSource)) return;
  w.emit('vehicle.collision.detected', key, 'detected', time, { ...source, recordId: key }, data());
};

/** Whether a v1 crash series holds any positive value (values under second keys). */
const positive = (v: unknown): boolean => {
  if (typeof v === 'number') return v > 0;
  if (typeof v === 'string') return Number(v) > 0;
  if (v !== null && typeof v === 'object') return Object.values(v).some(positive);
  return false;
};

/**
 * v1 crash data has no id and no levels, only per-side indicator series: the level of a
 * side is the highest indicator with a positive value; a record with none is not a collision.
 * Its key is its `lastUpdate` (one crash record per update).
 */
export const applyV1Crash = (w: Work, c: V1Crash, obs: Observation, source: EventSource): void => {
  const r = c.raw;
  const side = (high: string[], medium: string[], low: string[], repair: string[]): string => {
    // Stryker disable next-line MethodExpression: each side has one high key, and `some` and `every` agree on one key
    if (high.some((k) => positive(r[k]))) return 'high';
    if (medium.some((k) => positive(r[k]))) return 'medium';
    // Stryker disable next-line MethodExpression: each side has one low key, and `some` and `every` agree on one key
    if (low.some((k) => positive(r[k]))) return 'low';
    // Stryker disable next-line MethodExpression: each side has one repair key, and `some` and `every` agree on one key
    if (repair.some((k) => positive(r[k]))) return 'fixable';
    return 'none';
  };
  const front = side(
    ['highFrontCrashInfo'],
    ['avgFrontCrashInfoN1', 'avgFrontCrashInfoN2'],
    ['lowFrontCrashInfo'],
    ['repairFrontCrashInfo'],
  );
  const rear = side(
    ['highRearCrashInfo'],
    ['avgRearCrashInfo'],
    ['lowRearCrashInfo'],
    ['repairRearCrashInfo'],
  );
  const lateral = side(
    ['highLatCrashInfo'],
    ['avgLatCrashInfo'],
    ['lowLatCrashInfo'],
    ['repairLatCrashInfo'],
  );
  const rollOver = positive(r.flipVeh);
  const pedestrian = [
    'pedestCrashInfo1_41',
    'pedestCrashInfo1_60',
    'pedestCrashInfo2_60',
    'pedestCrashInfo3_60',
  ].some((k) => positive(r[k]));
  if (front === 'none' && rear === 'none' && lateral === 'none' && !rollOver && !pedestrian) return;
  if (c.lastUpdate === undefined) {
    w.rejected.push({
      kind: 'Malformed',
      observation: -1,
      source: obs.source,
      field: 'items[].lastUpdate',
      reason: 'a v1 crash record without lastUpdate cannot be told apart from the next one; skipped',
    });
    return;
  }
  const key = `v1crash:${c.lastUpdate}`;
  emitCollisionOnce(w, key, c.lastUpdate, obs.source, source, () => ({
    collisionId: key,
    front,
    rear,
    lateral,
    maxLevel: maxLevel([front, rear, lateral]),
    rollOver,
    pedestrian,
    collidedAt: c.lastUpdate,
  }));
};

// ---------------------------------------------------------------------------------------------
// Trips: emitted once; v2 trips wait for their eco-driving evaluation (README "Trips").

/** A finite number (`Number.isFinite` does not coerce: false for every non-number). */
const isFiniteNumber = (v: unknown): v is number => Number.isFinite(v);

const nonNegative = (v: number | undefined): number | undefined =>
  isFiniteNumber(v) && v >= 0 ? v : undefined;

const tripData = (t: Trip): EventData<'vehicle.trip.completed'> => ({
  tripId: t.id,
  startedAt: t.startedAt,
  stoppedAt: t.stoppedAt,
  durationS: nonNegative(t.durationS),
  distanceKm: nonNegative(t.distanceKm),
  fuelConsumptionL: t.fuelConsumptionL,
  avgConsumptionL100: t.avgConsumptionL100,
  avgSpeedKmh: t.avgSpeedKmh,
  co2Estimated: t.co2Estimated,
  refueling: t.refueling,
  reference: t.reference,
  startPosition: toPosition(t.startPosition),
  stopPosition: toPosition(t.stopPosition),
  ecoDrivingStatus: 'unavailable',
});

const tripEnd = (t: Trip): IsoDate | undefined => {
  if (t.stoppedAt !== undefined) return t.stoppedAt;
  if (t.startedAt !== undefined && t.durationS !== undefined) {
    const end = Date.parse(t.startedAt) + t.durationS * 1000;
    return Number.isFinite(end) ? new Date(end).toISOString() : undefined;
  }
  return undefined;
};

export const applyTrip = (w: Work, t: Trip, obs: Observation, source: EventSource): void => {
  if (t.id === '') return;
  const end = tripEnd(t);
  // A trip without an end is still running: it is completed when a later read shows the end.
  if (end === undefined) return;
  if (!w.isNew('trips', t.id, end)) return;
  w.remember('trips', t.id, end);
  w.noteActivity(end);
  w.noteTrip(end);
  if (w.isHistory(end, obs.source)) return;
  w.setPending(t.id, {
    heldSince: w.nowIso,
    occurredAt: end,
    operation: source.operation,
    data: { ...tripData(t), stoppedAt: end },
  });
};

/** Emits the held trips whose eco-driving arrived, or whose wait is over. */
export const releaseTrips = (w: Work, eco: ReadonlyMap<string, EcoDriving>, onlyWithEco = false): void => {
  const pending = Object.entries(w.s.pendingTrips);
  if (pending.length === 0) return;
  // Oldest first, so sequence follows trip order; beyond the bound, the oldest go without waiting.
  pending.sort((a, b) =>
    a[1].occurredAt < b[1].occurredAt ? -1 : a[1].occurredAt > b[1].occurredAt ? 1 : a[0] < b[0] ? -1 : 1,
  );
  const overflow = pending.length - w.config.maxPendingTrips;
  pending.forEach(([tripId, p], i) => {
    const e = eco.get(tripId);
    const waitedOut = w.nowMs - Date.parse(p.heldSince) >= w.config.ecoDrivingWaitMs;
    if (e === undefined && (onlyWithEco || (!waitedOut && i >= overflow))) return;
    const data = p.data as EventData<'vehicle.trip.completed'>;
    w.emit(
      'vehicle.trip.completed',
      tripId,
      'completed',
      p.occurredAt,
      { api: 'v2', operation: p.operation, recordId: tripId },
      e === undefined
        ? { ...data, ecoDrivingStatus: 'unavailable' }
        : {
            ...data,
            ecoDriving: { global: toScores(e.global), detailed: toScores(e.detailed) },
            ecoDrivingStatus: 'included',
          },
    );
    w.setPending(tripId, undefined);
  });
};

/** v1 trips: emitted at once (v1 eco-driving is not a source); refuel/siphoning flags. */
export const applyV1Trip = (w: Work, t: V1Trip, obs: Observation, source: EventSource): void => {
  const id = `v1trip:${t.tripId}`;
  const begin = t.dateTripBegin;
  const endMs = begin === undefined ? Number.NaN : Date.parse(begin) + (t.durationS ?? 0) * 1000;
  const end = Number.isFinite(endMs) ? new Date(endMs).toISOString() : undefined;
  const src = { ...source, recordId: String(t.tripId) };
  if (w.isNew('trips', id, end)) {
    w.remember('trips', id, end);
    w.noteActivity(end);
    if (end !== undefined) w.noteTrip(end);
    if (!w.isHistory(end, obs.source)) {
      w.emit('vehicle.trip.completed', id, 'completed', end, src, {
        tripId: String(t.tripId),
        startedAt: begin,
        stoppedAt: end,
        durationS: nonNegative(t.durationS),
        distanceKm: nonNegative(t.distanceKm),
        avgConsumptionL100: t.avgFuelConsumption,
        co2Estimated: t.co2Emission,
        refueling: t.refueling,
        ecoDrivingStatus: 'unavailable',
      });
    }
  }
  const num = (k: string): number | undefined => {
    const v = t.raw[k];
    return isFiniteNumber(v) ? v : undefined;
  };
  if (t.refueling === true) {
    applyFuel(w, 'refuel', String(t.tripId), begin, obs, src, () => ({
      recordId: String(t.tripId),
      tripId: String(t.tripId),
      at: begin,
      cost: num('refuelingCost'),
      fuelLevel: num('fuelTankLevel'),
    }));
  }
  if (t.siphoning === true) {
    applyFuel(w, 'theft', String(t.tripId), begin, obs, src, () => ({
      recordId: String(t.tripId),
      tripId: String(t.tripId),
      at: begin,
      cost: num('siphoningCost'),
      fuelLevel: num('fuelTankLevel'),
    }));
  }
};

// ---------------------------------------------------------------------------------------------
// Refuel and fuel theft: once per underlying record.

export const applyFuel = (
  w: Work,
  kind: 'refuel' | 'theft',
  recordId: string,
  time: IsoDate | undefined,
  obs: Observation,
  source: EventSource,
  data: () => EventData<'vehicle.refuel.detected'>,
): void => {
  const key = `${kind}:${obs.source.startsWith('v1') ? 'v1:' : ''}${recordId}`;
  if (!w.isNew('fuel', key, time)) return;
  w.remember('fuel', key, time);
  w.noteActivity(time);
  if (w.isHistory(time, obs.source)) return;
  const type = kind === 'refuel' ? 'vehicle.refuel.detected' : 'vehicle.fuel_theft.detected';
  w.emit(type, key, 'detected', time, { ...source, recordId }, data());
};

const pickNumber = (r: Readonly<Record<string, unknown>> | undefined, keys: readonly string[]) => {
  for (const k of keys) {
    const v = r?.[k];
    if (isFiniteNumber(v)) return v;
  }
  return undefined;
};

/** The record's GeoJSON position (`_embedded.position`, or `position`), parsed as the client does. */
const recordPosition = (r: Readonly<Record<string, unknown>> | undefined) => {
  const embedded = r?._embedded;
  const raw =
    embedded !== null && typeof embedded === 'object' && 'position' in embedded
      ? (embedded as { position: unknown }).position
      : r?.position;
  // wPosition refuses undefined too: a record without a position gives undefined.
  const parsed = wPosition.safeParse(raw);
  return parsed.success ? toPosition(parsed.data) : undefined;
};

const pickString = (r: Readonly<Record<string, unknown>> | undefined, keys: readonly string[]) => {
  for (const k of keys) {
    const v = r?.[k];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
};

/**
 * One vehicle event (last trip, alert, collision, refuel or fuel stolen): it reveals the record it
 * embeds. The kind is read from the embedded record when there is one, else from `type`
 * (upper-case in the samples; only COLLISION is documented, so the comparison is case-insensitive
 * and unknown kinds are ignored).
 */
export const applyVehicleEvent = (
  w: Work,
  ev: VehicleEvent,
  obs: Observation,
  source: EventSource,
  apply: { alert: (alert: Alert) => void },
): void => {
  w.noteActivity(ev.createdAt);
  if (ev.alert !== undefined) {
    apply.alert(ev.alert);
    return;
  }
  if (ev.collision !== undefined) {
    applyCollision(w, ev.collision, obs, source);
    return;
  }
  if (ev.trip !== undefined) {
    applyTrip(w, ev.trip, obs, source);
    return;
  }
  const kind = ev.type.toUpperCase().replace(/[^A-Z]/g, '');
  if (kind === 'ALERT' || kind === 'COLLISION' || kind === 'TRIP') {
    // No embedded record: ask the scheduler to read the list, unless this event was read before.
    const newest = w.newestEventSeen;
    if (newest !== undefined && ev.createdAt !== undefined && ev.createdAt <= newest) return;
    if (kind === 'ALERT') w.revealed.alerts = true;
    else if (kind === 'COLLISION') w.revealed.collisions = true;
    else w.revealed.trips = true;
  } else if (kind === 'REFUEL' || kind === 'FUELSTOLEN' || kind === 'FUELTHEFT') {
    const recordId = ev.eventId !== '' ? ev.eventId : ev.id;
    const r = ev.record;
    const refuel = kind === 'REFUEL';
    // The refuel / fuel-stolen record gives the volume as `liters` (a magnitude): its sign is the kind's.
    const liters = pickNumber(r, ['liters', 'volume']);
    applyFuel(w, refuel ? 'refuel' : 'theft', recordId, ev.createdAt, obs, source, () => ({
      recordId,
      tripId: pickString(r, ['tripId', 'trip']),
      at: ev.createdAt,
      cost: pickNumber(r, ['cost', 'price']),
      fuelLevel: pickNumber(r, ['fuelLevel', 'level']),
      fuelChangeL: liters === undefined ? undefined : refuel ? Math.abs(liters) : -Math.abs(liters),
      position: recordPosition(r),
    }));
  }
};
