import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, parseDiffConfig } from '../../functions/core/detection/config';

describe('parseDiffConfig', () => {
  it('fills the documented defaults', () => {
    expect(parseDiffConfig(undefined)).toEqual({ ok: true, config: DEFAULT_CONFIG });
    expect(DEFAULT_CONFIG).toMatchObject({
      initialPolicy: 'active-alerts',
      maintenanceDue: { days: 30, mileageKm: 1000 },
      ecoDrivingWaitMs: 600_000,
    });
  });

  it('keeps valid overrides', () => {
    const r = parseDiffConfig({ initialPolicy: 'none', maintenanceDue: { days: 14, mileageKm: 500 } });
    expect(r).toMatchObject({
      ok: true,
      config: { initialPolicy: 'none', maintenanceDue: { days: 14, mileageKm: 500 } },
    });
  });

  it.each([
    [{ initialPolicy: 'everything' }, 'config.initialPolicy'],
    [{ maintenanceDue: { days: -1, mileageKm: 1000 } }, 'config.maintenanceDue.days'],
    [{ ecoDrivingWaitMs: 'soon' }, 'config.ecoDrivingWaitMs'],
  ])('refuses %j naming %s', (input, field) => {
    const r = parseDiffConfig(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toMatchObject({ kind: 'Malformed', field });
  });
});
