/**
 * Random mutations of every response shape, fed to the API client and, for what the poll
 * workers read, through the observations they build and the diff engine. Nothing may throw or hang:
 * a call gives an Ok value of its declared type or an error value with a known kind (a Malformed
 * one with a short excerpt showing no secret); `diff` gives events valid against the catalogue and
 * a state that survives its own serialization.
 *
 * Replay a failure: CARHOOK_FUZZ_SEED=<seed> npx vitest run test/fuzz (fast-check prints the seed
 * and the counterexample path; the default seed is fixed). A deeper local run: CARHOOK_FUZZ_SCALE=10
 * multiplies every property's runs.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Result } from '../../functions/core/api';
import {
  type DiffResult,
  diff,
  parseState,
  serializeState,
  type VehicleState,
} from '../../functions/core/detection';
import type { Observation } from '../../functions/core/detection/observations';
import { describeValidationError, validateEvent } from '../../functions/core/events';
import { runPollJob } from '../../functions/core/jobs/worker';
import {
  CASES,
  callbackCode,
  checkResult,
  diffContext,
  FUZZ_SCALE,
  FUZZ_SEED,
  type FuzzContext,
  jsonMismatch,
  type Mutated,
  mutatedArb,
  observationsOf,
  type PollUse,
  REDIRECT_URI,
  type Recorded,
  type Recording,
  recordFromSimulator,
  type Served,
  servingClient,
  specOperationIds,
  worker,
} from './support';

/** Runs per operation (63 of them) and per poll operation through `diff` (13 of them). */
const CLIENT_RUNS = 30;
/** Small bodies that everything depends on (the token response, its callback): more runs. */
const MORE_RUNS: Readonly<Record<string, number>> = { 'auth.token': 120, 'auth.authorize': 80 };
const DIFF_RUNS = 30;
/** Runs per poll operation through the real worker (a whole job per run: heavier). */
const WORKER_RUNS = 12;
const POLL_DELAY_MS = 5 * 60_000;

const OPERATION_IDS = specOperationIds();
let recording: Recording;

beforeAll(async () => {
  recording = await recordFromSimulator();
}, 60_000);

const recordedBody = (operation: string): Recorded => {
  const r = recording.bodies.get(operation);
  if (!r) throw new Error(`no recorded body for ${operation}`);
  return r;
};

const served = (r: Recorded): Served => ({ status: r.status, contentType: r.contentType, body: r.body });

/** Calls `operation` through a client whose every request gets `m`'s response. */
async function callWith(operation: string, m: Served, ctx: FuzzContext): Promise<Result<unknown>> {
  const c = CASES[operation];
  if (!c) throw new Error(`no case for ${operation}`);
  if (operation === 'auth.authorize') {
    // The callback query is what varies; the token endpoint answers as recorded.
    const { client } = servingClient(() => served(recordedBody('auth.token')), ctx.now);
    const code = callbackCode(new TextDecoder().decode(m.body));
    return client.auth.exchangeCode({ code, redirectUri: REDIRECT_URI });
  }
  const { client } = servingClient(() => m, ctx.now);
  return c.call(client, ctx);
}

const property = (operation: string, runs: number, check: (m: Mutated) => Promise<void>) =>
  fc.assert(fc.asyncProperty(mutatedArb(recordedBody(operation)), check), {
    seed: FUZZ_SEED,
    numRuns: Math.max(1, Math.round(runs * FUZZ_SCALE)),
    endOnFailure: false,
  });

describe('every operation of operations.json is fuzzed', () => {
  it('has a case and a recorded simulator body for each of the 63 operations', () => {
    expect(OPERATION_IDS).toHaveLength(63);
    expect(Object.keys(CASES).sort()).toEqual([...OPERATION_IDS].sort());
    expect([...recording.bodies.keys()].sort()).toEqual([...OPERATION_IDS].sort());
  });

  it.each(OPERATION_IDS)(
    '%s: the recorded body, unmutated, gives an Ok value of the declared type',
    async (op) => {
      const rec = recordedBody(op);
      const r = await callWith(op, served(rec), recording.ctx);
      expect(r.ok ? undefined : r.error).toBeUndefined();
      expect(checkResult(op, CASES[op] as (typeof CASES)[string], r)).toBeUndefined();
    },
  );

  it('the declared-type check refuses what a model type forbids', () => {
    const c = CASES['v2.vehicles.get'] as (typeof CASES)[string];
    const ok = (value: unknown) => ({ ok: true, value, requests: 1 });
    expect(checkResult('v2.vehicles.get', c, ok({ id: 'v1', vin: 'VIN' }))).toBeUndefined();
    expect(checkResult('v2.vehicles.get', c, ok({ id: 7, vin: 'VIN' }))).toMatch(/declared type/);
    expect(
      checkResult('v2.vehicles.get', c, ok({ id: 'v1', vin: 'VIN', createdAt: '+275760-09-13' })),
    ).toMatch(/declared type/);
    const m = CASES['v2.vehicles.maintenance'] as (typeof CASES)[string];
    expect(checkResult('v2.vehicles.maintenance', m, ok({ days: Number.NaN, mileage: 1 }))).toMatch(
      /declared/,
    );
    const leak = {
      ok: false,
      requests: 1,
      error: {
        kind: 'Malformed',
        operation: 'v2.vehicles.get',
        message: 'x',
        excerpt: 'fuzz-access-token-QQQQ9999',
      },
    };
    expect(checkResult('v2.vehicles.get', c, leak)).toMatch(/secret/);
  });
});

describe('mutated responses: the client resolves to a typed value or a typed error', () => {
  it.each(OPERATION_IDS)('%s', async (op) => {
    const c = CASES[op] as (typeof CASES)[string];
    await property(op, MORE_RUNS[op] ?? CLIENT_RUNS, async (m) => {
      const r = await callWith(op, m.served, recording.ctx);
      const problem = checkResult(op, c, r);
      if (problem) throw new Error(`${m.label}: ${problem}`);
    });
  });
});

// ---- The poll path: observations the workers build, then `diff` ----

const POLL_OPERATIONS = Object.entries(CASES)
  .filter(([, c]) => c.poll !== undefined)
  .map(([op, c]) => [op, c.poll as PollUse] as const);

/** The state after a clean poll of every operation `use` reads (the recorded bodies). */
async function cleanState(use: PollUse): Promise<VehicleState> {
  const ctx = recording.ctx;
  const observations: Observation[] = [];
  for (const [op, u] of POLL_OPERATIONS) {
    if (u !== use) continue;
    const r = await callWith(op, served(recordedBody(op)), ctx);
    observations.push(...(observationsOf(op, r, ctx, ctx.now) ?? []));
  }
  const result = diff(undefined, observations, diffContext(ctx, use, ctx.now));
  expect(result.rejected).toEqual([]);
  return result.state;
}

/** Keys sorted at every level: the state schema orders keys its own way. */
const canonical = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(canonical)
    : v !== null && typeof v === 'object'
      ? Object.fromEntries(
          Object.entries(v)
            .filter(([, x]) => x !== undefined)
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([k, x]) => [k, canonical(x)]),
        )
      : v;

function checkDiff(
  label: string,
  prior: VehicleState | undefined,
  observations: readonly Observation[],
  use: PollUse,
): void {
  const ctx = recording.ctx;
  const result = diff(prior, observations, diffContext(ctx, use, ctx.now + POLL_DELAY_MS));
  for (const e of result.events) {
    const v = validateEvent(e);
    if (!v.ok) throw new Error(`${label}: ${describeValidationError(v.error)}`);
    const mismatch = jsonMismatch(e);
    if (mismatch) throw new Error(`${label}: event ${e.type} does not survive JSON: ${mismatch}`);
  }
  const stored = serializeState(result.state);
  const back = parseState(stored);
  if (!back.ok)
    throw new Error(`${label}: state does not parse back: ${back.error.field}: ${back.error.reason}`);
  const mismatch = jsonMismatch(result.state);
  if (mismatch) throw new Error(`${label}: state does not survive JSON: ${mismatch}`);
  if (JSON.stringify(canonical(back.state)) !== JSON.stringify(canonical(result.state))) {
    throw new Error(`${label}: the parsed state differs from the state written`);
  }
}

// The clean priors are built inside each test, not in a hook: code run outside a test is
// attributed to no test, and a mutation run then reruns every test for each of its lines.
describe('mutated responses through the poll observations and diff', () => {
  it('a clean poll stores alerts; later empty complete lists fix each active one, once', async () => {
    const vehicle = await cleanState('vehicle');
    const fleet = await cleanState('fleet');
    const map = await cleanState('map');
    expect(Object.keys(vehicle.alerts).length).toBeGreaterThan(0);
    expect(Object.keys(fleet.alerts).length).toBeGreaterThan(0);
    expect(map.sources).toContain('map');
    // A behaviour, not only an invariant: later complete, empty v2 alert lists fix exactly the v2
    // alerts the clean poll left active, each once, reason "absent". One empty list is not enough:
    // it drops the list's newest record, so it is first taken for a stale answer, then the next
    // makes each absence a doubt, which the third, a minute later, confirms.
    const ctx = recording.ctx;
    const active = Object.entries(vehicle.alerts)
      .filter(([key, e]) => key.startsWith('v2:') && e.active)
      .map(([key]) => key.slice(3))
      .sort();
    expect(active.length).toBeGreaterThan(0);
    let state = vehicle;
    const events: DiffResult['events'][number][] = [];
    for (let k = 0; k < 3; k++) {
      const at = ctx.now + POLL_DELAY_MS + k * 60_000;
      const emptied = diff(
        state,
        [{ source: 'v2.alerts', items: [], complete: true, fetchedAt: new Date(at).toISOString() }],
        diffContext(ctx, 'vehicle', at),
      );
      expect(emptied.events.length > 0).toBe(k === 2);
      events.push(...emptied.events);
      state = emptied.state;
    }
    expect(events.map((e) => [e.type, (e.data as { alertId: string; reason: string }).reason])).toEqual(
      active.map(() => ['vehicle.alert.fixed', 'absent']),
    );
    expect(events.map((e) => (e.data as { alertId: string }).alertId).sort()).toEqual(active);
  });

  it.each(POLL_OPERATIONS)(
    '%s (%s poll): diff never throws, events validate, the state round-trips',
    async (op, use) => {
      const ctx = recording.ctx;
      const prior = await cleanState(use);
      let observed = 0;
      await property(op, DIFF_RUNS, async (m) => {
        const r = await callWith(op, m.served, ctx);
        const observations = observationsOf(op, r, ctx, ctx.now + POLL_DELAY_MS);
        if (!observations) return;
        observed++;
        checkDiff(`${m.label} (first poll)`, undefined, observations, use);
        checkDiff(`${m.label} (after a clean poll)`, prior, observations, use);
      });
      // Mutations must reach the engine, or this property tests nothing.
      expect(observed).toBeGreaterThan(DIFF_RUNS / 10);
    },
  );
});

/** The recorded trip list plus a trip that ended between two polls (it waits for eco-driving). */
function freshTrip(): Served {
  const rec = recordedBody('v2.vehicles.trips');
  const body = structuredClone(rec.json) as {
    total?: number;
    _embedded: { trips: Record<string, unknown>[] };
  };
  const at = (minutes: number) => new Date(recording.ctx.now + minutes * 60_000).toISOString();
  const model = body._embedded.trips[0] ?? {};
  body._embedded.trips.unshift({
    ...model,
    id: 'trip-fresh',
    startedAt: at(1),
    stoppedAt: at(3),
    duration: '120',
  });
  body.total = body._embedded.trips.length;
  return { ...served(rec), body: new TextEncoder().encode(JSON.stringify(body)) };
}

describe('mutated responses through the real poll workers (runPollJob)', () => {
  it.each(POLL_OPERATIONS)(
    '%s (%s job): the job completes, events validate, the stored state parses',
    async (op, use) => {
      const ctx = recording.ctx;
      // One served answer per operation: the recorded body, except the one under test once armed.
      const clean = (operation: string | undefined): Served =>
        operation && recording.bodies.has(operation)
          ? served(recordedBody(operation))
          : { status: 404, contentType: 'application/json', body: new TextEncoder().encode('{}') };
      let requests = 0;
      await property(op, WORKER_RUNS, async (m) => {
        let armed = false;
        const w = await worker(recording, use, (operation) => {
          if (operation === op && armed) {
            requests++;
            return m.served;
          }
          // Eco-driving is read only for a trip that ended after the previous poll: list one.
          if (operation === 'v2.vehicles.trips' && armed && op === 'v2.trips.ecodriving') return freshTrip();
          return clean(operation);
        });
        const first = await runPollJob(w.deps, w.job());
        if (JSON.stringify(first).includes('state_unreadable')) throw new Error('the clean poll failed');
        armed = true;
        w.advance(POLL_DELAY_MS);
        const result = await runPollJob(w.deps, w.job());
        const text = JSON.stringify(result);
        if (text.includes('state_unreadable')) throw new Error(`${m.label}: ${text.slice(0, 300)}`);
        for (const e of w.bus.received) {
          const v = validateEvent(e);
          if (!v.ok) throw new Error(`${m.label}: ${describeValidationError(v.error)}`);
        }
        const { state: stored } = await w.stores.states.getVehicleWithState(w.vehicleId);
        if (!stored) throw new Error(`${m.label}: no state stored`);
        const parsed = parseState(stored.state);
        if (!parsed.ok)
          throw new Error(`${m.label}: stored state: ${parsed.error.field}: ${parsed.error.reason}`);
      });
      // The mutated body must have been served, or this property tests nothing.
      expect({ op, served: requests > 0 }).toEqual({ op, served: true });
      expect(ctx.vin).toHaveLength(17);
    },
  );
});
