import { describe, expect, it } from 'vitest';
import {
  decideFreshness,
  FRESHNESS_TELL_EVERY_MS,
  type FreshnessMemory,
  type KindFreshness,
} from '../../functions/core/capacity/freshness';

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T08:00:00Z');

const alerts = (p95Min: number | null, extra: Partial<KindFreshness> = {}): KindFreshness => ({
  kind: 'alerts',
  targetMs: 5 * MIN,
  predictedP95Ms: p95Min === null ? null : p95Min * MIN,
  guaranteeMs: 15 * MIN,
  vehicles: 400,
  quotaForTarget: 240,
  ...extra,
});

/** Runs checks in order, each at its minute after T0; returns every signal's type and minute. */
function run(checks: readonly [minute: number, kinds: readonly KindFreshness[]][]) {
  let memory: FreshnessMemory = {};
  const told: string[] = [];
  for (const [minute, kinds] of checks) {
    const r = decideFreshness(memory, kinds, T0 + minute * MIN);
    memory = r.memory;
    for (const s of r.signals) told.push(`${minute} ${s.type} ${s.freshness.kind}`);
  }
  return told;
}

describe('freshness at risk and restored', () => {
  it('tells nothing while the predicted p95 stays within the target', () => {
    expect(
      run([
        [0, [alerts(2)]],
        [1, [alerts(4.9)]],
        [2, [alerts(5)]],
      ]),
    ).toEqual([]);
  });

  it('tells at_risk once when the p95 passes the target, restored once when it is back', () => {
    expect(
      run([
        [0, [alerts(4)]],
        [1, [alerts(6)]],
        [2, [alerts(7)]],
        [3, [alerts(6)]],
        [90, [alerts(3)]],
        [91, [alerts(3)]],
      ]),
    ).toEqual(['1 carhook.freshness.at_risk alerts', '90 carhook.freshness.restored alerts']);
  });

  it('a measured p95 past the target puts the kind at risk even when the model says it is met', () => {
    expect(
      run([
        [0, [alerts(3, { measuredP95Ms: 6 * MIN })]],
        [1, [alerts(3)]],
      ]),
    ).toEqual(['0 carhook.freshness.at_risk alerts', '1 carhook.freshness.restored alerts']);
  });

  it('a measured p95 within the target, or equal to it, puts nothing at risk', () => {
    expect(
      run([
        [0, [alerts(2, { measuredP95Ms: 4 * MIN })]],
        [5, [alerts(2, { measuredP95Ms: 5 * MIN })]],
        [10, [alerts(2, { measuredP95Ms: 5 * MIN + 1 })]],
      ]),
    ).toEqual(['10 carhook.freshness.at_risk alerts']);
  });

  it('a kind no read is left for (p95 never) is at risk', () => {
    expect(run([[0, [alerts(null)]]])).toEqual(['0 carhook.freshness.at_risk alerts']);
  });

  it('never more than one pair per kind per hour: a flapping kind is told again once the hour has passed', () => {
    expect(
      run([
        [0, [alerts(6)]],
        [10, [alerts(4)]],
        [20, [alerts(6)]],
        [30, [alerts(4)]],
        [40, [alerts(6)]],
        [59, [alerts(6)]],
        [60, [alerts(6)]],
        [70, [alerts(4)]],
      ]),
    ).toEqual([
      '0 carhook.freshness.at_risk alerts',
      '10 carhook.freshness.restored alerts',
      '60 carhook.freshness.at_risk alerts',
      '70 carhook.freshness.restored alerts',
    ]);
    expect(FRESHNESS_TELL_EVERY_MS).toBe(60 * MIN);
  });

  it("keeps a kind's memory while it has no target: its at-risk stands, restored when met again", () => {
    expect(
      run([
        [0, [alerts(9)]],
        // The alerts target removed for two hours, then set again, still at risk: nothing new.
        [60, []],
        [120, [alerts(9)]],
        [125, [alerts(4)]],
      ]),
    ).toEqual(['0 carhook.freshness.at_risk alerts', '125 carhook.freshness.restored alerts']);
  });

  it('a clock set back does not hold an at-risk back: a told time in the future does not count', () => {
    const memory: FreshnessMemory = { alerts: { atRisk: false, toldAt: T0 + 30 * MIN } };
    const r = decideFreshness(memory, [alerts(9)], T0);
    expect(r.signals.map((x) => x.type)).toEqual(['carhook.freshness.at_risk']);
    expect(r.memory).toEqual({ alerts: { atRisk: true, toldAt: T0 } });
  });

  it('each kind on its own', () => {
    const maintenance = (p95Min: number): KindFreshness => ({
      ...alerts(p95Min),
      kind: 'maintenance',
      targetMs: 60 * MIN,
    });
    expect(
      run([
        [0, [alerts(6), maintenance(30)]],
        [5, [alerts(6), maintenance(61)]],
        [6, [alerts(4), maintenance(61)]],
      ]),
    ).toEqual([
      '0 carhook.freshness.at_risk alerts',
      '5 carhook.freshness.at_risk maintenance',
      '6 carhook.freshness.restored alerts',
    ]);
  });

  it('a restored carries when its at-risk was told, and the figures of the check', () => {
    const first = decideFreshness({}, [alerts(6)], T0);
    const second = decideFreshness(first.memory, [alerts(4)], T0 + 20 * MIN);
    expect(second.signals).toEqual([
      { type: 'carhook.freshness.restored', at: T0 + 20 * MIN, freshness: alerts(4), atRiskSince: T0 },
    ]);
  });
});
