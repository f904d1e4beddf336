import type { Alert, IsoDate, Position, V1Alert } from '../api/model';
import type { EventData } from '../events/catalogue';
import type { Observation } from './observations';
import { toPosition } from './project';
import type { AlertEntry } from './state';
import { type EventSource, maxIso, type Work } from './work';

/** An alert record of either API, normalized for detection. */
export interface AlertRecord {
  readonly api: 'v2' | 'v1';
  readonly id: string;
  readonly active: boolean;
  readonly message: string;
  readonly severity?: string;
  readonly category?: string;
  readonly advice?: string;
  readonly position?: Position;
  readonly startedAt?: IsoDate;
  readonly endedAt?: IsoDate;
  readonly updatedAt?: IsoDate;
}

export const fromV2Alert = (a: Alert): AlertRecord => ({
  api: 'v2',
  id: a.id,
  active: a.active,
  message: a.message,
  severity: a.severity,
  category: a.category,
  advice: a.advice,
  position: a.position,
  startedAt: a.startedAt ?? a.createdAt,
  endedAt: a.endedAt,
  updatedAt: a.updatedAt,
});

// v1 alerts: alertState 1 = active, 0 = ended; dates normalized to ISO by the client.
export const fromV1Alert = (a: V1Alert): AlertRecord => ({
  api: 'v1',
  id: a.idAlert,
  active: a.alertState === 1 && a.dateAlertEnd === undefined,
  message: a.alert,
  category: a.category,
  advice: a.advise,
  startedAt: a.dateAlertBegin,
  endedAt: a.dateAlertEnd,
  updatedAt: a.dateUpdate,
});

// Codes look like `alertOilPressure` (reference/alert-messages.json); anything else is text.
const CODE = /^[a-z][A-Za-z0-9_]*$/;

const occurrenceOf = (startedAt: IsoDate | undefined, reopened: number): string =>
  `${startedAt ?? '-'}${reopened > 0 ? `#${reopened}` : ''}`;

/** The occurrence key of a stored alert: derived, not stored (the state stays small). */
export const entryOccurrence = (e: AlertEntry): string => occurrenceOf(e.startedAt, e.reopened ?? 0);

const alertData = (
  id: string,
  r: AlertRecord | AlertEntry,
  occurrence: string,
  advice?: string,
  position?: Position,
) => ({
  alertId: id,
  occurrence,
  message: r.message,
  messageCode: CODE.test(r.message) ? r.message : undefined,
  localizedText: CODE.test(r.message) ? undefined : r.message,
  advice,
  category: r.category,
  severity: r.severity === '' ? undefined : r.severity,
  position: toPosition(position),
  startedAt: r.startedAt,
});

/**
 * When an alert ended: the end the API gave (`endedAt` / v1 `dateAlertEnd`, else the inactive
 * record's `updatedAt`), or, when it gave none (absent from a complete list, or replaced by a new
 * start), the time Carhook learned it: an upper bound, told as `observed`.
 */
export interface AlertEnd {
  readonly at: IsoDate;
  readonly source: 'api' | 'observed';
}

export const endOf = (record: AlertRecord | undefined, observedAt: IsoDate): AlertEnd => {
  const api = record?.endedAt ?? record?.updatedAt;
  return api !== undefined ? { at: api, source: 'api' } : { at: observedAt, source: 'observed' };
};

export const fixedData = (
  id: string,
  entry: AlertEntry,
  reason: 'inactive' | 'absent',
  end: AlertEnd,
  record?: AlertRecord,
): EventData<'vehicle.alert.fixed'> => {
  // Stryker disable next-line ConditionalExpression: Date.parse(undefined) is NaN too
  const start = entry.startedAt === undefined ? Number.NaN : Date.parse(entry.startedAt);
  const duration = (Date.parse(end.at) - start) / 1000;
  return {
    ...alertData(id, record ?? entry, entryOccurrence(entry), record?.advice, record?.position),
    startedAt: entry.startedAt,
    endedAt: end.at,
    endedAtSource: end.source,
    reason,
    durationS: Number.isFinite(duration) && duration >= 0 ? duration : undefined,
  };
};

const entryOf = (r: AlertRecord, reopened: number, seenAt: IsoDate): AlertEntry => {
  const e: AlertEntry = { active: r.active, message: r.message, seenAt };
  if (r.severity !== undefined) e.severity = r.severity;
  if (r.category !== undefined) e.category = r.category;
  // Stryker disable next-line ConditionalExpression: a start key holding undefined is absent once serialized, and merge re-sets the start
  if (r.startedAt !== undefined) e.startedAt = r.startedAt;
  if (r.endedAt !== undefined) e.endedAt = r.endedAt;
  if (r.updatedAt !== undefined) e.updatedAt = r.updatedAt;
  if (reopened > 0) e.reopened = reopened;
  return e;
};

/**
 * The stored entry updated by a record of the same occurrence (its start, hence its key, is kept).
 * A record of the alert answers any unconfirmed absence: the doubt is dropped.
 */
const merge = (entry: AlertEntry, r: AlertRecord, seenAt: IsoDate): AlertEntry => {
  const { missingSince: _answered, ...kept } = entry;
  // Stryker disable next-line LogicalOperator: entryOf sets reopened only above 0, and the spread keeps the stored count either way
  const next: AlertEntry = { ...kept, ...entryOf(r, entry.reopened ?? 0, seenAt) };
  // Stryker disable next-line ConditionalExpression: without the delete the key holds undefined, which the state schema, JSON and every reader treat as absent
  if (entry.startedAt === undefined) delete next.startedAt;
  else next.startedAt = entry.startedAt;
  return next;
};

/**
 * Applies one alert record. `authoritative`: it comes from an alert list or a read of the record
 * itself (a current read); records embedded in vehicle events are snapshots from when the event
 * happened and only count when strictly newer than what is stored (README "Alerts"). `staleList`:
 * the list it came in contradicts newer known state (./absence.ts), so its listing an alert proves
 * nothing about now and leaves an unconfirmed absence unconfirmed.
 */
export const applyAlert = (
  w: Work,
  r: AlertRecord,
  obs: Observation,
  source: EventSource,
  authoritative: boolean,
  staleList = false,
): void => {
  if (r.id === '') return;
  const key = `${r.api}:${r.id}`;
  const otherKey = `${r.api === 'v1' ? 'v2' : 'v1'}:${r.id}`;
  // The same alert id through the other API (a VIN enrolled through OAuth and a fleet contract
  // shares one state): one alert, followed from now on by the API that reads it.
  if (w.s.alerts[key] === undefined && w.s.alerts[otherKey] !== undefined) w.moveAlert(otherKey, key);
  const entry = w.s.alerts[key];
  const history = w.isHistory(r.startedAt, obs.source);
  // Stryker disable next-line ConditionalExpression: a copy with the same recordId is the same source
  const src = source.recordId === r.id ? source : { ...source, recordId: r.id };

  if (entry === undefined) {
    const floor = w.s.alertFloor;
    // Stryker disable next-line ConditionalExpression: a start compared with undefined is false, so the start checks only document
    if (floor !== undefined && r.startedAt !== undefined && floor.startedAt !== undefined) {
      // A forgotten fixed alert seen again: ended ones stay forgotten; an active one only counts
      // when read after the forgotten entry last changed.
      if (r.startedAt <= floor.startedAt && (!r.active || obs.fetchedAt < floor.seenAt)) return;
    }
    newOccurrence(w, key, r, 0, history, obs, src, undefined);
    return;
  }

  const fresh = authoritative
    ? r.updatedAt !== undefined && entry.updatedAt !== undefined && r.updatedAt !== entry.updatedAt
      ? // Stryker disable next-line EqualityOperator: the record times differ here (checked above), so > and >= agree
        r.updatedAt > entry.updatedAt
      : obs.fetchedAt >= entry.seenAt
    : r.updatedAt !== undefined && (entry.updatedAt === undefined || r.updatedAt > entry.updatedAt);
  // A later start is a later occurrence of the same alert id, whatever the snapshot's age.
  const laterStart =
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a start compared with undefined is false, so the undefined checks only document
    r.startedAt !== undefined && entry.startedAt !== undefined && r.startedAt > entry.startedAt;
  if (!fresh && !laterStart) return;

  if (r.startedAt !== undefined && entry.startedAt !== undefined && r.startedAt !== entry.startedAt) {
    // Stryker disable next-line EqualityOperator: the starts differ here (checked above), so < and <= agree
    if (r.startedAt < entry.startedAt) return; // an earlier occurrence: stale
    if (entry.active) {
      // The same alert id started again: the stored occurrence ended in between.
      w.emit('vehicle.alert.fixed', `${r.id}@${entryOccurrence(entry)}`, 'fixed', r.startedAt, src, {
        ...fixedData(r.id, entry, 'inactive', { at: r.startedAt, source: 'observed' }),
      });
    }
    newOccurrence(w, key, r, 0, history, obs, src, entry.updatedAt);
    return;
  }

  if (entry.active && !r.active) {
    const end = endOf(r, obs.fetchedAt);
    w.emit(
      'vehicle.alert.fixed',
      `${r.id}@${entryOccurrence(entry)}`,
      'fixed',
      end.at,
      src,
      fixedData(r.id, entry, 'inactive', end, r),
    );
    w.setAlert(key, merge(entry, r, obs.fetchedAt));
    return;
  }
  if (!entry.active && r.active) {
    // Back active with the same start: a new occurrence of the same alert only on evidence, a
    // record updated after the one stored. An answer repeating the record as it was before the
    // alert ended (a cached or stale copy) has the same `updatedAt`, and changes nothing.
    // Stryker disable next-line ConditionalExpression: a record time compared with undefined is false, so the undefined checks only document
    const copy = r.updatedAt !== undefined && entry.updatedAt !== undefined && r.updatedAt <= entry.updatedAt;
    if (copy && w.config.confirmAbsences) return;
    newOccurrence(w, key, r, (entry.reopened ?? 0) + 1, false, obs, src, entry.updatedAt);
    return;
  }
  // A current read listing the alert active answers an unconfirmed absence: it was not fixed.
  const present = entry.missingSince !== undefined && r.active && authoritative && !staleList;
  if (
    present ||
    entry.message !== r.message ||
    (r.severity !== undefined && entry.severity !== r.severity) ||
    (r.category !== undefined && entry.category !== r.category) ||
    entry.updatedAt !== maxIso(entry.updatedAt, r.updatedAt) ||
    entry.endedAt !== (r.endedAt ?? entry.endedAt)
  ) {
    w.setAlert(key, merge(entry, r, obs.fetchedAt));
  }
};

const newOccurrence = (
  w: Work,
  key: string,
  r: AlertRecord,
  reopened: number,
  history: boolean,
  obs: Observation,
  src: EventSource,
  previousUpdatedAt: IsoDate | undefined,
): void => {
  const occurrence = occurrenceOf(r.startedAt, reopened);
  const entry = entryOf(r, reopened, obs.fetchedAt);
  // The newest record time seen for this id only grows: an older snapshot stays stale forever.
  const updatedAt = maxIso(previousUpdatedAt, r.updatedAt);
  if (updatedAt !== undefined) entry.updatedAt = updatedAt;
  w.setAlert(key, entry);
  if (r.active) w.noteActivity(r.startedAt);
  const raise = r.active ? !history || w.emitsInitialConditions : !history;
  if (raise) {
    w.emit(
      'vehicle.alert.raised',
      `${r.id}@${occurrence}`,
      'raised',
      r.startedAt ?? r.updatedAt ?? obs.fetchedAt,
      src,
      {
        ...alertData(r.id, r, occurrence, r.advice, r.position),
        initial: history,
      },
    );
    if (!r.active) {
      // Raised and fixed between two polls: both happened, both are told.
      const end = endOf(r, obs.fetchedAt);
      w.emit(
        'vehicle.alert.fixed',
        `${r.id}@${occurrence}`,
        'fixed',
        end.at,
        src,
        fixedData(r.id, entry, 'inactive', end, r),
      );
    }
  }
};
