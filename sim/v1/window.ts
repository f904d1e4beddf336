/**
 * The 60-second windows behind the v1 series (v1 series are objects keyed by second numbers 1..60),
 * and the world lookups the renderers share.
 */
import type { GeoPoint, SimTrip, SimVehicle, WorldView } from '../world/types';
import { V1Failure } from './failure';

/** Every second of a window. */
export const ALL_SECONDS: readonly number[] = Array.from({ length: 60 }, (_, i) => i + 1);
/** Positions are sampled every 6 s (0.17 Hz): keys 6, 12, …, 60. */
export const POSITION_SECONDS: readonly number[] = Array.from({ length: 10 }, (_, i) => (i + 1) * 6);

/** The natural keys of a series, restricted to the requested seconds when `listsecond` was given. */
export function keysOf(natural: readonly number[], requested: readonly number[] | undefined): number[] {
  if (!requested) return [...natural];
  return natural.filter((k) => requested.includes(k));
}

/** A series object keyed by second numbers; seconds without a value are left out. */
export function series<T>(
  keys: readonly number[],
  value: (second: number) => T | undefined,
): Record<string, T> {
  const out: Record<string, T> = {};
  for (const k of keys) {
    const v = value(k);
    if (v !== undefined) out[String(k)] = v;
  }
  return out;
}

/** Epoch ms of second `k` (1..60) of the window ending at `end` (second 60 is `end` itself). */
export function secondAt(end: number, k: number): number {
  return end - (60 - k) * 1000;
}

/**
 * End of the vehicle's last minute of data: now while a trip is under way, otherwise the later of
 * the last trip's stop and the last collected position. A parked car keeps answering the same
 * window, so its `lastUpdate` does not move between polls.
 */
export function lastDataAt(world: WorldView, vehicle: SimVehicle): number {
  const now = world.now();
  let last = Math.min(vehicle.positionAt, now);
  for (const trip of world.trips(vehicle.id)) {
    if (trip.startedAt <= now) last = Math.max(last, Math.min(trip.stoppedAt, now));
  }
  return Math.floor(last / 1000) * 1000;
}

/** End of the last minute of data on the UTC day [from, to): the stop of that day's last trip. */
export function lastDataOnDay(world: WorldView, vehicle: SimVehicle, from: number, to: number): number {
  const now = world.now();
  let last: number | undefined;
  for (const trip of world.trips(vehicle.id)) {
    if (trip.startedAt >= to || trip.startedAt > now) continue;
    const stop = Math.min(trip.stoppedAt, now, to - 1);
    if (stop < from) continue;
    last = last === undefined ? stop : Math.max(last, stop);
  }
  if (last === undefined) {
    throw new V1Failure('not_found', 'day', `vehicle ${vehicle.vin} has no data on that day`);
  }
  return Math.floor(last / 1000) * 1000;
}

export function tripAt(world: WorldView, vehicle: SimVehicle, at: number): SimTrip | undefined {
  return world.trips(vehicle.id).find((t) => t.startedAt <= at && at <= t.stoppedAt);
}

/** Trip of a vehicle by its numeric v1 id; 404 naming `tripid` otherwise. */
export function tripByV1Id(world: WorldView, vehicle: SimVehicle, v1Id: number): SimTrip {
  const trip = world.trips(vehicle.id).find((t) => t.v1Id === v1Id);
  if (!trip) throw new V1Failure('not_found', 'tripid', `vehicle ${vehicle.vin} has no trip ${v1Id}`);
  return trip;
}

function lerp(a: number, b: number, f: number): number {
  return a + (b - a) * f;
}

/** Position along a trip at `at`, interpolated between waypoints (start/stop when there are none). */
export function tripPositionAt(trip: SimTrip, at: number): GeoPoint {
  const points = [
    { at: trip.startedAt, position: trip.startPosition },
    ...trip.waypoints.map((w) => ({ at: w.at, position: w.position })),
    { at: trip.stoppedAt, position: trip.stopPosition },
  ].sort((a, b) => a.at - b.at);
  let before = points[0];
  for (const p of points) {
    if (p.at > at) {
      if (!before || p.at === before.at) return p.position;
      const f = (at - before.at) / (p.at - before.at);
      return {
        lat: lerp(before.position.lat, p.position.lat, f),
        lon: lerp(before.position.lon, p.position.lon, f),
        alt: lerp(before.position.alt, p.position.alt, f),
      };
    }
    before = p;
  }
  return trip.stopPosition;
}

/** Heading (degrees) at `at`: the last waypoint's at or before it, undefined off-trip. */
export function tripHeadingAt(trip: SimTrip, at: number): number | undefined {
  let heading: number | undefined;
  for (const w of trip.waypoints) {
    if (w.at <= at) heading = w.heading;
    else break;
  }
  return heading ?? trip.waypoints[0]?.heading;
}

/** Signed smallest difference b − a between two headings, in −180..180. */
export function headingDelta(a: number, b: number): number {
  return ((((b - a) % 360) + 540) % 360) - 180;
}

/** Where the vehicle was at `at`: telemetry first, then its trip, then its parking position. */
export function positionAt(world: WorldView, vehicle: SimVehicle, at: number): GeoPoint {
  const telemetry = world.telemetryAt(vehicle.id, at);
  if (telemetry?.position) return telemetry.position;
  const trip = tripAt(world, vehicle, at);
  return trip ? tripPositionAt(trip, at) : vehicle.position;
}
