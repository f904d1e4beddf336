/**
 * Light status, driving assistance and safety assistance. The world's telemetry has no
 * lighting or ADAS signals (the v2 telemetry lists them, SimTelemetry does not carry them), so they are
 * derived from what it has — speed, day/night, air temperature, seat belt — and from the trip's
 * heading, with rare events chosen by a hash of (vehicle, second) so they are deterministic.
 */

import { hashText } from '../../world/prng';
import type { SimTelemetry, SimVehicle, WorldView } from '../../world/types';
import { formatStamp } from '../format';
import { ALL_SECONDS, headingDelta, keysOf, secondAt, series, tripAt, tripHeadingAt } from '../window';

type Series = Record<string, number>;

/** Light keys of the fog lamps in the v1 light status. */
export const FOG_SECONDS: readonly number[] = [30, 41, 60];
/** Heading change over ±2 s (degrees) read as a turn (indicator on). */
export const TURN_DEGREES = 15;

interface Second {
  readonly at: number;
  readonly telemetry: SimTelemetry | undefined;
  readonly moving: boolean;
  readonly speed: number;
  /** km/h lost per second (positive = slowing down). */
  readonly deceleration: number;
  /** Heading change across this second (degrees, signed, ±2 s), 0 off-trip. */
  readonly turn: number;
  /** Turn indicator: the world's own when its telemetry carries one, else read from the heading. */
  readonly signal: 'left' | 'right' | undefined;
}

class Window {
  private readonly cache = new Map<number, Second>();
  constructor(
    private readonly world: WorldView,
    private readonly vehicle: SimVehicle,
    readonly end: number,
  ) {}

  private speedAt(at: number): number {
    const t = this.world.telemetryAt(this.vehicle.id, at);
    return t?.moving ? (t.speedKmh ?? 0) : 0;
  }

  private headingAt(at: number): number | undefined {
    const heading = this.world.telemetryAt(this.vehicle.id, at)?.heading;
    if (heading !== undefined) return heading;
    const trip = tripAt(this.world, this.vehicle, at);
    return trip ? tripHeadingAt(trip, at) : undefined;
  }

  second(k: number): Second {
    const cached = this.cache.get(k);
    if (cached) return cached;
    const at = secondAt(this.end, k);
    const telemetry = this.world.telemetryAt(this.vehicle.id, at);
    const moving = telemetry?.moving === true;
    const speed = moving ? (telemetry?.speedKmh ?? 0) : 0;
    let turn = 0;
    if (moving) {
      const before = this.headingAt(at - 2000);
      const after = this.headingAt(at + 2000);
      if (before !== undefined && after !== undefined) turn = headingDelta(before, after);
    }
    // Telemetry states the longitudinal acceleration in m/s²; without it, the speed difference.
    const acceleration = telemetry?.accelerationLongitudinal;
    const deceleration = acceleration !== undefined ? -acceleration * 3.6 : this.speedAt(at - 1000) - speed;
    const fromHeading = turn > TURN_DEGREES ? 'right' : turn < -TURN_DEGREES ? 'left' : undefined;
    const signal = moving ? (telemetry?.turnSignal ?? fromHeading) : undefined;
    const s: Second = { at, telemetry, moving, speed, deceleration, turn, signal };
    this.cache.set(k, s);
    return s;
  }

  /** A rare event at this second: true about once in `oneIn` seconds. */
  rare(k: number, what: string, oneIn: number): boolean {
    return hashText(`${this.vehicle.id}:${what}:${Math.floor(this.second(k).at / 1000)}`) % oneIn === 0;
  }
}

function bit(on: boolean): number {
  return on ? 1 : 0;
}

function base(vehicle: SimVehicle, end: number) {
  return { vin: vehicle.vin, lastUpdate: formatStamp(end), contract: vehicle.contract };
}

export interface LightStatusRecord {
  fogFront: Series;
  fogRear: Series;
  turnRight: Series;
  turnLeft: Series;
  brakeLight: Series;
  vin: string;
  lastUpdate: string;
  contract: string;
}

/** Fog lamps at night below 5 °C (rear below 0 °C); indicators on turns; brake light when slowing. */
export function renderLightStatus(
  world: WorldView,
  vehicle: SimVehicle,
  end: number,
  requested: readonly number[],
): LightStatusRecord {
  const w = new Window(world, vehicle, end);
  const all = keysOf(ALL_SECONDS, requested);
  const fog = (k: number, below: number) => {
    const s = w.second(k);
    return bit(s.moving && s.telemetry?.day === false && (s.telemetry?.airTemp ?? 20) < below);
  };
  return {
    fogFront: series(keysOf(FOG_SECONDS, requested), (k) => fog(k, 5)),
    fogRear: series(keysOf(FOG_SECONDS, requested), (k) => fog(k, 0)),
    turnRight: series(all, (k) => bit(w.second(k).signal === 'right')),
    turnLeft: series(all, (k) => bit(w.second(k).signal === 'left')),
    brakeLight: series(all, (k) => bit(w.second(k).deceleration > 1)),
    ...base(vehicle, end),
  };
}

export interface DrivingAssistanceRecord {
  autoECall: number;
  afil: Series;
  respectTimeIntVeh: Series;
  survBlindSpot: Series;
  speedInfoPanel: Series;
  rearSoundParkAssist: Series;
  frontSoundParkAssist: Series;
  laneKeepAssistLeft: Series;
  laneKeepAssistRight: Series;
  vin: string;
  lastUpdate: string;
  contract: string;
}

/** Speed limit read on the signs (km/h), from the speed band the vehicle drives in. */
export function speedLimitFor(speed: number): number {
  if (speed <= 35) return 30;
  if (speed <= 55) return 50;
  if (speed <= 85) return 80;
  if (speed <= 95) return 90;
  if (speed <= 115) return 110;
  return 130;
}

/**
 * `autoECall` is 1 when a collision that triggers an emergency call (rollover or a high level on
 * any side) happened inside the window. The series are 1 while the system warns or acts.
 */
export function renderDrivingAssistance(
  world: WorldView,
  vehicle: SimVehicle,
  end: number,
  requested: readonly number[],
): DrivingAssistanceRecord {
  const w = new Window(world, vehicle, end);
  const keys = keysOf(ALL_SECONDS, requested);
  const eCall = world
    .collisions(vehicle.id)
    .some(
      (c) =>
        c.createdAt > end - 60_000 &&
        c.createdAt <= end &&
        (c.rollOver || c.front === 'high' || c.rear === 'high' || c.lateral === 'high'),
    );
  const when = (k: number, test: (speed: number) => boolean, what: string, oneIn: number) => {
    const s = w.second(k);
    return bit(s.moving && test(s.speed) && w.rare(k, what, oneIn));
  };
  return {
    autoECall: bit(eCall),
    afil: series(keys, (k) => when(k, (v) => v >= 70, 'afil', 97)),
    respectTimeIntVeh: series(keys, (k) => when(k, (v) => v >= 50, 'tiv', 41)),
    survBlindSpot: series(keys, (k) => when(k, (v) => v >= 12, 'bsm', 29)),
    speedInfoPanel: series(keys, (k) => {
      const s = w.second(k);
      return s.moving ? speedLimitFor(s.speed) : 0;
    }),
    rearSoundParkAssist: series(keys, (k) => when(k, (v) => v < 8, 'rear-park', 5)),
    frontSoundParkAssist: series(keys, (k) => when(k, (v) => v < 8, 'front-park', 7)),
    laneKeepAssistLeft: series(keys, (k) => when(k, (v) => v >= 65, 'lka-left', 53)),
    laneKeepAssistRight: series(keys, (k) => when(k, (v) => v >= 65, 'lka-right', 59)),
    ...base(vehicle, end),
  };
}

export interface SafetyAssistanceRecord {
  infoBeltSecurity: Series;
  AdEmergencyBrakeSystem: Series;
  abs: Series;
  esp: Series;
  vin: string;
  lastUpdate: string;
  contract: string;
}

/** Belt unbuckled; emergency braking ≥ 15 km/h lost in a second; ABS ≥ 10; ESP on fast sharp turns. */
export function renderSafetyAssistance(
  world: WorldView,
  vehicle: SimVehicle,
  end: number,
  requested: readonly number[],
): SafetyAssistanceRecord {
  const w = new Window(world, vehicle, end);
  const keys = keysOf(ALL_SECONDS, requested);
  return {
    infoBeltSecurity: series(keys, (k) => bit(w.second(k).telemetry?.seatbeltUnbuckled === true)),
    AdEmergencyBrakeSystem: series(keys, (k) => bit(w.second(k).deceleration >= 15)),
    abs: series(keys, (k) => bit(w.second(k).deceleration >= 10)),
    esp: series(keys, (k) => {
      const s = w.second(k);
      return bit(s.speed > 50 && Math.abs(s.turn) > 30);
    }),
    ...base(vehicle, end),
  };
}
