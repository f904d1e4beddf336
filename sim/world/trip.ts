import { ECO_DETAILED, ECO_GLOBAL, ecoEvaluation } from './catalog';
import { bearing, bezier, roundPoint } from './geo';
import type { Rng } from './prng';
import type { EcoScore, GeoPoint, SimEcoDriving, SimTrip, SimWaypoint } from './types';

/** Seconds between two recorded waypoints of a trip. */
export const WAYPOINT_INTERVAL_S = 30;

export interface TripInit {
  readonly id: string;
  readonly v1Id: number;
  readonly vehicleId: string;
  readonly startedAt: number;
  readonly durationS: number;
  readonly distanceKm: number;
  readonly start: GeoPoint;
  readonly stop: GeoPoint;
  /** Bend of the route (control point of the Bézier curve). */
  readonly via: GeoPoint;
  readonly startOdometerKm: number;
  /** Liters burnt (0 for electric drives). */
  readonly fuelConsumptionL: number;
  /** Tank or battery percent used over the trip. */
  readonly drainPct: number;
  readonly refueling: boolean;
  readonly ecodriving: SimEcoDriving;
}

/**
 * A trip. Waypoints are computed on first use from the route, so a world of 1,000 vehicles with
 * weeks of history starts instantly.
 */
export class TripRecord implements SimTrip {
  readonly id: string;
  readonly v1Id: number;
  readonly vehicleId: string;
  readonly startedAt: number;
  readonly stoppedAt: number;
  readonly durationS: number;
  readonly distanceKm: number;
  readonly fuelConsumptionL: number;
  readonly avgConsumptionL100: number;
  readonly avgSpeedKmh: number;
  readonly co2Kg: number;
  readonly refueling: boolean;
  readonly startPosition: GeoPoint;
  readonly stopPosition: GeoPoint;
  readonly startOdometerKm: number;
  readonly ecodriving: SimEcoDriving;
  readonly createdAt: number;
  readonly drainPct: number;
  readonly via: GeoPoint;
  updatedAt: number;
  reference = false;
  fuelPrice?: number;
  private cachedWaypoints?: readonly SimWaypoint[];

  constructor(init: TripInit) {
    this.id = init.id;
    this.v1Id = init.v1Id;
    this.vehicleId = init.vehicleId;
    this.startedAt = init.startedAt;
    this.durationS = init.durationS;
    this.stoppedAt = init.startedAt + init.durationS * 1000;
    this.distanceKm = round(init.distanceKm, 1);
    this.fuelConsumptionL = round(init.fuelConsumptionL, 2);
    this.avgConsumptionL100 =
      init.distanceKm > 0 ? round((init.fuelConsumptionL / init.distanceKm) * 100, 1) : 0;
    this.avgSpeedKmh = round(init.distanceKm / (init.durationS / 3600), 1);
    // ~2.35 kg of CO2 per liter of petrol/diesel burnt.
    this.co2Kg = round(init.fuelConsumptionL * 2.35, 2);
    this.refueling = init.refueling;
    this.startPosition = roundPoint(init.start);
    this.stopPosition = roundPoint(init.stop);
    this.via = init.via;
    this.startOdometerKm = round(init.startOdometerKm, 1);
    this.ecodriving = init.ecodriving;
    this.drainPct = init.drainPct;
    // The record exists once the ignition is off.
    this.createdAt = this.stoppedAt;
    this.updatedAt = this.stoppedAt;
  }

  /** Fraction of the route covered at time fraction f: slow at both ends, ~1.5x average mid-trip. */
  private static progress(f: number): number {
    return f - (0.5 * Math.sin(2 * Math.PI * f)) / (2 * Math.PI);
  }

  /** Where the vehicle is at `at` (clamped to the trip), its heading and speed. */
  stateAt(at: number): { position: GeoPoint; heading: number; speedKmh: number; fraction: number } {
    const f = Math.min(1, Math.max(0, (at - this.startedAt) / (this.durationS * 1000)));
    const s = TripRecord.progress(f);
    const position = bezier(this.startPosition, this.via, this.stopPosition, s);
    const ahead = bezier(this.startPosition, this.via, this.stopPosition, Math.min(1, s + 0.01));
    const behind = bezier(this.startPosition, this.via, this.stopPosition, Math.max(0, s - 0.01));
    const heading = round(bearing(behind, ahead), 1);
    const speedKmh = round(this.avgSpeedKmh * (1 - 0.5 * Math.cos(2 * Math.PI * f)), 1);
    return { position: roundPoint(position), heading, speedKmh, fraction: s };
  }

  get waypoints(): readonly SimWaypoint[] {
    if (!this.cachedWaypoints) {
      const points: SimWaypoint[] = [];
      for (let t = 0; t < this.durationS; t += WAYPOINT_INTERVAL_S) {
        const at = this.startedAt + t * 1000;
        const s = this.stateAt(at);
        points.push({ at, position: s.position, heading: s.heading, speedKmh: s.speedKmh });
      }
      const end = this.stateAt(this.stoppedAt);
      points.push({ at: this.stoppedAt, position: end.position, heading: end.heading, speedKmh: 0 });
      this.cachedWaypoints = points;
    }
    return this.cachedWaypoints;
  }
}

export function round(n: number, digits: number): number {
  const k = 10 ** digits;
  return Math.round(n * k) / k;
}

function score(rng: Rng, base: number, label: string): EcoScore {
  const value = Math.max(0, Math.min(100, Math.round(base + rng.range(-15, 15))));
  return { score: value, ...ecoEvaluation(value), label };
}

export function generateEcoDriving(rng: Rng, base?: number): SimEcoDriving {
  const b = base ?? rng.range(55, 90);
  const g = Object.fromEntries(
    ECO_GLOBAL.map((k) => [k, score(rng, b, k)]),
  ) as unknown as SimEcoDriving['global'];
  const d = Object.fromEntries(
    ECO_DETAILED.map((k) => [k, score(rng, b, k)]),
  ) as unknown as SimEcoDriving['detailed'];
  return { global: g, detailed: d };
}
