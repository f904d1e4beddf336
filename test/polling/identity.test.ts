/**
 * One identity per physical vehicle: the detection state, its event ids and its `sequence` belong
 * to the VIN, not to the enrollment that polls it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryStores } from '../../functions/adapters/memory/stores';
import { diff } from '../../functions/core/detection/diff';
import { STATE_FORMAT, serializeState } from '../../functions/core/detection/state';
import { enrollFleetContract, unenrollEnrollment } from '../../functions/core/enrollment';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import type { JobResult } from '../../functions/core/jobs/worker';
import { applyObservations } from '../../functions/core/polling/commit';
import { DEFAULT_POLLING_CONFIG } from '../../functions/core/polling/config';
import { stateKeyOf } from '../../functions/core/store/identity';
import type { SimUser } from '../../sim/world/types';
import { type Pipeline, startPipeline, userWithVehicles } from './support';

async function allEvents(p: Pipeline): Promise<EventEnvelope[]> {
  const page = await p.stores.events.listByTime({
    since: '2000-01-01T00:00:00.000Z',
    until: '2100-01-01T00:00:00.000Z',
    now: p.now(),
    limit: 1000,
  });
  return page.items.map((s) => s.envelope);
}

/** Every event about the VIN: its `vehicle.*` events and its enrollment events share one counter. */
const vehicleEvents = (events: readonly EventEnvelope[], vin: string) =>
  events.filter((e) => e.vehicle?.vin === vin);

describe('one identity per physical vehicle', () => {
  let p: Pipeline;
  let user: SimUser;

  beforeEach(async () => {
    p = await startPipeline();
    user = userWithVehicles(p.sim, 1);
  });
  afterEach(() => p.close());

  const cycles = (n: number): Promise<JobResult[]> => p.cycles(n);

  it('unenrolling and enrolling again resumes the state: nothing already reported is told again', async () => {
    const first = await p.enroll(user);
    if (first.kind !== 'Enrolled') throw new Error(first.kind);
    const apiId = user.vehicleIds[0] as string;
    const vin = p.sim.world.vehicle(apiId)?.vin as string;
    await cycles(2);
    await p.control('POST', `/vehicles/${apiId}/alerts`, { severity: 'high' });
    await p.control('POST', `/vehicles/${apiId}/collisions`, { front: 'low' });
    await cycles(3);
    const before = vehicleEvents(await allEvents(p), vin);
    expect(before.map((e) => e.type)).toEqual(
      expect.arrayContaining(['vehicle.alert.raised', 'vehicle.collision.detected']),
    );
    const lastSequence = Math.max(...before.map((e) => e.sequence));

    expect((await unenrollEnrollment({ stores: p.stores, now: p.now }, first.enrollmentId)).kind).toBe(
      'Unenrolled',
    );
    await p.advance(600);
    const again = await p.enroll(user);
    if (again.kind !== 'Enrolled') throw new Error(again.kind);
    // A new enrollment, new vehicle ids: only the VIN is the same.
    expect(again.enrollmentId).not.toBe(first.enrollmentId);
    const bus = p.bus.received.length;
    await cycles(3);
    const told = p.bus.received
      .slice(bus)
      .filter((e) => e.type.startsWith('vehicle.') && e.vehicle?.vin === vin);
    expect(told).toEqual([]);
    // The new enrollment's `enrollment.vehicle.added` took the next number of the same stream.
    const added = p.bus.received.filter(
      (e) =>
        e.type === 'enrollment.vehicle.added' &&
        e.enrollment?.id === again.enrollmentId &&
        e.vehicle?.vin === vin,
    );
    expect(added.map((e) => [e.vehicle?.vin, e.sequence])).toEqual([[vin, lastSequence + 1]]);
    const state = (await p.stores.states.getState(`vin:${vin}`))?.state ?? '';
    expect(JSON.parse(state).sequence).toBe(lastSequence + 1);

    // The stream goes on where it stopped: the next change takes the next number.
    await p.control('POST', `/vehicles/${apiId}/collisions`, { rear: 'high' });
    await cycles(2);
    const next = p.bus.received
      .slice(bus)
      .filter((e) => e.vehicle?.vin === vin && e.type.startsWith('vehicle.'));
    expect(next.map((e) => [e.type, e.sequence, e.enrollment?.id])).toEqual([
      ['vehicle.collision.detected', lastSequence + 2, again.enrollmentId],
    ]);
  });

  it('the same VIN through OAuth and a fleet contract: polled once through v1 bulk, one stream carrying both enrollment ids', async () => {
    const oauth = await p.enroll(user);
    if (oauth.kind !== 'Enrolled') throw new Error(oauth.kind);
    const apiId = user.vehicleIds[0] as string;
    const sim = p.sim.world.vehicle(apiId);
    if (!sim) throw new Error('no vehicle');
    await cycles(2);
    const fleet = await enrollFleetContract(
      { stores: p.stores, now: p.now, newId: () => 'dual' },
      { vin: sim.vin, contract: sim.contract, brand: sim.brand },
    );
    if (fleet.kind !== 'Enrolled') throw new Error(fleet.kind);
    const oauthVehicleId = `${oauth.enrollmentId}:${apiId}`;
    await cycles(3);

    const bus = p.bus.received.length;
    await p.control('POST', `/vehicles/${apiId}/alerts`, { severity: 'medium' });
    await p.control('POST', `/vehicles/${apiId}/collisions`, { front: 'high' });
    const results = await cycles(4);

    // The OAuth vehicle sends no request while the contract covers its VIN.
    const oauthPolls = results.flatMap((r) =>
      r.kind === 'poll-vehicle' && r.summary.vehicleId === oauthVehicleId ? [r.summary] : [],
    );
    expect(oauthPolls.every((s) => s.requests === 0 && s.outcome === 'skipped')).toBe(true);
    expect(
      results.some((r) => r.kind === 'poll-fleet' && r.summary.vehicleIds.includes(fleet.vehicleId)),
    ).toBe(true);

    const told = p.bus.received.slice(bus).filter((e) => e.vehicle?.vin === sim.vin);
    expect(told.map((e) => e.type).sort()).toEqual(['vehicle.alert.raised', 'vehicle.collision.detected']);
    for (const e of told) {
      expect(e.source.api).toBe('v1');
      expect(e.enrollment).toEqual({ id: fleet.enrollmentId, kind: 'fleet-contract' });
      expect(e.enrollments).toEqual([
        { id: fleet.enrollmentId, kind: 'fleet-contract' },
        { id: oauth.enrollmentId, kind: 'oauth-user' },
      ]);
    }
    // One stream: one state, one counter, consecutive numbers.
    const all = vehicleEvents(await allEvents(p), sim.vin).map((e) => e.sequence);
    expect([...all].sort((a, b) => a - b)).toEqual(all.map((_, i) => i + 1));
    const identity = stateKeyOf({ id: fleet.vehicleId, vin: sim.vin });
    expect((await p.stores.states.getVehicleWithState(oauthVehicleId)).state?.vehicleId).toBe(identity);
    expect((await p.stores.states.getVehicleWithState(fleet.vehicleId)).state?.vehicleId).toBe(identity);

    // The contract ends: the OAuth enrollment polls the VIN again, on the same stream.
    await unenrollEnrollment({ stores: p.stores, now: p.now }, fleet.enrollmentId);
    const later = p.bus.received.length;
    await p.control('POST', `/vehicles/${apiId}/collisions`, { rear: 'low' });
    await cycles(3);
    const resumed = p.bus.received.slice(later).filter((e) => e.vehicle?.vin === sim.vin);
    expect(resumed.map((e) => [e.type, e.source.api, e.enrollment?.id, e.enrollments])).toEqual([
      ['vehicle.collision.detected', 'v2', oauth.enrollmentId, undefined],
    ]);
    expect(resumed[0]?.sequence).toBe(Math.max(...all) + 1);
  });
});

describe('states stored under the vehicle id by an older Carhook', () => {
  it('are read as the starting state of the VIN and migrated by its first commit: nothing told twice, the counter goes on', async () => {
    const stores = createMemoryStores();
    const T0 = Date.parse('2026-11-01T08:00:00.000Z');
    const at = (m: number) => new Date(T0 + m * 60_000).toISOString();
    const vehicle = { id: 'enr-1:api-1', enrollmentId: 'enr-1', vin: 'VF3ABCDEFGH123456', nextPollAt: at(0) };
    await stores.vehicles.put(vehicle, T0);
    const alert = { id: 'a1', active: true, message: 'alertOilPressure', startedAt: at(1), updatedAt: at(1) };
    // What the former keying wrote: the state under the vehicle id, scoped to the vehicle id.
    const ctx = {
      vehicle: { id: vehicle.id, vin: vehicle.vin },
      enrollment: { id: 'enr-1', kind: 'oauth-user' as const },
    };
    const base = diff(undefined, [], { ...ctx, now: new Date(T0) }).state;
    const old = diff(base, [{ source: 'v2.alerts', items: [alert], complete: true, fetchedAt: at(2) }], {
      ...ctx,
      now: new Date(T0 + 2 * 60_000),
    });
    expect(old.events.map((e) => [e.type, e.sequence])).toEqual([['vehicle.alert.raised', 1]]);
    await stores.states.commitPoll({
      vehicleId: vehicle.id,
      expectedVersion: 0,
      state: serializeState(old.state),
      stateFormat: String(STATE_FORMAT),
      events: old.events,
      now: T0,
    });

    const { vehicle: record, state } = await stores.states.getVehicleWithState(vehicle.id);
    if (!record) throw new Error('no vehicle');
    expect(state?.vehicleId).toBe(vehicle.id);
    const bus = {
      publish: async (events: readonly EventEnvelope[]) => ({
        published: events.map((e) => e.id),
        failed: [],
      }),
    };
    const collision = {
      id: 'c1',
      rollOver: false,
      pedestrian: false,
      front: 'low',
      rear: 'none',
      lateral: 'none',
      createdAt: at(4),
    };
    const r = await applyObservations(
      { stores, bus, now: () => T0 + 5 * 60_000, config: DEFAULT_POLLING_CONFIG },
      {
        vehicle: record,
        enrollment: { id: 'enr-1', kind: 'oauth-user' },
        stored: state,
        observations: [
          { source: 'v2.alerts', items: [alert], complete: true, fetchedAt: at(5) },
          { source: 'v2.collisions', items: [collision], complete: true, fetchedAt: at(5) },
        ],
        rotate: false,
      },
    );
    expect(r.kind === 'Applied' && r.wrote).toBe('commit');
    const logged = (
      await stores.events.listByVehicle({ vehicleId: vehicle.id, now: T0, limit: 100 })
    ).items.map((s) => [s.envelope.type, s.envelope.sequence]);
    expect(logged).toEqual([
      ['vehicle.alert.raised', 1],
      ['vehicle.collision.detected', 2],
    ]);
    const migrated = await stores.states.getState(`vin:${vehicle.vin}`);
    expect(migrated?.version).toBe(1);
    expect(JSON.parse(migrated?.state ?? '{}')).toMatchObject({
      vehicleId: `vin:${vehicle.vin}`,
      sequence: 2,
    });
    // The old item is left as it was; the vehicle now reads the VIN's state.
    expect((await stores.states.getState(vehicle.id))?.version).toBe(1);
    expect((await stores.states.getVehicleWithState(vehicle.id)).state?.vehicleId).toBe(`vin:${vehicle.vin}`);
  });
});
