/**
 * Reads follow doubt: an active alert a complete list misses is confirmed before it is told fixed
 * (detection README "Alerts"). The poll worker reads the alert itself (v2 `GET /alerts/{id}`),
 * the fleet poll the inactive list of the VINs in doubt (v1 `active=0`); a doubt left after the
 * poll makes the vehicle work waiting, and the next cycle's list confirms or answers it.
 *
 * The faults are injected in the worker's fetch (an answer missing one alert, a failing record
 * read), so each scenario is exact; the simulator's own chaos modes drive the fault suite.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enrollFleetContract } from '../../functions/core/enrollment';
import { type JobResult, runDiscovery } from '../../functions/core/jobs/worker';
import {
  type PollFleetJob,
  type PollSummary,
  type PollVehicleJob,
  pollFleet,
  pollVehicle,
} from '../../functions/core/polling';
import type { SimUser, SimVehicle } from '../../sim/world/types';
import { type Pipeline, startPipeline, userWithVehicles } from './support';

type Json = Record<string, unknown>;

/**
 * The worker's fetch with `edit` applied to the JSON body of the answers whose URL `matches`
 * (`edit` returns the new body, or undefined to leave it); `fail` answers 500 instead.
 */
const editing =
  (
    rules: {
      matches: (url: URL, method: string) => boolean;
      edit?: (body: Json) => Json | undefined;
      fail?: boolean;
    }[],
  ) =>
  async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const rule = rules.find((r) => r.matches(url, request.method));
    if (rule?.fail)
      return Response.json({ error: { code: 'server_error', message: 'test' } }, { status: 500 });
    const res = await fetch(request);
    if (rule?.edit === undefined || res.status !== 200) return res;
    const edited = rule.edit((await res.json()) as Json);
    if (edited === undefined) throw new Error(`the rule for ${url.pathname} changed nothing`);
    return new Response(JSON.stringify(edited), { status: 200, headers: res.headers });
  };

/** A v2 alert list answer without the alert `id` (as a list that misses one item once). */
const withoutV2Alert =
  (id: string) =>
  (body: Json): Json | undefined => {
    const alerts = (body._embedded as { alerts: { id: string }[] }).alerts;
    const kept = alerts.filter((a) => a.id !== id);
    if (kept.length === alerts.length) return undefined;
    return { ...body, total: (body.total as number) - 1, _embedded: { alerts: kept } };
  };

const fixedEvents = (p: Pipeline, alertId: string) =>
  p.bus.received.filter((e) => e.type === 'vehicle.alert.fixed' && e.data.alertId === alertId);
const raisedEvents = (p: Pipeline, alertId: string) =>
  p.bus.received.filter((e) => e.type === 'vehicle.alert.raised' && e.data.alertId === alertId);

describe('v2: an alert a list misses is read by id before anything is told', () => {
  let p: Pipeline;
  let user: SimUser;
  let apiId: string;
  let vehicleId: string;
  let alertId: string;
  let newer: string;

  const job = (resources: PollVehicleJob['resources'] = ['events', 'alerts']): PollVehicleJob => ({
    kind: 'poll-vehicle',
    vehicleId,
    resources,
    strategy: 'carhook',
    rotate: false,
    plannedAt: new Date(p.now()).toISOString(),
  });
  const alertsPath = (url: URL) => url.pathname.endsWith(`/vehicles/${apiId}/alerts`);
  const recordPath = (url: URL) => url.pathname.endsWith(`/alerts/${alertId}`);

  beforeEach(async () => {
    p = await startPipeline();
    user = userWithVehicles(p.sim, 1);
    const r = await p.enroll(user);
    if (r.kind !== 'Enrolled') throw new Error(r.kind);
    apiId = user.vehicleIds[0] as string;
    vehicleId = `${r.enrollmentId}:${apiId}`;
    await p.cycles(2);
    // Two alerts: the one a list will miss, and a newer one that keeps that list's newest record
    // where it was (a list missing its newest record is a stale answer, tested below).
    alertId = (await p.control('POST', `/vehicles/${apiId}/alerts`, { code: 'riskOfIce' })).body.id as string;
    await p.advance(10);
    newer = (await p.control('POST', `/vehicles/${apiId}/alerts`, { code: 'engineFault' })).body.id as string;
    await p.cycles(2);
    expect(raisedEvents(p, alertId)).toHaveLength(1);
    expect(raisedEvents(p, newer)).toHaveLength(1);
  });
  afterEach(() => p.close());

  it('a list missing the newest alert is stale: nothing told, no extra read, counted', async () => {
    const deps = p.workerDeps({ fetch: editing([{ matches: alertsPath, edit: withoutV2Alert(newer) }]) });
    const before = p.bus.received.length;
    const summary = await pollVehicle(deps, job());
    expect(summary.resources).toEqual(['events', 'alerts']);
    expect(summary.requests).toBe(2);
    expect(summary.stale).toBe(1);
    expect(p.bus.received.length).toBe(before);
    const { state } = await p.stores.states.getVehicleWithState(vehicleId);
    expect(JSON.parse(state?.state ?? '{}').alerts[`v2:${newer}`]).toMatchObject({ active: true });
  });

  it('a list missing it once: one read of the alert, active, answers the doubt; nothing told, nothing left waiting', async () => {
    const deps = p.workerDeps({ fetch: editing([{ matches: alertsPath, edit: withoutV2Alert(alertId) }]) });
    const before = p.bus.received.length;
    const summary = await pollVehicle(deps, job());
    expect(summary.resources).toEqual(['events', 'alerts', `alert:${alertId}`]);
    expect(summary.requests).toBe(3);
    expect(summary.failures).toEqual([]);
    expect(summary.stale).toBe(0);
    expect(p.bus.received.length).toBe(before);
    const { state, vehicle } = await p.stores.states.getVehicleWithState(vehicleId);
    const entry = JSON.parse(state?.state ?? '{}').alerts[`v2:${alertId}`];
    expect(entry.active).toBe(true);
    expect(entry.missingSince).toBeUndefined();
    expect(vehicle?.hints.workWaitingAt).toBeUndefined();
    // And the next polls see it as it is: nothing more.
    await p.cycles(2);
    expect(raisedEvents(p, alertId)).toHaveLength(1);
    expect(fixedEvents(p, alertId)).toEqual([]);
  });

  it('a real fix is told from the list at once (the v2 list shows it inactive): no extra read', async () => {
    await p.control('POST', `/vehicles/${apiId}/alerts/${alertId}/fix`);
    const summary = await pollVehicle(p.pollDeps, job(['alerts']));
    expect(summary.resources).toEqual(['alerts']);
    expect(fixedEvents(p, alertId).map((e) => [e.data.reason, e.data.endedAtSource])).toEqual([
      ['inactive', 'api'],
    ]);
  });

  it('the alert gone from the API: the read by id proves nothing (404), the next cycle reads the list again and confirms', async () => {
    // The record read answers 404: the simulator forgets no alert, so the test makes it forget.
    const missing = editing([{ matches: alertsPath, edit: withoutV2Alert(alertId) }]);
    const deps = p.workerDeps({
      fetch: async (input, init) => {
        const url = new URL(new Request(input, init).url);
        if (recordPath(url)) return Response.json({ error: { code: 'not_found' } }, { status: 404 });
        return missing(input, init);
      },
    });
    const missedAt = p.now();
    const first = await pollVehicle(deps, job());
    expect(first.resources).toEqual(['events', 'alerts', `alert:${alertId}`]);
    expect(fixedEvents(p, alertId)).toEqual([]);
    const { vehicle } = await p.stores.states.getVehicleWithState(vehicleId);
    expect(vehicle?.hints.workWaitingAt).toBe(new Date(missedAt).toISOString());

    await p.advance(60);
    const second = await pollVehicle(deps, job(['events']));
    // Doubts from an earlier poll: this poll reads the list, a cycle later, which confirms.
    expect(second.resources).toEqual(['events', 'alerts']);
    expect(fixedEvents(p, alertId).map((e) => [e.data.reason, e.data.endedAt, e.data.endedAtSource])).toEqual(
      [['absent', new Date(missedAt).toISOString(), 'observed']],
    );
  });

  it('the read by id fails: the doubt stays, the vehicle is read first in the next cycle, and its list answers the doubt', async () => {
    const deps = p.workerDeps({
      fetch: editing([
        { matches: alertsPath, edit: withoutV2Alert(alertId) },
        { matches: recordPath, fail: true },
      ]),
    });
    const summary = await pollVehicle(deps, job());
    expect(summary.failures.map((f) => [f.resource, f.kind])).toEqual([[`alert:${alertId}`, 'Upstream']]);
    const { vehicle } = await p.stores.states.getVehicleWithState(vehicleId);
    expect(vehicle?.hints.workWaitingAt).toBe(new Date(p.now()).toISOString());

    await p.advance(60);
    const results = await p.cycle();
    const mine = results.flatMap((r: JobResult) =>
      r.kind === 'poll-vehicle' && r.summary.vehicleId === vehicleId ? [r.summary] : [],
    ) as PollSummary[];
    expect(mine).toHaveLength(1);
    expect(mine[0]?.resources).toContain('alerts');
    expect(fixedEvents(p, alertId)).toEqual([]);
    const after = await p.stores.states.getVehicleWithState(vehicleId);
    expect(JSON.parse(after.state?.state ?? '{}').alerts[`v2:${alertId}`].missingSince).toBeUndefined();
  });
});

describe('v1 fleet: the inactive list confirms an absence, with the end the API gives', () => {
  let p: Pipeline;
  let car: SimVehicle;
  let vehicleId: string;
  let alertId: string;

  const job = (): PollFleetJob => ({
    kind: 'poll-fleet',
    brand: car.brand === 'P' ? 'P' : 'C',
    vehicleIds: [vehicleId],
    rotate: false,
    plannedAt: new Date(p.now()).toISOString(),
  });

  beforeEach(async () => {
    p = await startPipeline();
    car = p.sim.world.vehicles()[0] as SimVehicle;
    const r = await enrollFleetContract(
      { stores: p.stores, now: p.now, newId: () => 'fleet1' },
      { vin: car.vin, contract: car.contract, brand: car.brand },
    );
    if (r.kind !== 'Enrolled') throw new Error(r.kind);
    vehicleId = r.vehicleId;
    await p.cycles(2);
    alertId = (await p.control('POST', `/vehicles/${car.id}/alerts`, { code: 'riskOfIce' })).body
      .id as string;
    await p.cycles(2);
    expect(raisedEvents(p, alertId)).toHaveLength(1);
  });
  afterEach(() => p.close());

  it('a fix: the active list omits it, one inactive list read ends it (reason inactive, the API end)', async () => {
    await p.advance(30);
    const fix = await p.control('POST', `/vehicles/${car.id}/alerts/${alertId}/fix`);
    expect(fix.status).toBe(200);
    await p.advance(30);
    const before = (await p.stats()).byOperation['v1.maintenance.alert.list'] ?? 0;
    const summary = await pollFleet(p.pollDeps, job());
    expect(summary.batches).toMatchObject({ alerts: 1, 'alerts:inactive': 1 });
    expect(summary.requests).toBe(5);
    expect((await p.stats()).byOperation['v1.maintenance.alert.list']).toBe(before + 2);
    const fixed = fixedEvents(p, alertId);
    expect(fixed.map((e) => [e.data.reason, e.data.endedAtSource, e.source.api])).toEqual([
      ['inactive', 'api', 'v1'],
    ]);
    // The simulator's fix time, to the second (v1 dates carry no milliseconds).
    expect(Date.parse(fixed[0]?.data.endedAt as string)).toBe(
      Math.floor(Date.parse(fix.body.endedAt) / 1000) * 1000,
    );
  });

  it('an active list missing it once: the inactive list does not hold it, the next cycle lists it; nothing told', async () => {
    const flapping = editing([
      {
        matches: (url, method) =>
          method === 'POST' &&
          url.pathname.endsWith('/maintenance/list/alert') &&
          url.searchParams.get('active') === '1',
        edit: (body) => {
          const list = body.listAlert as { idAlert: string }[];
          const kept = list.filter((a) => a.idAlert !== alertId);
          return kept.length === list.length ? undefined : { ...body, listAlert: kept };
        },
      },
    ]);
    const before = p.bus.received.length;
    const summary = await pollFleet(p.workerDeps({ fetch: flapping }), job());
    expect(summary.batches).toMatchObject({ alerts: 1, 'alerts:inactive': 1 });
    expect(p.bus.received.length).toBe(before);
    await p.cycles(2);
    expect(fixedEvents(p, alertId)).toEqual([]);
    expect(raisedEvents(p, alertId)).toHaveLength(1);
    const { state } = await p.stores.states.getVehicleWithState(vehicleId);
    expect(JSON.parse(state?.state ?? '{}').alerts[`v1:${alertId}`]).toMatchObject({ active: true });
  });

  it('no doubt, no inactive list: a steady fleet poll costs its four lists', async () => {
    const summary = await pollFleet(p.pollDeps, job());
    expect(summary.batches).toEqual({ alerts: 1, crash: 1, maintenance: 1, trips: 1 });
    expect(summary.requests).toBe(4);
  });
});

describe("an enrolled user's vehicle list: a vehicle it misses is read itself", () => {
  let p: Pipeline;
  let user: SimUser;
  let enrollmentId: string;
  let apiId: string;

  beforeEach(async () => {
    p = await startPipeline();
    user = userWithVehicles(p.sim, 2);
    const r = await p.enroll(user);
    if (r.kind !== 'Enrolled') throw new Error(r.kind);
    enrollmentId = r.enrollmentId;
    apiId = user.vehicleIds[1] as string;
  });
  afterEach(() => p.close());

  const removed = () => p.bus.received.filter((e) => e.type === 'enrollment.vehicle.removed');
  const discover = async (deps: ReturnType<Pipeline['worker']>) => {
    const r = await runDiscovery(deps, enrollmentId);
    if (r.kind !== 'discover-vehicles') throw new Error(r.kind);
    return r;
  };
  const isList = (url: URL) => url.pathname.endsWith('/connectedcar/v2/vehicles');

  it('missing once (the read answers it): nothing told, still polled', async () => {
    const flapping = editing([
      {
        matches: isList,
        edit: (body) => {
          const vehicles = (body._embedded as { vehicles: { id: string }[] }).vehicles;
          return {
            ...body,
            total: (body.total as number) - 1,
            _embedded: { vehicles: vehicles.filter((v) => v.id !== apiId) },
          };
        },
      },
    ]);
    const result = await discover(p.workerDeps({ fetch: flapping }));
    expect(result.requests).toBe(2);
    expect(result.result).toMatchObject({ kind: 'Synced', removed: [], eventsWritten: [] });
    expect(removed()).toEqual([]);
    expect((await p.stores.vehicles.get(`${enrollmentId}:${apiId}`))?.paused).toBe(false);
  });

  it('taken out of the account (the read answers 403): removed once', async () => {
    expect((await p.control('DELETE', `/users/${user.id}/vehicles/${apiId}`)).status).toBe(200);
    const result = await discover(p.pollDeps);
    expect(result.requests).toBe(2);
    expect(result.result).toMatchObject({ kind: 'Synced', removed: [`${enrollmentId}:${apiId}`] });
    expect(removed().map((e) => e.data.vehicleId)).toEqual([`${enrollmentId}:${apiId}`]);
  });
});
