import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EVENT_TYPES } from '../../functions/core/events/catalogue';
import { NOTES } from '../../functions/core/events/notes';
import { DEFAULT_POLLING_CONFIG } from '../../functions/core/polling/config';
import { runPlanner } from '../../functions/core/polling/planner';
import { encodeRates } from '../../functions/core/polling/rates';
import { vehicleReads } from '../../functions/core/polling/vehicle-view';
import type { SimRuntime } from '../runtime/support';
import { type Receiver, startReceiver } from '../webhooks/receiver';
import { DOCUMENT_TOKEN, documentedApp } from './document-support';

// biome-ignore lint/suspicious/noExplicitAny: JSON responses, read freely by tests.
type Json = any;
const auth = { authorization: `Bearer ${DOCUMENT_TOKEN}` };
const MIN = 60_000;

describe('vehicles, the catalogue and samples over HTTP', () => {
  let s: SimRuntime;
  let app: Awaited<ReturnType<typeof documentedApp>>['app'];
  let close: () => Promise<void>;
  let rx: Receiver | undefined;

  beforeEach(async () => {
    ({ s, app, close } = await documentedApp());
  });
  afterEach(async () => {
    await rx?.close();
    await close();
  });

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await app.request(path, {
      method,
      headers: { ...auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Json };
  };

  async function fleetVehicle(): Promise<string> {
    const car = s.sim.world.vehicles()[0];
    if (!car) throw new Error('the simulator has vehicles');
    const enrolled = await call('POST', '/enrollments/contracts', {
      vin: car.vin,
      contract: car.contract,
      brand: car.brand,
    });
    expect(enrolled.status).toBe(201);
    return enrolled.body.vehicleId;
  }

  it('shows a vehicle: its enrollment, that it is polled, each read (from the planner once it planned) and its events', async () => {
    const id = await fleetVehicle();
    const before = await call('GET', `/vehicles/${encodeURIComponent(id)}`);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({
      vehicle: { id, paused: false },
      enrollment: { kind: 'fleet-contract', status: 'active' },
      connection: { state: 'polled' },
    });
    expect(before.body.reads.map((r: Json) => [r.kind, r.source])).toEqual([
      ['events', 'unknown'],
      ['alerts', 'unknown'],
      ['maintenance', 'unknown'],
      ['services', 'unknown'],
      ['map', 'unknown'],
    ]);
    expect(before.body.reads[0].note).toContain('a fleet contract: its records come in the v1 bulk lists');
    expect(before.body.reads[1].note).toContain('the planner runs elsewhere');
    expect(before.body.recentEvents.map((e: Json) => e.type)).toEqual(['enrollment.vehicle.added']);

    // Once the planner planned in this process, the reads it booked are known, and when the next
    // is due at the latest (for alerts, their reconciliation).
    await runPlanner(await s.runtime.plannerDeps());
    const now = s.runtime.now();
    s.runtime.plannerMemory.set(id, { events: now, alerts: now - MIN });
    const planned = await call('GET', `/vehicles/${encodeURIComponent(id)}`);
    expect(planned.body.reads[1]).toMatchObject({
      kind: 'alerts',
      source: 'planner',
      lastAt: new Date(now - MIN).toISOString(),
      everyMs: DEFAULT_POLLING_CONFIG.alertsReconcileMs,
      nextBy: new Date(now - MIN + DEFAULT_POLLING_CONFIG.alertsReconcileMs).toISOString(),
    });
    // 120 requests a minute; its events at least every 15 min: 4 of 7,200 an hour.
    expect(planned.body.quota).toEqual({
      perHour: 7200,
      readsPerHourAtLeast: 4,
      shareAtLeast: 0.000556,
      guaranteeMs: 15 * MIN,
    });
  });

  it('pauses and resumes a vehicle; an unknown one is a 404', async () => {
    const id = await fleetVehicle();
    const path = `/vehicles/${encodeURIComponent(id)}`;
    const paused = await call('POST', `${path}/pause`);
    expect(paused).toMatchObject({ status: 200, body: { id, paused: true, pauseReason: 'manual' } });
    expect((await call('GET', path)).body.connection.state).toBe('paused');
    const resumed = await call('POST', `${path}/resume`);
    expect(resumed).toMatchObject({ status: 200, body: { id, paused: false } });
    expect((await call('GET', path)).body.connection.state).toBe('polled');
    const missing = await call('GET', '/vehicles/enr_nope%3Avv1');
    expect(missing).toMatchObject({ status: 404, body: { error: { code: 'NotFound', field: 'id' } } });
    expect((await call('POST', '/vehicles/enr_nope%3Avv1/pause')).status).toBe(404);
  });

  it('lists the event catalogue: each type with its trigger, delay, schema and the sample a webhook received', async () => {
    const got = await call('GET', '/event-types');
    expect(got.status).toBe(200);
    expect(got.body.types.map((t: Json) => t.type)).toEqual([...EVENT_TYPES]);
    const fixed = got.body.types.find((t: Json) => t.type === 'vehicle.alert.fixed');
    expect(fixed).toMatchObject({
      version: 1,
      audience: 'all',
      trigger: NOTES['vehicle.alert.fixed'].trigger,
      delay: NOTES['vehicle.alert.fixed'].delay,
      sample: { type: 'vehicle.alert.fixed' },
    });
    expect(fixed.schema.properties.type).toEqual({ type: 'string', const: 'vehicle.alert.fixed' });
    expect(got.body.types.every((t: Json) => t.sample?.type === t.type)).toBe(true);
  });

  it('sends a sample of a type, signed like any delivery and marked as a sample', async () => {
    rx = await startReceiver((_req, res) => res.writeHead(204).end());
    const created = await call('POST', '/subscriptions', { url: rx.url() });
    const sent = await call('POST', `/subscriptions/${created.body.id}/sample`, {
      type: 'vehicle.collision.detected',
    });
    expect(sent.status).toBe(200);
    expect(sent.body.attempt).toMatchObject({ outcome: 'success', statusCode: 204 });
    const request = rx.requests[0];
    if (!request) throw new Error('the sample was delivered');
    // Signed at the simulator's clock: standardwebhooks checks the timestamp against that time.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(s.runtime.now());
    let body: Json;
    try {
      body = new Webhook(created.body.secret).verify(request.body, request.headers as Record<string, string>);
    } finally {
      vi.useRealTimers();
    }
    expect(body.type).toBe('vehicle.collision.detected');
    expect(body.data).toMatchObject({ id: sent.body.eventId, sample: true, sequence: 0 });
    expect(request.headers['webhook-id']).toBe(sent.body.eventId);
    const bad = await call('POST', `/subscriptions/${created.body.id}/sample`, { type: 'vehicle.flying' });
    expect(bad).toMatchObject({ status: 400, body: { error: { field: 'type' } } });
  });
});

describe('vehicleReads', () => {
  it('states the learned change rate as observed, and each read from the record when the planner does not know it', () => {
    const t = Date.parse('2026-11-22T10:00:00.000Z');
    const view = vehicleReads({
      vehicle: {
        apiVehicleId: 'vv1',
        hints: {
          activeAlerts: true,
          priority: 0,
          rates: encodeRates({ t, events: 6, eventsHours: 3, fixes: 1, alertHours: 4, active: 2 }),
        },
        resourcePolledAt: { maintenance: new Date(t - 3_600_000).toISOString() },
      },
      last: undefined,
      plannerKnown: true,
      config: DEFAULT_POLLING_CONFIG,
      perCycle: 108,
      fleetSize: 10_000,
      quota: { requests: 120, windowSeconds: 60 },
    });
    expect(view.changeRate).toEqual({
      eventsPerHour: 2,
      observedHours: 3,
      activeAlerts: 2,
      fixesPerHour: 0.25,
    });
    // 10,000 vehicles at 108 reads a cycle: G = ceil(2 × 10,000 / 108) cycles of a minute.
    expect(view.quota.guaranteeMs).toBe(186 * MIN);
    expect(view.quota.readsPerHourAtLeast).toBe(Math.round(((2 * 60) / 186) * 100) / 100);
    expect(view.reads.find((r) => r.kind === 'maintenance')).toMatchObject({
      source: 'record',
      lastAt: new Date(t - 3_600_000).toISOString(),
      nextBy: new Date(t - 3_600_000 + DEFAULT_POLLING_CONFIG.dailyMs).toISOString(),
    });
    expect(view.reads.find((r) => r.kind === 'events')).toMatchObject({ source: 'unknown' });
    expect(view.reads.find((r) => r.kind === 'events')?.note).not.toContain('elsewhere');
  });
});
