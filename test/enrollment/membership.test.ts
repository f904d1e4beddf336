/**
 * Membership events outside the vehicle-list diff: one `enrollment.vehicle.removed` per vehicle of
 * a deleted enrollment, `enrollment.vehicle.added` for a fleet contract, and the fleet contract
 * checked with the API (one v1 call) before anything is stored.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../../functions/adapters/memory/stores';
import type { CarClient } from '../../functions/core/api';
import { applyVehicleList } from '../../functions/core/enrollment';
import { enrollCheckedFleetContract, unenrollAndAnnounce } from '../../functions/core/enrollment/membership';
import { validateEvent } from '../../functions/core/events/validate';
import { MemoryBus } from '../polling/support';

const T0 = Date.parse('2026-01-15T09:00:00.000Z');
const VIN = 'VC2BS85NADMNYAMM1';

type Answer = 'ok' | 'NotFound' | 'AccessDenied' | 'Upstream' | 'RateLimited';

/** A v1 client whose vehicle information read answers `answer`, counting the calls. */
function v1Answering(answer: Answer) {
  const calls: { vin: string; contract: string }[] = [];
  const client = {
    v1: {
      vehicleInformation: async (p: { vin: string; contract: string }) => {
        calls.push(p);
        if (answer === 'ok') return { ok: true, value: { vin: p.vin, contract: p.contract }, requests: 1 };
        return {
          ok: false,
          error: { kind: answer, operation: 'v1.vehicle.information', message: 'no', status: 404 },
          requests: 1,
        };
      },
    },
  } as unknown as Pick<CarClient, 'v1'>;
  return { client, calls };
}

function setup() {
  const stores = createMemoryStores();
  const bus = new MemoryBus();
  return { stores, bus, deps: { stores, bus, now: () => T0 } };
}

describe('fleet contract enrollment checked with the API', () => {
  it('enrolls after one v1 read and announces the vehicle (enrollment.vehicle.added)', async () => {
    const { stores, bus, deps } = setup();
    const api = v1Answering('ok');
    const r = await enrollCheckedFleetContract(deps, api.client, { vin: VIN, contract: 'K1', brand: 'C' });
    expect(r.kind).toBe('Enrolled');
    if (r.kind !== 'Enrolled') return;
    expect(api.calls).toEqual([{ vin: VIN, contract: 'K1' }]);
    expect(bus.received).toHaveLength(1);
    const added = bus.received[0];
    expect(added).toMatchObject({
      type: 'enrollment.vehicle.added',
      vehicle: { id: r.vehicleId, vin: VIN, brand: 'C' },
      enrollment: { id: r.enrollmentId, kind: 'fleet-contract' },
      data: { vehicleId: r.vehicleId, vin: VIN, brand: 'C' },
    });
    expect(validateEvent(added)).toEqual({ ok: true });
    expect((await stores.events.get(added?.id ?? '', T0))?.published).toBe(true);
  });

  it('an announcement lost after the enrollment was stored is told by the repeated POST (409), once, same id', async () => {
    const { stores, bus, deps } = setup();
    const commit = stores.states.commitPoll.bind(stores.states);
    let down = true;
    stores.states.commitPoll = async (input) => {
      if (down) throw new Error('event log unavailable (test)');
      return commit(input);
    };
    const api = v1Answering('ok');
    const body = { vin: VIN, contract: 'K1', brand: 'C' };
    await expect(enrollCheckedFleetContract(deps, api.client, body)).rejects.toThrow(/unavailable/);
    const [stored] = (await stores.enrollments.list()).items;
    expect(stored).toMatchObject({ kind: 'fleet-contract', vin: VIN, status: 'active' });
    expect(bus.received).toEqual([]);

    down = false;
    const again = await enrollCheckedFleetContract({ ...deps, now: () => T0 + 5000 }, api.client, body);
    expect(again).toMatchObject({ kind: 'DuplicateVin', existingEnrollmentId: stored?.id });
    expect(bus.received.map((e) => [e.type, e.enrollment?.id, e.occurredAt, e.sequence])).toEqual([
      ['enrollment.vehicle.added', stored?.id, new Date(T0).toISOString(), 1],
    ]);
    const third = await enrollCheckedFleetContract({ ...deps, now: () => T0 + 9000 }, api.client, body);
    expect(third.kind).toBe('DuplicateVin');
    expect(bus.received).toHaveLength(1);
  });

  it.each([
    ['NotFound', 404, 'UnknownVin', 'vin'],
    ['AccessDenied', 422, 'UnknownContract', 'contract'],
    ['Upstream', 502, 'ApiUnavailable', undefined],
    ['RateLimited', 503, 'ApiUnavailable', undefined],
  ] as const)(
    'the API answering %s → %d %s, nothing stored, nothing emitted',
    async (answer, status, code, field) => {
      const { stores, bus, deps } = setup();
      const r = await enrollCheckedFleetContract(deps, v1Answering(answer).client, {
        vin: VIN,
        contract: 'K1',
        brand: 'C',
      });
      expect(r).toMatchObject({ kind: 'Refused', check: { ok: false, status, code } });
      if (r.kind === 'Refused') expect(r.check.field).toBe(field);
      expect((await stores.enrollments.list()).items).toEqual([]);
      expect(await stores.enrollments.findByFleetVin(VIN)).toBeUndefined();
      expect(bus.received).toEqual([]);
    },
  );

  it('checks the body and a duplicate VIN before spending a request', async () => {
    const { deps } = setup();
    const api = v1Answering('ok');
    expect(
      await enrollCheckedFleetContract(deps, api.client, { vin: 'short', contract: 'K1', brand: 'C' }),
    ).toMatchObject({ kind: 'InvalidInput', field: 'vin' });
    await enrollCheckedFleetContract(deps, api.client, { vin: VIN, contract: 'K1', brand: 'C' });
    const again = await enrollCheckedFleetContract(deps, api.client, {
      vin: VIN,
      contract: 'K2',
      brand: 'C',
    });
    expect(again).toMatchObject({ kind: 'DuplicateVin', vin: VIN });
    expect(api.calls).toHaveLength(1);
  });
});

describe('deleting an enrollment', () => {
  it('emits enrollment.vehicle.removed once per vehicle still enrolled, and nothing on a second DELETE', async () => {
    const { stores, bus, deps } = setup();
    const enrollmentId = 'enr_user_1';
    await stores.enrollments.create({
      kind: 'oauth-user',
      id: enrollmentId,
      brand: 'cielo',
      userId: 'u1',
      status: 'active',
      createdAt: new Date(T0).toISOString(),
      updatedAt: new Date(T0).toISOString(),
    } as never);
    const list = (ids: string[], at: number) => ({
      source: 'v2.vehicles' as const,
      items: ids.map((id, i) => ({ id, vin: `VC2BS85NADMNYAM${i}${i}`, brand: 'cielo' })),
      complete: true,
      fetchedAt: new Date(at).toISOString(),
    });
    await applyVehicleList(deps, { id: enrollmentId }, list(['a', 'b', 'c'], T0) as never);
    // c left the user's list: its removed event came from discovery.
    await applyVehicleList(
      { ...deps, now: () => T0 + 1000 },
      { id: enrollmentId },
      list(['a', 'b'], T0 + 1000) as never,
      async (id) => (id === 'c' ? 'absent' : 'present'),
    );
    expect(bus.ids('enrollment.vehicle.removed')).toHaveLength(1);

    const r = await unenrollAndAnnounce({ ...deps, now: () => T0 + 2000 }, enrollmentId);
    expect(r).toMatchObject({ kind: 'Unenrolled', transitioned: true });
    const removed = bus.received.filter((e) => e.type === 'enrollment.vehicle.removed').slice(1);
    expect(removed.map((e) => e.data)).toEqual([
      { vehicleId: `${enrollmentId}:a`, vin: 'VC2BS85NADMNYAM00', brand: 'cielo' },
      { vehicleId: `${enrollmentId}:b`, vin: 'VC2BS85NADMNYAM11', brand: 'cielo' },
    ]);
    for (const e of removed) expect(validateEvent(e)).toEqual({ ok: true });
    for (const v of await stores.vehicles.listByEnrollment(enrollmentId)) expect(v.paused).toBe(true);

    const again = await unenrollAndAnnounce({ ...deps, now: () => T0 + 3000 }, enrollmentId);
    expect(again).toMatchObject({ kind: 'Unenrolled', transitioned: false, removedEvents: [] });
    expect(bus.ids('enrollment.vehicle.removed')).toHaveLength(3);
    expect(await unenrollAndAnnounce(deps, 'enr_missing')).toEqual({
      kind: 'NotFound',
      enrollmentId: 'enr_missing',
    });
  });

  it('a DELETE whose events other writers keep from being numbered fails, and its repeat tells them', async () => {
    const { stores, bus, deps } = setup();
    const api = v1Answering('ok');
    const r = await enrollCheckedFleetContract(deps, api.client, { vin: VIN, contract: 'K1', brand: 'C' });
    if (r.kind !== 'Enrolled') throw new Error(r.kind);
    const commit = stores.states.commitPoll.bind(stores.states);
    let racing = true;
    stores.states.commitPoll = async (input) =>
      racing
        ? {
            kind: 'VersionConflict',
            vehicleId: input.vehicleId,
            expectedVersion: input.expectedVersion,
            current: undefined,
          }
        : commit(input);
    await expect(unenrollAndAnnounce({ ...deps, conflictRetries: 2 }, r.enrollmentId)).rejects.toThrow(
      new RegExp(`vehicle\\(s\\) ${r.vehicleId} could not be numbered.*repeat the request`),
    );
    expect(bus.ids('enrollment.vehicle.removed')).toEqual([]);
    racing = false;
    const again = await unenrollAndAnnounce(deps, r.enrollmentId);
    expect(again).toMatchObject({ kind: 'Unenrolled', transitioned: false });
    expect(bus.received.map((e) => [e.type, e.sequence])).toEqual([
      ['enrollment.vehicle.added', 1],
      ['enrollment.vehicle.removed', 2],
    ]);
  });

  it('a DELETE that failed after unenrolling (event log down) is repaired by the next one, same event ids', async () => {
    const { stores, bus, deps } = setup();
    await stores.enrollments.create({
      kind: 'fleet-contract',
      id: 'enr_fleet_1',
      brand: 'C',
      status: 'active',
      vin: VIN,
      contract: 'K1',
      createdAt: new Date(T0).toISOString(),
      updatedAt: new Date(T0).toISOString(),
    });
    await stores.vehicles.put(
      {
        id: `enr_fleet_1:${VIN}`,
        enrollmentId: 'enr_fleet_1',
        vin: VIN,
        brand: 'C',
        nextPollAt: new Date(T0).toISOString(),
      },
      T0,
    );
    // The events are written with the vehicle's state (one commit): that write fails.
    const commit = stores.states.commitPoll.bind(stores.states);
    let down = true;
    stores.states.commitPoll = async (input) => {
      if (down) throw new Error('event log unavailable (test)');
      return commit(input);
    };
    await expect(unenrollAndAnnounce(deps, 'enr_fleet_1')).rejects.toThrow(/unavailable/);
    expect((await stores.vehicles.get(`enr_fleet_1:${VIN}`))?.paused).toBe(true);
    expect(bus.received).toEqual([]);
    down = false;
    const again = await unenrollAndAnnounce({ ...deps, now: () => T0 + 5000 }, 'enr_fleet_1');
    expect(again).toMatchObject({ kind: 'Unenrolled', transitioned: false });
    expect(bus.received.map((e) => [e.type, e.data])).toEqual([
      ['enrollment.vehicle.removed', { vehicleId: `enr_fleet_1:${VIN}`, vin: VIN, brand: 'C' }],
    ]);
    expect(again.kind === 'Unenrolled' && again.removedEvents).toEqual([bus.received[0]?.id]);
    // Numbered once on the vehicle's stream; a third DELETE finds it told and emits nothing.
    expect(bus.received[0]?.sequence).toBe(1);
    const third = await unenrollAndAnnounce({ ...deps, now: () => T0 + 9000 }, 'enr_fleet_1');
    expect(third.kind === 'Unenrolled' && third.removedEvents).toEqual([]);
    expect(bus.received).toHaveLength(1);
    const state = JSON.parse((await stores.states.getState(`vin:${VIN}`))?.state ?? '{}');
    expect(state.sequence).toBe(1);
  });
});
