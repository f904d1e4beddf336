import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import type { JobResult } from '../../functions/core/jobs/worker';
import type { PollSummary } from '../../functions/core/polling';
import { republishPending } from '../../functions/core/polling';
import type { SimUser } from '../../sim/world/types';
import { gateReads, type Pipeline, startPipeline, userWithVehicles } from './support';

const summaries = (results: JobResult[]): PollSummary[] =>
  results.flatMap((r) => (r.kind === 'poll-vehicle' ? [r.summary] : []));

async function allEvents(p: Pipeline): Promise<EventEnvelope[]> {
  const page = await p.stores.events.listByTime({
    since: '2000-01-01T00:00:00.000Z',
    until: '2100-01-01T00:00:00.000Z',
    now: p.now(),
    limit: 1000,
  });
  return page.items.map((s) => s.envelope);
}

const ofType = (events: readonly EventEnvelope[], type: string) => events.filter((e) => e.type === type);

describe('poll pipeline against the simulator', () => {
  let p: Pipeline;
  let user: SimUser;

  beforeEach(async () => {
    p = await startPipeline();
    user = userWithVehicles(p.sim, 2);
  });
  afterEach(() => p.close());

  it('enrolls a user through the real OAuth flow and announces each vehicle once', async () => {
    const r = await p.enroll(user);
    expect(r.kind).toBe('Enrolled');
    if (r.kind !== 'Enrolled') return;
    expect(r.created).toBe(true);
    const enrollment = await p.stores.enrollments.get(r.enrollmentId);
    expect(enrollment).toMatchObject({ kind: 'oauth-user', status: 'active', userId: user.id });
    // Tokens are only stored encrypted.
    const stored = JSON.stringify(enrollment);
    expect(stored).toMatch(/"tokenCiphertext":"v1\.k1\./);
    expect(stored).not.toMatch(/at_|rt_/);
    const vehicles = await p.stores.vehicles.listByEnrollment(r.enrollmentId);
    expect(vehicles.map((v) => v.apiVehicleId).sort()).toEqual([...user.vehicleIds].sort());
    const added = ofType(await allEvents(p), 'enrollment.vehicle.added');
    expect(added).toHaveLength(user.vehicleIds.length);
    expect(p.bus.ids('enrollment.vehicle.added').sort()).toEqual(added.map((e) => e.id).sort());
  });

  it('emits raised, fixed, collision, maintenance, trip and refuel events once each, and re-polls add nothing', async () => {
    const r = await p.enroll(user);
    if (r.kind !== 'Enrolled') throw new Error(r.kind);
    const apiId = user.vehicleIds[0] as string;
    const vehicleId = `${r.enrollmentId}:${apiId}`;
    // Baseline: the first poll records history and current conditions, reading every resource.
    const first = summaries(await p.cycle());
    expect(first.flatMap((s) => s.failures)).toEqual([]);
    expect(first.find((s) => s.vehicleId === vehicleId)?.resources).toEqual([
      'events',
      'alerts',
      'maintenance',
      'services',
    ]);
    await p.advance(60);
    await p.cycle();
    const baseline = (await allEvents(p)).length;

    const raised = await p.control('POST', `/vehicles/${apiId}/alerts`, { severity: 'high' });
    expect(raised.status).toBe(201);
    await p.control('POST', `/vehicles/${apiId}/collisions`, { front: 'high' });
    await p.control('PUT', `/vehicles/${apiId}/maintenance`, { days: 10, mileage: 5000 });
    await p.control('POST', `/vehicles/${apiId}/trips`, { durationS: 900, distanceKm: 12 });
    await p.control('POST', `/vehicles/${apiId}/events`, { type: 'refuel', liters: 30 });
    await p.advance(60);
    await p.cycle();
    await p.advance(60);
    await p.cycle();
    // The alert is fixed; alerts known active are followed within activeAlertsEveryMs.
    const fixed = await p.control('POST', `/vehicles/${apiId}/alerts/${raised.body.id}/fix`);
    expect(fixed.status).toBe(200);
    for (let i = 0; i < 6; i++) {
      await p.advance(60);
      await p.cycle();
    }

    const events = (await allEvents(p)).filter((e) => e.vehicle?.id === vehicleId);
    const count = (type: string, pred: (e: EventEnvelope) => boolean = () => true) =>
      ofType(events, type).filter(pred).length;
    const aboutAlert = (e: EventEnvelope) => JSON.stringify(e).includes(raised.body.id);
    expect(count('vehicle.alert.raised', aboutAlert)).toBe(1);
    expect(count('vehicle.alert.fixed', aboutAlert)).toBe(1);
    expect(count('vehicle.collision.detected')).toBeGreaterThanOrEqual(1);
    expect(count('vehicle.maintenance.due')).toBe(1);
    expect(count('vehicle.trip.completed')).toBeGreaterThanOrEqual(1);
    expect(count('vehicle.refuel.detected')).toBe(1);
    // Each event id exactly once in the log and on the bus.
    const ids = (await allEvents(p)).map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...p.bus.ids()].sort()).toEqual([...ids].sort());
    expect(ids.length).toBeGreaterThan(baseline);

    // Nothing happens: re-polling adds no event and writes no state.
    const before = ids.length;
    const quiet: PollSummary[] = [];
    for (let i = 0; i < 3; i++) {
      await p.advance(60);
      quiet.push(...summaries(await p.cycle()));
    }
    expect((await allEvents(p)).length).toBe(before);
    expect(p.bus.received).toHaveLength(before);
    expect(quiet.filter((s) => s.committed)).toEqual([]);
  });

  it('two workers polling the same vehicle concurrently emit no different duplicate', async () => {
    const r = await p.enroll(user);
    if (r.kind !== 'Enrolled') throw new Error(r.kind);
    const apiId = user.vehicleIds[0] as string;
    const vehicleId = `${r.enrollmentId}:${apiId}`;
    await p.cycle();
    await p.advance(60);
    await p.control('POST', `/vehicles/${apiId}/alerts`, { severity: 'medium' });
    await p.control('POST', `/vehicles/${apiId}/events`, { type: 'fuel_stolen', liters: 20 });
    await p.advance(60);

    // Both workers read the same state version before either commits.
    const gated = gateReads(p.stores, 2);
    const job = {
      kind: 'poll-vehicle' as const,
      vehicleId,
      resources: ['events' as const, 'alerts' as const],
      strategy: 'carhook' as const,
      rotate: false,
      plannedAt: new Date(p.now()).toISOString(),
    };
    const { pollVehicle } = await import('../../functions/core/polling');
    const [a, b] = await Promise.all([
      pollVehicle({ ...p.pollDeps, stores: gated }, job),
      pollVehicle({ ...p.worker(), stores: gated }, job),
    ]);
    expect(a.conflicts + b.conflicts).toBeGreaterThanOrEqual(1);
    const events = (await allEvents(p)).filter((e) => e.vehicle?.id === vehicleId);
    const written = [...a.eventsWritten, ...b.eventsWritten];
    expect(new Set(written).size).toBe(written.length);
    expect(ofType(events, 'vehicle.fuel_theft.detected')).toHaveLength(1);
    expect(
      ofType(events, 'vehicle.alert.raised').filter((e) => e.occurredAt >= '2026-01-15T09:01'),
    ).toHaveLength(1);
    const busIds = p.bus.ids();
    expect(new Set(busIds).size).toBe(busIds.length);
  });

  it('a crash between commit and publish loses nothing: the sweeper publishes the same ids later', async () => {
    const r = await p.enroll(user);
    if (r.kind !== 'Enrolled') throw new Error(r.kind);
    const apiId = user.vehicleIds[0] as string;
    await p.cycle();
    await p.advance(60);
    await p.control('POST', `/vehicles/${apiId}/collisions`, { rear: 'medium' });
    await p.advance(60);
    p.bus.failing = true;
    const results = summaries(await p.cycle());
    const committed = results.flatMap((s) => s.eventsWritten);
    expect(committed.length).toBeGreaterThan(0);
    expect(results.flatMap((s) => s.unpublished).sort()).toEqual([...committed].sort());
    const pending = await p.stores.events.listUnpublished({ now: p.now() });
    expect(pending.items.map((s) => s.envelope.id).sort()).toEqual([...committed].sort());

    p.bus.failing = false;
    const swept = await republishPending({ events: p.stores.events, bus: p.bus, now: p.now });
    expect([...swept.published].sort()).toEqual([...committed].sort());
    expect((await p.stores.events.listUnpublished({ now: p.now() })).items).toEqual([]);
    // A second sweep has nothing to do.
    expect((await republishPending({ events: p.stores.events, bus: p.bus, now: p.now })).published).toEqual(
      [],
    );
  });

  it('pauses a vehicle the user has no access to (403) and polls it no more', async () => {
    const r = await p.enroll(user);
    if (r.kind !== 'Enrolled') throw new Error(r.kind);
    // A vehicle of another user: the API answers 403 (no access to the car).
    const other = p.sim.world.vehicles().find((v) => v.userId !== user.id);
    if (!other) throw new Error('no other vehicle');
    const id = `${r.enrollmentId}:${other.id}`;
    const at = new Date(p.now()).toISOString();
    await p.stores.vehicles.put(
      { id, enrollmentId: r.enrollmentId, vin: other.vin, apiVehicleId: other.id, nextPollAt: at },
      p.now(),
    );
    const results = summaries(await p.cycle());
    const denied = results.find((s) => s.vehicleId === id);
    expect(denied?.outcome).toBe('access_denied');
    expect(denied?.failures[0]?.kind).toBe('AccessDenied');
    expect(await p.stores.vehicles.get(id)).toMatchObject({ paused: true, pauseReason: 'access_denied' });
    await p.advance(60);
    expect(summaries(await p.cycle()).map((s) => s.vehicleId)).not.toContain(id);
  });

  it('reads map updates daily in bulk and announces a new version once', async () => {
    const r = await p.enroll(user);
    if (r.kind !== 'Enrolled') throw new Error(r.kind);
    const first = await p.cycle();
    const maps = first.flatMap((x) => (x.kind === 'poll-map' ? [x.summary] : []));
    expect(maps).toHaveLength(1);
    expect(maps[0]).toMatchObject({ requests: 1, failures: [] });
    const vin = p.sim.world.vehicle(user.vehicleIds[0] as string)?.vin as string;
    expect((await p.control('POST', `/map/${vin}/release`, {})).status).toBe(200);
    await p.advance(60);
    expect((await p.cycle()).filter((x) => x.kind === 'poll-map')).toEqual([]);
    await p.advance(24 * 3600);
    await p.cycle();
    await p.advance(60);
    await p.cycle();
    const announced = p.bus.received.filter(
      (e) => e.type === 'vehicle.map_update.available' && e.vehicle?.vin === vin,
    );
    expect(announced.filter((e) => e.detectedAt > new Date(p.now() - 3600_000).toISOString())).toHaveLength(
      1,
    );
  });
});
