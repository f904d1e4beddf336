/**
 * Vehicle records as the planner lists them, for the planner's unit tests (no simulator, no store).
 */
import type { VehicleRecord } from '../../functions/core/store/records';

const MIN = 60_000;
const HOUR = 60 * MIN;
const iso = (ms: number): string => new Date(ms).toISOString();

/** A v2 vehicle enrolled an hour before `now`, due now, nothing periodic read yet; `over` replaces any field. */
export function newVehicle(id: string, now: number, over: Partial<VehicleRecord> = {}): VehicleRecord {
  return {
    id,
    enrollmentId: 'enr_1',
    vin: 'VC2BS85NADMNYAMM1',
    apiVehicleId: id,
    paused: false,
    nextPollAt: iso(now),
    hints: { activeAlerts: false, priority: 0 },
    resourcePolledAt: {},
    createdAt: iso(now - HOUR),
    updatedAt: iso(now - HOUR),
    ...over,
  };
}

/**
 * A v2 vehicle whose periodic reads (alerts, maintenance, services, map) were all made a minute
 * before `now`: only its events are due. `over` replaces any field.
 */
export function steadyVehicle(id: string, now: number, over: Partial<VehicleRecord> = {}): VehicleRecord {
  const minuteAgo = iso(now - MIN);
  return newVehicle(id, now, {
    nextPollAt: minuteAgo,
    resourcePolledAt: { alerts: minuteAgo, maintenance: minuteAgo, services: minuteAgo, map: minuteAgo },
    updatedAt: minuteAgo,
    ...over,
  });
}
