/**
 * The poll worker for one v2 vehicle job: read the planned resources through a metered client
 * (every request drawn from the shared budget; the reads are in ./readers.ts), build observations,
 * then diff, commit and publish through ./commit.ts; a poll the budget cut short says so
 * (`refused`), so the planner reads the vehicle again next cycle.
 *
 * Observations (detection/observations.ts): a list read in full is `complete: true` (a 404 "no
 * such items" already arrives from the client as an empty complete list); a failed call
 * gives no observation, so it can never fix or remove anything.
 *
 * Errors: `InvalidGrant` (the token manager marked the enrollment, paused its vehicles, wrote the
 * event) stops the poll at once; `AccessDenied` (403: the user has no access to the car)
 * pauses the vehicle; a `NotFound` vehicle is NOT guessed removed (only a complete vehicle list
 * removes a vehicle, see enrollment/discovery.ts); `RateLimited` and a refused budget stop the poll.
 */
import type { ApiError } from '../api';
import type { EcoDriving } from '../api/model';
import { diff } from '../detection/diff';
import type { Observation } from '../detection/observations';
import { parseState } from '../detection/state';
import type { EventBus } from '../publishing/ports';
import type { RateBudget } from '../ratelimit/budget';
import { stateKeyOf } from '../store/identity';
import type { Stores } from '../store/ports';
import type { OAuthUserEnrollment } from '../store/records';
import type { TokenManager, TokenOutcome } from '../tokens/token-manager';
import { applyObservations, detectionContext, type PublishTuning, publishCommitted } from './commit';
import { DEFAULT_POLLING_CONFIG, type PollingConfig, type VehicleResource, vehicleResources } from './config';
import type { PollVehicleJob } from './jobs';
import {
  type ApiAccess,
  createMeteredClient,
  type MeteredClient,
  type MeteredClientOptions,
} from './metered-client';
import { alertRecordReader, iso, type Reader, readers } from './readers';
import { coveringFleet, linkToStream } from './streams';

export interface PollDeps {
  readonly stores: Stores;
  readonly budget: RateBudget;
  readonly bus: EventBus;
  readonly access: ApiAccess;
  readonly tokens: TokenManager;
  /** Epoch ms (the simulator's world clock in tests). */
  readonly now: () => number;
  readonly config?: Partial<PollingConfig>;
  readonly publish?: PublishTuning;
  /** Overrides how the metered client is built (tests, benchmarks counting requests). */
  readonly clientFactory?: (access: ApiAccess, options: MeteredClientOptions) => MeteredClient;
}

export interface ResourceFailure {
  readonly resource: string;
  readonly kind: ApiError['kind'] | 'BudgetDenied';
  readonly message: string;
}

export type PollOutcome =
  /** Polled (possibly partially: see `failures`). */
  | 'polled'
  /** Paused, missing enrollment or not active: nothing requested. */
  | 'skipped'
  | 'missing'
  | 'reauthorization_required'
  | 'access_denied'
  /** The budget refused a request (or a 429): the rest waits for the next cycle. */
  | 'budget_exhausted'
  | 'conflict_retries_exhausted'
  | 'state_unreadable';

/** What one job did, for metrics and tests. */
export interface PollSummary {
  readonly vehicleId: string;
  readonly outcome: PollOutcome;
  /** Requests sent to the API (drawn from the budget). */
  readonly requests: number;
  /** Requests the budget refused (never sent). */
  readonly denied: number;
  readonly resources: readonly string[];
  readonly observations: number;
  /** `none`, `schedule` or `commit`. */
  readonly wrote: 'none' | 'schedule' | 'commit';
  readonly committed: boolean;
  readonly conflicts: number;
  readonly eventsWritten: readonly string[];
  readonly published: readonly string[];
  readonly unpublished: readonly string[];
  readonly failures: readonly ResourceFailure[];
  /** Answers the diff found stale: they contradicted newer known state and fixed nothing. */
  readonly stale: number;
  /** Requests made to confirm an absence or a services change (a record, a list read again). */
  readonly confirmations: number;
  readonly detail?: string;
}

const emptySummary = (vehicleId: string, outcome: PollOutcome, detail?: string): PollSummary => ({
  vehicleId,
  outcome,
  requests: 0,
  denied: 0,
  resources: [],
  observations: 0,
  wrote: 'none',
  committed: false,
  conflicts: 0,
  eventsWritten: [],
  published: [],
  unpublished: [],
  failures: [],
  stale: 0,
  confirmations: 0,
  ...(detail ? { detail } : {}),
});

/**
 * The transitioning worker publishes `enrollment.reauthorization_required` (logged with the
 * transition; if this fails, the sweeper publishes it later).
 */
export async function publishReauthorization(
  deps: Pick<PollDeps, 'stores' | 'bus' | 'now' | 'publish'>,
  outcome: TokenOutcome | undefined,
): Promise<{ eventsWritten: string[]; published: string[]; unpublished: string[] }> {
  if (outcome?.kind !== 'ReauthorizationRequired' || !outcome.event) {
    return { eventsWritten: [], published: [], unpublished: [] };
  }
  const r = await publishCommitted(deps, [outcome.event]);
  return { eventsWritten: [outcome.event.id], ...r };
}

/** Polls one v2 vehicle. Never throws for API failures (they are in the summary). */
export async function pollVehicle(deps: PollDeps, job: PollVehicleJob): Promise<PollSummary> {
  const config: PollingConfig = { ...DEFAULT_POLLING_CONFIG, ...deps.config };
  const { stores } = deps;
  const { vehicle, state } = await stores.states.getVehicleWithState(job.vehicleId);
  if (!vehicle) return emptySummary(job.vehicleId, 'missing', 'no such vehicle');
  if (vehicle.paused)
    return emptySummary(job.vehicleId, 'skipped', `paused: ${vehicle.pauseReason ?? 'unknown'}`);
  if (vehicle.apiVehicleId === undefined) {
    return emptySummary(job.vehicleId, 'skipped', 'a fleet vehicle: polled by poll-fleet jobs');
  }
  const enrollment = await stores.enrollments.get(vehicle.enrollmentId);
  if (enrollment?.kind !== 'oauth-user') {
    return emptySummary(
      job.vehicleId,
      'skipped',
      `enrollment ${vehicle.enrollmentId} is not an oauth-user enrollment`,
    );
  }
  if (enrollment.status !== 'active') {
    // A worker that died between the status transition and the last vehicle pause left this one
    // unpaused (store/lifecycle.ts pauses after the transition): repaired here, so the planner
    // stops booking it. The pause is conditional and idempotent.
    await stores.vehicles.pause(job.vehicleId, enrollment.status, deps.now());
    return emptySummary(job.vehicleId, 'skipped', `enrollment ${enrollment.id} is ${enrollment.status}`);
  }
  // The same VIN under an active fleet contract: polled once, through the contract's v1 bulk lists;
  // this enrollment joins that stream (its id goes on the events) and sends no request.
  const fleet = await coveringFleet(stores, vehicle);
  if (fleet !== undefined) {
    await linkToStream(stores, vehicle, state, { id: enrollment.id, kind: 'oauth-user' }, deps.now());
    return emptySummary(
      job.vehicleId,
      'skipped',
      `VIN ${vehicle.vin} is polled through fleet contract ${fleet.id} (v1 bulk): one stream`,
    );
  }

  let previous: ReturnType<typeof parseState> | undefined;
  if (state) {
    previous = parseState(state.state);
    if (!previous.ok) {
      return emptySummary(
        job.vehicleId,
        'state_unreadable',
        `${previous.error.field}: ${previous.error.reason}`,
      );
    }
  }
  const identity = stateKeyOf(vehicle);
  const context = detectionContext(
    { vehicle, enrollment: { id: enrollment.id, kind: 'oauth-user' } },
    identity,
    deps.now(),
    config,
  );
  // A state from before the VIN keying starts the identity (commit.ts migrates it).
  const start = previous?.ok ? { ...previous.state, vehicleId: identity } : undefined;
  // The hints of the stored state at `now`: the events cursor, alerts known active.
  const before = diff(start, [], context).next;

  const provider = deps.tokens.providerFor(enrollment.id, enrollment as OAuthUserEnrollment);
  const factory = deps.clientFactory ?? createMeteredClient;
  const metered = factory(deps.access, {
    brand: enrollment.brand,
    tokenProvider: provider,
    budget: deps.budget,
    now: deps.now,
  });
  const read = readers(metered.client, vehicle, vehicle.apiVehicleId, before.eventsSince, deps.now, config);
  // Before the first request: a first poll's history ends here (detection/context.ts).
  const readsStartedAt = deps.now();

  const planned = new Set<VehicleResource>(job.resources);
  const order = vehicleResources;
  const observations: Observation[] = [];
  const failures: ResourceFailure[] = [];
  const done = new Set<string>();
  let stop: PollOutcome | undefined;

  const run = async (name: string, reader: Reader): Promise<void> => {
    if (stop) return;
    if (metered.exhausted()) {
      stop = 'budget_exhausted';
      return;
    }
    done.add(name);
    const r = await reader();
    await metered.settle();
    if (r.observation) {
      observations.push(r.observation);
      return;
    }
    const error = r.error;
    if (!error) return;
    if (metered.exhausted()) {
      failures.push({ resource: name, kind: 'BudgetDenied', message: 'the rate budget refused the request' });
      stop = 'budget_exhausted';
      return;
    }
    failures.push({ resource: name, kind: error.kind, message: error.message });
    if (error.kind === 'InvalidGrant' || provider.outcome() !== undefined) stop = 'reauthorization_required';
    else if (error.kind === 'AccessDenied') stop = 'access_denied';
    else if (error.kind === 'RateLimited') stop = 'budget_exhausted';
  };

  for (const resource of order) if (planned.has(resource)) await run(resource, read[resource]);

  // Absences in doubt are confirmed before they are fixes (detection README "Alerts"), whatever
  // the strategy. Doubts from an earlier poll: this poll's complete list, a cycle later, confirms
  // or answers them. Doubts left: their records when that costs no more requests than the list
  // (one per alert against its pages), else the list again next cycle (work waiting, commit.ts).
  // A services change read once is read again likewise.
  let unfinished = false;
  const unconfirmedFrom = metered.requests();
  if (!stop && job.followUps !== false) {
    const failed = failures.length;
    const doubts = () =>
      diff(start, observations, context).next.alertsUnconfirmed.filter((k) => k.startsWith('v2:'));
    if (doubts().length > 0 && !done.has('alerts')) await run('alerts', read.alerts);
    const left = doubts();
    let listed = 0;
    for (const o of observations) if (o.source === 'v2.alerts' && o.complete) listed = o.items.length;
    const pages = Math.max(1, Math.ceil(listed / config.pageLimit));
    if (left.length > 0 && left.length <= pages) {
      for (const key of left) {
        const id = key.slice('v2:'.length);
        await run(`alert:${id}`, alertRecordReader(metered.client, id, deps.now));
      }
    }
    if (diff(start, observations, context).next.servicesUnconfirmed && !done.has('services')) {
      await run('services', read.services);
    }
    // A confirmation read that failed leaves its doubt: the vehicle is read again next cycle.
    unfinished =
      failures.length > failed && diff(start, observations, context).next.alertsUnconfirmed.length > 0;
  }
  const confirmations = metered.requests() - unconfirmedFrom;

  // Follow-ups the reads revealed (carhook and round-robin alike): an announced collision or trip not embedded in its
  // event, eco-driving of trips waiting for it, maintenance after a trip. The naive baseline reads
  // eco-driving too: without it every trip it sees waits `ecoDrivingWaitMs` for its event, which
  // measures the timeout rather than the strategy.
  if (!stop && job.followUps !== false) {
    const carhook = job.strategy !== 'naive';
    const mid = diff(start, observations, context).next;
    if (carhook && mid.collisions === 'now' && !done.has('collisions'))
      await run('collisions', read.collisions);
    if (carhook && mid.trips === 'now' && !done.has('trips')) await run('trips', read.trips);
    for (const tripId of mid.ecodrivingFor.slice(0, config.maxEcodrivingReads)) {
      await run(`ecodriving:${tripId}`, async () => {
        const r = await metered.client.v2.tripEcodriving(tripId);
        if (r.ok) {
          const item: EcoDriving = { ...r.value, tripId };
          return {
            observation: {
              source: 'v2.ecodriving',
              items: [item],
              complete: true,
              fetchedAt: iso(deps.now()),
            },
          };
        }
        // 404 = no evaluation (yet); the engine stops waiting after ecoDrivingWaitMs.
        return r.error.kind === 'NotFound' ? {} : { error: r.error };
      });
    }
    if (carhook) {
      const again = diff(start, observations, context).next;
      if (again.maintenance === 'now' && !done.has('maintenance')) await run('maintenance', read.maintenance);
    }
  }

  const base = {
    vehicleId: vehicle.id,
    confirmations,
    requests: metered.requests(),
    denied: metered.denied(),
    resources: [...done],
    observations: observations.length,
    failures,
  };

  if (stop === 'reauthorization_required') {
    const published = await publishReauthorization(deps, provider.outcome());
    return {
      ...emptySummary(vehicle.id, 'reauthorization_required', provider.outcome()?.kind),
      ...base,
      ...published,
    };
  }
  if (stop === 'access_denied') {
    // 403 = the user has no access to this car any more. Discovery resumes it if the
    // user's complete vehicle list still has it.
    await stores.vehicles.pause(vehicle.id, 'access_denied', deps.now());
  }

  const applied = await applyObservations(
    { stores, bus: deps.bus, now: deps.now, config, ...(deps.publish ? { publish: deps.publish } : {}) },
    {
      vehicle,
      enrollment: { id: enrollment.id, kind: 'oauth-user' },
      stored: state,
      observations,
      readsStartedAt,
      rotate: job.rotate,
      ...(unfinished ? { unfinished } : {}),
      ...(stop === 'budget_exhausted'
        ? {
            refused:
              planned.has('events') && !observations.some((o) => o.source === 'v2.events')
                ? ('events' as const)
                : ('follow-up' as const),
          }
        : {}),
    },
  );
  if (applied.kind === 'ConflictRetriesExhausted') {
    return {
      ...emptySummary(vehicle.id, 'conflict_retries_exhausted'),
      ...base,
      conflicts: applied.conflicts,
    };
  }
  if (applied.kind === 'StateUnreadable') {
    return {
      ...emptySummary(vehicle.id, 'state_unreadable', `${applied.field}: ${applied.reason}`),
      ...base,
    };
  }
  return {
    ...base,
    outcome: stop ?? 'polled',
    wrote: applied.wrote,
    committed: applied.wrote === 'commit',
    conflicts: applied.conflicts,
    eventsWritten: applied.eventsWritten,
    published: applied.published,
    unpublished: applied.unpublished,
    stale: applied.stale,
  };
}
