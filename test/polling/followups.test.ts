import { afterEach, describe, expect, it } from 'vitest';
import type { JobResult } from '../../functions/core/jobs/worker';
import { type PollStrategy, type PollSummary, pollVehicle } from '../../functions/core/polling';
import { type Pipeline, startPipeline, userWithVehicles } from './support';

const summaries = (results: JobResult[]): PollSummary[] =>
  results.flatMap((r) => (r.kind === 'poll-vehicle' ? [r.summary] : []));

/** A completed trip on a warmed-up vehicle, then one cycle: what that cycle read and emitted. */
async function tripThenOneCycle(
  strategy: PollStrategy,
): Promise<{ p: Pipeline; summary: PollSummary | undefined; tripId: string }> {
  const p = await startPipeline({ config: { strategy } });
  const user = userWithVehicles(p.sim, 1);
  const r = await p.enroll(user);
  if (r.kind !== 'Enrolled') throw new Error(r.kind);
  const apiId = user.vehicleIds[0] as string;
  for (let i = 0; i < 2; i++) {
    await p.cycle();
    await p.advance(60);
  }
  const trip = await p.control('POST', `/vehicles/${apiId}/trips`, { durationS: 600, distanceKm: 8 });
  expect(trip.status).toBe(201);
  await p.advance(60);
  const summary = summaries(await p.cycle()).find((s) => s.vehicleId === `${r.enrollmentId}:${apiId}`);
  return { p, summary, tripId: trip.body.trip.id as string };
}

describe('follow-up reads', () => {
  let p: Pipeline | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  it('the naive baseline reads the eco-driving of a trip it sees, so the trip is announced in the same cycle', async () => {
    const run = await tripThenOneCycle('naive');
    p = run.p;
    expect(run.summary?.resources).toEqual([
      'events',
      'alerts',
      'collisions',
      'maintenance',
      `ecodriving:${run.tripId}`,
    ]);
    expect(run.summary?.requests).toBe(5);
    const completed = p.bus.received.filter(
      (e) => e.type === 'vehicle.trip.completed' && e.data.tripId === run.tripId,
    );
    expect(completed).toHaveLength(1);
  });

  it('a routine job (followUps: false) reads only its resources; the events poll makes the follow-ups', async () => {
    p = await startPipeline();
    const user = userWithVehicles(p.sim, 1);
    const r = await p.enroll(user);
    if (r.kind !== 'Enrolled') throw new Error(r.kind);
    const vehicleId = `${r.enrollmentId}:${user.vehicleIds[0] as string}`;
    const job = {
      kind: 'poll-vehicle' as const,
      vehicleId,
      resources: ['alerts' as const],
      strategy: 'carhook' as const,
      rotate: false,
      plannedAt: new Date(p.now()).toISOString(),
    };
    // Maintenance never read is a follow-up of any carhook poll, except a routine one.
    const routine = await pollVehicle(p.pollDeps, { ...job, followUps: false });
    expect(routine.resources).toEqual(['alerts']);
    expect(routine.requests).toBe(1);
    const full = await pollVehicle(p.pollDeps, job);
    expect(full.resources).toEqual(['alerts', 'maintenance']);
  });

  it('carhook reads eco-driving and maintenance after a trip, in the poll that saw it', async () => {
    const run = await tripThenOneCycle('carhook');
    p = run.p;
    // (A vehicle with alerts active also has them read in the same poll when the budget allows.)
    expect(run.summary?.resources.filter((r) => r !== 'alerts')).toEqual([
      'events',
      `ecodriving:${run.tripId}`,
      'maintenance',
    ]);
    expect(run.summary?.outcome).toBe('polled');
  });
});
