/**
 * Which reads one cycle's budget buys (README "How a cycle is planned"). Pure and linear but for
 * one sort, so a 10,000-vehicle cycle is planned in milliseconds (bench: planMsP99).
 *
 * Two kinds of read compete for the slots: a vehicle's events (they reveal every change but alert
 * fixes) and the alerts of a vehicle with alerts known active (only they reveal a fix).
 *
 * 1. Guarantees first: the events of a vehicle whose last poll left work waiting (`waiting`), then
 *    a read whose age would pass its bound before the next cycle (events: `guaranteeMs`; active
 *    alerts: `alertGuaranteeMs`), the most overdue first. Never more than the slots.
 * 2. Then, `carhook`: the highest index first, index = rate × age². For a Poisson stream of rate λ
 *    read every I, the changes waiting at a read have waited λI²/2 in total; reading the item whose
 *    waiting total is largest, again and again, makes every item reach the same index at its read,
 *    λI² = θ, so I ∝ 1/√λ: the square-root allocation that minimises the mean detection delay for
 *    a fixed number of reads (Cho & Garcia-Molina; Sia, Cho & Cho), without solving for θ.
 *    `round-robin`: the oldest events first (a fixed order), active alerts read with them.
 * A read is never made twice in one cycle (a cap of one read per cycle and resource): the index
 * of an item read less than half a cycle ago (or, for alerts, less than `alertsMinMs` ago) is not
 * offered.
 */

/** One v2 vehicle as the selection sees it. */
export interface ReadCandidate {
  readonly id: string;
  /** A stable hash of the id: the fixed order of ties (and of round-robin). */
  readonly hash: number;
  /** Ms since its events were last read. */
  readonly eventsAgeMs: number;
  /** Ms since its alerts were last read; undefined when no alert is known active. */
  readonly alertsAgeMs?: number;
  /** Changes per hour its events reveal (learned). */
  readonly eventsPerHour: number;
  /** Expected alert fixes per hour (alerts active × fix rate per alert). */
  readonly fixesPerHour: number;
  /**
   * A poll left work waiting (a held trip, a read the budget refused) since its events were last booked:
   * its events are read this cycle, before any other read (a guarantee of one cycle).
   */
  readonly waiting?: boolean;
}

export interface SelectionSettings {
  readonly strategy: 'carhook' | 'round-robin';
  readonly cycleMs: number;
  readonly guaranteeMs: number;
  readonly alertGuaranteeMs: number;
  readonly alertsMinMs: number;
}

/** One read chosen: in the order they were chosen (forced first, then by index). */
export interface ChosenRead {
  readonly index: number;
  readonly resource: 'events' | 'alerts';
  /** Why: `guarantee` (forced by a bound) or `index`. */
  readonly reason: 'guarantee' | 'index';
}

/**
 * The guarantee of one kind of read: the bound itself, or twice the length of a fair round over
 * `count` items at `perCycle` reads a cycle when that is longer (so forced reads never take more
 * than about half the budget, and the rest stays for the index).
 */
export function guaranteeMs(boundMs: number, count: number, perCycle: number, cycleMs: number): number {
  if (perCycle <= 0) return Number.POSITIVE_INFINITY;
  return Math.max(boundMs, Math.ceil((2 * count) / perCycle) * cycleMs);
}

/**
 * Up to `slots` reads among `candidates`. Returns them in booking order; never more than `slots`,
 * never one resource of one vehicle twice.
 */
export function selectReads(
  candidates: readonly ReadCandidate[],
  slots: number,
  s: SelectionSettings,
): ChosenRead[] {
  const out: ChosenRead[] = [];
  if (slots <= 0) return out;
  const taken = new Uint8Array(candidates.length); // bit 1: events, bit 2: alerts
  const alertsDue = (c: ReadCandidate): boolean =>
    c.alertsAgeMs !== undefined && c.alertsAgeMs >= Math.max(s.alertsMinMs, s.cycleMs) - s.cycleMs / 2;
  const eventsDue = (c: ReadCandidate): boolean => c.eventsAgeMs >= s.cycleMs / 2;

  // 1. Guarantees: reads that would be older than their bound at the next cycle.
  const forced: { i: number; r: 'events' | 'alerts'; over: number }[] = [];
  candidates.forEach((c, i) => {
    if (c.waiting === true) {
      // Work already seen and not yet told: first of all (cheap, and few).
      forced.push({ i, r: 'events', over: Number.MAX_VALUE });
    } else if (c.eventsAgeMs + s.cycleMs > s.guaranteeMs) {
      forced.push({ i, r: 'events', over: c.eventsAgeMs / s.guaranteeMs });
    }
    if (c.alertsAgeMs !== undefined && c.alertsAgeMs + s.cycleMs > s.alertGuaranteeMs) {
      forced.push({ i, r: 'alerts', over: c.alertsAgeMs / s.alertGuaranteeMs });
    }
  });
  forced.sort(
    (a, b) =>
      b.over - a.over ||
      (candidates[a.i] as ReadCandidate).hash - (candidates[b.i] as ReadCandidate).hash ||
      (a.r < b.r ? -1 : a.r > b.r ? 1 : 0),
  );
  for (const f of forced) {
    if (out.length >= slots) return out;
    const bit = f.r === 'events' ? 1 : 2;
    taken[f.i] = (taken[f.i] as number) | bit;
    out.push({ index: f.i, resource: f.r, reason: 'guarantee' });
  }

  // 2. The index: the best `k` offers (a bounded heap: n log k, no sort of the whole fleet).
  const HOUR = 3_600_000;
  const k = s.strategy === 'round-robin' ? 2 * slots : slots;
  // An offer is `2 × candidate + (0: events | 1: alerts)`; its score in `score`.
  const score = new Float64Array(2 * candidates.length);
  const better = (a: number, b: number): boolean => {
    const sa = score[a] as number;
    const sb = score[b] as number;
    if (sa !== sb) return sa > sb;
    const ha = (candidates[a >> 1] as ReadCandidate).hash;
    const hb = (candidates[b >> 1] as ReadCandidate).hash;
    if (ha !== hb) return ha < hb;
    return (a & 1) > (b & 1); // alerts before events on a full tie
  };
  const heap: number[] = []; // worst of the kept offers at the root
  const siftDown = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let w = i;
      if (l < heap.length && better(heap[w] as number, heap[l] as number)) w = l;
      if (r < heap.length && better(heap[w] as number, heap[r] as number)) w = r;
      if (w === i) return;
      [heap[i], heap[w]] = [heap[w] as number, heap[i] as number];
      i = w;
    }
  };
  const offer = (o: number): void => {
    if (heap.length < k) {
      heap.push(o);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!better(heap[parent] as number, heap[i] as number)) break;
        [heap[i], heap[parent]] = [heap[parent] as number, heap[i] as number];
        i = parent;
      }
    } else if (k > 0 && better(o, heap[0] as number)) {
      heap[0] = o;
      siftDown(0);
    }
  };
  for (let i = 0; i < candidates.length; i++) {
    const c = candidates[i] as ReadCandidate;
    const t = taken[i] as number;
    if (!(t & 1) && eventsDue(c)) {
      const ageH = c.eventsAgeMs / HOUR;
      score[2 * i] = s.strategy === 'carhook' ? c.eventsPerHour * ageH * ageH : c.eventsAgeMs;
      offer(2 * i);
    }
    // round-robin reads active alerts together with the events (below), not on an index.
    if (s.strategy === 'carhook' && !(t & 2) && alertsDue(c)) {
      const ageH = (c.alertsAgeMs as number) / HOUR;
      score[2 * i + 1] = c.fixesPerHour * ageH * ageH;
      offer(2 * i + 1);
    }
  }
  const best = heap.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
  for (const o of best) {
    if (out.length >= slots) break;
    const i = o >> 1;
    const c = candidates[i] as ReadCandidate;
    if (s.strategy === 'round-robin') {
      // Active alerts in turn with the events: both reads, or the next vehicle that fits.
      const withAlerts = !((taken[i] as number) & 2) && alertsDue(c);
      if (withAlerts && out.length + 2 > slots) continue;
      out.push({ index: i, resource: 'events', reason: 'index' });
      if (withAlerts) out.push({ index: i, resource: 'alerts', reason: 'index' });
      continue;
    }
    out.push({ index: i, resource: o & 1 ? 'alerts' : 'events', reason: 'index' });
  }
  return out;
}

/** FNV-1a, 32 bits: a cheap stable hash for orders and phases (not for security). */
export function stableHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
