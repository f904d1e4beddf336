/**
 * Telemetry of one second, derived from the trips: engine, fuel and motion values while driving,
 * parked values otherwise. Noise comes from a hash of the seed, the vehicle and the second, so a
 * second reads the same every time.
 */
import { fuelAt, odometerAt, tripAt } from './motion';
import { hash32 } from './prng';
import { DAY, SECOND, type VehicleState, type WorldState } from './state';
import { round } from './trip';
import type { SimTelemetry } from './types';

/** Range in km on what is left in the tank (or battery), at an average use. */
function autonomy(s: VehicleState, fuelLevel: number): number {
  const per100 = s.vehicle.energy === 'electric' ? 17 : 6.5;
  const capacity = s.vehicle.energy === 'electric' ? 50 : s.spec.tankLiters;
  return Math.round((((fuelLevel / 100) * capacity) / per100) * 100);
}

/** The telemetry of the second holding `epochMs`; undefined in the future or before the vehicle existed. */
export function telemetryAt(w: WorldState, s: VehicleState, epochMs: number): SimTelemetry | undefined {
  const at = Math.floor(epochMs / SECOND) * SECOND;
  if (at > w.clock.now() || at < s.vehicle.createdAt) return undefined;
  const trip = tripAt(s, at);
  const moving = trip !== undefined && at < trip.stoppedAt;
  const sec = Math.floor(at / SECOND);
  const noise = (k: number): number => (hash32(w.seed, s.index, sec, k) % 1000) / 1000;
  const fuelLevel = fuelAt(s, at);
  const electric = s.vehicle.energy === 'electric';
  const hourOfDay = new Date(at).getUTCHours() + 1;
  const dayOfYear = Math.floor(at / DAY) % 365;
  const airTemp = round(
    12 +
      8 * Math.sin(((dayOfYear - 100) / 365) * 2 * Math.PI) +
      4 * Math.sin(((hourOfDay - 9) / 24) * 2 * Math.PI),
    1,
  );
  const base: SimTelemetry = {
    at,
    odometer: odometerAt(s, at),
    moving,
    running: moving,
    parkingBrake: !moving,
    airTemp,
    day: hourOfDay >= 7 && hourOfDay < 20,
  };
  // The fuel autonomy is collected every tenth second only.
  const autonomyNow = sec % 10 === 0 ? { autonomy: autonomy(s, fuelLevel) } : {};
  if (!moving || !trip) {
    const last = trip ? trip.stopPosition : s.home;
    return {
      ...base,
      speedKmh: 0,
      fuel: { level: fuelLevel, consumption: 0, ...autonomyNow },
      position: last,
      heading: trip ? trip.stateAt(trip.stoppedAt).heading : 0,
    };
  }
  const st = trip.stateAt(at);
  const elapsedS = (at - trip.startedAt) / SECOND;
  const warm = Math.min(1, elapsedS / 600);
  const prev = trip.stateAt(at - SECOND).speedKmh;
  const turn = noise(5);
  return {
    ...base,
    speedKmh: st.speedKmh,
    engines: [
      {
        coolantTemp: round(20 + 70 * warm + noise(1) * 2, 1),
        oilTemp: round(20 + 80 * warm + noise(2) * 2, 1),
        oilLevel: round(82 + noise(3) * 3, 1),
        speed: electric ? round(st.speedKmh * 95, 0) : round(800 + st.speedKmh * 28 + noise(4) * 150, 0),
        status: 'running',
      },
    ],
    fuel: {
      level: fuelLevel,
      consumption: electric ? 0 : round((trip.avgConsumptionL100 / 100) * (0.6 + noise(6) * 0.8), 4),
      ...autonomyNow,
    },
    seatbeltUnbuckled: false,
    position: st.position,
    heading: st.heading,
    accelerationLongitudinal: round(((st.speedKmh - prev) / 3.6) * 1, 2),
    ...(electric ? {} : { gearRecommended: Math.min(6, Math.max(1, Math.ceil(st.speedKmh / 22))) }),
    ...(turn < 0.03 ? { turnSignal: 'left' as const } : turn > 0.97 ? { turnSignal: 'right' as const } : {}),
    tripId: trip.id,
  };
}
