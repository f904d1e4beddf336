import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryStores } from '../../functions/adapters/memory/stores';
import type { Vehicle } from '../../functions/core/api/model';
import {
  applyVehicleList,
  enrollFleetContract,
  unenrollEnrollment,
  validateFleetInput,
} from '../../functions/core/enrollment';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { runPollJob } from '../../functions/core/jobs/worker';
import { MemoryBus, type Pipeline, startPipeline } from '../polling/support';

const at = (ms: number) => new Date(ms).toISOString();

describe('fleet contracts (v1)', () => {
  it('validates each field with an error naming it', () => {
    expect(validateFleetInput({ vin: 'vc2bs85nadmnyamm1', contract: 'K1', brand: 'C' })).toMatchObject({
      ok: false,
      field: 'vin',
    });
    expect(validateFleetInput({ vin: 'VC2BS85NADMNYAMM', contract: 'K1', brand: 'C' })).toMatchObject({
      field: 'vin',
    });
    // One spelling of a brand: its name, as in /oauth/cielo/authorize; the v1 code is taken too.
    expect(validateFleetInput({ vin: 'VC2BS85NADMNYAMM1', contract: 'K1', brand: 'cielo' })).toEqual({
      ok: true,
      value: { vin: 'VC2BS85NADMNYAMM1', contract: 'K1', brand: 'C' },
    });
    expect(validateFleetInput({ vin: 'VC2BS85NADMNYAMM1', contract: 'K1', brand: 'Cielo' })).toEqual({
      ok: false,
      field: 'brand',
      message: "brand: must be cielo or pavo (the v1 API's codes C and P are accepted too)",
    });
    expect(validateFleetInput({ vin: 'VC2BS85NADMNYAMM1', contract: 'K 1', brand: 'C' })).toMatchObject({
      field: 'contract',
    });
    expect(validateFleetInput({ vin: 'VC2BS85NADMNYAMM1', contract: 'K1', brand: 'X' })).toMatchObject({
      field: 'brand',
    });
    expect(validateFleetInput(null)).toMatchObject({ field: 'body' });
    expect(validateFleetInput({ vin: 'VC2BS85NADMNYAMM1', contract: 'K1', brand: 'P' })).toMatchObject({
      ok: true,
    });
  });

  it('enrolls a VIN once and rejects a duplicate clearly', async () => {
    const stores = createMemoryStores();
    const deps = { stores, now: () => Date.parse('2026-01-15T09:00:00.000Z') };
    const first = await enrollFleetContract(deps, {
      vin: 'VC2BS85NADMNYAMM1',
      contract: '210371574',
      brand: 'C',
    });
    expect(first.kind).toBe('Enrolled');
    const again = await enrollFleetContract(deps, { vin: 'VC2BS85NADMNYAMM1', contract: '999', brand: 'C' });
    expect(again).toMatchObject({ kind: 'DuplicateVin', vin: 'VC2BS85NADMNYAMM1' });
    if (again.kind === 'DuplicateVin' && first.kind === 'Enrolled') {
      expect(again.existingEnrollmentId).toBe(first.enrollmentId);
      expect(again.message).toMatch(/already enrolled/);
    }
    expect((await stores.enrollments.list()).items).toHaveLength(1);
    const bad = await enrollFleetContract(deps, { vin: 'short', contract: '1', brand: 'C' });
    expect(bad).toMatchObject({ kind: 'InvalidInput', field: 'vin' });
  });
});

describe('fleet polling through the v1 bulk lists', () => {
  let p: Pipeline;
  beforeEach(async () => {
    p = await startPipeline({ config: { fleetBatchSize: 2 } });
  });
  afterEach(() => p.close());

  it('raises and fixes a v1 alert once, in batches of the configured size', async () => {
    const vehicles = p.sim.world.vehicles().filter((v) => v.brand === 'C');
    for (const v of vehicles) {
      const r = await enrollFleetContract(p, { vin: v.vin, contract: v.contract, brand: 'C' });
      expect(r.kind).toBe('Enrolled');
    }
    const first = await p.cycle();
    const fleetJobs = first.filter((r) => r.kind === 'poll-fleet');
    expect(fleetJobs).toHaveLength(Math.ceil(vehicles.length / 2));
    const target = vehicles[0];
    if (!target) throw new Error('no vehicle');
    await p.advance(60);
    const raised = await p.control('POST', `/vehicles/${target.id}/alerts`, { severity: 'high' });
    expect(raised.status).toBe(201);
    await p.advance(60);
    await p.cycle();
    await p.control('POST', `/vehicles/${target.id}/alerts/${raised.body.id}/fix`);
    await p.advance(60);
    await p.cycle();
    await p.advance(60);
    await p.cycle();
    const mine = p.bus.received.filter((e) => e.vehicle?.vin === target.vin);
    const types = mine.map((e) => e.type);
    expect(types.filter((t) => t === 'vehicle.alert.raised').length).toBeGreaterThanOrEqual(1);
    const newRaised = mine.filter((e) => e.type === 'vehicle.alert.raised' && e.data.initial !== true);
    expect(newRaised).toHaveLength(1);
    const fixed = mine.filter(
      (e) => e.type === 'vehicle.alert.fixed' && e.data.alertId === newRaised[0]?.data.alertId,
    );
    expect(fixed).toHaveLength(1);
    expect(mine.every((e) => e.enrollment?.kind === 'fleet-contract' && e.source.api === 'v1')).toBe(true);
  });
});

describe('vehicle discovery', () => {
  const t0 = Date.parse('2026-01-15T09:00:00.000Z');
  const vehicle = (id: string, vin: string): Vehicle => ({ id, vin, brand: 'Cielo' });

  it('resumes a vehicle paused after a 403 when the complete vehicle list still has it', async () => {
    const stores = createMemoryStores();
    const deps = { stores, bus: new MemoryBus(), now: () => t0, publish: { sleep: async () => {} } };
    const a = vehicle('va', 'VAAAAAAAAAAAAAAA1');
    const list = { source: 'v2.vehicles' as const, items: [a], complete: true, fetchedAt: at(t0) };
    await applyVehicleList(deps, { id: 'enr_1' }, list);
    await stores.vehicles.pause('enr_1:va', 'access_denied', t0);
    expect(await applyVehicleList(deps, { id: 'enr_1' }, list)).toMatchObject({ resumed: ['enr_1:va'] });
    expect((await stores.vehicles.get('enr_1:va'))?.paused).toBe(false);
  });

  it('adds, removes (only from a complete list) and re-adds vehicles, with events once each', async () => {
    const stores = createMemoryStores();
    const bus = new MemoryBus();
    let now = t0;
    const deps = { stores, bus, now: () => now, publish: { sleep: async () => {} } };
    const enrollment = { id: 'enr_1' };
    const list = (items: Vehicle[], complete = true) => ({
      source: 'v2.vehicles' as const,
      items,
      complete,
      fetchedAt: at(now),
    });
    const a = vehicle('va', 'VAAAAAAAAAAAAAAA1');
    const b = vehicle('vb', 'VBBBBBBBBBBBBBBB1');
    // What a read of each vehicle itself answers (GET /vehicles/{id}); nothing known: no answer.
    const reads = new Map<string, 'present' | 'absent'>();
    const checkVehicle = async (id: string) => reads.get(id);
    const first = await applyVehicleList(deps, enrollment, list([a]));
    expect(first).toMatchObject({ kind: 'Synced', added: ['enr_1:va'] });
    now += 60_000;
    const second = await applyVehicleList(deps, enrollment, list([a, b]));
    expect(second).toMatchObject({ kind: 'Synced', added: ['enr_1:vb'] });
    // An incomplete list never removes.
    now += 60_000;
    expect(await applyVehicleList(deps, enrollment, list([b], false))).toMatchObject({ removed: [] });
    expect((await stores.vehicles.get('enr_1:va'))?.paused).toBe(false);
    // A complete list without it, but no read of the vehicle to confirm: nothing changes yet.
    now += 60_000;
    expect(await applyVehicleList(deps, enrollment, list([b]), checkVehicle)).toMatchObject({
      removed: [],
      eventsWritten: [],
    });
    expect((await stores.vehicles.get('enr_1:va'))?.paused).toBe(false);
    // The read says the user no longer has it: removed.
    reads.set('va', 'absent');
    now += 60_000;
    expect(await applyVehicleList(deps, enrollment, list([b]), checkVehicle)).toMatchObject({
      removed: ['enr_1:va'],
    });
    expect(await stores.vehicles.get('enr_1:va')).toMatchObject({ paused: true, pauseReason: 'removed' });
    // The same list again: nothing new.
    now += 60_000;
    expect(await applyVehicleList(deps, enrollment, list([b]), checkVehicle)).toMatchObject({
      removed: [],
      eventsWritten: [],
    });
    // Listed again (an older copy of the list, as far as the read says): not back.
    now += 60_000;
    expect(await applyVehicleList(deps, enrollment, list([a, b]), checkVehicle)).toMatchObject({
      resumed: [],
      eventsWritten: [],
    });
    reads.set('va', 'present');
    now += 60_000;
    expect(await applyVehicleList(deps, enrollment, list([a, b]), checkVehicle)).toMatchObject({
      resumed: ['enr_1:va'],
    });
    expect((await stores.vehicles.get('enr_1:va'))?.paused).toBe(false);

    const types = bus.received.map((e: EventEnvelope) => `${e.type}:${e.data.vehicleId}`);
    expect(types).toEqual([
      'enrollment.vehicle.added:enr_1:va',
      'enrollment.vehicle.added:enr_1:vb',
      'enrollment.vehicle.removed:enr_1:va',
      'enrollment.vehicle.added:enr_1:va',
    ]);
    expect(new Set(bus.ids()).size).toBe(4);
    // The envelope names the vehicle as every vehicle.* event does: Carhook's id, not the API's.
    expect(bus.received.map((e: EventEnvelope) => e.vehicle?.id)).toEqual(
      bus.received.map((e: EventEnvelope) => e.data.vehicleId),
    );
  });
});

describe('unenroll', () => {
  let p: Pipeline;
  afterEach(() => p.close());

  it('a fleet vehicle left unpaused by a worker that died mid-unenrollment is paused by its next job, without a request', async () => {
    p = await startPipeline();
    const v = p.sim.world.vehicles().find((x) => x.brand === 'C');
    if (!v) throw new Error('no brand C vehicle');
    const r = await enrollFleetContract(p, { vin: v.vin, contract: v.contract, brand: 'C' });
    if (r.kind !== 'Enrolled') throw new Error(r.kind);
    // The status transition happened; the worker died before pausing the vehicles.
    expect(await p.stores.enrollments.unenroll(r.enrollmentId, p.now())).toBe(true);
    const [vehicle] = await p.stores.vehicles.listByEnrollment(r.enrollmentId);
    if (!vehicle) throw new Error('no vehicle');
    expect(vehicle.paused).toBe(false);
    const before = (await p.stats()).total;
    const result = await runPollJob(p.pollDeps, {
      kind: 'poll-fleet',
      brand: 'C',
      vehicleIds: [vehicle.id],
      plannedAt: new Date(p.now()).toISOString(),
    });
    expect(result).toMatchObject({ kind: 'poll-fleet', summary: { polled: 0 } });
    expect((await p.stats()).total).toBe(before);
    expect(await p.stores.vehicles.get(vehicle.id)).toMatchObject({
      paused: true,
      pauseReason: 'unenrolled',
    });
  });

  it('stops polling, deletes the tokens and keeps the event log', async () => {
    p = await startPipeline();
    const user = p.sim.world.users()[0];
    if (!user) throw new Error('no user');
    const r = await p.enroll(user);
    if (r.kind !== 'Enrolled') throw new Error(r.kind);
    await p.cycle();
    const logged = p.bus.received.length;
    expect(logged).toBeGreaterThan(0);

    const out = await unenrollEnrollment(p, r.enrollmentId);
    expect(out).toMatchObject({
      kind: 'Unenrolled',
      transitioned: true,
      vehiclesPaused: user.vehicleIds.length,
    });
    const enrollment = await p.stores.enrollments.get(r.enrollmentId);
    expect(enrollment?.status).toBe('unenrolled');
    expect(
      enrollment && 'tokenCiphertext' in enrollment ? enrollment.tokenCiphertext : undefined,
    ).toBeUndefined();

    const before = (await p.stats()).total;
    await p.advance(60);
    const results = await p.cycle();
    expect(results).toEqual([]);
    expect((await p.stats()).total).toBe(before);
    for (const id of p.bus.ids()) expect(await p.stores.events.get(id, p.now())).toBeDefined();
    expect(await unenrollEnrollment(p, 'enr_missing')).toEqual({
      kind: 'NotFound',
      enrollmentId: 'enr_missing',
    });
  });
});
