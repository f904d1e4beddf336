import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  guaranteeMs,
  type ReadCandidate,
  type SelectionSettings,
  selectReads,
  stableHash,
} from '../../functions/core/polling/selection';

const MIN = 60_000;
const carhook: SelectionSettings = {
  strategy: 'carhook',
  cycleMs: MIN,
  guaranteeMs: 15 * MIN,
  alertGuaranteeMs: 15 * MIN,
  alertsMinMs: MIN,
};
const roundRobin: SelectionSettings = { ...carhook, strategy: 'round-robin' };

function cand(id: string, over: Partial<ReadCandidate> = {}): ReadCandidate {
  return {
    id,
    hash: Number(id.replace(/\D/g, '')) || 0,
    eventsAgeMs: MIN,
    eventsPerHour: 1,
    fixesPerHour: 0,
    ...over,
  };
}
const picks = (cs: readonly ReadCandidate[], slots: number, s = carhook) =>
  selectReads(cs, slots, s).map((c) => `${(cs[c.index] as ReadCandidate).id}:${c.resource}:${c.reason}`);

describe('the guarantee G', () => {
  it('is the bound, or twice a fair round when that is longer', () => {
    // 400 vehicles at 106 reads a cycle: 2 × 400 / 106 = 7.5 → 8 cycles < 15 min.
    expect(guaranteeMs(15 * MIN, 400, 106, MIN)).toBe(15 * MIN);
    // 800: 15.09 → 16 cycles.
    expect(guaranteeMs(15 * MIN, 800, 106, MIN)).toBe(16 * MIN);
    expect(guaranteeMs(15 * MIN, 795, 106, MIN)).toBe(15 * MIN);
    expect(guaranteeMs(15 * MIN, 796, 106, MIN)).toBe(16 * MIN);
    expect(guaranteeMs(15 * MIN, 10, 0, MIN)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('selectReads', () => {
  it('carhook: highest rate × age² first, ties by hash, one read per slot', () => {
    const cs = [
      cand('v1', { eventsAgeMs: 2 * MIN, eventsPerHour: 1 }), // 1 × 4 = 4
      cand('v2', { eventsAgeMs: MIN, eventsPerHour: 3 }), // 3 × 1 = 3
      cand('v3', { eventsAgeMs: 4 * MIN, eventsPerHour: 0.25 }), // 0.25 × 16 = 4 (tie with v1, hash 3 > 1)
      cand('v4', { eventsAgeMs: 3 * MIN, eventsPerHour: 0.5 }), // 4.5
    ];
    expect(picks(cs, 3)).toEqual(['v4:events:index', 'v1:events:index', 'v3:events:index']);
    expect(picks(cs, 10)).toEqual([
      'v4:events:index',
      'v1:events:index',
      'v3:events:index',
      'v2:events:index',
    ]);
    expect(picks(cs, 0)).toEqual([]);
    expect(picks(cs, -1)).toEqual([]);
  });

  it('round-robin: the oldest events first whatever the rates, active alerts read with them', () => {
    const cs = [
      cand('v1', { eventsAgeMs: 2 * MIN, eventsPerHour: 100 }),
      cand('v2', { eventsAgeMs: 5 * MIN, alertsAgeMs: 5 * MIN, fixesPerHour: 0.01 }),
      cand('v3', { eventsAgeMs: 4 * MIN }),
    ];
    expect(picks(cs, 3, roundRobin)).toEqual(['v2:events:index', 'v2:alerts:index', 'v3:events:index']);
    // One slot: v2 needs two, so the next vehicle that fits goes instead.
    expect(picks(cs, 1, roundRobin)).toEqual(['v3:events:index']);
  });

  it('carhook: an active alert competes on its fix rate × age², against events', () => {
    const cs = [
      cand('v1', { eventsAgeMs: 2 * MIN, eventsPerHour: 1, alertsAgeMs: 3 * MIN, fixesPerHour: 1 }), // 4 vs 9
      cand('v2', { eventsAgeMs: 2 * MIN, eventsPerHour: 2 }), // 8
    ];
    expect(picks(cs, 2)).toEqual(['v1:alerts:index', 'v2:events:index']);
    expect(picks(cs, 3)).toEqual(['v1:alerts:index', 'v2:events:index', 'v1:events:index']);
  });

  it('forces a read that would pass its bound by the next cycle, before any index (both sides of the bound)', () => {
    const cs = [
      cand('v1', { eventsAgeMs: 14 * MIN, eventsPerHour: 0 }), // 14 + 1 = 15: not past 15
      cand('v2', { eventsAgeMs: 14 * MIN + 1, eventsPerHour: 0 }), // past: forced
      cand('v3', { eventsAgeMs: MIN, eventsPerHour: 1000 }),
      cand('v4', { eventsAgeMs: MIN, alertsAgeMs: 14 * MIN + 1, fixesPerHour: 0 }),
    ];
    expect(picks(cs, 2)).toEqual(['v2:events:guarantee', 'v4:alerts:guarantee']);
    expect(picks(cs, 4)).toEqual([
      'v2:events:guarantee',
      'v4:alerts:guarantee',
      'v3:events:index',
      'v4:events:index', // rate 1 × (1/60 h)² > v1's rate 0
    ]);
    // The most overdue first when the forced reads do not all fit.
    const late = [cand('a1', { eventsAgeMs: 20 * MIN }), cand('a2', { eventsAgeMs: 30 * MIN })];
    expect(picks(late, 1)).toEqual(['a2:events:guarantee']);
  });

  it('never reads one resource twice in a cycle: events read under half a cycle ago, alerts under activeAlertsEveryMs', () => {
    const cs = [
      cand('v1', { eventsAgeMs: MIN / 2 - 1, alertsAgeMs: 5 * MIN - MIN / 2 - 1, fixesPerHour: 1 }),
      cand('v2', { eventsAgeMs: MIN / 2, alertsAgeMs: 5 * MIN - MIN / 2, fixesPerHour: 1 }),
    ];
    const s = { ...carhook, alertsMinMs: 5 * MIN };
    expect(picks(cs, 10, s)).toEqual(['v2:alerts:index', 'v2:events:index']);
  });

  it('carhook, with no read forced: exactly the best offers of the fleet, best first, whatever the fleet order (property)', () => {
    // The index stated plainly: every due read scored rate × age² (hours), highest first, ties by
    // the vehicle's hash, then its alerts before its events; the first `slots` of that order.
    const candidate = fc.record({
      eventsAgeMs: fc.integer({ min: 0, max: 13 * MIN }),
      alertsAgeMs: fc.option(fc.integer({ min: 0, max: 13 * MIN }), { nil: undefined }),
      eventsPerHour: fc.integer({ min: 0, max: 6 }).map((n) => n / 2),
      fixesPerHour: fc.integer({ min: 0, max: 6 }).map((n) => n / 2),
    });
    fc.assert(
      fc.property(fc.array(candidate, { maxLength: 60 }), fc.integer({ min: 1, max: 20 }), (raw, slots) => {
        const cs: ReadCandidate[] = raw.map((r, i) => {
          const { alertsAgeMs, ...rest } = r;
          return {
            id: `v${i}`,
            hash: stableHash(`v${i}`),
            ...rest,
            ...(alertsAgeMs !== undefined ? { alertsAgeMs } : {}),
          };
        });
        const H = 3_600_000;
        const offers = cs.flatMap((c, i) => [
          ...(c.eventsAgeMs >= MIN / 2
            ? [
                {
                  key: `${i}:events`,
                  score: c.eventsPerHour * (c.eventsAgeMs / H) ** 2,
                  hash: c.hash,
                  alerts: 0,
                },
              ]
            : []),
          ...(c.alertsAgeMs !== undefined && c.alertsAgeMs >= MIN / 2
            ? [
                {
                  key: `${i}:alerts`,
                  score: c.fixesPerHour * (c.alertsAgeMs / H) ** 2,
                  hash: c.hash,
                  alerts: 1,
                },
              ]
            : []),
        ]);
        offers.sort((a, b) => b.score - a.score || a.hash - b.hash || b.alerts - a.alerts);
        const chosen = selectReads(cs, slots, carhook);
        expect(chosen.every((c) => c.reason === 'index')).toBe(true);
        expect(chosen.map((c) => `${c.index}:${c.resource}`)).toEqual(
          offers.slice(0, slots).map((o) => o.key),
        );
      }),
    );
  });

  it('round-robin, with no read forced: the oldest events of a large fleet, oldest first, whatever the fleet order', () => {
    // 30 vehicles, ages 1..30 minutes in a shuffled order, 4 slots: the four oldest.
    const ages = [
      17, 3, 29, 8, 22, 11, 30, 1, 25, 14, 6, 19, 27, 2, 9, 24, 13, 5, 28, 16, 10, 21, 4, 26, 12, 7, 20, 15,
      23, 18,
    ];
    const cs = ages.map((m, i) => cand(`v${i + 1}`, { eventsAgeMs: (m * MIN) / 3, eventsPerHour: 30 - m }));
    expect(picks(cs, 4, roundRobin)).toEqual([
      'v7:events:index',
      'v3:events:index',
      'v19:events:index',
      'v13:events:index',
    ]);
  });

  it('never books more than its slots, never the same read twice, guarantees first (property)', () => {
    const candidate = fc.record({
      eventsAgeMs: fc.integer({ min: 0, max: 40 * MIN }),
      alertsAgeMs: fc.option(fc.integer({ min: 0, max: 40 * MIN }), { nil: undefined }),
      eventsPerHour: fc.double({ min: 0, max: 50, noNaN: true }),
      fixesPerHour: fc.double({ min: 0, max: 50, noNaN: true }),
    });
    fc.assert(
      fc.property(
        fc.array(candidate, { maxLength: 60 }),
        fc.integer({ min: 0, max: 130 }),
        fc.constantFrom(carhook, roundRobin),
        (raw, slots, s) => {
          const cs = raw.map((r, i) => {
            const { alertsAgeMs, ...rest } = r;
            return {
              id: `v${i}`,
              hash: stableHash(`v${i}`),
              ...rest,
              ...(alertsAgeMs !== undefined ? { alertsAgeMs } : {}),
            };
          });
          const chosen = selectReads(cs, slots, s);
          expect(chosen.length).toBeLessThanOrEqual(slots);
          const keys = chosen.map((c) => `${c.index}:${c.resource}`);
          expect(new Set(keys).size).toBe(keys.length);
          const firstIndex = chosen.findIndex((c) => c.reason === 'index');
          if (firstIndex >= 0) expect(chosen.slice(firstIndex).every((c) => c.reason === 'index')).toBe(true);
          for (const c of chosen) {
            if (c.resource === 'alerts') expect(cs[c.index]?.alertsAgeMs).toBeDefined();
          }
          // Every read forced by its bound is taken when the slots allow them all.
          const forced = cs.flatMap((c, i) => [
            ...(c.eventsAgeMs + MIN > s.guaranteeMs ? [`${i}:events`] : []),
            ...(c.alertsAgeMs !== undefined && c.alertsAgeMs + MIN > s.alertGuaranteeMs
              ? [`${i}:alerts`]
              : []),
          ]);
          if (forced.length <= slots) for (const f of forced) expect(keys).toContain(f);
          // With slots for everything, every due read is taken (carhook fills the budget).
          if (s.strategy === 'carhook' && slots >= 2 * cs.length) {
            const due = cs.filter((c) => c.eventsAgeMs >= MIN / 2).length;
            expect(chosen.filter((c) => c.resource === 'events')).toHaveLength(due);
          }
        },
      ),
    );
  });
});

describe('stableHash', () => {
  it('is FNV-1a 32 bits', () => {
    expect(stableHash('')).toBe(0x811c9dc5);
    expect(stableHash('a')).toBe(0xe40c292c);
    expect(stableHash('foobar')).toBe(0xbf9cf968);
  });
});
