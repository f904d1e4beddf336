import { hashText } from '../../world/prng';
import type { CollisionLevel, SimCollision, SimVehicle, WorldView } from '../../world/types';
import { formatStamp, round } from '../format';
import { series } from '../window';

/** Keys of the crash series: 41, and 60 in the get and search responses. */
export const CRASH_SECONDS: readonly number[] = [41, 60];
/** Keys of the bulk crash list when no `listsecond` is given (swagger: key 41 only). */
export const CRASH_LIST_DEFAULT_SECONDS: readonly number[] = [41];

type Series = Record<string, number>;

export interface CrashRecord {
  totMileage: Series;
  flipVeh: Series;
  highRearCrashInfo: Series;
  avgRearCrashInfo: Series;
  lowRearCrashInfo: Series;
  repairRearCrashInfo: Series;
  highFrontCrashInfo: Series;
  avgFrontCrashInfoN1: Series;
  avgFrontCrashInfoN2: Series;
  lowFrontCrashInfo: Series;
  repairFrontCrashInfo: Series;
  pedestCrashInfo1_41: number;
  pedestCrashInfo1_60: number;
  pedestCrashInfo2_60: number;
  pedestCrashInfo3_60: number;
  highLatCrashInfo: Series;
  avgLatCrashInfo: Series;
  lowLatCrashInfo: Series;
  repairLatCrashInfo: Series;
  vin: string;
  lastUpdate: string;
  contract: string;
}

function flag(on: boolean): number {
  return on ? 1 : 0;
}

/** Odometer at the time of the collision: telemetry, else the vehicle's current odometer. */
function mileageAt(world: WorldView, vehicle: SimVehicle, collision: SimCollision): number {
  const odometer = world.telemetryAt(vehicle.id, collision.createdAt)?.odometer;
  return round(odometer ?? vehicle.odometerKm, 1);
}

/**
 * One collision as a crash record. A crash latches: every requested key (41, 60) carries the same
 * flags. The collision level of each side sets one of high/avg/low/repair (`fixable` = repair);
 * a medium front collision sets N1 or N2, chosen from the collision id.
 */
export function renderCrash(
  world: WorldView,
  vehicle: SimVehicle,
  collision: SimCollision,
  keys: readonly number[],
): CrashRecord {
  const s = (value: number): Series => series(keys, () => value);
  const side = (level: CollisionLevel) => ({
    high: s(flag(level === 'high')),
    avg: s(flag(level === 'medium')),
    low: s(flag(level === 'low')),
    repair: s(flag(level === 'fixable')),
  });
  const front = side(collision.front);
  const rear = side(collision.rear);
  const lat = side(collision.lateral);
  const secondStage = hashText(collision.id) % 2 === 1;
  const frontMedium = collision.front === 'medium';
  const pedestrian = collision.pedestrian;
  return {
    totMileage: s(mileageAt(world, vehicle, collision)),
    flipVeh: s(flag(collision.rollOver)),
    highRearCrashInfo: rear.high,
    avgRearCrashInfo: rear.avg,
    lowRearCrashInfo: rear.low,
    repairRearCrashInfo: rear.repair,
    highFrontCrashInfo: front.high,
    avgFrontCrashInfoN1: s(flag(frontMedium && !secondStage)),
    avgFrontCrashInfoN2: s(flag(frontMedium && secondStage)),
    lowFrontCrashInfo: front.low,
    repairFrontCrashInfo: front.repair,
    // Pedestrian impact: stage 1 is the detection, 2 and 3 grow with the front collision level.
    pedestCrashInfo1_41: flag(pedestrian),
    pedestCrashInfo1_60: flag(pedestrian),
    pedestCrashInfo2_60: flag(pedestrian && (collision.front === 'medium' || collision.front === 'high')),
    pedestCrashInfo3_60: flag(pedestrian && collision.front === 'high'),
    highLatCrashInfo: lat.high,
    avgLatCrashInfo: lat.avg,
    lowLatCrashInfo: lat.low,
    repairLatCrashInfo: lat.repair,
    vin: vehicle.vin,
    lastUpdate: formatStamp(collision.updatedAt),
    contract: vehicle.contract,
  };
}

/** Collisions of a vehicle, newest first. */
export function collisionsNewestFirst(world: WorldView, vehicle: SimVehicle): SimCollision[] {
  return [...world.collisions(vehicle.id)].sort((a, b) => b.createdAt - a.createdAt);
}
