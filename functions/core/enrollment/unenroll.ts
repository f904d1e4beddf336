import { unenroll } from '../store/lifecycle';
import type { Stores } from '../store/ports';

/**
 * Unenroll: stops polling (vehicles paused `unenrolled`), deletes the tokens and frees a
 * fleet VIN; the event log is kept until its retention ends. Idempotent: a second call repairs a
 * first one that died between its steps.
 */
export async function unenrollEnrollment(
  deps: { readonly stores: Pick<Stores, 'enrollments' | 'vehicles'>; readonly now: () => number },
  enrollmentId: string,
): Promise<
  | { readonly kind: 'Unenrolled'; readonly transitioned: boolean; readonly vehiclesPaused: number }
  | { readonly kind: 'NotFound'; readonly enrollmentId: string }
> {
  const existing = await deps.stores.enrollments.get(enrollmentId);
  if (!existing) return { kind: 'NotFound', enrollmentId };
  const r = await unenroll(deps.stores, enrollmentId, deps.now());
  return { kind: 'Unenrolled', ...r };
}
