/**
 * Observations of one vehicle → diff → conditional commit → publish. Shared by the v2 poll worker
 * and the fleet (v1 bulk) poll, so both follow the same rules:
 * - nothing is written when nothing changed (scheduling fields aside, and only when
 *   `scheduleNeedsWrite` says so);
 * - the state is committed with a condition on its version, together with its events; on a
 *   `VersionConflict` the same observations are re-diffed against the state the other worker
 *   committed: event ids are deterministic, so nothing is lost and no different duplicate appears;
 * - committed events are published after the commit; what fails stays unpublished in the event log
 *   for `republishPending`.
 */
import type { IsoDate } from '../api/model';
import { type DiffContext, diff, type PollHints } from '../detection/diff';
import type { Observation } from '../detection/observations';
import {
  type VehicleState as DetectionState,
  parseState,
  STATE_FORMAT,
  serializeState,
} from '../detection/state';
import type { EnrollmentRef } from '../detection/work';
import type { EventEnvelope } from '../events/envelope';
import type { EventBus, EventLogMarker } from '../publishing/ports';
import { type PublishOptions, publishEvents, publishPending } from '../publishing/publisher';
import { isLegacyState, stateKeyOf } from '../store/identity';
import type { EventLog, Stores } from '../store/ports';
import type { ScheduleUpdate, VehicleRecord, VehicleStateRecord as VehicleState } from '../store/records';
import { scheduleNeedsWrite } from '../store/schedule';
import { diffConfigFor, type PollingConfig } from './config';
import { decodeRates, encodeRates, lookBackOf, observe } from './rates';
import { streamEnrollments } from './streams';

/** Publisher tuning (the bus and marker come from the deps). */
export type PublishTuning = Omit<PublishOptions, 'bus' | 'marker'>;

export interface CommitDeps {
  readonly stores: Stores;
  readonly bus: EventBus;
  readonly now: () => number;
  readonly config: PollingConfig;
  readonly publish?: PublishTuning;
}

/** The store's `markPublished(ids, now)` as the publisher's `EventLogMarker`. */
export function eventLogMarker(log: Pick<EventLog, 'markPublished'>, now: () => number): EventLogMarker {
  return {
    markPublished: (events) =>
      log.markPublished(
        events.map((e) => e.id),
        now(),
      ),
  };
}

export interface ApplyInput {
  readonly vehicle: VehicleRecord;
  readonly enrollment: EnrollmentRef;
  /** Every active enrollment of this VIN when there are several (copied to each event). */
  readonly enrollments?: readonly EnrollmentRef[];
  /** As `getVehicleWithState` returned it: the identity's state, or a legacy one (migrated here). */
  readonly stored: VehicleState | undefined;
  readonly observations: readonly Observation[];
  /** The planner asked to record the poll time (short budget: stalest first next time). */
  readonly rotate: boolean;
  /**
   * The budget refused a read of this poll, so the poll writes even without a change. `events`: its
   * events read (nothing was seen, and the planner, which counted the read as made, counts the
   * vehicle's age from the read before: `eventsRefusedAt`). `follow-up`: a later read, after the
   * events were read (work waiting: `workWaitingAt`).
   */
  readonly refused?: 'events' | 'follow-up';
  /**
   * A read that would have confirmed an absence failed: the doubt stays, and the poll writes the
   * work-waiting hint even without a change, so the planner reads the vehicle again next cycle.
   */
  readonly unfinished?: boolean;
  /** Alert text → the API's code (./alert-codes.ts), for `messageCode`. */
  readonly alertCodes?: ReadonlyMap<string, string>;
  /** When the poll began reading (epoch ms): a first poll's history ends there (DiffContext). */
  readonly readsStartedAt?: number;
}

export type ApplyOutcome =
  | {
      readonly kind: 'Applied';
      /** `none`: nothing written; `schedule`: only the scheduling fields; `commit`: state (+ events). */
      readonly wrote: 'none' | 'schedule' | 'commit';
      readonly conflicts: number;
      /** Ids this poll wrote to the event log. */
      readonly eventsWritten: readonly string[];
      readonly published: readonly string[];
      /** Left unpublished in the log (the sweeper retries them). */
      readonly unpublished: readonly string[];
      readonly hints: PollHints;
      readonly rejected: number;
      /** Answers the diff found stale (they fixed nothing): a metric. */
      readonly stale: number;
    }
  | {
      /** Another worker kept winning: the job fails and the queue retries it (nothing lost). */
      readonly kind: 'ConflictRetriesExhausted';
      readonly conflicts: number;
    }
  | {
      /** The stored state cannot be read (newer format or corrupt): never overwritten. */
      readonly kind: 'StateUnreadable';
      readonly field: string;
      readonly reason: string;
    };

const PERIODIC_SOURCES = ['v2.maintenance', 'v1.maintenance', 'services', 'map'] as const;

/** The refresh period of a periodic read (maintenance, services, map, alert reconciliation). */
function periodOf(resource: string, config: PollingConfig): number {
  if (resource === 'alerts') return config.alertsReconcileMs;
  if (resource === 'services') return config.servicesIntervalMs;
  if (resource === 'map') return config.mapIntervalMs;
  return config.dailyMs;
}

/**
 * A cursor worth persisting: it appeared, or moved by at least `ms`. Cursors of periodic reads only
 * decide when the next read is due, so a read more frequent than the period (naive strategy, a
 * follow-up after a trip) need not move them: at most two writes per period.
 */
const movedBy = (before: IsoDate | undefined, after: IsoDate | undefined, ms: number): boolean =>
  after !== undefined && (before === undefined || Date.parse(after) - Date.parse(before) >= ms);

/**
 * Whether a cursor-only change is worth a write. Only what changes the cadence or what is read
 * again is kept: the events cursor, the daily reads, and the alert reconciliation (at most twice a
 * period). A read of the events alone with nothing new writes nothing.
 */
function cursorsWorthWriting(
  before: DetectionState | undefined,
  after: DetectionState,
  config: PollingConfig,
): boolean {
  if (before === undefined) return true;
  const b = before.cursors;
  const a = after.cursors;
  if (a.eventsSince !== b.eventsSince) return true;
  for (const s of PERIODIC_SOURCES) {
    // Stryker disable next-line LogicalOperator: every periodic source has a resource, and periodOf gives the source name the same period
    if (movedBy(b.fetched[s], a.fetched[s], periodOf(RESOURCE_OF[s] ?? s, config) / 2)) return true;
  }
  return movedBy(b.alertsReconciledAt, a.alertsReconciledAt, config.alertsReconcileMs / 2);
}

const RESOURCE_OF: Readonly<Partial<Record<Observation['source'], string>>> = {
  'v2.maintenance': 'maintenance',
  'v1.maintenance': 'maintenance',
  services: 'services',
  map: 'map',
  'v2.alerts': 'alerts',
};

/**
 * Work a poll leaves for the next read of the vehicle: a trip held for its eco-driving, a collision
 * or trip announced but not read, an absence or a services change not yet confirmed, or a read the
 * budget refused after the events were read (a follow-up at the tail of a busy cycle). The planner
 * books such a vehicle in its next cycle (`workWaitingAt`), so what was already seen is told (or
 * confirmed) a cycle later, not at the vehicle's next turn, which for a quiet vehicle can be the
 * whole guarantee away.
 */
export const workWaiting = (next: PollHints, refused: boolean): boolean =>
  refused ||
  next.ecodrivingFor.length > 0 ||
  next.collisions === 'now' ||
  next.trips === 'now' ||
  next.alertsUnconfirmed.length > 0 ||
  next.servicesUnconfirmed;

/** The scheduling fields this poll moves (the planner reads `resourcePolledAt` and `hints`). */
function scheduleFor(
  input: ApplyInput,
  hints: PollHints,
  now: number,
  config: PollingConfig,
): ScheduleUpdate {
  const at = new Date(now).toISOString();
  const polled: Record<string, IsoDate> = {};
  for (const o of input.observations) {
    const resource = RESOURCE_OF[o.source];
    if (!resource || !o.complete || (o.source === 'v2.alerts' && o.window !== undefined)) continue;
    // Reads more frequent than their period (following active alerts, naive strategy, maintenance
    // after a trip) are not recorded: at most two writes per period.
    const period = periodOf(resource, config);
    if (!movedBy(input.vehicle.resourcePolledAt[resource], at, period / 2)) continue;
    polled[resource] = at;
  }
  return {
    nextPollAt: input.rotate ? at : input.vehicle.nextPollAt,
    ...(input.rotate ? { lastPolledAt: at } : {}),
    hints: {
      activeAlerts: hints.hasActiveAlerts,
      ...(hints.lastActivityAt !== undefined ? { lastActivityAt: hints.lastActivityAt } : {}),
    },
    ...(Object.keys(polled).length > 0 ? { resourcePolledAt: polled } : {}),
  };
}

/** What the diff engine is told about the vehicle: its identity, the car, the enrollments. */
export function detectionContext(
  input: Pick<ApplyInput, 'vehicle' | 'enrollment' | 'enrollments' | 'alertCodes' | 'readsStartedAt'>,
  identity: string,
  now: number,
  config: PollingConfig,
): DiffContext {
  const v = input.vehicle;
  return {
    vehicle: {
      id: v.id,
      vin: v.vin,
      ...(v.brand !== undefined ? { brand: v.brand } : {}),
      ...(v.model !== undefined ? { model: v.model } : {}),
      ...(v.subModel !== undefined ? { subModel: v.subModel } : {}),
    },
    identity,
    enrollment: input.enrollment,
    ...(input.enrollments !== undefined && input.enrollments.length > 1
      ? { enrollments: input.enrollments }
      : {}),
    ...(input.alertCodes !== undefined ? { alertCodes: input.alertCodes } : {}),
    now: new Date(now),
    ...(input.readsStartedAt !== undefined ? { readsStartedAt: new Date(input.readsStartedAt) } : {}),
    config: diffConfigFor(config),
  };
}

export async function applyObservations(deps: CommitDeps, input: ApplyInput): Promise<ApplyOutcome> {
  const { stores, config } = deps;
  const now = deps.now();
  let stored = input.stored;
  // A state from before the VIN keying is the identity's starting point; the identity's first
  // commit (expected version 0) migrates it. The old item is never written again.
  let legacy = stored !== undefined && isLegacyState(input.vehicle, stored);
  let conflicts = 0;
  const identity = stateKeyOf(input.vehicle);
  // Enrollments linked to this vehicle's stream (same VIN, another enrollment) go on the events.
  const enrollments = input.enrollments ?? (await streamEnrollments(stores, input.enrollment, stored));
  const context = detectionContext({ ...input, enrollments }, identity, now, config);

  for (;;) {
    let previous: DetectionState | undefined;
    if (stored !== undefined) {
      const parsed = parseState(stored.state);
      if (!parsed.ok)
        return { kind: 'StateUnreadable', field: parsed.error.field, reason: parsed.error.reason };
      previous = legacy ? { ...parsed.state, vehicleId: identity } : parsed.state;
    }
    const d = diff(previous, input.observations, context);
    const routine = scheduleFor(input, d.next, now, config);
    // The learned rates go with a write the poll makes anyway, never as a reason to write: a poll
    // that saw no change has nothing to add (the exposure it covered is computed from the time).
    // A first poll's events are the look-back's history: counted as the vehicle's past (rates.ts).
    // The estimate starts with the vehicle's first events read: a write before it (a map batch
    // read first) would start the clock with no past, and that read's look-back would be lost.
    const known = decodeRates(input.vehicle.hints.rates);
    const lookBack = known === undefined ? lookBackOf(input.observations) : undefined;
    const starts = known !== undefined || input.observations.some((o) => o.source === 'v2.events');
    const rates = starts
      ? encodeRates(
          observe(
            known,
            now,
            { events: d.events, activeAlerts: d.next.activeAlerts, ...(lookBack ? { lookBack } : {}) },
            config,
          ),
        )
      : undefined;
    // Work left waiting rides along the same way: a poll that holds a trip has changed the state.
    // A read the budget refused is the one reason of its own to write: nothing else tells the
    // planner, which counted the read as made, and a quiet vehicle would wait its whole guarantee.
    const at = new Date(now).toISOString();
    const schedule: ScheduleUpdate = {
      ...routine,
      hints: {
        ...routine.hints,
        ...(rates !== undefined ? { rates } : {}),
        ...(workWaiting(d.next, input.refused === 'follow-up' || input.unfinished === true)
          ? { workWaitingAt: at }
          : {}),
        ...(input.refused === 'events' ? { eventsRefusedAt: at } : {}),
      },
    };
    const write =
      d.changed === 'state' || (d.changed === 'cursors' && cursorsWorthWriting(previous, d.state, config));

    if (!write) {
      let wrote: 'none' | 'schedule' = 'none';
      if (
        input.rotate ||
        input.refused !== undefined ||
        input.unfinished === true ||
        // Stryker disable next-line ObjectLiteral: without rotation the update keeps the stored nextPollAt, so the cycle length decides nothing
        scheduleNeedsWrite(input.vehicle, routine, now, { cycleMs: config.cycleMs })
      ) {
        await stores.vehicles.touchSchedule(input.vehicle.id, schedule, now);
        wrote = 'schedule';
      }
      return {
        kind: 'Applied',
        wrote,
        conflicts,
        eventsWritten: [],
        published: [],
        unpublished: [],
        hints: d.next,
        rejected: d.rejected.length,
        stale: d.stale.length,
      };
    }

    const result = await stores.states.commitPoll({
      vehicleId: input.vehicle.id,
      stateKey: identity,
      expectedVersion: legacy ? 0 : (stored?.version ?? 0),
      state: serializeState(d.state),
      stateFormat: String(STATE_FORMAT),
      events: d.events,
      schedule: d.changed === 'state' ? { ...schedule, lastChangeAt: new Date(now).toISOString() } : schedule,
      now,
    });
    if (result.kind === 'VersionConflict') {
      conflicts++;
      if (conflicts > config.conflictRetries) return { kind: 'ConflictRetriesExhausted', conflicts };
      stored = result.current;
      legacy = false;
      continue;
    }
    const written = new Set(result.eventsWritten);
    const toPublish: EventEnvelope[] = d.events.filter((e) => written.has(e.id));
    const outcome = await publishCommitted(deps, toPublish);
    return {
      kind: 'Applied',
      wrote: 'commit',
      conflicts,
      eventsWritten: result.eventsWritten,
      published: outcome.published,
      unpublished: outcome.unpublished,
      hints: d.next,
      rejected: d.rejected.length,
      stale: d.stale.length,
    };
  }
}

/** Publishes events just committed; failures stay unpublished in the log (never thrown). */
export async function publishCommitted(
  deps: Pick<CommitDeps, 'bus' | 'now' | 'publish'> & { readonly stores: Pick<Stores, 'events'> },
  events: readonly EventEnvelope[],
): Promise<{ published: string[]; unpublished: string[] }> {
  if (events.length === 0) return { published: [], unpublished: [] };
  const outcome = await publishEvents(events, {
    ...deps.publish,
    bus: deps.bus,
    marker: eventLogMarker(deps.stores.events, deps.now),
  });
  return { published: outcome.published, unpublished: outcome.unpublished.map((f) => f.id) };
}

export interface RepublishDeps {
  readonly events: EventLog;
  readonly bus: EventBus;
  readonly now: () => number;
  readonly publish?: PublishTuning & { readonly pageSize?: number; readonly maxPages?: number };
}

/**
 * The unpublished sweeper: publishes what the event log still holds unpublished (a worker that
 * crashed between commit and publish, a bus that was down). Same ids as the first attempt.
 */
export async function republishPending(deps: RepublishDeps): Promise<{
  readonly published: readonly string[];
  readonly unpublished: readonly string[];
  readonly calls: number;
}> {
  const outcome = await publishPending(
    {
      listUnpublished: async ({ limit, cursor }) => {
        const page = await deps.events.listUnpublished({
          now: deps.now(),
          limit,
          ...(cursor ? { cursor } : {}),
        });
        return { events: page.items.map((s) => s.envelope), ...(page.cursor ? { cursor: page.cursor } : {}) };
      },
    },
    { ...deps.publish, bus: deps.bus, marker: eventLogMarker(deps.events, deps.now) },
  );
  return {
    published: outcome.published,
    unpublished: outcome.unpublished.map((f) => f.id),
    calls: outcome.calls,
  };
}
