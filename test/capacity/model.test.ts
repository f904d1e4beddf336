import { describe, expect, it } from 'vitest';
import { fairAllocation, mixtureLag, sqrtAllocation } from '../../functions/core/capacity/lag';
import {
  type CapacityVehicle,
  predictFleet,
  quotaForTarget,
  vehiclesThatFit,
} from '../../functions/core/capacity/model';
import { capacityReport } from '../../functions/core/capacity/report';
import { DEFAULT_POLLING_CONFIG, type PollingConfig } from '../../functions/core/polling/config';

const MINUTE = 60_000;
const quota = { limit: 120, windowMs: MINUTE, safetyMargin: 0.1 };
const fleet = (n: number, perHour = 0.35): CapacityVehicle[] =>
  Array.from({ length: n }, () => ({ eventsPerHour: perHour, alertFixesPerHour: 0 }));
const fair: PollingConfig = { ...DEFAULT_POLLING_CONFIG, strategy: 'round-robin' };

describe('the lag model', () => {
  it('allocates the reads by the square root of the rates, between the floor and one a cycle', () => {
    const { perCycle } = sqrtAllocation([1, 4, 16, 0], 2, 0.1);
    expect(perCycle.reduce((a, b) => a + b, 0)).toBeCloseTo(2, 6);
    expect(perCycle[3]).toBe(0.1);
    // Twice the square root: twice the reads, under the one-a-cycle cap.
    expect((perCycle[1] as number) / (perCycle[0] as number)).toBeCloseTo(2, 6);
    expect(perCycle[2]).toBe(1);
    // Floors that do not fit: every item at its floor.
    expect(sqrtAllocation([1, 1, 1], 0.1, [0.2, 0.3, 0.5]).perCycle).toEqual([0.2, 0.3, 0.5]);
    expect(fairAllocation(4, 2).perCycle).toEqual([0.5, 0.5, 0.5, 0.5]);
    expect(fairAllocation(4, 10).perCycle).toEqual([1, 1, 1, 1]);
  });

  it('gives the mean and p95 of uniform waits, mixed by the rates', () => {
    // Read every cycle: a change waits up to one cycle.
    expect(mixtureLag([1], { perCycle: [1] }, MINUTE)).toEqual({
      meanMs: 30_000,
      p95Ms: expect.closeTo(57_000, 0),
    });
    const two = mixtureLag([1, 1], { perCycle: [1, 0.5] }, MINUTE);
    expect(two.meanMs).toBe(45_000);
    // F(t) = ½ min(1, t/60) + ½ t/120 = 0.95 → t = 108 s.
    expect(two.p95Ms).toBeCloseTo(108_000, 0);
    expect(mixtureLag([1], { perCycle: [0] }, MINUTE).meanMs).toBe(Number.POSITIVE_INFINITY);
    expect(mixtureLag([], { perCycle: [] }, MINUTE)).toEqual({ meanMs: 0, p95Ms: 0 });
  });
});

describe('the capacity model', () => {
  it('predicts the fair order: 200 vehicles over 106 reads a cycle, G of 15 min', () => {
    const p = predictFleet(fleet(200), quota, fair);
    expect([p.budgetPerCycle, p.reservePerCycle, p.readsPerCycle]).toEqual([108, 2, 106]);
    expect(p.eventsGuaranteeMs).toBe(15 * MINUTE);
    expect(p.kinds.trips.guaranteeMs).toBe(16 * MINUTE);
    expect(p.kinds.trips.meanMs).toBeCloseTo(((200 / 106) * MINUTE) / 2, 3);
    expect(p.kinds.trips.p95Ms).toBeCloseTo(0.95 * (200 / 106) * MINUTE, 0);
    // Services: a daily read, and one cycle to confirm.
    expect(p.kinds.services).toEqual({
      guaranteeMs: 36 * 60 * MINUTE + MINUTE,
      meanMs: 12 * 60 * MINUTE + MINUTE,
      p95Ms: expect.closeTo(0.95 * 24 * 60 * MINUTE + MINUTE, 0),
    });
  });

  it('grows the guarantee past 15 min when twice a fair round is longer', () => {
    // 2 × 800 / 106 = 15.1 cycles: 16 min.
    expect(predictFleet(fleet(800), quota, fair).eventsGuaranteeMs).toBe(16 * MINUTE);
  });

  it('carhook reads busier vehicles more often: a lower mean than the fair order on a skewed fleet', () => {
    const skewed = [...fleet(100, 0.05), ...fleet(100, 3)];
    const carhook = predictFleet(skewed, quota, DEFAULT_POLLING_CONFIG).all.meanMs;
    const rr = predictFleet(skewed, quota, fair).all.meanMs;
    expect(carhook).toBeLessThan(0.8 * rr);
  });

  it('says how many vehicles like these fit a target, and the quota a target needs', () => {
    // p95 = 0.95 × 60 s × N / 106 ≤ 120 s → N ≤ 223.
    expect(
      vehiclesThatFit({ vehicles: fleet(100), quota, settings: fair, kind: 'trips', targetMs: 120_000 }),
    ).toBe(223);
    // Already missed: the same 223 fit, fewer than the fleet.
    expect(
      vehiclesThatFit({ vehicles: fleet(500), quota, settings: fair, kind: 'trips', targetMs: 120_000 }),
    ).toBe(223);
    // Not even one vehicle meets a target shorter than a cycle allows.
    expect(
      vehiclesThatFit({ vehicles: fleet(500), quota, settings: fair, kind: 'trips', targetMs: 50_000 }),
    ).toBe(0);
    // 200 vehicles within 61 s: 187 reads, so a budget of 190, so 212 requests a minute.
    expect(
      quotaForTarget({ vehicles: fleet(200), quota, settings: fair, kind: 'trips', targetMs: 61_000 }),
    ).toBe(212);
    // Shorter than a cycle allows: no quota meets it.
    expect(
      quotaForTarget({ vehicles: fleet(200), quota, settings: fair, kind: 'trips', targetMs: 50_000 }),
    ).toBeUndefined();
    // Not bound by the quota, or nothing to be like.
    expect(
      vehiclesThatFit({ vehicles: fleet(10), quota, settings: fair, kind: 'map', targetMs: 1000 }),
    ).toBeUndefined();
    expect(
      vehiclesThatFit({ vehicles: [], quota, settings: fair, kind: 'trips', targetMs: 1000 }),
    ).toBeUndefined();
  });

  it('reports every kind, and for a kind with a target whether it is met', () => {
    const r = capacityReport({
      now: Date.UTC(2026, 0, 5, 12),
      vehicles: fleet(100),
      quota,
      config: fair,
      targets: { trips: 120_000, maintenance: 30_000 },
    });
    expect(r.at).toBe('2026-01-05T12:00:00.000Z');
    expect(r.kinds.map((k) => k.kind)).toEqual([
      'alerts',
      'trips',
      'collisions',
      'fuel',
      'maintenance',
      'services',
      'map',
    ]);
    expect(r.kinds.find((k) => k.kind === 'trips')?.target).toEqual({
      s: 120,
      met: true,
      vehiclesThatFit: 223,
      moreVehicles: 123,
      quotaForTarget: 54,
    });
    expect(r.kinds.find((k) => k.kind === 'maintenance')?.target).toMatchObject({
      met: false,
      vehiclesThatFit: 0,
      moreVehicles: -100,
      quotaForTarget: null,
    });
    expect(r.quota).toEqual({
      limit: 120,
      windowSeconds: 60,
      cycleSeconds: 60,
      budgetPerCycle: 108,
      reservePerCycle: 2,
      readsPerCycle: 106,
    });
  });
});
