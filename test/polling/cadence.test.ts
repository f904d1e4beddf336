/**
 * Per-resource cadences: services and map updates are read every `servicesIntervalMs` /
 * `mapIntervalMs` (daily by default; `--services-interval`, `--map-interval`), independently of
 * maintenance.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_POLLING_CONFIG,
  type PollVehicleJob,
  parsePollingConfig,
  plan,
} from '../../functions/core/polling';
import { diffConfigFor } from '../../functions/core/polling/config';
import type { VehicleRecord } from '../../functions/core/store/records';

const T0 = Date.parse('2026-01-15T09:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const MIN = 60_000;
const DAY = 24 * 60 * MIN;

function vehicle(polledAgoMs: number): VehicleRecord {
  const at = iso(T0 - polledAgoMs);
  return {
    id: 'a',
    enrollmentId: 'enr_1',
    vin: 'VC2BS85NADMNYAMM1',
    apiVehicleId: 'a',
    paused: false,
    nextPollAt: iso(T0 - MIN),
    lastPolledAt: iso(T0 - MIN),
    hints: { activeAlerts: false, priority: 0 },
    resourcePolledAt: { alerts: iso(T0 - MIN), maintenance: iso(T0 - MIN), services: at, map: at },
    createdAt: iso(T0 - DAY),
    updatedAt: iso(T0 - MIN),
  };
}

const reads = (p: ReturnType<typeof plan>) => ({
  vehicle: (p.jobs.filter((j) => j.kind === 'poll-vehicle') as PollVehicleJob[])[0]?.resources,
  map: p.jobs.some((j) => j.kind === 'poll-map'),
});

describe('services and map cadences', () => {
  it('default to daily: read 2 minutes ago, neither is read again', () => {
    expect(DEFAULT_POLLING_CONFIG.servicesIntervalMs).toBe(DAY);
    expect(DEFAULT_POLLING_CONFIG.mapIntervalMs).toBe(DAY);
    expect(reads(plan({ vehicles: [vehicle(2 * MIN)], budget: 100, now: T0 }))).toEqual({
      vehicle: ['events'],
      map: false,
    });
    expect(reads(plan({ vehicles: [vehicle(DAY)], budget: 100, now: T0 }))).toEqual({
      vehicle: ['events', 'services'],
      map: true,
    });
  });

  it('follow the configured intervals, each on its own', () => {
    const services = { servicesIntervalMs: MIN };
    expect(reads(plan({ vehicles: [vehicle(2 * MIN)], budget: 100, now: T0, config: services }))).toEqual({
      vehicle: ['events', 'services'],
      map: false,
    });
    const map = { mapIntervalMs: MIN };
    expect(reads(plan({ vehicles: [vehicle(2 * MIN)], budget: 100, now: T0, config: map }))).toEqual({
      vehicle: ['events'],
      map: true,
    });
  });

  it('reach the diff engine, and are validated naming the field', () => {
    const config = { ...DEFAULT_POLLING_CONFIG, servicesIntervalMs: 30_000, mapIntervalMs: 45_000 };
    expect(diffConfigFor(config)).toMatchObject({ servicesMs: 30_000, mapMs: 45_000, dailyMs: DAY });
    const bad = parsePollingConfig({ mapIntervalMs: 0 });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors[0]?.field).toBe('polling.mapIntervalMs');
  });
});
