/**
 * Absences and stale answers of the alert lists (README "Alerts", "Stale and flapping answers").
 *
 * An API may answer with an older cached copy of a list, or a list that misses one item once. An
 * absence is therefore only a doubt until it is confirmed: the alert stays active with
 * `missingSince`, and is fixed when its own record says it ended (./alerts.ts, the inactive record)
 * or when a later complete list (at least `absenceConfirmMs` after the first) misses it too. A
 * list that contradicts what is already known is stale: it fixes nothing and raises no doubt.
 */
import type { IsoDate } from '../api/model';
import { type AlertRecord, entryOccurrence, fixedData } from './alerts';
import { type Observation, SOURCE_API } from './observations';
import type { EventSource, Work } from './work';

const ms = (at: IsoDate): number => Date.parse(at);

/**
 * Why a list contradicts newer known state, or undefined when it does not:
 * - it holds a record older (`updatedAt`) than the one already applied for that alert;
 * - it lists active, as of the very record time stored, an alert that has ended since: a copy of
 *   the record from before the end;
 * - a complete unwindowed v2 list whose newest record is older than the newest such a list held
 *   before (that list keeps fixed alerts, so its newest record time only moves forward), unless a
 *   later list shows the lower newest again: then the record really left the list.
 * Only used when absences are confirmed (`confirmAbsences`).
 */
export const staleAlertList = (
  w: Work,
  obs: Observation,
  records: readonly AlertRecord[],
): string | undefined => {
  if (!w.config.confirmAbsences) return undefined;
  // One record per alert, its newest (records are sorted oldest first): a list repeating an alert
  // speaks for it with its newest copy.
  const newestOf = new Map<string, AlertRecord>();
  for (const r of records) newestOf.set(`${r.api}:${r.id}`, r);
  for (const [key, r] of newestOf) {
    const entry = w.s.alerts[key];
    if (entry?.updatedAt === undefined || r.updatedAt === undefined) continue;
    if (r.updatedAt < entry.updatedAt) {
      return `alert ${r.id} as of ${r.updatedAt}, older than the record of ${entry.updatedAt} already applied`;
    }
    // Stryker disable next-line ConditionalExpression: a start compared with undefined is false, so the undefined checks only document
    const sameStart = r.startedAt === entry.startedAt;
    if (r.active && !entry.active && sameStart && r.updatedAt === entry.updatedAt) {
      return `alert ${r.id} listed active as of ${r.updatedAt}, the record it had before it ended`;
    }
  }
  if (obs.source !== 'v2.alerts' || !obs.complete || obs.window !== undefined) return undefined;
  return newestMoved(w, obs, records);
};

/** Moves the v2 list's newest-record mark; a reason when this list's newest is older (see above). */
const newestMoved = (w: Work, obs: Observation, records: readonly AlertRecord[]): string | undefined => {
  let newest: IsoDate | undefined;
  for (const r of records)
    if (r.updatedAt !== undefined && (newest === undefined || r.updatedAt > newest)) newest = r.updatedAt;
  const mark = w.s.cursors.alertsNewest;
  if (mark === undefined || (newest !== undefined && newest >= mark.at)) {
    if (newest !== undefined && (mark === undefined || newest !== mark.at || mark.lowerSince !== undefined)) {
      w.noteAlertsNewest({ at: newest });
    }
    return undefined;
  }
  const since = mark.lowerSince;
  if (since === undefined || ms(obs.fetchedAt) - ms(since) < w.config.absenceConfirmMs) {
    if (since === undefined) w.noteAlertsNewest({ ...mark, lowerSince: obs.fetchedAt });
    return `newest record ${newest ?? '(none)'} is older than ${mark.at}, the newest this list held before`;
  }
  // A second list, a cycle later, without the newer record: it left the list; the mark follows.
  w.noteAlertsNewest(newest === undefined ? undefined : { at: newest });
  return undefined;
};

/**
 * After a COMPLETE alert list: an active alert of that API missing from it is in doubt, unless it
 * changed after the list was read, or the list was windowed and the alert's start is outside the
 * window (absence from a `since` list proves nothing about older alerts). A doubt a later list
 * confirms is a fix (`reason: 'absent'`), ended when the first list missed it.
 */
export const absentAlerts = (
  w: Work,
  obs: Observation,
  present: ReadonlySet<string>,
  source: EventSource,
): void => {
  if (!obs.complete) return;
  const api = SOURCE_API[obs.source];
  const since = obs.window?.since;
  const until = obs.window?.until ?? obs.fetchedAt;
  for (const [key, entry] of Object.entries(w.s.alerts)) {
    if (!entry.active || !key.startsWith(`${api}:`) || present.has(key)) continue;
    const id = key.slice(api.length + 1);
    if (entry.seenAt >= obs.fetchedAt) continue;
    if (since !== undefined || obs.window?.until !== undefined) {
      if (entry.startedAt === undefined) continue;
      // Stryker disable next-line ConditionalExpression: with since undefined, `entry.startedAt < since` is false: the check only documents
      if (since !== undefined && entry.startedAt < since) continue;
      if (entry.startedAt > until) continue;
    }
    let endedAt = obs.fetchedAt;
    if (w.config.confirmAbsences) {
      if (entry.missingSince === undefined) {
        w.setAlert(key, { ...entry, missingSince: obs.fetchedAt });
        continue;
      }
      if (ms(obs.fetchedAt) - ms(entry.missingSince) < w.config.absenceConfirmMs) continue;
      // The end lies between the last list that had the alert and the first that did not.
      endedAt = entry.missingSince;
    }
    w.emit(
      'vehicle.alert.fixed',
      `${id}@${entryOccurrence(entry)}`,
      'fixed',
      endedAt,
      { ...source, recordId: id },
      fixedData(id, entry, 'absent', { at: endedAt, source: 'observed' }),
    );
    const { missingSince: _confirmed, ...ended } = entry;
    w.setAlert(key, { ...ended, active: false, seenAt: obs.fetchedAt });
  }
};
