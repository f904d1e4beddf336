import { afterEach, describe, expect, it } from 'vitest';
import { type JobResult, runPollJob } from '../../functions/core/jobs/worker';
import type { PollSummary } from '../../functions/core/polling';
import { runPlanner } from '../../functions/core/polling';
import { type Pipeline, startPipeline } from './support';

const summaries = (results: JobResult[]): PollSummary[] =>
  results.flatMap((r) => (r.kind === 'poll-vehicle' ? [r.summary] : []));

async function enrollAll(p: Pipeline): Promise<string[]> {
  const ids: string[] = [];
  for (const user of p.sim.world.users()) {
    const r = await p.enroll(user);
    if (r.kind !== 'Enrolled') throw new Error(`enroll ${user.id}: ${r.kind}`);
    ids.push(r.enrollmentId);
  }
  return ids;
}

describe('invalid_grant', () => {
  let p: Pipeline;
  afterEach(() => p.close());

  it('marks the enrollment once, pauses its vehicles and sends no further request for them', async () => {
    p = await startPipeline();
    const user = p.sim.world.users()[0];
    if (!user) throw new Error('no user');
    const r = await p.enroll(user);
    if (r.kind !== 'Enrolled') throw new Error(r.kind);
    await p.cycle();
    await p.advance(60);

    expect((await p.control('POST', `/users/${user.id}/revoke`)).status).toBe(200);
    // The access token expires: the refresh meets invalid_grant.
    await p.advance(3600);
    const results = summaries(await p.cycle());
    const mine = results.filter((s) => s.vehicleId.startsWith(r.enrollmentId));
    expect(mine.map((s) => s.outcome)).toContain('reauthorization_required');

    const enrollment = await p.stores.enrollments.get(r.enrollmentId);
    expect(enrollment?.status).toBe('reauthorization_required');
    const vehicles = await p.stores.vehicles.listByEnrollment(r.enrollmentId);
    expect(vehicles.every((v) => v.paused && v.pauseReason === 'reauthorization_required')).toBe(true);
    const reauth = p.bus.received.filter((e) => e.type === 'enrollment.reauthorization_required');
    expect(reauth).toHaveLength(1);
    expect(reauth[0]?.data).toMatchObject({ enrollmentId: r.enrollmentId, reason: 'invalid_grant' });

    // No further API requests for its vehicles, and no second event.
    const before = (await p.stats()).total;
    for (let i = 0; i < 3; i++) {
      await p.advance(60);
      const again = summaries(await p.cycle()).filter((s) => s.vehicleId.startsWith(r.enrollmentId));
      expect(again).toEqual([]);
    }
    expect((await p.stats()).total).toBe(before);
    expect(p.bus.received.filter((e) => e.type === 'enrollment.reauthorization_required')).toHaveLength(1);

    // Re-authorization reactivates the enrollment and resumes its vehicles.
    const back = await p.enroll(user);
    expect(back).toMatchObject({
      kind: 'Enrolled',
      enrollmentId: r.enrollmentId,
      created: false,
      reactivated: true,
    });
    expect(back.kind === 'Enrolled' && back.vehiclesResumed).toBe(user.vehicleIds.length);
    await p.advance(60);
    const resumed = summaries(await p.cycle()).filter((s) => s.vehicleId.startsWith(r.enrollmentId));
    expect(resumed.map((s) => s.outcome)).toEqual(user.vehicleIds.map(() => 'polled'));
  });
});

describe('rate limits', () => {
  let p: Pipeline;
  afterEach(() => p.close());

  it('a 429 storm freezes the budget and the quota is never exceeded, even with concurrent workers', async () => {
    const limit = 20;
    p = await startPipeline({
      sim: { vehicles: 12, seed: 11 },
      rate: { limit, windowMs: 60_000, safetyMargin: 0.1 },
    });
    expect(
      (await p.control('PUT', `/clients/${p.sim.clientId}/quota`, { limit, windowSeconds: 60 })).status,
    ).toBe(200);
    await enrollAll(p);
    expect((await p.control('PUT', '/chaos', { rateLimited: 0.3 })).status).toBe(200);

    let frozenAfter429 = 0;
    let denied = 0;
    for (let cycle = 0; cycle < 6; cycle++) {
      await p.advance(60);
      await runPlanner({
        ...p.stores,
        queue: p.queue,
        now: p.now,
        config: p.config,
        rateBudget: { limit, windowMs: 60_000, safetyMargin: 0.1 },
      });
      const jobs = p.queue.drain();
      // Many workers at once, all drawing from the same budget.
      const results = summaries(await Promise.all(jobs.map((job) => runPollJob(p.worker(), job))));
      denied += results.reduce((n, s) => n + s.denied, 0);
      if (results.some((s) => s.failures.some((f) => f.kind === 'RateLimited'))) {
        // After a 429 the budget is frozen until X-RateLimit-Reset: nothing is granted now.
        const take = await p.budget.tryTake(p.sim.clientId, 1, p.now());
        expect(take.granted).toBe(false);
        frozenAfter429++;
      }
    }
    const stats = await p.stats();
    const mine = stats.clients[p.sim.clientId];
    expect(mine?.tooManyRequests).toBeGreaterThan(0);
    expect(frozenAfter429).toBeGreaterThan(0);
    expect(denied).toBeGreaterThan(0);
    expect(mine?.maxInWindow).toBeLessThanOrEqual(limit);
  });
});
