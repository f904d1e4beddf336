/**
 * A read the budget refuses is never lost: the planner counted it as made, so the worker that was
 * refused says so with its one write of its own (`eventsRefusedAt`), and the planner counts that
 * vehicle's age from the read made before. Through the whole pipeline: planner, queue, worker,
 * simulator, stores; the planner's side alone is in ./memory.test.ts and ./work-waiting.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type JobResult, runPollJob } from '../../functions/core/jobs/worker';
import { type PollSummary, runPlanner } from '../../functions/core/polling';
import type { RateBudget } from '../../functions/core/ratelimit/budget';
import { type Pipeline, startPipeline } from './support';

const summaries = (results: readonly JobResult[]): PollSummary[] =>
  results.flatMap((r) => (r.kind === 'poll-vehicle' ? [r.summary] : []));

/** The real budget for the first `grants` requests, then a refusal for every one after. */
function grantingOnly(budget: RateBudget, grants: number): RateBudget {
  let left = grants;
  return {
    tryTake: async (clientId, n, now) => {
      if (left < n) return { granted: false, retryAt: now + 60_000 };
      left -= n;
      return budget.tryTake(clientId, n, now);
    },
    observe: (clientId, o) => budget.observe(clientId, o),
    freezeUntil: (clientId, at) => budget.freezeUntil(clientId, at),
    followed: () => budget.followed(),
  };
}

describe('a read the budget refused', () => {
  let p: Pipeline | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  it('is written by the refused worker, and the vehicle is read again in the next cycle', async () => {
    const pipeline = await startPipeline({ sim: { vehicles: 8 } });
    p = pipeline;
    await pipeline.enrollAll();
    // Warm: baselines read, every vehicle steady.
    for (let i = 0; i < 3; i++) {
      await pipeline.cycle();
      await pipeline.advance(60);
    }
    const steady = summaries(await pipeline.cycle());
    expect(steady.every((s) => s.wrote === 'none')).toBe(true);
    await pipeline.advance(60);

    // One cycle planned as usual; the budget grants its first two requests only.
    const now = pipeline.now();
    await runPlanner({
      ...pipeline.stores,
      queue: pipeline.queue,
      now: () => pipeline.now(),
      config: pipeline.config,
      rateBudget: pipeline.rate,
      memory: pipeline.memory,
    });
    const jobs = pipeline.queue.drain();
    const worker = pipeline.workerDeps({ budget: grantingOnly(pipeline.budget, 2) });
    const results: JobResult[] = [];
    for (const job of jobs) results.push(await runPollJob(worker, job));
    const polled = summaries(results);
    const refused = polled.filter((s) => s.outcome === 'budget_exhausted').map((s) => s.vehicleId);
    const served = polled.filter((s) => s.outcome === 'polled').map((s) => s.vehicleId);
    expect(served.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThanOrEqual(4);
    expect(served.length + refused.length).toBe(polled.length);
    for (const s of polled.filter((x) => x.outcome === 'budget_exhausted')) {
      // Refused whole: nothing sent, nothing seen, one write, of the hint; no work was seen waiting.
      expect(s.requests).toBe(0);
      expect(s.wrote).toBe('schedule');
      const hints = (await pipeline.stores.vehicles.get(s.vehicleId))?.hints;
      expect(hints?.eventsRefusedAt).toBe(new Date(now).toISOString());
      expect(hints?.workWaitingAt).toBeUndefined();
    }
    for (const id of served) {
      expect((await pipeline.stores.vehicles.get(id))?.hints.eventsRefusedAt).toBeUndefined();
    }
    // The planner's memory still says "booked now" of every one of them; the hint corrects it.
    for (const id of refused) expect(pipeline.memory.get(id)?.events).toBe(now);

    // The next cycle reads them (their age counts from the read before), and they answer.
    await pipeline.advance(60);
    const next = summaries(await pipeline.cycle());
    for (const id of refused) {
      const s = next.find((x) => x.vehicleId === id);
      expect(s?.outcome).toBe('polled');
      expect(s?.resources).toContain('events');
    }
    // Read, the hint is stale: the cycle after it writes nothing.
    await pipeline.advance(60);
    const after = summaries(await pipeline.cycle());
    expect(after.every((s) => s.wrote === 'none')).toBe(true);
  });
});
