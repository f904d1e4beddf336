/**
 * Enrollment membership events outside the vehicle-list diff (./discovery.ts):
 * - `enrollment.vehicle.removed` for each vehicle of an enrollment that is deleted
 *   (`DELETE /enrollments/{id}`; a fleet contract's one vehicle included);
 * - `enrollment.vehicle.added` for the vehicle of a fleet contract, once the API confirmed it;
 * - the fleet contract check at enrollment: one v1 call (`GET /vehicle/information/{vin}?contract=`,
 *   the one single-vehicle read that answers for every known vehicle): the simulator, like the API,
 *   answers 404 for a VIN it does not know and 403 for a contract that does not cover the VIN.
 *
 * Each event joins its vehicle's stream (../polling/vehicle-stream.ts): numbered on the vehicle's one
 * `sequence` and written to the event log in the same conditional commit as the vehicle's state,
 * then published, as a poll's are (a crash between the two is repaired by the sweeper). Their ids
 * are deterministic (enrollment, vehicle, transition) and the vehicle's state remembers them, so
 * repeating a DELETE never emits a duplicate nor takes a second number.
 */
import type { CarClient } from '../api';
import { membershipEvent } from '../detection/membership';
import type { CarhookEvent } from '../events/catalogue';
import { commitToVehicleStreams, type VehicleStreamDeps } from '../polling/vehicle-stream';
import type { Enrollment } from '../store/records';
import { type EnrollFleetResult, enrollFleetContract, validateFleetInput } from './fleet';
import { unenrollEnrollment } from './unenroll';

/**
 * Commits each event on its vehicle's stream (numbered, with the vehicle's state; an event its
 * vehicle already numbered is skipped), then publishes what was new. For a management request:
 * events other writers kept from being numbered fail the request (500), so the caller repeats it,
 * and the repeat tells them under the same ids.
 */
async function announceOrFail(deps: VehicleStreamDeps, events: readonly CarhookEvent[]) {
  const told = await commitToVehicleStreams(deps, events);
  if (told.failed.length > 0) {
    throw new Error(
      `the events of vehicle(s) ${told.failed.join(', ')} could not be numbered (their state kept changing); nothing is lost: repeat the request`,
    );
  }
  return told;
}

/** `enrollment.vehicle.added` for a fleet enrollment's vehicle, at the enrollment's creation. */
async function announceFleetAdded(deps: VehicleStreamDeps, enrollment: Enrollment): Promise<void> {
  const vehicles = await deps.stores.vehicles.listByEnrollment(enrollment.id);
  await announceOrFail(
    deps,
    vehicles
      .filter((vehicle) => !vehicle.paused)
      .map((vehicle) =>
        membershipEvent('enrollment.vehicle.added', {
          enrollment,
          vehicle,
          transition: 'fleet-enrolled',
          at: Date.parse(enrollment.createdAt),
          operation: 'POST /enrollments/contracts',
        }),
      ),
  );
}

export type UnenrollAnnouncedResult =
  | {
      readonly kind: 'Unenrolled';
      readonly transitioned: boolean;
      readonly vehiclesPaused: number;
      /** `enrollment.vehicle.removed` event ids (new ones; a repeated DELETE finds none). */
      readonly removedEvents: readonly string[];
    }
  | { readonly kind: 'NotFound'; readonly enrollmentId: string };

/**
 * Unenrolls (./unenroll.ts) and emits `enrollment.vehicle.removed` for each of its vehicles still
 * enrolled (a vehicle already removed from the user's list had its event then). Polling stops
 * first; the events follow, so a repeated DELETE after a crash emits what the first one missed.
 */
export async function unenrollAndAnnounce(
  deps: VehicleStreamDeps,
  enrollmentId: string,
): Promise<UnenrollAnnouncedResult> {
  const enrollment = await deps.stores.enrollments.get(enrollmentId);
  if (!enrollment) return { kind: 'NotFound', enrollmentId };
  const vehicles = await deps.stores.vehicles.listByEnrollment(enrollmentId);
  const r = await unenrollEnrollment(deps, enrollmentId);
  if (r.kind === 'NotFound') return r;
  const at = deps.now();
  const events = vehicles
    .filter((v) => !(v.paused && v.pauseReason === 'removed'))
    .map((vehicle) =>
      membershipEvent('enrollment.vehicle.removed', {
        enrollment,
        vehicle,
        transition: 'unenrolled',
        at,
        operation: 'DELETE /enrollments/{id}',
      }),
    );
  const { written } = await announceOrFail(deps, events);
  return {
    kind: 'Unenrolled',
    transitioned: r.transitioned,
    vehiclesPaused: r.vehiclesPaused,
    removedEvents: written,
  };
}

export type FleetCheck =
  | { readonly ok: true }
  | {
      readonly ok: false;
      /** 400/404: the API does not know the VIN or the contract; 502/503: it could not be asked. */
      readonly status: 404 | 422 | 502 | 503;
      readonly code: 'UnknownVin' | 'UnknownContract' | 'ApiUnavailable';
      readonly field?: 'vin' | 'contract';
      readonly message: string;
    };

/** Asks the API whether the contract covers the VIN: one v1 request. */
export async function checkFleetTarget(
  client: Pick<CarClient, 'v1'>,
  target: { readonly vin: string; readonly contract: string },
): Promise<FleetCheck> {
  const r = await client.v1.vehicleInformation({ vin: target.vin, contract: target.contract });
  if (r.ok) return { ok: true };
  switch (r.error.kind) {
    case 'NotFound':
      return {
        ok: false,
        status: 404,
        code: 'UnknownVin',
        field: 'vin',
        message: `vin: the API knows no vehicle ${target.vin}; nothing was enrolled`,
      };
    case 'AccessDenied':
    case 'InvalidRequest':
      return {
        ok: false,
        status: 422,
        code: 'UnknownContract',
        field: 'contract',
        message: `contract: the API does not know contract ${target.contract} for vehicle ${target.vin}; nothing was enrolled`,
      };
    case 'RateLimited':
      return {
        ok: false,
        status: 503,
        code: 'ApiUnavailable',
        message: `the API's quota is spent for now: the contract could not be checked; nothing was enrolled, try again later`,
      };
    default:
      return {
        ok: false,
        status: 502,
        code: 'ApiUnavailable',
        message: `the API did not confirm the contract (${r.error.kind}: ${r.error.message}); nothing was enrolled, try again`,
      };
  }
}

export type EnrollCheckedFleetResult =
  | EnrollFleetResult
  | { readonly kind: 'Refused'; readonly check: Extract<FleetCheck, { ok: false }> };

/**
 * `POST /enrollments/contracts`: the body checked (./fleet.ts), then the API asked (one v1 call),
 * then the enrollment stored and `enrollment.vehicle.added` emitted. A refused check stores nothing.
 */
export async function enrollCheckedFleetContract(
  deps: VehicleStreamDeps & { readonly newId?: () => string },
  client: Pick<CarClient, 'v1'>,
  input: unknown,
): Promise<EnrollCheckedFleetResult> {
  const checked = validateFleetInput(input);
  if (!checked.ok) return { kind: 'InvalidInput', field: checked.field, message: checked.message };
  // A VIN already enrolled is refused before any request is spent on it.
  const existing = await deps.stores.enrollments.findByFleetVin(checked.value.vin);
  if (existing && existing.status !== 'unenrolled') {
    // The repeat of a request whose announcement failed after the enrollment was stored: the
    // event is told now (same id; a vehicle's stream skips an id it already numbered).
    if (existing.kind === 'fleet-contract' && existing.status === 'active')
      await announceFleetAdded(deps, existing);
    return {
      kind: 'DuplicateVin',
      vin: checked.value.vin,
      existingEnrollmentId: existing.id,
      message: `vin: ${checked.value.vin} is already enrolled (enrollment ${existing.id})`,
    };
  }
  const check = await checkFleetTarget(client, checked.value);
  if (!check.ok) return { kind: 'Refused', check };
  const r = await enrollFleetContract(deps, checked.value);
  if (r.kind !== 'Enrolled') return r;
  const enrollment = await deps.stores.enrollments.get(r.enrollmentId);
  if (enrollment) await announceFleetAdded(deps, enrollment);
  return r;
}
