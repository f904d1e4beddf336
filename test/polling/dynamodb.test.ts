import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDynamoStores } from '../../functions/adapters/dynamodb';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { pollVehicle, republishPending } from '../../functions/core/polling';
import type { SimUser } from '../../sim/world/types';
import { createSimulatedClockTable, localDynamoClient, uniqueTableName } from '../support/dynamodb';
import { gateReads, type Pipeline, startPipeline, userWithVehicles } from './support';

/** The same pipeline on DynamoDB Local: stores, leases and the rate budget in one table. */
describe('poll pipeline on DynamoDB Local', () => {
  let p: Pipeline;
  let user: SimUser;
  const client = localDynamoClient();

  beforeEach(async () => {
    const tableName = uniqueTableName('carhook-polling');
    await createSimulatedClockTable(client, tableName);
    const dynamo = createDynamoStores({ client, tableName });
    p = await startPipeline({ backend: { stores: dynamo, budget: dynamo.rateBudget } });
    user = userWithVehicles(p.sim, 2);
  });
  afterEach(() => p.close());

  const logged = async (): Promise<EventEnvelope[]> =>
    (
      await p.stores.events.listByTime({
        since: '2000-01-01T00:00:00.000Z',
        until: '2100-01-01T00:00:00.000Z',
        now: p.now(),
        limit: 1000,
      })
    ).items.map((s) => s.envelope);

  it('enrolls, detects changes once, survives a bus outage and handles invalid_grant', async () => {
    const r = await p.enroll(user);
    if (r.kind !== 'Enrolled') throw new Error(r.kind);
    const apiId = user.vehicleIds[0] as string;
    await p.cycle();
    await p.advance(60);
    const raised = await p.control('POST', `/vehicles/${apiId}/alerts`, { severity: 'high' });
    await p.control('POST', `/vehicles/${apiId}/trips`, { durationS: 600, distanceKm: 8 });
    await p.advance(60);
    p.bus.failing = true;
    await p.cycle();
    p.bus.failing = false;
    const unpublished = (await p.stores.events.listUnpublished({ now: p.now() })).items.map(
      (s) => s.envelope.id,
    );
    expect(unpublished.length).toBeGreaterThan(0);
    const swept = await republishPending({ events: p.stores.events, bus: p.bus, now: p.now });
    expect([...swept.published].sort()).toEqual([...unpublished].sort());

    for (let i = 0; i < 3; i++) {
      await p.advance(60);
      await p.cycle();
    }
    const events = await logged();
    const ids = events.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(
      events.filter((e) => e.type === 'vehicle.alert.raised' && e.data.alertId === raised.body.id),
    ).toHaveLength(1);
    expect(events.filter((e) => e.type === 'vehicle.trip.completed').length).toBeGreaterThanOrEqual(1);
    expect(new Set(p.bus.ids())).toEqual(new Set(ids));

    await p.control('POST', `/users/${user.id}/revoke`);
    await p.advance(3600);
    await p.cycle();
    expect((await p.stores.enrollments.get(r.enrollmentId))?.status).toBe('reauthorization_required');
    expect(p.bus.ids('enrollment.reauthorization_required')).toHaveLength(1);
    const before = (await p.stats()).total;
    await p.advance(60);
    expect(await p.cycle()).toEqual([]);
    expect((await p.stats()).total).toBe(before);
  });

  it('two workers on the same vehicle: the conditional commit makes one re-diff, no different duplicate', async () => {
    const r = await p.enroll(user);
    if (r.kind !== 'Enrolled') throw new Error(r.kind);
    const apiId = user.vehicleIds[0] as string;
    const vehicleId = `${r.enrollmentId}:${apiId}`;
    await p.cycle();
    await p.advance(60);
    await p.control('POST', `/vehicles/${apiId}/collisions`, { lateral: 'low' });
    await p.advance(60);
    const gated = gateReads(p.stores, 3);
    const job = {
      kind: 'poll-vehicle' as const,
      vehicleId,
      resources: ['events' as const],
      strategy: 'carhook' as const,
      rotate: false,
      plannedAt: new Date(p.now()).toISOString(),
    };
    const results = await Promise.all(
      [1, 2, 3].map(() => pollVehicle({ ...p.worker(), stores: gated }, job)),
    );
    expect(results.reduce((n, s) => n + s.conflicts, 0)).toBeGreaterThanOrEqual(2);
    expect(results.filter((s) => s.committed)).toHaveLength(1);
    const collisions = (await logged()).filter(
      (e) => e.type === 'vehicle.collision.detected' && e.vehicle?.id === vehicleId,
    );
    expect(collisions).toHaveLength(1);
    expect(p.bus.ids('vehicle.collision.detected')).toEqual([collisions[0]?.id]);
    // One counter per vehicle (its enrollment.vehicle.added included), allocated by the commit
    // that won: 1..n without gap or repeat.
    const sequences = (await logged())
      .filter((e) => e.vehicle?.id === vehicleId)
      .map((e) => e.sequence)
      .sort((a, b) => a - b);
    expect(sequences.length).toBeGreaterThan(0);
    expect(sequences).toEqual(sequences.map((_, i) => i + 1));
    const { state } = await p.stores.states.getVehicleWithState(vehicleId);
    expect(state?.vehicleId).toBe(`vin:${p.sim.world.vehicle(apiId)?.vin}`);
    expect(JSON.parse(state?.state ?? '{}').sequence).toBe(sequences.length);
  });
});
