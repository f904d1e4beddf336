/**
 * One stream per physical vehicle when its VIN is enrolled twice (an OAuth user and a fleet
 * contract). The fleet contract's v1 bulk lists cover many VINs per request, the OAuth path costs
 * one or more requests per vehicle: the VIN is polled through the fleet contract only, and the
 * OAuth enrollment joins the stream as a link in the shared state (store/identity.ts), so every
 * event carries both enrollment ids while both are active.
 */

import { parseState, STATE_FORMAT, serializeState } from '../detection/state';
import type { EnrollmentRef } from '../detection/work';
import { isLegacyState, stateKeyOf, vehicleIdOf } from '../store/identity';
import type { Stores } from '../store/ports';
import type { FleetContractEnrollment, VehicleRecord, VehicleStateRecord } from '../store/records';

/**
 * The active fleet contract that polls this VIN, when it is not the vehicle's own enrollment. A
 * contract whose vehicle is paused (the v1 API no longer knows it, ./fleet-removal.ts)
 * polls nothing: the VIN is then polled through this enrollment again.
 */
export async function coveringFleet(
  stores: Pick<Stores, 'enrollments' | 'vehicles'>,
  vehicle: Pick<VehicleRecord, 'vin' | 'enrollmentId'>,
): Promise<FleetContractEnrollment | undefined> {
  if (vehicle.vin === '') return undefined;
  const fleet = await stores.enrollments.findByFleetVin(vehicle.vin);
  if (fleet === undefined || fleet.status !== 'active' || fleet.id === vehicle.enrollmentId) return undefined;
  const polled = await stores.vehicles.get(vehicleIdOf(fleet.id, vehicle.vin));
  return polled !== undefined && !polled.paused ? fleet : undefined;
}

/**
 * Records `enrollment` in the shared state's links (once: a poll that finds it there writes
 * nothing). Only an existing state is linked: before the covering poll's first commit there is no
 * stream to join yet, and the next poll links it. A lost race is simply retried next poll.
 */
export async function linkToStream(
  stores: Pick<Stores, 'states'>,
  vehicle: VehicleRecord,
  stored: VehicleStateRecord | undefined,
  enrollment: EnrollmentRef,
  now: number,
): Promise<'linked' | 'already' | 'no-state' | 'conflict' | 'unreadable'> {
  if (stored === undefined) return 'no-state';
  const parsed = parseState(stored.state);
  if (!parsed.ok) return 'unreadable';
  const links = parsed.state.links ?? [];
  if (links.some((l) => l.id === enrollment.id)) return 'already';
  const legacy = isLegacyState(vehicle, stored);
  const identity = stateKeyOf(vehicle);
  const next = {
    ...parsed.state,
    vehicleId: identity,
    links: [...links, { id: enrollment.id, kind: enrollment.kind }].sort((a, b) => (a.id < b.id ? -1 : 1)),
  };
  const r = await stores.states.commitPoll({
    vehicleId: vehicle.id,
    stateKey: identity,
    expectedVersion: legacy ? 0 : stored.version,
    state: serializeState(next),
    stateFormat: String(STATE_FORMAT),
    events: [],
    now,
  });
  return r.kind === 'Committed' ? 'linked' : 'conflict';
}

/**
 * The enrollments a poll of this state speaks for: the polling one first, then the linked ones
 * still active (an unenrolled or paused one is left off, its link stays harmless).
 */
export async function streamEnrollments(
  stores: Pick<Stores, 'enrollments'>,
  polling: EnrollmentRef,
  stored: VehicleStateRecord | undefined,
): Promise<readonly EnrollmentRef[]> {
  // Most states have no link: skip the parse (the poll parses the state once already).
  if (stored === undefined || !stored.state.includes('"links"')) return [polling];
  const parsed = parseState(stored.state);
  const links = parsed.ok ? (parsed.state.links ?? []) : [];
  const out: EnrollmentRef[] = [polling];
  for (const link of links) {
    if (link.id === polling.id) continue;
    const e = await stores.enrollments.get(link.id);
    if (e?.status === 'active') out.push({ id: e.id, kind: e.kind });
  }
  return out;
}
