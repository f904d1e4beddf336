/** Small numeric helpers shared by the benchmarks. */

/** Nearest-rank percentile of an ascending array; NaN when empty. Infinity entries stay Infinity. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}

export const round = (n: number, digits = 2): number =>
  Number.isFinite(n) ? Math.round(n * 10 ** digits) / 10 ** digits : n;

/** Deterministic PRNG (the simulator's mulberry32): the same script for both strategies. */
export { mulberry32 as rng } from '../../sim/world/prng';

/** Seconds for a table: `12.3 s`, `∞` when never seen. */
export const fmtSeconds = (s: number): string =>
  Number.isFinite(s) ? `${round(s, 1)} s` : Number.isNaN(s) ? 'n/a' : 'not detected';
