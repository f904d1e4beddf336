import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, parseDiffConfig } from '../../functions/core/detection/config';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('diff configuration: the defaults, and each field refused by name', () => {
  it('every default, as documented in the detection README', () => {
    expect(DEFAULT_CONFIG).toStrictEqual({
      initialPolicy: 'active-alerts',
      maintenanceDue: { days: 30, mileageKm: 1000 },
      maintenanceResetJump: { days: 30, mileageKm: 1000 },
      ecoDrivingWaitMs: 10 * MINUTE,
      retentionMs: 30 * DAY,
      maxSeen: 200,
      maxFixedAlerts: 50,
      maxPendingTrips: 20,
      eventsOverlapMs: 10 * MINUTE,
      alertsReconcileMs: 6 * HOUR,
      dailyMs: DAY,
      servicesMs: DAY,
      mapMs: DAY,
      absenceConfirmMs: 30_000,
      confirmAbsences: true,
      silenceAfterMs: 2 * DAY,
      maintenanceSettleMs: 10 * MINUTE,
    });
  });

  it('no configuration, undefined or null, is the defaults', () => {
    expect(parseDiffConfig(undefined)).toStrictEqual({ ok: true, config: DEFAULT_CONFIG });
    expect(parseDiffConfig(null)).toStrictEqual({ ok: true, config: DEFAULT_CONFIG });
    expect(parseDiffConfig({})).toStrictEqual({ ok: true, config: DEFAULT_CONFIG });
  });

  it('each initial policy is accepted', () => {
    for (const initialPolicy of ['active-alerts', 'none', 'all'] as const) {
      const r = parseDiffConfig({ initialPolicy });
      expect(r).toStrictEqual({ ok: true, config: { ...DEFAULT_CONFIG, initialPolicy } });
    }
  });

  it('zero is a valid wait, overlap and due threshold; not a valid period, bound or jump', () => {
    const zeros = parseDiffConfig({
      ecoDrivingWaitMs: 0,
      eventsOverlapMs: 0,
      maintenanceDue: { days: 0, mileageKm: 0 },
    });
    expect(zeros).toStrictEqual({
      ok: true,
      config: {
        ...DEFAULT_CONFIG,
        ecoDrivingWaitMs: 0,
        eventsOverlapMs: 0,
        maintenanceDue: { days: 0, mileageKm: 0 },
      },
    });
    for (const field of [
      'retentionMs',
      'maxSeen',
      'maxFixedAlerts',
      'maxPendingTrips',
      'alertsReconcileMs',
      'dailyMs',
    ] as const) {
      const r = parseDiffConfig({ [field]: 0 });
      expect(r.ok, field).toBe(false);
      if (!r.ok) expect(r.errors.map((e) => e.field)).toStrictEqual([`config.${field}`]);
      expect(parseDiffConfig({ [field]: 1 })).toStrictEqual({
        ok: true,
        config: { ...DEFAULT_CONFIG, [field]: 1 },
      });
    }
    const jump = parseDiffConfig({ maintenanceResetJump: { days: 0, mileageKm: 0 } });
    expect(jump.ok).toBe(false);
    if (!jump.ok)
      expect(jump.errors.map((e) => e.field)).toStrictEqual([
        'config.maintenanceResetJump.days',
        'config.maintenanceResetJump.mileageKm',
      ]);
  });

  it('a fraction, a negative number or a string is refused with the field path and a reason', () => {
    const r = parseDiffConfig({ ecoDrivingWaitMs: 1.5, eventsOverlapMs: -1, maxSeen: 'many' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(new Set(r.errors.map((e) => e.field))).toStrictEqual(
      new Set(['config.ecoDrivingWaitMs', 'config.eventsOverlapMs', 'config.maxSeen']),
    );
    for (const e of r.errors) {
      expect(e.kind).toBe('Malformed');
      expect(e.reason.length).toBeGreaterThan(0);
    }
    const nested = parseDiffConfig({ maintenanceDue: { days: 1.5, mileageKm: 1000 } });
    expect(nested.ok ? [] : nested.errors.map((e) => e.field)).toStrictEqual(['config.maintenanceDue.days']);
  });

  it('absence confirmation: 0 ms is a valid delay, a negative one or a non-boolean switch is refused by name', () => {
    expect(parseDiffConfig({ absenceConfirmMs: 0, confirmAbsences: false })).toStrictEqual({
      ok: true,
      config: { ...DEFAULT_CONFIG, absenceConfirmMs: 0, confirmAbsences: false },
    });
    const r = parseDiffConfig({ absenceConfirmMs: -1, confirmAbsences: 'no' });
    expect(r.ok ? [] : r.errors.map((e) => e.field).sort()).toStrictEqual([
      'config.absenceConfirmMs',
      'config.confirmAbsences',
    ]);
  });
});
