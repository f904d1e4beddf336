/**
 * The detection lag measured per kind of change: for each kind, the p95 of `detectedAt −
 * occurredAt` over its events detected in the last hour, read back from the event log. What a first
 * poll found already there (`data.initial`) is history, not a lag, and is left out, as the
 * `DetectionLagMs` metric leaves it out. A kind with fewer than `MEASURED_MIN_EVENTS` events has
 * no measured p95: a handful of events says little about a 95th percentile.
 *
 * Measured only where `occurredAt` is when the change happened, and for the vehicles the model
 * sizes: not services (its `occurredAt` is the read that saw the change) nor map updates (the
 * release date, days before any read), and not fleet-contract vehicles (read in v1 batches, which
 * the model leaves out).
 */
import type { EventEnvelope } from '../events/envelope';
import type { EventLog } from '../store/ports';
import type { FreshnessKind } from './kinds';
import { KIND_EVENT_TYPES } from './model';

/** The window the measured p95 is taken over. */
export const MEASURED_WINDOW_MS = 3_600_000;
/** Fewer events of a kind in the window than this: no measured p95. */
export const MEASURED_MIN_EVENTS = 20;
/** Event log pages read at most per check (1,000 events each), newest slice of the hour first. */
const MAX_PAGES = 20;
/** The hour is read in slices of this long, newest first, so a cut leaves out the oldest events. */
const SLICE_MS = 10 * 60_000;

/** The kinds whose `occurredAt` is when the change happened. */
export const MEASURED_KINDS: readonly FreshnessKind[] = [
  'alerts',
  'trips',
  'collisions',
  'fuel',
  'maintenance',
];

export interface MeasuredLag {
  /** Events of the kind in the window (history left out). */
  readonly events: number;
  /** Their p95 lag (ms), when there were at least `MEASURED_MIN_EVENTS`. */
  readonly p95Ms?: number;
}

const kindOfType = new Map<string, FreshnessKind>(
  Object.entries(KIND_EVENT_TYPES).flatMap(([kind, types]) => types.map((t) => [t, kind as FreshnessKind])),
);

/** The nearest-rank 95th percentile of `values` (not empty). */
function p95(values: number[]): number {
  values.sort((a, b) => a - b);
  return values[Math.ceil(0.95 * values.length) - 1] as number;
}

/** The measured lag of each kind among `kinds`, from the events given. */
export function measuredLags(
  events: readonly Pick<EventEnvelope, 'type' | 'occurredAt' | 'detectedAt' | 'data' | 'enrollment'>[],
  kinds: readonly FreshnessKind[],
): Partial<Record<FreshnessKind, MeasuredLag>> {
  const lags = new Map<FreshnessKind, number[]>(
    kinds.filter((k) => MEASURED_KINDS.includes(k)).map((k) => [k, []]),
  );
  for (const e of events) {
    const kind = kindOfType.get(e.type);
    const list = kind && lags.get(kind);
    if (!list || (e.data as { initial?: unknown }).initial === true) continue;
    if (e.enrollment?.kind === 'fleet-contract') continue;
    const lag = Date.parse(e.detectedAt) - Date.parse(e.occurredAt);
    if (Number.isFinite(lag) && lag >= 0) list.push(lag);
  }
  const out: Partial<Record<FreshnessKind, MeasuredLag>> = {};
  for (const [kind, list] of lags) {
    out[kind] =
      list.length >= MEASURED_MIN_EVENTS
        ? { events: list.length, p95Ms: p95(list) }
        : { events: list.length };
  }
  return out;
}

/** The measured lag of each kind among `kinds` over the hour before `now`, from the event log. */
export async function readMeasuredLags(
  log: Pick<EventLog, 'listByTime'>,
  kinds: readonly FreshnessKind[],
  now: number,
): Promise<Partial<Record<FreshnessKind, MeasuredLag>>> {
  const measured = kinds.filter((k) => MEASURED_KINDS.includes(k));
  // No type asked for would list every type: nothing to read.
  if (measured.length === 0) return {};
  const start = now - MEASURED_WINDOW_MS;
  // Stryker disable next-line ArrayDeclaration: an item that is no event has no type and is skipped
  const events: EventEnvelope[] = [];
  let pages = 0;
  const last = Math.ceil(MEASURED_WINDOW_MS / SLICE_MS) - 1;
  for (let slice = last; slice >= 0 && pages < MAX_PAGES; slice--) {
    const since = start + slice * SLICE_MS;
    // The newest slice ends just after `now` (`until` is exclusive): an event detected at `now` counts.
    const until = slice === last ? now + 1 : since + SLICE_MS;
    let cursor: string | undefined;
    do {
      const page = await log.listByTime({
        since: new Date(since).toISOString(),
        until: new Date(until).toISOString(),
        types: measured.flatMap((k) => KIND_EVENT_TYPES[k]),
        now,
        limit: 1000,
        ...(cursor ? { cursor } : {}),
      });
      for (const stored of page.items) events.push(stored.envelope);
      cursor = page.cursor;
      pages += 1;
    } while (cursor && pages < MAX_PAGES);
  }
  return measuredLags(events, kinds);
}
