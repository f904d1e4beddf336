import type { VehicleRecord, VehicleStateRecord } from './records';

/**
 * Carhook's vehicle id, unique across enrollments: `<enrollmentId>:<key>`, the key being the API's
 * vehicle id for an OAuth user's vehicle (v2) and the VIN for a fleet contract's (v1: no v2 id, the
 * planner polls them in v1 batches).
 */
export const vehicleIdOf = (enrollmentId: string, key: string): string => `${enrollmentId}:${key}`;

/**
 * One identity per physical vehicle. A car is enrolled through an OAuth user (Carhook vehicle id
 * `<enrollmentId>:<apiVehicleId>`) or a fleet contract (`<enrollmentId>:<vin>`), and may be
 * enrolled again later or through both at once: the vehicle ids differ, the VIN does not (the API
 * gives it for every vehicle, v2 and v1). The detection state, its event-id scope and its
 * `sequence` counter are kept under the VIN, so
 * - unenrolling and enrolling again resumes the state instead of replaying what was reported;
 * - an OAuth enrollment and a fleet contract of the same VIN share one state, one stream.
 * A vehicle without a VIN (never from the API) keeps its vehicle id as identity.
 */
export const stateKeyOf = (vehicle: Pick<VehicleRecord, 'id' | 'vin'>): string =>
  vehicle.vin !== '' ? `vin:${vehicle.vin}` : vehicle.id;

/**
 * Whether a state record read for `vehicle` was written under its vehicle id by a Carhook from
 * before the VIN keying: it is read as the starting state of the identity and migrated by the
 * identity's first commit (the old item is left as it was, never written again).
 */
export const isLegacyState = (
  vehicle: Pick<VehicleRecord, 'id' | 'vin'>,
  record: Pick<VehicleStateRecord, 'vehicleId'>,
): boolean => record.vehicleId !== stateKeyOf(vehicle);
