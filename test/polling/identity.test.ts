/**
 * One identity per physical vehicle: the detection state, its event ids and its `sequence` belong
 * to the VIN, not to the enrollment that polls it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enrollFleetContract, unenrollEnrollment } from '../../functions/core/enrollment';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import type { JobResult } from '../../functions/core/polling';
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

const vehicleEvents = (events: readonly EventEnvelope[], vin: string) =>
  events.filter((e) => e.type.startsWith('vehicle.') && e.vehicle?.vin === vin);

describe('one identity per physical vehicle', () => {
  let p: Pipeline;
  let user: SimUser;

  beforeEach(async () => {
    p = await startPipeline();
    user = userWithVehicles(p.sim, 1);
  });
  afterEach(() => p.close());

  const cycles = async (n: number): Promise<JobResult[]> => {
    const out: JobResult[] = [];
    for (let i = 0; i < n; i++) {
      out.push(...(await p.cycle()));
      await p.advance(60);
    }
    return out;
  };

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
    const state = (await p.stores.states.getState(`vin:${vin}`))?.state ?? '';
    expect(JSON.parse(state).sequence).toBe(lastSequence);

    // The stream goes on where it stopped: the next change takes the next number.
    await p.control('POST', `/vehicles/${apiId}/collisions`, { rear: 'high' });
    await cycles(2);
    const next = p.bus.received
      .slice(bus)
      .filter((e) => e.vehicle?.vin === vin && e.type.startsWith('vehicle.'));
    expect(next.map((e) => [e.type, e.sequence, e.enrollment?.id])).toEqual([
      ['vehicle.collision.detected', lastSequence + 1, again.enrollmentId],
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
