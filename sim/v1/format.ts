/**
 * Value formats of the version 1 records: digit timestamps in UTC, rounding, unit
 * conversions, and a small hash so "random-looking" values stay deterministic for a given world.
 */

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** `yyyyMMddHHmmss` in UTC: the v1 form of `lastUpdate`, `dateTripBegin` and alert dates. */
export function formatStamp(epochMs: number): string {
  const d = new Date(epochMs);
  return (
    pad(d.getUTCFullYear(), 4) +
    pad(d.getUTCMonth() + 1, 2) +
    pad(d.getUTCDate(), 2) +
    pad(d.getUTCHours(), 2) +
    pad(d.getUTCMinutes(), 2) +
    pad(d.getUTCSeconds(), 2)
  );
}

/** `yyyyMMdd` in UTC. */
export function formatDay(epochMs: number): string {
  return formatStamp(epochMs).slice(0, 8);
}

/** `yyyyMM` in UTC. */
export function formatMonth(epochMs: number): string {
  return formatStamp(epochMs).slice(0, 6);
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export const KM_PER_MILE = 1.609344;
/** Liters per imperial (UK) gallon: `unit=1` is the imperial system, not US customary. */
export const LITERS_PER_IMPERIAL_GALLON = 4.54609;

export function kmToMiles(km: number): number {
  return km / KM_PER_MILE;
}

/** l/100 km → miles per imperial gallon; 0 stays 0 (a trip that burnt nothing has no mpg). */
export function l100ToMpg(l100: number): number {
  if (l100 <= 0) return 0;
  return (100 * LITERS_PER_IMPERIAL_GALLON) / (KM_PER_MILE * l100);
}
