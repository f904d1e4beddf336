/**
 * A fleet vehicle the v1 API no longer knows (the simulator's control API takes it off: its single
 * reads answer 404, the bulk lists omit it): `enrollment.vehicle.removed` once, on the vehicle's
 * stream, polling stops, and nothing else is lost (its active alert is not "fixed" by absence).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CarClient, Result, V1Target } from '../../functions/core/api';
import { enrollFleetContract } from '../../functions/core/enrollment';
import { validateEvent } from '../../functions/core/events/validate';
import type { JobResult } from '../../functions/core/jobs/worker';
import { bulkWithSplit } from '../../functions/core/polling';
import { confirmFleetVehicle } from '../../functions/core/polling/fleet-removal';
import type { SimVehicle } from '../../sim/world/types';
import { type Pipeline, startPipeline } from './support';

describe('a fleet vehicle the v1 API no longer knows', () => {
  let p: Pipeline;
  let car: SimVehicle;
  let other: SimVehicle;
  let ids: { vehicleId: string; enrollmentId: string };

  beforeEach(async () => {
    p = await startPipeline();
    [car, other] = p.sim.world.vehicles() as [SimVehicle, SimVehicle];
    // Two contracts of one brand group are polled in one bulk batch when the brands match.
    for (const v of [car, other]) {
      const r = await enrollFleetContract(
        { stores: p.stores, now: p.now, newId: () => v.vin.slice(-6) },
        { vin: v.vin, contract: v.contract, brand: v.brand },
      );
      if (r.kind !== 'Enrolled') throw new Error(r.kind);
      if (v === car) ids = r;
    }
  });
  afterEach(() => p.close());

  const cycles = (n: number): Promise<JobResult[]> => p.cycles(n);
  const about = (vin: string) => p.bus.received.filter((e) => e.vehicle?.vin === vin);

  it('is removed once: enrollment.vehicle.removed on its stream, polling stops, its active alert stays told', async () => {
    await cycles(2);
    const alert = (await p.control('POST', `/vehicles/${car.id}/alerts`, { severity: 'high' })).body;
    await cycles(2);
    const raised = about(car.vin).filter((e) => e.type === 'vehicle.alert.raised');
    expect(raised.map((e) => e.data.alertId)).toContain(alert.id);
    const before = about(car.vin).length;
    const lastSequence = Math.max(...about(car.vin).map((e) => e.sequence));

    expect((await p.control('DELETE', `/v1/vehicles/${car.vin}`)).status).toBe(200);
    const results = await cycles(3);

    const told = about(car.vin).slice(before);
    expect(told.map((e) => [e.type, e.sequence, e.enrollment?.id, e.source.api])).toEqual([
      ['enrollment.vehicle.removed', lastSequence + 1, ids.enrollmentId, 'v1'],
    ]);
    expect(told[0]?.data).toEqual({ vehicleId: ids.vehicleId, vin: car.vin, brand: car.brand });
    expect(validateEvent(told[0])).toEqual({ ok: true });
    expect(await p.stores.vehicles.get(ids.vehicleId)).toMatchObject({
      paused: true,
      pauseReason: 'removed',
    });
    // Polling stops: the next fleet polls do not carry it.
    const removedIn = results.flatMap((r) => (r.kind === 'poll-fleet' ? r.summary.removed : []));
    expect(removedIn).toEqual([ids.vehicleId]);
    const last = results.filter((r) => r.kind === 'poll-fleet').at(-1);
    expect(last?.kind === 'poll-fleet' && last.summary.vehicleIds).not.toContain(ids.vehicleId);
    // Nothing else lost: no alert fixed by absence, the stored alert still active.
    const state = JSON.parse((await p.stores.states.getState(`vin:${car.vin}`))?.state ?? '{}');
    expect(state.alerts[`v1:${alert.id}`]).toMatchObject({ active: true });
    // The other vehicle of the batch is polled as before.
    expect(await p.stores.vehicles.get(`enr_fleet_${other.vin.slice(-6)}:${other.vin}`)).toMatchObject({
      paused: false,
    });
    await p.control('POST', `/vehicles/${other.id}/collisions`, { front: 'high' });
    await cycles(2);
    expect(about(other.vin).map((e) => e.type)).toContain('vehicle.collision.detected');
    expect(about(car.vin).slice(before)).toHaveLength(1);
  });

  it('a VIN also enrolled by its OAuth user: once the contract lost it, the OAuth enrollment polls it again, on the same stream', async () => {
    const owner = p.sim.world.user(car.userId);
    if (!owner) throw new Error('no owner');
    const oauth = await p.enroll(owner);
    if (oauth.kind !== 'Enrolled') throw new Error(oauth.kind);
    const oauthVehicleId = `${oauth.enrollmentId}:${car.id}`;
    await cycles(3);
    expect((await p.control('DELETE', `/v1/vehicles/${car.vin}`)).status).toBe(200);
    await cycles(2);
    const removed = about(car.vin).filter((e) => e.type === 'enrollment.vehicle.removed');
    expect(removed.map((e) => e.enrollment?.id)).toEqual([ids.enrollmentId]);
    // The OAuth vehicle sends requests again (v2), and tells a new change on the VIN's one stream.
    await p.control('POST', `/vehicles/${car.id}/collisions`, { front: 'high' });
    const results = await cycles(3);
    expect(
      results.some(
        (r) => r.kind === 'poll-vehicle' && r.summary.vehicleId === oauthVehicleId && r.summary.requests > 0,
      ),
    ).toBe(true);
    const collision = about(car.vin).find((e) => e.type === 'vehicle.collision.detected');
    expect(collision?.source.api).toBe('v2');
    expect(collision?.enrollment?.id).toBe(oauth.enrollmentId);
    const sequences = about(car.vin)
      .map((e) => e.sequence)
      .sort((a, b) => a - b);
    expect(sequences).toEqual(sequences.map((_, i) => i + 1));
  });

  it('a VIN taken off and known again before the next poll is polled as usual', async () => {
    await cycles(2);
    await p.control('DELETE', `/v1/vehicles/${car.vin}`);
    await p.control('PUT', `/v1/vehicles/${car.vin}`);
    await p.control('POST', `/vehicles/${car.id}/collisions`, { rear: 'high' });
    const results = await cycles(2);
    expect(results.flatMap((r) => (r.kind === 'poll-fleet' ? r.summary.removed : []))).toEqual([]);
    expect(about(car.vin).map((e) => e.type)).toContain('vehicle.collision.detected');
    expect(about(car.vin).map((e) => e.type)).not.toContain('enrollment.vehicle.removed');
  });
});

describe('confirming a VIN with one v1 read', () => {
  const answering = (kind: 'ok' | 'NotFound' | 'AccessDenied' | 'Upstream' | 'RateLimited') =>
    ({
      v1: {
        vehicleInformation: async () =>
          kind === 'ok'
            ? { ok: true, requests: 1, value: {} }
            : { ok: false, requests: 1, error: { kind, operation: 'v1.vehicle.information', message: 'x' } },
      },
    }) as unknown as Pick<CarClient, 'v1'>;

  it.each([
    ['ok', 'known'],
    ['NotFound', 'unknown'],
    ['AccessDenied', 'unknown'],
    ['Upstream', 'unconfirmed'],
    ['RateLimited', 'unconfirmed'],
  ] as const)(
    'the API answering %s → %s (only 404 / 403 remove; a failure concludes nothing)',
    async (answer, presence) => {
      expect(await confirmFleetVehicle(answering(answer), { vin: 'V'.repeat(17), contract: 'K' })).toBe(
        presence,
      );
    },
  );
});

describe('bulk lists refusing an unknown VIN', () => {
  it('a batch answered 404 is split down to the VIN refused alone, which is reported', async () => {
    const targets: V1Target[] = ['A', 'B', 'C', 'D'].map((x) => ({ vin: x.repeat(17), contract: x }));
    const call = async (batch: readonly V1Target[]): Promise<Result<readonly string[]>> =>
      batch.some((t) => t.contract === 'C')
        ? {
            ok: false,
            requests: 1,
            error: { kind: 'NotFound', operation: 'op', status: 404, message: 'no vin' },
          }
        : { ok: true, requests: 1, value: batch.map((t) => t.vin) };
    const r = await bulkWithSplit(targets, call, () => {});
    expect([...r.answered].sort()).toEqual(['A'.repeat(17), 'B'.repeat(17), 'D'.repeat(17)]);
    expect([...r.refused]).toEqual(['C'.repeat(17)]);
  });
});
