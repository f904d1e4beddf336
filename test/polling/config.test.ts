import { describe, expect, it } from 'vitest';
import { diff } from '../../functions/core/detection';
import { diffConfigFor, pollingConfig } from '../../functions/core/polling/config';

const context = (now: string, config: ReturnType<typeof diffConfigFor>) => ({
  vehicle: { id: 'enr_1:v1', vin: 'VF1AAAAA000000001', brand: 'C' },
  enrollment: { id: 'enr_1', kind: 'oauth-user' as const },
  now: new Date(now),
  config,
});

const maintenance = (at: string, days: number) => ({
  source: 'v2.maintenance' as const,
  fetchedAt: at,
  complete: true,
  items: [{ days, mileage: 9_000, updatedAt: at }],
});

/** Days left crossing from 100 to 45: due only when the configured threshold is above 45. */
function dueEventsWith(thresholdDays: number): number {
  const config = diffConfigFor(pollingConfig({ maintenanceDue: { days: thresholdDays, mileageKm: 1000 } }));
  const t0 = '2026-01-15T09:00:00.000Z';
  const t1 = '2026-01-16T09:00:00.000Z';
  const first = diff(undefined, [maintenance(t0, 100)], context(t0, config));
  const second = diff(first.state, [maintenance(t1, 45)], context(t1, config));
  return second.events.filter((e) => e.type === 'vehicle.maintenance.due').length;
}

describe('polling configuration passed to the diff engine', () => {
  it('uses the configured maintenance-due threshold (CARHOOK_MAINTENANCE_DUE_DAYS), not only the default', () => {
    expect(dueEventsWith(30)).toBe(0);
    expect(dueEventsWith(60)).toBe(1);
  });
});
