/**
 * `messageCode` through the whole pipeline: a fleet (v1) alert, whose text is localized, gets the
 * code the API's alert referential lists for it (one referential read, cached); an OAuth (v2) alert
 * whose message is text gets none (the v2 path has no code for it: none is invented).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enrollFleetContract } from '../../functions/core/enrollment';
import type { JobResult } from '../../functions/core/jobs/worker';
import { alertCodesFor } from '../../functions/core/polling/alert-codes';
import type { SimVehicle } from '../../sim/world/types';
import { type Pipeline, startPipeline, userWithVehicles } from './support';

describe('messageCode from the API', () => {
  let p: Pipeline;
  beforeEach(async () => {
    p = await startPipeline();
  });
  afterEach(() => p.close());

  const cycles = (n: number): Promise<JobResult[]> => p.cycles(n);
  const referentialReads = async (): Promise<number> =>
    (await p.control('GET', '/stats')).body.byOperation['v1.referential.alert'] ?? 0;

  it('a fleet alert: the localized text and the code the v1 alert referential gives for it', async () => {
    const car = p.sim.world.vehicles()[0] as SimVehicle;
    const r = await enrollFleetContract(
      { stores: p.stores, now: p.now },
      { vin: car.vin, contract: car.contract, brand: car.brand },
    );
    expect(r.kind).toBe('Enrolled');
    await cycles(2);
    const raised = await p.control('POST', `/vehicles/${car.id}/alerts`, { code: 'alertOilPressure' });
    expect(raised.status).toBe(201);
    await cycles(2);
    await p.control('POST', `/vehicles/${car.id}/alerts`, { code: 'engineFault' });
    await cycles(2);
    const events = p.bus.received.filter(
      (e) => e.type === 'vehicle.alert.raised' && e.vehicle?.vin === car.vin && e.data.initial !== true,
    );
    expect(events.map((e) => [e.data.messageCode, e.data.localizedText, e.source.api])).toEqual([
      ['alertOilPressure', 'Oil pressure too low', 'v1'],
      ['engineFault', 'Engine fault', 'v1'],
    ]);
    // Read once for both polls with alerts (cached for a day).
    expect(await referentialReads()).toBe(1);
  });

  it('an OAuth (v2) alert given as text: no code (none is invented)', async () => {
    const user = userWithVehicles(p.sim, 1);
    const enrolled = await p.enroll(user);
    expect(enrolled.kind).toBe('Enrolled');
    const apiId = user.vehicleIds[0] as string;
    await cycles(2);
    await p.control('POST', `/vehicles/${apiId}/alerts`, { code: 'alertOilPressure' });
    await cycles(2);
    const [event] = p.bus.received.filter(
      (e) => e.type === 'vehicle.alert.raised' && e.data.alertId !== undefined && e.data.initial !== true,
    );
    expect(event?.data).toMatchObject({ message: 'Alert oil pressure', localizedText: 'Alert oil pressure' });
    expect(event?.data).not.toHaveProperty('messageCode');
  });
});

describe('the alert referential cache', () => {
  const client = (answers: boolean[]) => {
    let calls = 0;
    return {
      calls: () => calls,
      v1: {
        referentialAlert: async () => {
          const ok = answers[calls++] ?? true;
          return ok
            ? {
                ok: true,
                requests: 1,
                value: [{ indicatorCode: 'engineFault', indicatorLabel: 'Engine fault' }],
              }
            : {
                ok: false,
                requests: 1,
                error: { kind: 'Upstream', operation: 'v1.referential.alert', message: '500' },
              };
        },
      },
    };
  };
  const HOUR = 3_600_000;
  const q = { locale: 'en_GB', brand: 'C' as const };

  it('a failed read gives no code and is retried after an hour; a good one is kept a day', async () => {
    const owner = { baseUrl: 'http://127.0.0.1:1', clientId: 'cache-test' };
    const c = client([false, true]);
    const api = c as unknown as Parameters<typeof alertCodesFor>[1];
    expect(await alertCodesFor(owner, api, q, 0, true)).toBeUndefined();
    expect(await alertCodesFor(owner, api, q, HOUR - 1, true)).toBeUndefined();
    expect(c.calls()).toBe(1);
    expect((await alertCodesFor(owner, api, q, HOUR, true))?.get('Engine fault')).toBe('engineFault');
    expect(await alertCodesFor(owner, api, q, HOUR + 23 * HOUR, true)).toBeDefined();
    expect(c.calls()).toBe(2);
    // Without budget nothing is read: the book kept (even stale) or none.
    expect(await alertCodesFor(owner, api, q, HOUR + 25 * HOUR, false)).toBeDefined();
    expect(await alertCodesFor({ ...owner, clientId: 'other' }, api, q, 0, false)).toBeUndefined();
    expect(c.calls()).toBe(2);
  });
});
