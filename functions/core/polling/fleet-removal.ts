/**
 * A fleet vehicle the v1 API no longer knows (taken off its contract): its bulk lists omit the VIN,
 * or answer 404 / 403 for it (./poll-fleet.ts). An omission alone cannot be told from "nothing to
 * report", so it is confirmed with one single-vehicle read, `GET /vehicle/information/{vin}?contract=`
 * (the read that answers for every known vehicle, as at enrollment): 404 (unknown VIN) or 403 (the
 * contract no longer covers it) → the vehicle is removed: `enrollment.vehicle.removed` once, on the
 * vehicle's stream (./vehicle-stream.ts), then polling stops (paused `removed`). The lists that
 * omitted it are not applied, so its active alerts are not fixed by absence: nothing else is lost.
 *
 * Here, not in core/enrollment: the fleet poll finds it, confirms it with its own read and tells it
 * through the vehicle's stream polling owns (the event is built by ../detection/membership.ts).
 *
 * Event first, pause second: a crash in between is repaired by the next poll (the vehicle is
 * still polled, confirmed unknown again, and its event is found already told).
 */
import type { CarClient } from '../api';
import { membershipEvent } from '../detection/membership';
import type { FleetContractEnrollment, VehicleRecord } from '../store/records';
import { commitToVehicleStreams, type VehicleStreamDeps } from './vehicle-stream';

export type FleetPresence =
  /** The API answered for the VIN under its contract. */
  | 'known'
  /** 404 or 403: the API no longer knows the VIN under this contract. */
  | 'unknown'
  /** Any other failure (quota, 5xx, network): nothing is concluded. */
  | 'unconfirmed';

/** One v1 request: does the API still know the VIN under the contract? */
export async function confirmFleetVehicle(
  client: Pick<CarClient, 'v1'>,
  target: { readonly vin: string; readonly contract: string },
): Promise<FleetPresence> {
  const r = await client.v1.vehicleInformation({ vin: target.vin, contract: target.contract });
  if (r.ok) return 'known';
  return r.error.kind === 'NotFound' || r.error.kind === 'AccessDenied' ? 'unknown' : 'unconfirmed';
}

/** Tells `enrollment.vehicle.removed` for the fleet vehicle, then stops polling it. */
export async function removeFleetVehicle(
  deps: VehicleStreamDeps,
  enrollment: Pick<FleetContractEnrollment, 'id' | 'kind'>,
  vehicle: Pick<VehicleRecord, 'id' | 'vin' | 'brand'>,
): Promise<{ readonly removedEvents: readonly string[]; readonly paused: boolean }> {
  const at = deps.now();
  const told = await commitToVehicleStreams(deps, [
    membershipEvent('enrollment.vehicle.removed', {
      enrollment,
      vehicle,
      transition: 'v1-unknown',
      at,
      api: 'v1',
      operation: 'v1.vehicle.information',
    }),
  ]);
  // Paused only once the event is committed (a conflict-exhausted commit leaves it to the next poll).
  const paused =
    told.failed.length === 0 && (await deps.stores.vehicles.pause(vehicle.id, 'removed', deps.now()));
  return { removedEvents: told.written, paused };
}
