/**
 * Freshness targets, end to end in the local runtime on the simulator's clock: a trips target the
 * quota meets for a small fleet; the fleet Carhook polls grows past what the quota keeps within it
 * (the operator resumes the vehicles paused at the start), and `carhook.freshness.at_risk` is told
 * once, to a subscription that names `carhook.*`, however many checks follow; when the fleet is
 * back to its size, `carhook.freshness.restored`. One step is one planner cycle (a simulated minute).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { validateEvent } from '../../functions/core/events/validate';
import { type LocalRuntime, startLocalRuntime } from '../../functions/local/runtime';
import { startRecorder } from './support';

const MINUTE = 60_000;

describe('a fleet grown past its freshness target', { timeout: 300_000 }, () => {
  let rt: LocalRuntime;
  let recorder: Awaited<ReturnType<typeof startRecorder>>;
  const received = () => recorder.requests.map((r) => (JSON.parse(r.body) as { data: EventEnvelope }).data);
  const vehicleIds: string[] = [];
  let paused: string[] = [];

  const api = async (method: string, path: string) => {
    const res = await fetch(`${rt.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${rt.adminToken}` },
    });
    // biome-ignore lint/suspicious/noExplicitAny: JSON answers, read freely by the test.
    return { status: res.status, body: (await res.json()) as any };
  };
  const told = () => received().filter((e) => e.type.startsWith('carhook.freshness.'));
  const minutes = async (n: number) => {
    for (let i = 0; i < n; i++) await rt.advance(MINUTE);
  };
  const tripsCapacity = async () =>
    // biome-ignore lint/suspicious/noExplicitAny: JSON answers, read freely by the test.
    (await api('GET', '/capacity')).body.kinds.find((k: any) => k.kind === 'trips');

  beforeAll(async () => {
    recorder = await startRecorder(() => 204);
    rt = await startLocalRuntime({
      port: 0,
      simPort: 0,
      vehicles: 150,
      seed: 5,
      clock: 'simulated',
      pollIntervalMs: MINUTE,
      // Enough for every user to enroll at once; the API lowers it to 30 below.
      quota: 600,
      freshnessTargets: { trips: 2 * MINUTE },
      out: null,
      err: null,
    });
    const res = await fetch(`${rt.apiUrl}/subscriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rt.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        url: recorder.url,
        eventTypes: ['carhook.*'],
      }),
    });
    expect(res.status).toBe(201);
    for (const { enrollmentId } of rt.enrolled) {
      const detail = await api('GET', `/enrollments/${enrollmentId}`);
      vehicleIds.push(...detail.body.vehicles.map((v: { id: string }) => v.id));
    }
    expect(vehicleIds).toHaveLength(150);
    const sim = rt.sim as NonNullable<LocalRuntime['sim']>;
    const lowered = await fetch(`${sim.url}/_sim/clients/${sim.clientId}/quota`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ limit: 30, windowSeconds: 60 }),
    });
    expect(lowered.status).toBe(200);
    // The fleet starts at 30 vehicles: the others are paused by the operator.
    paused = vehicleIds.slice(30);
    for (const id of paused)
      expect((await api('POST', `/vehicles/${encodeURIComponent(id)}/pause`)).status).toBe(200);
    await minutes(6);
  }, 240_000);

  afterAll(async () => {
    await rt?.close();
    await recorder?.close();
  });

  it('meets the target with 30 vehicles and tells nothing', async () => {
    const trips = await tripsCapacity();
    expect(trips.target.met).toBe(true);
    expect(told()).toEqual([]);
  });

  it('tells at_risk once when the fleet grows to 150, whatever the checks that follow', async () => {
    for (const id of paused)
      expect((await api('POST', `/vehicles/${encodeURIComponent(id)}/resume`)).status).toBe(200);
    const trips = await tripsCapacity();
    expect(trips.target.met).toBe(false);
    await minutes(5);
    expect(told().map((e) => e.type)).toEqual(['carhook.freshness.at_risk']);
    const [atRisk] = told();
    expect(validateEvent(atRisk)).toEqual({ ok: true });
    expect(atRisk?.data).toMatchObject({
      kind: 'trips',
      targetS: 120,
      vehicles: 150,
      quotaLimit: 30,
      windowSeconds: 60,
    });
    // What GET /capacity said when the fleet grew (the learned rates move a little since).
    const data = atRisk?.data as { predictedP95S: number; quotaForTarget: number };
    expect(data.predictedP95S).toBeGreaterThan(120);
    expect(Math.abs(data.predictedP95S / trips.p95S - 1)).toBeLessThan(0.1);
    expect(data.quotaForTarget).toBeGreaterThan(30);
    expect(Math.abs(data.quotaForTarget / trips.target.quotaForTarget - 1)).toBeLessThan(0.1);
    // Thirteen more checks, past the hour (a step of five simulated minutes each makes one due):
    // still at risk, not told again.
    for (let i = 0; i < 13; i++) await rt.advance(5 * MINUTE);
    expect(told()).toHaveLength(1);
  });

  it('tells restored once the fleet is back to 30', async () => {
    for (const id of paused)
      expect((await api('POST', `/vehicles/${encodeURIComponent(id)}/pause`)).status).toBe(200);
    await minutes(5);
    expect(told().map((e) => e.type)).toEqual(['carhook.freshness.at_risk', 'carhook.freshness.restored']);
    expect(told()[1]?.data).toMatchObject({
      kind: 'trips',
      vehicles: 30,
      atRiskSince: told()[0]?.data.checkedAt,
    });
  });
});
