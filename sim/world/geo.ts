import type { GeoPoint } from './types';

const EARTH_RADIUS_KM = 6371;
const toRad = (deg: number): number => (deg * Math.PI) / 180;
const toDeg = (rad: number): number => (rad * 180) / Math.PI;

export function distanceKm(a: GeoPoint, b: GeoPoint): number {
  const dLat = toRad(b.lat - a.lat);
  const dLon = toRad(b.lon - a.lon);
  const h =
    Math.sin(dLat / 2) ** 2 + Math.cos(toRad(a.lat)) * Math.cos(toRad(b.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Initial bearing from a to b, degrees clockwise from North in [0, 360). */
export function bearing(a: GeoPoint, b: GeoPoint): number {
  const y = Math.sin(toRad(b.lon - a.lon)) * Math.cos(toRad(b.lat));
  const x =
    Math.cos(toRad(a.lat)) * Math.sin(toRad(b.lat)) -
    Math.sin(toRad(a.lat)) * Math.cos(toRad(b.lat)) * Math.cos(toRad(b.lon - a.lon));
  return (toDeg(Math.atan2(y, x)) + 360) % 360;
}

/** A point `km` away from `p` in direction `deg` (flat-earth approximation, fine for city trips). */
export function offset(p: GeoPoint, km: number, deg: number): GeoPoint {
  const dLat = (km * Math.cos(toRad(deg))) / 111.32;
  const dLon = (km * Math.sin(toRad(deg))) / (111.32 * Math.cos(toRad(p.lat)));
  return { lon: p.lon + dLon, lat: p.lat + dLat, alt: p.alt };
}

/** Quadratic Bézier between a and c with control point b, at parameter s in [0, 1]. */
export function bezier(a: GeoPoint, b: GeoPoint, c: GeoPoint, s: number): GeoPoint {
  const u = 1 - s;
  return {
    lon: u * u * a.lon + 2 * u * s * b.lon + s * s * c.lon,
    lat: u * u * a.lat + 2 * u * s * b.lat + s * s * c.lat,
    alt: u * u * a.alt + 2 * u * s * b.alt + s * s * c.alt,
  };
}

/** Rounds coordinates to ~1 cm so serialized worlds stay short and stable. */
export function roundPoint(p: GeoPoint): GeoPoint {
  return {
    lon: Math.round(p.lon * 1e7) / 1e7,
    lat: Math.round(p.lat * 1e7) / 1e7,
    alt: Math.round(p.alt * 10) / 10,
  };
}
