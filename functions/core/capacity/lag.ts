/**
 * Detection lag predicted from change rates and reads: the model the planner is built on
 * (functions/core/polling/README.md "How a cycle is planned"), as numbers an operator can read.
 *
 * Items are what the planner reads: each vehicle's events feed (its changes per hour) and each
 * vehicle's active alerts (their fixes per hour). A cycle has `reads` requests for them. Each item
 * gets `x` reads a cycle:
 *
 * - `carhook`: the square-root allocation `x = clamp(k √λ, 1 / G, 1)` with `Σ x = reads`, the one
 *   that minimises the mean lag (a read at least every G, at most one a cycle);
 * - `round-robin`: the fair order, every item alike, `x = min(1, reads / items)`;
 * - `naive`: four reads per vehicle per poll, every vehicle alike.
 *
 * A change waits for its item's next read: read every `1 / x` cycles, its lag is uniform over
 * `(0, cycle / x]`. The lag of the fleet's changes is the mixture of those, weighted by the rates:
 * its mean in closed form, its p95 by bisection on the mixture's distribution.
 *
 * Pure: no IO, no clock.
 */
import type { PollStrategy } from '../polling/config';

export interface LagItem {
  /** Changes per hour this item shows (the weight of its lags in the fleet's). */
  readonly perHour: number;
}

export interface Allocation {
  /** Reads per cycle of each item, in the order given (each in [floor, 1]). */
  readonly perCycle: readonly number[];
}

/**
 * The square-root allocation of `reads` over items of rates `perHour`, each between its floor (one
 * for all, or one per item) and one read a cycle (k by bisection). When even the floors do not fit,
 * every item gets its floor.
 */
export function sqrtAllocation(
  perHour: readonly number[],
  reads: number,
  floor: number | readonly number[],
): Allocation {
  const floorOf = (i: number): number =>
    Math.min(1, Math.max(0, typeof floor === 'number' ? floor : (floor[i] ?? 0)));
  const x = (k: number, i: number): number =>
    Math.min(1, Math.max(floorOf(i), k * Math.sqrt(Math.max(0, perHour[i] ?? 0))));
  if (perHour.length === 0) return { perCycle: [] };
  let floors = 0;
  for (let i = 0; i < perHour.length; i++) floors += floorOf(i);
  if (floors >= reads) return { perCycle: perHour.map((_, i) => floorOf(i)) };
  let lo = 0;
  let hi = 1e9;
  for (let n = 0; n < 200; n++) {
    const mid = (lo + hi) / 2;
    let sum = 0;
    for (let i = 0; i < perHour.length; i++) sum += x(mid, i);
    if (sum > reads) hi = mid;
    else lo = mid;
  }
  return { perCycle: perHour.map((_, i) => x(lo, i)) };
}

/** Every item alike: `reads / items` a cycle, at most one. */
export function fairAllocation(count: number, reads: number): Allocation {
  const each = count === 0 ? 0 : Math.min(1, Math.max(0, reads) / count);
  return { perCycle: new Array<number>(count).fill(each) };
}

export interface LagFigures {
  /** Mean lag of a change (ms), weighted by the items' rates. */
  readonly meanMs: number;
  /** 95th percentile (ms). */
  readonly p95Ms: number;
}

/**
 * The mean and p95 of the mixture of uniform lags `(0, cycleMs / x_i]`, weighted by `perHour_i`.
 * Items without reads (x = 0) are never seen: an infinite lag. No rate at all: zeros.
 */
export function mixtureLag(
  perHour: readonly number[],
  allocation: Allocation,
  cycleMs: number,
  quantile = 0.95,
): LagFigures {
  let total = 0;
  for (const e of perHour) total += Math.max(0, e);
  if (total === 0) return { meanMs: 0, p95Ms: 0 };
  const spans: { w: number; t: number }[] = [];
  let mean = 0;
  let longest = 0;
  for (let i = 0; i < perHour.length; i++) {
    const w = Math.max(0, perHour[i] ?? 0) / total;
    if (w === 0) continue;
    const x = allocation.perCycle[i] ?? 0;
    if (!(x > 0)) return { meanMs: Number.POSITIVE_INFINITY, p95Ms: Number.POSITIVE_INFINITY };
    const t = cycleMs / x;
    spans.push({ w, t });
    mean += (w * t) / 2;
    longest = Math.max(longest, t);
  }
  const cdf = (lag: number): number => {
    let f = 0;
    for (const s of spans) f += s.w * Math.min(1, lag / s.t);
    return f;
  };
  let lo = 0;
  let hi = longest;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (cdf(mid) < quantile) lo = mid;
    else hi = mid;
  }
  return { meanMs: mean, p95Ms: hi };
}

/** The allocation a strategy makes of `reads` over the items (`floor`: 1 / G in cycles). */
export function allocate(
  strategy: PollStrategy,
  perHour: readonly number[],
  reads: number,
  floor: number | readonly number[],
  vehicles: number,
): Allocation {
  switch (strategy) {
    case 'carhook':
      return sqrtAllocation(perHour, reads, floor);
    case 'round-robin':
      return fairAllocation(perHour.length, reads);
    case 'naive':
      // Four reads per vehicle's poll, whatever it holds.
      return fairAllocation(perHour.length, vehicles === 0 ? 0 : (reads * perHour.length) / (4 * vehicles));
  }
}
