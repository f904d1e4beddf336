import type { EventEnvelope } from '../events/envelope';

/**
 * What Carhook persists, independent of the storage technology. The DynamoDB layout of these
 * records is in functions/adapters/dynamodb/README.md. Dates are ISO 8601 UTC strings with
 * milliseconds (they compare lexicographically); `now` parameters of the ports are epoch ms.
 */
export type IsoDate = string;

export const enrollmentStatuses = ['active', 'reauthorization_required', 'unenrolled'] as const;
export type EnrollmentStatus = (typeof enrollmentStatuses)[number];

interface EnrollmentBase {
  readonly id: string;
  readonly brand: string;
  readonly status: EnrollmentStatus;
  readonly createdAt: IsoDate;
  readonly updatedAt: IsoDate;
}

/** An authorized user of the API (OAuth). Its tokens are only ever stored as ciphertext. */
export interface OAuthUserEnrollment extends EnrollmentBase {
  readonly kind: 'oauth-user';
  /** The user's id at the API (`GET /user`), when known. */
  readonly userId?: string;
  /** `v1.<keyId>.…` from functions/core/crypto/token-cipher.ts; absent once unenrolled. */
  readonly tokenCiphertext?: string;
  /** When the access token expires (kept in clear so refresh can be planned without decrypting). */
  readonly tokenExpiresAt?: IsoDate;
}

/** A version 1 fleet contract: one VIN under a contract. A VIN is enrolled at most once. */
export interface FleetContractEnrollment extends EnrollmentBase {
  readonly kind: 'fleet-contract';
  readonly vin: string;
  readonly contract: string;
}

export type Enrollment = OAuthUserEnrollment | FleetContractEnrollment;

/** Why a vehicle is not polled. `manual`: an operator paused it; the others follow its enrollment. */
/**
 * `access_denied`: the API answered 403 for this car (the user has no access to it); discovery
 * resumes it when the user's complete vehicle list still has it.
 */
export const pauseReasons = [
  'manual',
  'reauthorization_required',
  'access_denied',
  'unenrolled',
  'removed',
] as const;
export type PauseReason = (typeof pauseReasons)[number];

/** What the planner uses to order vehicles when the budget is short. */
export interface SchedulingHints {
  /** Vehicles with alerts known active are polled first (to see them fixed). */
  readonly activeAlerts: boolean;
  /** Last movement/activity seen (trip, event), for "recent activity first". */
  readonly lastActivityAt?: IsoDate;
  /** Free priority, higher first; 0 by default. */
  readonly priority: number;
  /**
   * The vehicle's learned change rates (functions/core/polling/rates.ts), opaque to the store: a
   * short string written only together with a write the poll makes anyway.
   */
  readonly rates?: string;
  /**
   * When a poll left work waiting (a trip held for its eco-driving, a follow-up read the budget
   * refused): the planner reads the vehicle again in its next cycle unless it has booked its events
   * since. Written only together with a write the poll makes anyway, never cleared (a later read
   * makes it stale).
   */
  readonly workWaitingAt?: IsoDate;
  /**
   * When the budget refused a poll's events read (booked, never sent): the planner, which counted
   * that read as made, counts the vehicle's age from the read booked before it. Written by the
   * refused poll (its one write), never cleared (the next booked read makes it stale).
   */
  readonly eventsRefusedAt?: IsoDate;
}

export interface VehicleRecord {
  /** Carhook's vehicle id (unique across enrollments; e.g. `<enrollmentId>:<apiVehicleId>`). */
  readonly id: string;
  readonly enrollmentId: string;
  readonly vin: string;
  readonly brand?: string;
  /** Model and sub-model as the API's vehicle list names them (v2), when it does: copied to events. */
  readonly model?: string;
  readonly subModel?: string;
  /** The vehicle's id at the API (v2), when it has one. */
  readonly apiVehicleId?: string;
  readonly paused: boolean;
  readonly pauseReason?: PauseReason;
  /** The vehicle is due when `nextPollAt <= now` (and it is not paused). */
  readonly nextPollAt: IsoDate;
  readonly lastPolledAt?: IsoDate;
  /** Last time a poll found a change (committed state). */
  readonly lastChangeAt?: IsoDate;
  readonly hints: SchedulingHints;
  /** Per resource (`alerts`, `maintenance`, `map`…), when it was last polled. */
  readonly resourcePolledAt: Readonly<Record<string, IsoDate>>;
  readonly createdAt: IsoDate;
  readonly updatedAt: IsoDate;
}

/** What a caller gives to create a vehicle; the store fills the rest. */
export interface NewVehicle
  extends Pick<
    VehicleRecord,
    'id' | 'enrollmentId' | 'vin' | 'brand' | 'model' | 'subModel' | 'apiVehicleId' | 'nextPollAt'
  > {
  readonly hints?: Partial<SchedulingHints>;
}

/** The scheduling fields a poll may move; everything absent is left as is. */
export interface ScheduleUpdate {
  readonly nextPollAt: IsoDate;
  readonly lastPolledAt?: IsoDate;
  readonly lastChangeAt?: IsoDate;
  readonly hints?: Partial<SchedulingHints>;
  readonly resourcePolledAt?: Readonly<Record<string, IsoDate>>;
}

/** The diff engine's per-vehicle state: opaque to the store, versioned for optimistic concurrency. */
export interface VehicleStateRecord {
  readonly vehicleId: string;
  /** Serialized by functions/core/detection; never parsed here. */
  readonly state: string;
  /** Identifies the serialization, so the engine can migrate old states. */
  readonly stateFormat: string;
  /** 1 after the first commit, +1 per commit. */
  readonly version: number;
  readonly updatedAt: IsoDate;
}

export interface StoredEvent {
  readonly envelope: EventEnvelope;
  readonly published: boolean;
  readonly publishedAt?: IsoDate;
  /** Epoch seconds after which the event is gone (TTL); reads never return it after that. */
  readonly expiresAt: number;
}

/** One page of a listing. `cursor` is opaque; absent on the last page. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly cursor?: string;
}

export interface PageRequest {
  /** At most this many items (default 100, max 1000). */
  readonly limit?: number;
  readonly cursor?: string;
}
