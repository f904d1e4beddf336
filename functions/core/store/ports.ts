import type { EventEnvelope } from '../events/envelope';
import type {
  Enrollment,
  EnrollmentStatus,
  FleetContractEnrollment,
  IsoDate,
  NewVehicle,
  Page,
  PageRequest,
  PauseReason,
  ScheduleUpdate,
  StoredEvent,
  VehicleRecord,
  VehicleStateRecord,
} from './records';

/**
 * The persistence ports of the poll pipeline. Implemented by functions/adapters/dynamodb (one
 * table) and by ./memory.ts (unit tests of use cases); test/store/contract.ts runs the same suite
 * against both. `now` is epoch milliseconds everywhere (clocks are injected, tests advance them).
 * Expected outcomes come back as values; StoreError (./errors.ts) is thrown for bad input and
 * storage failures.
 */

export type CreateEnrollmentResult =
  | { readonly kind: 'Created' }
  | { readonly kind: 'AlreadyExists'; readonly enrollmentId: string }
  /** A fleet VIN is enrolled at most once (uniqueness item, written in the same transaction). */
  | { readonly kind: 'DuplicateFleetVin'; readonly vin: string; readonly existingEnrollmentId: string };

export type SaveTokensResult =
  /** `reactivated`: the enrollment was `reauthorization_required` and is `active` again. */
  | { readonly kind: 'Saved'; readonly reactivated: boolean }
  | { readonly kind: 'NotFound' }
  /** Unenrolled enrollments never get tokens back (enroll again instead). */
  | { readonly kind: 'NotAllowed'; readonly status: EnrollmentStatus };

export interface TokenUpdate {
  readonly tokenCiphertext: string;
  readonly tokenExpiresAt: IsoDate;
  readonly userId?: string;
}

export interface EnrollmentStore {
  create(enrollment: Enrollment): Promise<CreateEnrollmentResult>;
  get(enrollmentId: string): Promise<Enrollment | undefined>;
  /** All enrollments, or those with one status; ordered by id. */
  list(query?: { readonly status?: EnrollmentStatus } & PageRequest): Promise<Page<Enrollment>>;
  findByFleetVin(vin: string): Promise<FleetContractEnrollment | undefined>;
  /** Stores a (new, refreshed or re-authorized) token set of an oauth-user enrollment. */
  saveTokens(enrollmentId: string, tokens: TokenUpdate, now: number): Promise<SaveTokensResult>;
  /**
   * active → reauthorization_required. True only for the call that made the transition, so the
   * pipeline emits `enrollment.reauthorization_required` once; `event`, when given, is written to
   * the event log in the same transaction (a crash cannot separate the transition from its event).
   */
  markReauthorizationRequired(enrollmentId: string, now: number, event?: EventEnvelope): Promise<boolean>;
  /**
   * → unenrolled: deletes the token ciphertext and frees the fleet VIN. True for the call that
   * made the transition. Vehicles are paused by ./lifecycle.ts; the event log is kept.
   */
  unenroll(enrollmentId: string, now: number): Promise<boolean>;
}

export interface VehicleStore {
  /** Creates the vehicle if it does not exist; never overwrites one (`created: false`). */
  put(vehicle: NewVehicle, now: number): Promise<{ readonly created: boolean }>;
  get(vehicleId: string): Promise<VehicleRecord | undefined>;
  listByEnrollment(enrollmentId: string): Promise<readonly VehicleRecord[]>;
  /** Vehicles not paused with `nextPollAt <= now`, earliest first. */
  listDue(query: { readonly now: number } & PageRequest): Promise<Page<VehicleRecord>>;
  /**
   * The only steady-state write: one UpdateItem of the scheduling fields. False when the vehicle
   * does not exist. Call it only when ./schedule.ts `scheduleNeedsWrite` says so.
   */
  touchSchedule(vehicleId: string, update: ScheduleUpdate, now: number): Promise<boolean>;
  /**
   * Stops polling. True when this call paused it. An already paused vehicle keeps its reason,
   * except that `unenrolled` and `removed` (terminal) override any other.
   */
  pause(vehicleId: string, reason: PauseReason, now: number): Promise<boolean>;
  /**
   * Resumes polling (due at `nextPollAt`, default now). Without `reason` it resumes `manual` and
   * `reauthorization_required` pauses; with it, only a pause of that reason. `unenrolled` is never
   * resumed without naming it. True when this call resumed it.
   */
  resume(
    vehicleId: string,
    now: number,
    options?: { readonly reason?: PauseReason; readonly nextPollAt?: IsoDate },
  ): Promise<boolean>;
}

export interface CommitPollInput {
  /** The vehicle polled: its scheduling fields are written with the state. */
  readonly vehicleId: string;
  /**
   * Where the state is kept (default `vehicleId`): the physical vehicle's identity,
   * `stateKeyOf(vehicle)` (./identity.ts), shared by every enrollment of the same VIN.
   */
  readonly stateKey?: string;
  /** The version the diff was based on; 0 when there was no state yet. */
  readonly expectedVersion: number;
  readonly state: string;
  readonly stateFormat: string;
  /** Events with deterministic ids; an id already in the log is kept as first written. */
  readonly events: readonly EventEnvelope[];
  /** Scheduling fields of the vehicle, written in the same transaction. */
  readonly schedule?: ScheduleUpdate;
  readonly now: number;
}

export type CommitPollResult =
  | {
      readonly kind: 'Committed';
      readonly version: number;
      /** Ids written by this commit. */
      readonly eventsWritten: readonly string[];
      /** Ids that were already in the log (a retry, or a concurrent worker wrote them first). */
      readonly eventsAlreadyPresent: readonly string[];
    }
  | {
      /** Another worker committed first: re-diff against `current` (no second read needed). */
      readonly kind: 'VersionConflict';
      readonly vehicleId: string;
      readonly expectedVersion: number;
      readonly current: VehicleStateRecord | undefined;
    };

export interface VehicleStateStore {
  /** The state stored under this key (a vehicle id, an identity `vin:<VIN>`, `enrollment:<id>`). */
  getState(vehicleId: string): Promise<VehicleStateRecord | undefined>;
  /**
   * The vehicle and the state of its identity (`stateKeyOf(vehicle)`), or, when the identity has
   * none yet, a state written under the vehicle id before the VIN keying (`isLegacyState` tells).
   */
  getVehicleWithState(
    vehicleId: string,
  ): Promise<{ readonly vehicle: VehicleRecord | undefined; readonly state: VehicleStateRecord | undefined }>;
  commitPoll(input: CommitPollInput): Promise<CommitPollResult>;
}

export interface EventTimeQuery extends PageRequest {
  /** Inclusive, on `detectedAt`. */
  readonly since?: IsoDate;
  /** Exclusive, on `detectedAt`. */
  readonly until?: IsoDate;
  /** Only these event types (all when absent or empty). */
  readonly types?: readonly string[];
  /** For TTL filtering: events expired at `now` are never returned. */
  readonly now: number;
}

export interface AppendResult {
  readonly written: readonly string[];
  readonly alreadyPresent: readonly string[];
}

export interface EventLog {
  /** Idempotent by event id: an id already present is left untouched (first write wins). */
  append(events: readonly EventEnvelope[], now: number): Promise<AppendResult>;
  get(eventId: string, now: number): Promise<StoredEvent | undefined>;
  /** One vehicle's events, by `detectedAt` then id. */
  listByVehicle(query: EventTimeQuery & { readonly vehicleId: string }): Promise<Page<StoredEvent>>;
  /** All vehicles' (and enrollment) events in `[since, until)` by `detectedAt`: webhook replay. */
  listByTime(
    query: EventTimeQuery & { readonly since: IsoDate; readonly until: IsoDate },
  ): Promise<Page<StoredEvent>>;
  /** Events not yet published, oldest first: what the publisher (re)tries. */
  listUnpublished(query: { readonly now: number } & PageRequest): Promise<Page<StoredEvent>>;
  /** Idempotent; unknown or expired ids are ignored. */
  markPublished(eventIds: readonly string[], now: number): Promise<void>;
}

export interface LeaseStore {
  /**
   * True when `owner` holds the lease `name` until `now + ttlMs` (taken free or expired, or
   * renewed by the same owner). Two owners never both hold an unexpired lease.
   */
  acquire(name: string, owner: string, ttlMs: number, now: number): Promise<boolean>;
  /** True when `owner` held it and it is now free. */
  release(name: string, owner: string): Promise<boolean>;
}

/** Everything the poll pipeline persists, as one bundle of ports. */
export interface Stores {
  readonly enrollments: EnrollmentStore;
  readonly vehicles: VehicleStore;
  readonly states: VehicleStateStore;
  readonly events: EventLog;
  readonly leases: LeaseStore;
}
