/**
 * A vehicle's first poll reads its history as baseline; a change made while that poll is still
 * running, after its events read was answered, is not history: a later poll reports it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPollJob } from '../../functions/core/jobs/worker';
import { runPlanner } from '../../functions/core/polling';
import { type Pipeline, startPipeline, userWithVehicles } from './support';

describe("a vehicle's first poll", () => {
  let p: Pipeline;
  beforeEach(async () => {
    p = await startPipeline();
  });
  afterEach(() => p.close());

  it('reports a collision made between its events read and its commit, at the next poll', async () => {
    const user = userWithVehicles(p.sim, 1);
    expect((await p.enroll(user)).kind).toBe('Enrolled');
    const apiId = user.vehicleIds[0] as string;
    const vin = p.sim.world.vehicle(apiId)?.vin;
    let collisionAt: string | undefined;
    // The first events read is answered; a second later the car has a collision; a second later
    // the poll commits (its other reads done).
    const worker = p.workerDeps({
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (collisionAt === undefined && String(input).includes(`/vehicles/${apiId}/events`)) {
          await p.advance(1_000);
          collisionAt = (await p.control('POST', `/vehicles/${apiId}/collisions`, { front: 'high' })).body
            .createdAt;
          await p.advance(1_000);
        }
        return response;
      },
    });
    await runPlanner({
      ...p.stores,
      queue: p.queue,
      now: p.now,
      config: p.config,
      rateBudget: p.rate,
      memory: p.memory,
    });
    for (const job of p.queue.drain()) await runPollJob(worker, job);
    expect(collisionAt).toBeDefined();
    expect(p.bus.received.filter((e) => e.type === 'vehicle.collision.detected')).toEqual([]);

    await p.cycles(3);
    const told = p.bus.received.filter(
      (e) => e.type === 'vehicle.collision.detected' && e.vehicle?.vin === vin,
    );
    expect(told.map((e) => e.occurredAt)).toEqual([collisionAt]);
  });
});
