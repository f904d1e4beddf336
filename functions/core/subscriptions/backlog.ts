import type { EventEnvelope } from '../events/envelope';
import type { EventLog } from '../store/ports';
import type { SubscriptionRecord } from './records';
import { isBusOnly, matches, typeMatches } from './schemas';

/**
 * What a subscription missed while it was disabled, read back from the event log.
 *
 * Disabling writes nothing per event: the fan-out skips a disabled subscription, and the event log
 * keeps every event for its retention (`CARHOOK_EVENT_LOG_RETENTION_DAYS`, 30 days by default). So
 * what a disabled subscription would have received is the log's events detected since `disabledAt`
 * that its filters match, in detection order; `enable` delivers them with their own ids (their
 * fan-out delivery ids, so an event that was delivered after all is not delivered twice), unless the
 * operator discards them. Events older than the log's retention are gone: the window says so.
 */

export interface BacklogWindow {
  /** When the subscription was disabled: the start of what it missed. */
  readonly disabledAt: string;
  /** The end of the window (exclusive): just after now, so an event detected now is in it. */
  readonly until: string;
  /** The event log keeps events detected from this instant on (now − retention). */
  readonly keptSince: string;
  /** The log's retention, in days. */
  readonly retentionDays: number;
  /** True when the subscription was disabled before `keptSince`: events before it are lost. */
  readonly truncated: boolean;
  /** Where the search starts: the later of `disabledAt` and `keptSince`. */
  readonly from: string;
}

const DAY_MS = 86_400_000;

/** The window of a disabled subscription's backlog at `now`; undefined when it is not disabled. */
export function backlogWindow(
  subscription: Pick<SubscriptionRecord, 'status' | 'disabledAt' | 'updatedAt'>,
  now: number,
  retentionMs: number,
): BacklogWindow | undefined {
  if (subscription.status !== 'disabled') return undefined;
  // A record disabled by an older Carhook may lack `disabledAt`: its last change is when it was.
  const disabledAt = subscription.disabledAt ?? subscription.updatedAt;
  const disabledMs = Date.parse(disabledAt);
  const keptMs = now - retentionMs;
  const fromMs = Number.isNaN(disabledMs) ? keptMs : Math.max(disabledMs, keptMs);
  return {
    disabledAt,
    until: new Date(now + 1).toISOString(),
    keptSince: new Date(keptMs).toISOString(),
    retentionDays: Math.round((retentionMs / DAY_MS) * 100) / 100,
    truncated: Number.isNaN(disabledMs) || disabledMs < keptMs,
    from: new Date(Math.min(fromMs, now)).toISOString(),
  };
}

/**
 * By detection time, then by each vehicle's `sequence`: the log orders events detected in the same
 * instant (one poll's) by id, which says nothing about the order they happened in.
 */
function inDetectionOrder(events: readonly EventEnvelope[]): EventEnvelope[] {
  return [...events].sort(
    (a, b) => Date.parse(a.detectedAt) - Date.parse(b.detectedAt) || a.sequence - b.sequence,
  );
}

export interface Selection {
  /** The matching events, in detection order, at most `max`. */
  readonly events: readonly EventEnvelope[];
  /** More matching events follow the last one selected (the selection stopped at `max`). */
  readonly more: boolean;
  /** When `more`: when the first matching event not selected was detected. */
  readonly nextAt?: string;
  /** How many events of the range were read (matching or not). */
  readonly scanned: number;
}

export interface SelectQuery {
  readonly subscription: SubscriptionRecord;
  readonly since: string;
  readonly until: string;
  readonly now: number;
  /** At most this many events are selected (`more` tells when there were others). */
  readonly max: number;
  readonly types?: readonly string[] | undefined;
  readonly ids?: ReadonlySet<string> | undefined;
}

/**
 * The log's events of `[since, until)` that the subscription's filters match (as if it were active),
 * optionally narrowed to some types or ids, in detection order.
 */
export async function selectEvents(
  log: Pick<EventLog, 'listByTime'>,
  query: SelectQuery,
): Promise<Selection> {
  const active = { ...query.subscription, status: 'active' as const };
  const selected: EventEnvelope[] = [];
  let scanned = 0;
  let cursor: string | undefined;
  do {
    const page = await log.listByTime({
      since: query.since,
      until: query.until,
      now: query.now,
      limit: 1000,
      ...(cursor ? { cursor } : {}),
    });
    for (const stored of page.items) {
      scanned += 1;
      const e = stored.envelope;
      if (!matches(active, e)) continue;
      if (query.types && !query.types.some((t) => typeMatches(t, e.type))) continue;
      if (query.ids && !query.ids.has(e.id)) continue;
      if (selected.length >= query.max)
        return { events: selected, more: true, nextAt: e.detectedAt, scanned };
      selected.push(e);
    }
    cursor = page.cursor;
  } while (cursor);
  return { events: inDetectionOrder(selected), more: false, scanned };
}

/** Why a subscription's filters leave an event out, or undefined when they let it through. */
export function exclusionOf(
  subscription: Pick<SubscriptionRecord, 'eventTypes' | 'vehicleIds' | 'enrollmentIds'>,
  e: Pick<EventEnvelope, 'type' | 'vehicle' | 'enrollment'>,
): string | undefined {
  if (isBusOnly(e.type)) return `${e.type} is an operational event: it is never replayed to a subscription`;
  const active = { ...subscription, status: 'active' as const };
  if (matches(active, e)) return undefined;
  if (subscription.eventTypes && !subscription.eventTypes.some((t) => typeMatches(t, e.type)))
    return `the subscription's eventTypes (${subscription.eventTypes.join(', ')}) exclude ${e.type}`;
  if (subscription.vehicleIds)
    return `the subscription's vehicleIds exclude vehicle ${e.vehicle?.id ?? '(none)'}`;
  return `the subscription's enrollmentIds exclude enrollment ${e.enrollment?.id ?? '(none)'}`;
}

export interface Skipped {
  readonly eventId: string;
  readonly reason: string;
}

/**
 * Chosen events by id (no time range needed: the log is read by id), in detection order, and for
 * each id that is not selected, why: not in the log (unknown, or past its retention), left out by
 * the subscription's filters or by `types`, or outside `[since, until)` when those are given.
 */
export async function selectByIds(
  log: Pick<EventLog, 'get'>,
  query: {
    readonly subscription: SubscriptionRecord;
    readonly ids: readonly string[];
    readonly now: number;
    readonly types?: readonly string[] | undefined;
    readonly since?: string | undefined;
    readonly until?: string | undefined;
  },
): Promise<{ readonly events: readonly EventEnvelope[]; readonly skipped: readonly Skipped[] }> {
  const events: EventEnvelope[] = [];
  const skipped: Skipped[] = [];
  for (const id of [...new Set(query.ids)]) {
    const stored = await log.get(id, query.now);
    if (!stored) {
      skipped.push({ eventId: id, reason: 'not in the event log: unknown, or older than its retention' });
      continue;
    }
    const e = stored.envelope;
    const excluded = exclusionOf(query.subscription, e);
    if (excluded) {
      skipped.push({ eventId: id, reason: excluded });
      continue;
    }
    if (query.types && !query.types.some((t) => typeMatches(t, e.type))) {
      skipped.push({ eventId: id, reason: `eventTypes (${query.types.join(', ')}) exclude ${e.type}` });
      continue;
    }
    const at = Date.parse(e.detectedAt);
    if (
      (query.since !== undefined && at < Date.parse(query.since)) ||
      (query.until !== undefined && at >= Date.parse(query.until))
    ) {
      skipped.push({ eventId: id, reason: `detected at ${e.detectedAt}, outside since/until` });
      continue;
    }
    events.push(e);
  }
  return { events: inDetectionOrder(events), skipped };
}
