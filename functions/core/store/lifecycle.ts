import type { EventEnvelope } from '../events/envelope';
import type { EnrollmentStore, VehicleStore } from './ports';
import type { PauseReason } from './records';

/**
 * Enrollment lifecycle over the ports. Each step is idempotent, so a worker that dies between two
 * steps is repaired by the next call: the status transition is the conditional write (it happens
 * once), pausing vehicles is repeated every time.
 */
export interface LifecycleStores {
  readonly enrollments: EnrollmentStore;
  readonly vehicles: VehicleStore;
}

async function pauseAll(
  stores: LifecycleStores,
  enrollmentId: string,
  reason: PauseReason,
  now: number,
): Promise<number> {
  let paused = 0;
  for (const vehicle of await stores.vehicles.listByEnrollment(enrollmentId)) {
    if (await stores.vehicles.pause(vehicle.id, reason, now)) paused += 1;
  }
  return paused;
}

/**
 * `invalid_grant`: the enrollment needs re-authorization. `transitioned` is true for the
 * one call that made the transition; `event` (`enrollment.reauthorization_required`) is logged in
 * the same write, so it is emitted once. Vehicles are paused on every call.
 */
export async function requireReauthorization(
  stores: LifecycleStores,
  enrollmentId: string,
  now: number,
  event?: EventEnvelope,
): Promise<{ readonly transitioned: boolean; readonly vehiclesPaused: number }> {
  const transitioned = await stores.enrollments.markReauthorizationRequired(enrollmentId, now, event);
  const vehiclesPaused = await pauseAll(stores, enrollmentId, 'reauthorization_required', now);
  return { transitioned, vehiclesPaused };
}

/** After a successful re-authorization (tokens saved): resumes the vehicles it had paused. */
export async function resumeAfterReauthorization(
  stores: LifecycleStores,
  enrollmentId: string,
  now: number,
): Promise<number> {
  let resumed = 0;
  for (const vehicle of await stores.vehicles.listByEnrollment(enrollmentId)) {
    if (await stores.vehicles.resume(vehicle.id, now, { reason: 'reauthorization_required' })) resumed += 1;
  }
  return resumed;
}

/** Unenroll: stops polling, deletes tokens, keeps the event log until its retention ends. */
export async function unenroll(
  stores: LifecycleStores,
  enrollmentId: string,
  now: number,
): Promise<{ readonly transitioned: boolean; readonly vehiclesPaused: number }> {
  const transitioned = await stores.enrollments.unenroll(enrollmentId, now);
  const vehiclesPaused = await pauseAll(stores, enrollmentId, 'unenrolled', now);
  return { transitioned, vehiclesPaused };
}
