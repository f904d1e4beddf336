/**
 * A vehicle that falls silent: its reads succeed but its records stop advancing (no new trip,
 * event, alert start or other record time) for longer than its silence threshold. Told once as
 * `vehicle.reporting.stopped`, and once as `vehicle.reporting.resumed` when a newer record comes.
 *
 * The threshold is `silenceAfterMs` (default 48 h) until the vehicle has a history of its own: after
 * `LEARNED_AFTER_GAPS` gaps between its records, it is three times the longest gap seen, bounded to
 * [silenceAfterMs / 4, silenceAfterMs × 7] (with the default: 12 h to 14 days). A car driven every
 * day is then told within a day and a half, one driven weekly is not told every weekend. The gap a
 * told silence spans is not counted: a long outage would otherwise raise the threshold for good.
 *
 * Writes: the gap statistics move only when a newer record is noted (a write the poll makes
 * anyway), and the told silence is written with its event, so a steady poll writes nothing.
 */
import type { Observation } from './observations';
import type { Reporting } from './reporting-record';
import type { VehicleState } from './state';
import type { Work } from './work';

export { countGap, type Reporting, reportingSchema } from './reporting-record';

/** Gaps a vehicle's own history needs before its threshold is learned from it. */
export const LEARNED_AFTER_GAPS = 5;

/** Reads whose success says the vehicle's records were looked at: the feeds where activity shows. */
const ACTIVITY_SOURCES: ReadonlySet<string> = new Set(['v2.events', 'v2.trips', 'v1.trips']);

export function silenceThreshold(
  reporting: Reporting | undefined,
  silenceAfterMs: number,
): { readonly ms: number; readonly basis: 'default' | 'learned' } {
  if (!reporting || reporting.gaps < LEARNED_AFTER_GAPS) return { ms: silenceAfterMs, basis: 'default' };
  const learned = Math.min(silenceAfterMs * 7, Math.max(silenceAfterMs / 4, 3 * reporting.longestGapMs));
  return { ms: Math.round(learned), basis: 'learned' };
}

const seconds = (ms: number): number => Math.max(0, Math.round(ms / 1000));

/**
 * Tells a silence that began, or one that ended, at the end of a poll. `before`: the state the poll
 * started from (its newest record time then).
 */
export function checkReporting(
  w: Work,
  before: VehicleState | undefined,
  observations: readonly Observation[],
): void {
  const s = w.s;
  const told = s.reporting?.silentSince;
  const last = s.lastActivityAt;
  if (told !== undefined) {
    if (last === undefined || last <= told) return;
    w.s = {
      ...w.s,
      reporting: { gaps: s.reporting?.gaps ?? 0, longestGapMs: s.reporting?.longestGapMs ?? 0 },
    };
    w.emit(
      'vehicle.reporting.resumed',
      'reporting',
      `resumed:${told}`,
      last,
      { api: 'carhook', operation: 'vehicle.reporting' },
      {
        silentSince: told,
        resumedAt: last,
        silentForS: seconds(Date.parse(last) - Date.parse(told)),
      },
    );
    return;
  }
  // The first poll reads history: whether the vehicle is silent is told from the next one on.
  if (w.firstPoll || before === undefined) return;
  const looked = observations.some((o) => o.complete && ACTIVITY_SOURCES.has(o.source));
  if (!looked) return;
  const since = last ?? s.createdAt;
  const threshold = silenceThreshold(s.reporting, w.config.silenceAfterMs);
  const silentAt = Date.parse(since) + threshold.ms;
  if (!(w.nowMs >= silentAt)) return;
  w.s = {
    ...w.s,
    reporting: {
      gaps: s.reporting?.gaps ?? 0,
      longestGapMs: s.reporting?.longestGapMs ?? 0,
      silentSince: since,
    },
  };
  w.emit(
    'vehicle.reporting.stopped',
    'reporting',
    `stopped:${since}`,
    new Date(silentAt).toISOString(),
    { api: 'carhook', operation: 'vehicle.reporting' },
    {
      silentSince: since,
      ...(last !== undefined ? { lastRecordAt: last } : {}),
      thresholdS: seconds(threshold.ms),
      basis: threshold.basis,
      readAt: w.nowIso,
    },
  );
}
