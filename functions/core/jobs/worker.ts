/**
 * One entry point for the poll job queue: dispatches a received job body to its use case. The
 * handler (SQS batch or the local queue consumer) parses nothing itself: a malformed body fails
 * here with `InvalidJobError` naming the field.
 *
 * It sits above both core/polling and core/enrollment because the queue carries jobs of both:
 * vehicle, fleet and map polls (../polling) and vehicle discovery (../enrollment/discovery.ts,
 * which itself builds on polling's commit). Neither of the two has to know the other's jobs.
 */
import { type DiscoveryResult, syncVehicleList } from '../enrollment/discovery';
import { type PollJob, parsePollJob } from '../polling/jobs';
import { createMeteredClient } from '../polling/metered-client';
import { type FleetPollSummary, pollFleet } from '../polling/poll-fleet';
import { type MapPollSummary, pollMap } from '../polling/poll-map';
import {
  type PollDeps,
  type PollSummary,
  pollVehicle,
  publishReauthorization,
} from '../polling/poll-vehicle';

export type JobResult =
  | { readonly kind: 'poll-vehicle'; readonly summary: PollSummary }
  | { readonly kind: 'poll-fleet'; readonly summary: FleetPollSummary }
  | { readonly kind: 'poll-map'; readonly summary: MapPollSummary }
  | {
      readonly kind: 'discover-vehicles';
      readonly enrollmentId: string;
      readonly result: DiscoveryResult | { readonly kind: 'Skipped'; readonly reason: string };
      readonly requests: number;
    };

/** Vehicle discovery job: re-reads the user's vehicle list with the enrollment's tokens. */
export async function runDiscovery(deps: PollDeps, enrollmentId: string): Promise<JobResult> {
  const enrollment = await deps.stores.enrollments.get(enrollmentId);
  if (enrollment?.kind !== 'oauth-user' || enrollment.status !== 'active') {
    return {
      kind: 'discover-vehicles',
      enrollmentId,
      result: {
        kind: 'Skipped',
        reason: enrollment ? `enrollment is ${enrollment.status}` : 'no such enrollment',
      },
      requests: 0,
    };
  }
  const provider = deps.tokens.providerFor(enrollment.id, enrollment);
  const metered = (deps.clientFactory ?? createMeteredClient)(deps.access, {
    brand: enrollment.brand,
    tokenProvider: provider,
    budget: deps.budget,
    now: deps.now,
  });
  const result = await syncVehicleList(
    { stores: deps.stores, bus: deps.bus, now: deps.now, ...(deps.publish ? { publish: deps.publish } : {}) },
    enrollment,
    metered.client,
  );
  await metered.settle();
  await publishReauthorization(deps, provider.outcome());
  return { kind: 'discover-vehicles', enrollmentId, result, requests: metered.requests() };
}

export async function runPollJob(deps: PollDeps, body: unknown): Promise<JobResult> {
  const job: PollJob = parsePollJob(body);
  switch (job.kind) {
    case 'poll-vehicle':
      return { kind: 'poll-vehicle', summary: await pollVehicle(deps, job) };
    case 'poll-fleet':
      return { kind: 'poll-fleet', summary: await pollFleet(deps, job) };
    case 'poll-map':
      return { kind: 'poll-map', summary: await pollMap(deps, job) };
    case 'discover-vehicles':
      return runDiscovery(deps, job.enrollmentId);
  }
}
