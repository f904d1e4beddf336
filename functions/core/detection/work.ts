import type { IsoDate } from '../api/model';
import { buildEvent, type CarhookEvent, type EventData, type EventType } from '../events/catalogue';
import { eventId } from '../events/ids';
import { DEFAULT_CONFIG, type DiffConfig } from './config';
import type { DiffContext, EventSource, StaleAnswer } from './context';
import { isIsoDate, type ObservationSource, type RejectedInput } from './observations';
import { countGap } from './reporting-record';
import {
  type AlertEntry,
  type Cursors,
  initialState,
  type MaintenanceState,
  type PendingTrip,
  type SeenSet,
  type VehicleState,
} from './state';

export type { DiffContext, EnrollmentRef, EventSource, StaleAnswer } from './context';

type SetName = 'collisions' | 'trips' | 'fuel';

const dropUndefined = <T extends object>(o: T): T => {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined) continue;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: nested data comes from projections (toPosition, toScores) that copy only defined fields, and holds no null
    const object = v !== null && typeof v === 'object';
    out[k] = object && !Array.isArray(v) ? dropUndefined(v) : v;
  }
  return out as T;
};

/** An alert's `messageCode` from the referential when its message is text the API coded there. */
const withAlertCode = <D>(data: D, codes: ReadonlyMap<string, string> | undefined): D => {
  if (codes === undefined) return data;
  const d = data as { message?: unknown; messageCode?: unknown };
  if (typeof d.message !== 'string' || d.messageCode !== undefined) return data;
  const code = codes.get(d.message);
  // Stryker disable next-line ConditionalExpression: a messageCode of undefined is dropped with the other undefined fields
  return code === undefined ? data : { ...data, messageCode: code };
};

export const maxIso = (a: IsoDate | undefined, b: IsoDate | undefined): IsoDate | undefined => {
  // Stryker disable next-line ConditionalExpression: with a undefined, the comparison below is false and gives b all the same
  if (a === undefined) return b;
  if (b === undefined) return a;
  // Stryker disable next-line EqualityOperator: equal times are the same text, so either is the answer
  return a >= b ? a : b;
};

/**
 * The working copy of one diff: copy-on-write over the previous state (a quiet poll copies almost
 * nothing), a dirty flag for the part that must be written, and the events emitted so far.
 */
export class Work {
  readonly config: DiffConfig;
  readonly nowIso: IsoDate;
  readonly nowMs: number;
  /** No state was stored: this is the first poll of the vehicle. */
  readonly firstPoll: boolean;
  readonly events: CarhookEvent[] = [];
  readonly rejected: RejectedInput[] = [];
  /** Answers that contradicted newer known state: applied for what they prove, fixing nothing. */
  readonly stale: StaleAnswer[] = [];
  s: VehicleState;
  dirty = false;
  private readonly prevEventsSince: IsoDate | undefined;
  private cursorsCopied = false;
  private readonly copied = new Set<string>();
  /** Reveal flags for the poll hints. */
  // Stryker disable next-line ObjectLiteral: an absent flag reads as false, like the false it starts with
  revealed = { alerts: false, collisions: false, trips: false };

  constructor(
    prev: VehicleState | undefined,
    readonly ctx: DiffContext,
  ) {
    // Stryker disable next-line ConditionalExpression: spreading undefined adds nothing, so the merge gives DEFAULT_CONFIG's values too
    this.config = ctx.config === undefined ? DEFAULT_CONFIG : { ...DEFAULT_CONFIG, ...ctx.config };
    this.nowMs = ctx.now.getTime();
    this.nowIso = ctx.now.toISOString();
    // A state an enrollment event created (it holds only the sequence) has not been polled yet.
    this.firstPoll = prev === undefined || prev.unpolled === true;
    const started = ctx.readsStartedAt?.getTime();
    // History is what the first poll's reads could return: up to when they began.
    const historyEnd =
      started !== undefined && started < this.nowMs ? new Date(started).toISOString() : this.nowIso;
    const base = prev ?? {
      ...initialState(ctx.identity ?? ctx.vehicle.id, this.nowIso),
      createdAt: historyEnd,
    };
    this.s = { ...base };
    if (prev?.unpolled === true) {
      delete this.s.unpolled;
      this.s.createdAt = historyEnd;
    }
    this.prevEventsSince = base.cursors.eventsSince;
    if (this.firstPoll) this.dirty = true;
  }

  /** History = baseline, not events (README "First poll"). */
  isHistory(time: IsoDate | undefined, source: ObservationSource): boolean {
    if (this.config.initialPolicy === 'all') return false;
    if (this.firstPoll) return true;
    // Updated as observations are applied, so one poll split over several calls gives the same events.
    if (time === undefined) return !this.s.sources.includes(source);
    if (time <= (this.otherApiReadSince(source) ?? '')) return true;
    return time < this.s.createdAt;
  }

  /**
   * One VIN, two APIs (an OAuth user and a fleet contract share the state, store/identity.ts): the
   * same change has a v2 record and a v1 record with different keys. When this source was last
   * read before the other API was (or never), the other API has reported everything up to its last
   * read: records up to then are baseline here, so switching paths tells nothing twice. Undefined
   * when only one API feeds the state.
   */
  private otherApiReadSince(source: ObservationSource): IsoDate | undefined {
    const api = source.startsWith('v1.') ? 'v1.' : source.startsWith('v2.') ? 'v2.' : undefined;
    // Stryker disable next-line ConditionalExpression: only records of v1 and v2 sources carry times (services and map ask without one)
    if (api === undefined) return undefined;
    let other: IsoDate | undefined;
    for (const [s, at] of Object.entries(this.s.cursors.fetched)) {
      if ((s.startsWith('v1.') || s.startsWith('v2.')) && !s.startsWith(api)) other = maxIso(other, at);
    }
    // Stryker disable next-line ConditionalExpression: with no other read, the answer below is `other`, undefined too
    if (other === undefined) return undefined;
    const mine = this.s.cursors.fetched[source];
    return mine === undefined || mine < other ? other : undefined;
  }

  /** Whether history emits current conditions (`initial: true`) under the policy. */
  get emitsInitialConditions(): boolean {
    return this.config.initialPolicy !== 'none';
  }

  private own<K extends 'alerts' | 'pendingTrips'>(key: K): VehicleState[K] {
    // Stryker disable next-line ConditionalExpression: copying again copies the same content
    if (!this.copied.has(key)) {
      this.s[key] = { ...this.s[key] } as VehicleState[K];
      this.copied.add(key);
    }
    this.dirty = true;
    return this.s[key];
  }

  private ownSet(name: SetName): SeenSet {
    // Stryker disable next-line ConditionalExpression: copying again copies the same content
    if (!this.copied.has(name)) {
      this.s[name] = { ...this.s[name], ids: { ...this.s[name].ids } };
      this.copied.add(name);
    }
    this.dirty = true;
    return this.s[name];
  }

  markSource(source: ObservationSource): void {
    if (!this.s.sources.includes(source)) {
      this.s.sources = [...this.s.sources, source].sort();
      this.dirty = true;
    }
  }

  // ---- cursors (poll bookkeeping; written rarely, see stateChanged) ----

  private cursors(): Cursors {
    // Stryker disable next-line ConditionalExpression: copying again copies the same content
    if (!this.cursorsCopied) {
      this.s.cursors = { ...this.s.cursors, fetched: { ...this.s.cursors.fetched } };
      this.cursorsCopied = true;
    }
    return this.s.cursors;
  }

  noteFetched(source: ObservationSource, at: IsoDate): void {
    const prev = this.s.cursors.fetched[source];
    if (prev === undefined || at > prev) this.cursors().fetched[source] = at;
  }

  noteCursor(key: 'eventsSince' | 'alertsReconciledAt', at: IsoDate): void {
    const prev = this.s.cursors[key];
    if (prev === undefined || at > prev) this.cursors()[key] = at;
  }

  /** The newest record a complete v2 alert list held (./absence.ts); undefined forgets it. */
  noteAlertsNewest(mark: Cursors['alertsNewest']): void {
    const c = this.cursors();
    if (mark === undefined) delete c.alertsNewest;
    else c.alertsNewest = mark;
  }

  /** Creation time of the newest vehicle event read before this diff. */
  get newestEventSeen(): IsoDate | undefined {
    const since = this.prevEventsSince;
    return since === undefined
      ? undefined
      : new Date(Date.parse(since) + this.config.eventsOverlapMs).toISOString();
  }

  get cursorsChanged(): boolean {
    return this.cursorsCopied;
  }

  // ---- core fields ----

  /** `at`: a record time, canonical or absent (diff reads every record time first, ./times.ts). */
  noteActivity(at: IsoDate | undefined): void {
    if (at === undefined || at > this.nowIso) return;
    if (this.s.lastActivityAt === undefined || at > this.s.lastActivityAt) {
      if (this.s.lastActivityAt !== undefined) {
        const reporting = countGap(this.s.reporting, this.s.lastActivityAt, at);
        if (reporting !== undefined) this.s.reporting = reporting;
      }
      this.s.lastActivityAt = at;
      this.dirty = true;
    }
  }

  noteTrip(at: IsoDate): void {
    // Stryker disable next-line EqualityOperator: a trip is noted once, with its id remembered (the state is dirty then anyway)
    if (this.s.lastTripAt === undefined || at > this.s.lastTripAt) {
      this.s.lastTripAt = at;
      this.dirty = true;
    }
  }

  setAlert(key: string, entry: AlertEntry): void {
    this.own('alerts')[key] = entry;
  }

  /** The alert is now read through another API (same alert id): its entry moves to that key. */
  moveAlert(from: string, to: string): void {
    const alerts = this.own('alerts');
    const entry = alerts[from];
    // Stryker disable next-line ConditionalExpression: the only caller moves an entry it found
    if (entry === undefined) return;
    delete alerts[from];
    alerts[to] = entry;
  }

  setPending(tripId: string, pending: PendingTrip | undefined): void {
    const map = this.own('pendingTrips');
    if (pending === undefined) delete map[tripId];
    else map[tripId] = pending;
  }

  setMaintenance(m: MaintenanceState): void {
    this.s.maintenance = m;
    this.dirty = true;
  }

  setServices(v: NonNullable<VehicleState['services']>): void {
    this.s.services = v;
    // Stryker disable next-line BooleanLiteral: an event follows, or it is the source's first read, which marks the state dirty (markSource)
    this.dirty = true;
  }

  setMap(v: NonNullable<VehicleState['map']>): void {
    this.s.map = v;
    this.dirty = true;
  }

  // ---- seen-id sets ----

  /**
   * Whether a record is news to the set: its id is not remembered, and its time (when it has one)
   * is after the set's floor and within the retention.
   */
  isNew(name: SetName, key: string, time: IsoDate | undefined): boolean {
    const set = this.s[name];
    if (set.ids[key] !== undefined) return false;
    if (time === undefined) return true;
    if (time <= (set.floor ?? '')) return false;
    return Date.parse(time) >= this.nowMs - this.config.retentionMs;
  }

  /** `time`: a record time, canonical or absent (then the set keeps the diff's time). */
  remember(name: SetName, key: string, time: IsoDate | undefined): void {
    const set = this.ownSet(name);
    set.ids[key] = time ?? this.nowIso;
  }

  /** Forgets the oldest ids beyond the bound or the retention; the floor keeps them "seen". */
  private prune(name: SetName): void {
    const set = this.s[name];
    const entries = Object.entries(set.ids);
    const horizon = new Date(this.nowMs - this.config.retentionMs).toISOString();
    // Stryker disable next-line EqualityOperator: an id exactly at the horizon is kept by the loop below, so pruning for it changes nothing
    const tooOld = entries.some(([, t]) => t < horizon);
    if (entries.length <= this.config.maxSeen && !tooOld) return;
    entries.sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : a[0] < b[0] ? -1 : 1));
    // Prune to 90% of the bound so a full set is not re-sorted on every new id.
    const keep = Math.floor(this.config.maxSeen * 0.9);
    let floor = set.floor;
    const ids: Record<string, IsoDate> = {};
    entries.forEach(([k, t], i) => {
      if (t < horizon || i < entries.length - keep) floor = maxIso(floor, t);
      else ids[k] = t;
    });
    // Stryker disable next-line ConditionalExpression,ObjectLiteral: pruning forgets at least one id, so the floor is set
    this.s[name] = floor === undefined ? { ids } : { ids, floor };
  }

  /**
   * Bounds the state, once at the end of a diff (pruning mid-poll would let the floor of one
   * record hide its siblings in the same list). Only what this diff touched is examined, so a
   * quiet poll costs nothing.
   */
  finish(): void {
    for (const name of ['collisions', 'trips', 'fuel'] as const) if (this.copied.has(name)) this.prune(name);
    if (this.copied.has('alerts')) this.pruneAlerts();
  }

  private pruneAlerts(): void {
    const fixed = Object.entries(this.s.alerts).filter(([, e]) => !e.active);
    const horizon = new Date(this.nowMs - this.config.retentionMs).toISOString();
    const end = (e: AlertEntry) => e.endedAt ?? e.seenAt;
    // Stryker disable next-line EqualityOperator: an alert ended exactly at the horizon is kept by the loop below, so pruning for it changes nothing
    const tooOld = fixed.some(([, e]) => end(e) < horizon);
    if (fixed.length <= this.config.maxFixedAlerts && !tooOld) return;
    fixed.sort((a, b) => (end(a[1]) < end(b[1]) ? -1 : end(a[1]) > end(b[1]) ? 1 : a[0] < b[0] ? -1 : 1));
    const keep = Math.floor(this.config.maxFixedAlerts * 0.9);
    const alerts = this.own('alerts');
    let floor = this.s.alertFloor;
    fixed.forEach(([k, e], i) => {
      if (end(e) < horizon || i < fixed.length - keep) {
        delete alerts[k];
        floor = {
          startedAt: maxIso(floor?.startedAt, e.startedAt),
          seenAt: maxIso(floor?.seenAt, e.seenAt) ?? e.seenAt,
        };
        if (floor.startedAt === undefined) delete floor.startedAt;
      }
    });
    this.s.alertFloor = floor;
  }

  // ---- events ----

  emit<T extends EventType>(
    type: T,
    key: string,
    transition: string,
    occurredAt: IsoDate | undefined,
    source: EventSource,
    data: EventData<T>,
  ): void {
    this.s.sequence += 1;
    this.dirty = true;
    const { vehicle, enrollment, enrollments } = this.ctx;
    this.events.push(
      buildEvent(type, {
        id: eventId({ scope: this.ctx.identity ?? vehicle.id, type, key, transition }),
        // A stored time (a held trip's end) may predate the canonical reading of record times.
        occurredAt: occurredAt !== undefined && isIsoDate(occurredAt) ? occurredAt : this.nowIso,
        detectedAt: this.nowIso,
        sequence: this.s.sequence,
        vehicle: dropUndefined({
          id: vehicle.id,
          vin: vehicle.vin,
          brand: vehicle.brand,
          model: vehicle.model,
          subModel: vehicle.subModel,
        }),
        enrollment: { id: enrollment.id, kind: enrollment.kind },
        ...(enrollments !== undefined && enrollments.length > 1
          ? { enrollments: enrollments.map((e) => ({ id: e.id, kind: e.kind })) }
          : {}),
        source: dropUndefined({ ...source }),
        data: dropUndefined(withAlertCode(data, this.ctx.alertCodes)),
      }) as CarhookEvent,
    );
  }
}
