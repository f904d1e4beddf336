import type { SimVehicle, WorldView } from '../../world/types';
import { formatStamp, round } from '../format';
import { ALL_SECONDS, keysOf, lastDataAt, secondAt, series } from '../window';

/** Key of the exterior temperature in the v1 environment record. */
export const EXTERIOR_TEMP_SECONDS: readonly number[] = [41];

export interface EnvironmentRecord {
  exteriorTemp: Record<string, number>;
  infoDayAndNight: Record<string, number>;
  vin: string;
  lastUpdate: string;
  contract: string;
}

/** The vehicle's last minute of data; `infoDayAndNight` is 1 by day, 0 by night. */
export function renderEnvironment(
  world: WorldView,
  vehicle: SimVehicle,
  requested: readonly number[],
): EnvironmentRecord {
  const end = lastDataAt(world, vehicle);
  const at = (k: number) => world.telemetryAt(vehicle.id, secondAt(end, k));
  return {
    exteriorTemp: series(keysOf(EXTERIOR_TEMP_SECONDS, requested), (k) => {
      const t = at(k)?.airTemp;
      return t === undefined ? undefined : round(t, 1);
    }),
    infoDayAndNight: series(keysOf(ALL_SECONDS, requested), (k) => {
      const day = at(k)?.day;
      return day === undefined ? undefined : day ? 1 : 0;
    }),
    vin: vehicle.vin,
    lastUpdate: formatStamp(end),
    contract: vehicle.contract,
  };
}
