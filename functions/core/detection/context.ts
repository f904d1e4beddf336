/**
 * What a diff is told and what it reports besides its state and events: the vehicle and its
 * enrollments (`DiffContext`), where an event comes from (`EventSource`), an answer found stale.
 */
import type { DiffConfig } from './config';
import type { ObservationSource } from './observations';

export interface EnrollmentRef {
  readonly id: string;
  readonly kind: 'oauth-user' | 'fleet-contract';
}

export interface DiffContext {
  readonly vehicle: {
    readonly id: string;
    readonly vin: string;
    readonly brand?: string;
    readonly model?: string;
    readonly subModel?: string;
  };
  /**
   * The identity of the physical vehicle the state belongs to (`vehicleIdentity` in
   * ../polling/identity.ts: `vin:<VIN>`): event ids are scoped to it, so the same change has the
   * same id whichever enrollment polled it. Default `vehicle.id`.
   */
  readonly identity?: string;
  readonly enrollment: EnrollmentRef;
  /** Every active enrollment of the vehicle, when it has more than one: copied to each event. */
  readonly enrollments?: readonly EnrollmentRef[];
  /**
   * Alert message text → the API's code for it, from the API's own alert referential
   * (`alertCodeBook`, ./alert-codes.ts): an alert whose message is localized text gets its
   * `messageCode` from here. Never guessed: a text absent from the book gets none.
   */
  readonly alertCodes?: ReadonlyMap<string, string>;
  /** The only clock the engine reads. */
  readonly now: Date;
  /**
   * When this poll began reading (before its first request). A vehicle's first poll takes what its
   * reads return as history; its history ends here, not at `now`: a record made while the poll was
   * still running, after the read that would have shown it, is newer and a later poll reports it.
   * Default `now`.
   */
  readonly readsStartedAt?: Date;
  /** Overrides of DEFAULT_CONFIG; validate user input with `parseDiffConfig`. */
  readonly config?: Partial<DiffConfig>;
}

/** An answer the engine found stale (README "Stale and flapping answers"): counted, not trusted. */
export interface StaleAnswer {
  /** Index of the observation in the input array. */
  readonly observation: number;
  readonly source: ObservationSource;
  readonly reason: string;
}

export interface EventSource {
  /** `carhook`: told from what Carhook saw over time, not from one record (a vehicle falling silent). */
  readonly api: 'v2' | 'v1' | 'map' | 'services' | 'carhook';
  readonly operation: string;
  readonly recordId?: string;
}
