import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../functions/http/app';
import { type SimRuntime, startSimRuntime } from '../runtime/support';

const TOKEN = 'admin-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}` };

describe('GET /capacity', () => {
  let s: SimRuntime;
  beforeEach(async () => {
    s = await startSimRuntime({ settings: { freshnessTargets: { trips: 120_000, alerts: 30_000 } } });
  });
  afterEach(() => s.close());

  it('answers the model for the fleet as it is, with each target, behind the admin token', async () => {
    const now = s.runtime.now();
    for (let i = 0; i < 100; i++) {
      await s.stores.vehicles.put(
        {
          id: `e1:v${i}`,
          enrollmentId: 'e1',
          vin: `VIN${i}`,
          apiVehicleId: `v${i}`,
          nextPollAt: new Date(now).toISOString(),
        },
        now,
      );
    }
    const app = createHttpApp({ runtime: s.runtime }, { auth: { kind: 'admin-token', token: TOKEN } });
    expect((await app.request('/capacity')).status).toBe(401);
    // The vehicle state route is behind the same guard.
    expect((await app.request('/vehicles/e1%3Av1/state')).status).toBe(401);
    const res = await app.request('/capacity', { headers: auth });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      vehicles: number;
      strategy: string;
      quota: unknown;
      kinds: { kind: string; meanS: number; p95S: number; guaranteeS: number; target?: unknown }[];
    };
    expect(body).toMatchObject({
      at: new Date(now).toISOString(),
      strategy: 'carhook',
      vehicles: 100,
      vehiclesWithActiveAlerts: 0,
    });
    // Nothing learned yet: every vehicle at the prior (0.5 changes an hour), each read every cycle.
    expect(body.quota).toEqual({
      limit: 120,
      windowSeconds: 60,
      cycleSeconds: 60,
      budgetPerCycle: 108,
      reservePerCycle: 2,
      readsPerCycle: 106,
    });
    const trips = body.kinds.find((k) => k.kind === 'trips');
    expect(trips).toMatchObject({ guaranteeS: 960, meanS: 30, p95S: 57 });
    expect(trips?.target).toEqual({
      s: 120,
      met: true,
      vehiclesThatFit: 221,
      moreVehicles: 121,
      quotaForTarget: 56,
    });
    // (48 reads within 120 s, plus the reserve of 2: a budget of 50 a cycle, 56 requests a minute.)
    // A target shorter than a cycle allows: missed, and no quota meets it.
    expect(body.kinds.find((k) => k.kind === 'alerts')?.target).toEqual({
      s: 30,
      met: false,
      vehiclesThatFit: 0,
      moreVehicles: -100,
      quotaForTarget: null,
    });
    expect(body.kinds.find((k) => k.kind === 'map')?.target).toBeUndefined();
  });
});
