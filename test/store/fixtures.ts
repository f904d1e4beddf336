import type { EventEnvelope } from '../../functions/core/events/envelope';
import type {
  FleetContractEnrollment,
  NewVehicle,
  OAuthUserEnrollment,
} from '../../functions/core/store/records';

export const T0 = Date.parse('2026-11-22T10:00:00.000Z');
export const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;
export const iso = (ms: number): string => new Date(ms).toISOString();

export function oauthEnrollment(id: string, over: Partial<OAuthUserEnrollment> = {}): OAuthUserEnrollment {
  return {
    id,
    kind: 'oauth-user',
    brand: 'peugeot',
    status: 'active',
    userId: `user-${id}`,
    tokenCiphertext: 'v1.k1.ciphertext',
    tokenExpiresAt: iso(T0 + 3600_000),
    createdAt: iso(T0),
    updatedAt: iso(T0),
    ...over,
  };
}

export function fleetEnrollment(
  id: string,
  vin: string,
  over: Partial<FleetContractEnrollment> = {},
): FleetContractEnrollment {
  return {
    id,
    kind: 'fleet-contract',
    brand: 'citroen',
    status: 'active',
    vin,
    contract: 'CONTRACT-1',
    createdAt: iso(T0),
    updatedAt: iso(T0),
    ...over,
  };
}

export function newVehicle(
  id: string,
  enrollmentId: string,
  nextPollAt: number,
  over: Partial<NewVehicle> = {},
): NewVehicle {
  return {
    id,
    enrollmentId,
    vin: 'VF3ABCDEF12345678',
    brand: 'peugeot',
    apiVehicleId: `api-${id}`,
    nextPollAt: iso(nextPollAt),
    ...over,
  };
}

export function envelope(
  id: string,
  over: Partial<EventEnvelope> & { readonly detectedAtMs?: number; readonly vehicleId?: string } = {},
): EventEnvelope {
  const { detectedAtMs, vehicleId, ...rest } = over;
  return {
    id,
    type: 'vehicle.alert.raised',
    schemaVersion: 1,
    occurredAt: iso((detectedAtMs ?? T0) - 1000),
    detectedAt: iso(detectedAtMs ?? T0),
    sequence: 1,
    vehicle: { id: vehicleId ?? 'veh-1', vin: 'VF3ABCDEF12345678', brand: 'peugeot' },
    enrollment: { id: 'enr-1', kind: 'oauth-user' },
    source: { api: 'v2', operation: 'GET /vehicles/{id}/alerts', recordId: id },
    data: { alertId: id },
    ...rest,
  };
}
