/**
 * Every catalogue type, end to end in the local runtime: a simulator control (or a management
 * call) → the webhook received by a real receiver, signed so the Standard Webhooks verifier
 * accepts it, with a payload the published schema accepts. The runtime runs on the simulator's
 * clock: the test advances it a second at a time (each step runs a planner cycle, every job and
 * delivery that is due, and returns once they have settled) until what it expects has arrived, so
 * nothing waits on wall time and machine load cannot make it late. Short cadences (services, map,
 * maintenance and discovery every second, a two-retry webhook schedule) keep the steps few.
 *
 * The payloads received are the samples of docs/events.md: this test fails when they no longer
 * have the documented shape; `CARHOOK_WRITE_EVENT_SAMPLES=1 npx vitest run test/e2e/catalogue`
 * rewrites the samples and the page.
 */
import { writeFile } from 'node:fs/promises';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EVENTS_DOC_PATH,
  renderEventsDoc,
  SAMPLES_PATH,
  shapeOf,
  storedSamples,
} from '../../../bin/events-doc';
import { EVENT_TYPES } from '../../../functions/core/events/catalogue';
import type { EventEnvelope } from '../../../functions/core/events/envelope';
import { validateEvent } from '../../../functions/core/events/validate';
import { banner, type LocalRuntime, startLocalRuntime } from '../../../functions/local/runtime';
import type { SimUser, SimVehicle } from '../../../sim/world/types';
import { driver, MAX_STEPS, STEP_MS, startReceiver } from './harness';

describe('every catalogue type, end to end in the local runtime', { timeout: 60_000 }, () => {
  let rt: LocalRuntime;
  const { api, control, stepUntil, twoReadsOf } = driver(() => rt);
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  const secrets = new Map<string, string>(); // receiver path → subscription secret
  const samples = new Map<string, EventEnvelope>();
  /** Three users with vehicles: A's first car for vehicle events, B's leaves the list, C revokes. */
  let users: readonly SimUser[];
  let car: SimVehicle;

  const subscribe = async (path: string, eventTypes?: string[]) => {
    const r = await api('POST', '/subscriptions', {
      url: rx.url(path),
      ...(eventTypes ? { eventTypes } : {}),
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    secrets.set(path, r.body.secret);
    return r.body as { id: string; secret: string };
  };
  /**
   * Waits for the first delivery at `path` of `type` that `match` accepts; checks its signature with
   * the Standard Webhooks verifier, its `webhook-id`, its schema, and keeps it as the type's sample.
   */
  async function expectWebhook(
    path: string,
    type: string,
    match: (e: EventEnvelope) => boolean = () => true,
    maxSteps = MAX_STEPS,
  ): Promise<EventEnvelope> {
    const got = await stepUntil(
      `${type} at ${path}`,
      () => rx.received.find((r) => r.path === path && r.envelope.type === type && match(r.envelope)),
      maxSteps,
    );
    const payload = new Webhook(secrets.get(path) as string).verify(got.body, got.headers) as {
      type: string;
      timestamp: string;
      data: EventEnvelope;
    };
    expect(payload.type).toBe(type);
    expect(got.headers['webhook-id']).toBe(payload.data.id);
    expect(validateEvent(payload.data)).toEqual({ ok: true });
    if (!samples.has(type)) samples.set(type, payload.data);
    return payload.data;
  }
  const ofCar = (e: EventEnvelope) => e.vehicle?.vin === car.vin;

  beforeAll(async () => {
    rx = await startReceiver();
    rt = await startLocalRuntime({
      port: 0,
      simPort: 0,
      vehicles: 6,
      seed: 18,
      clock: 'simulated',
      pollIntervalMs: STEP_MS,
      quota: 100_000,
      servicesIntervalMs: 1000,
      mapIntervalMs: 1000,
      // Two retries a second apart: a failing endpoint's delivery is exhausted in about 2 s.
      retrySchedule: {
        name: 'test',
        retriesMs: [1000, 1000],
        disableAfterFailingMs: 3_600_000,
        failingFor: '1-hour',
      },
      // Maintenance and the users' vehicle lists read every second.
      polling: { dailyMs: 1000, discoveryIntervalMs: 1000 },
      // A vehicle is told silent after 10 s without a record (learned from its own history: 2.5 s to 70 s).
      silenceAfterMs: 10_000,
      // Alerts within 30 s at p95: met at this quota, missed when the API lowers it to 6 a minute.
      freshnessTargets: { alerts: 30_000 },
      out: null,
      err: null,
    });
    const world = (rt.sim as NonNullable<LocalRuntime['sim']>).world;
    users = world.users().filter((u) => u.vehicleIds.length > 0);
    expect(users.length).toBeGreaterThanOrEqual(3);
    car = world.vehicle((users[0] as SimUser).vehicleIds[0] as string) as SimVehicle;
    await subscribe('/all');
    await subscribe('/ops', ['webhook.*']);
    // Baselines first: every enrolled vehicle polled once (its first read of each resource is a baseline).
    await twoReadsOf('v2.vehicles.events');
    await twoReadsOf('v2.vehicles.maintenance');
  }, 120_000);

  afterAll(async () => {
    await rt?.close();
    await rx?.close();
    if (process.env.CARHOOK_WRITE_EVENT_SAMPLES === '1' && samples.size === EVENT_TYPES.length) {
      const ordered = Object.fromEntries(EVENT_TYPES.map((t) => [t, samples.get(t)]));
      await writeFile(SAMPLES_PATH, `${JSON.stringify(ordered, null, 2)}\n`);
      await writeFile(EVENTS_DOC_PATH, await renderEventsDoc());
    }
  });

  it('the banner says the cadences and the retry schedule', () => {
    expect(banner(rt, { generatedToken: true })).toContain(
      '  cadences        services every 1s, map every 1s; webhook retries test\n',
    );
  });

  it('vehicle.alert.raised: an alert raised in the car', async () => {
    const raised = await control('POST', `/vehicles/${car.id}/alerts`, {
      code: 'engineFault',
      severity: 'high',
    });
    expect(raised.status).toBe(201);
    const e = await expectWebhook('/all', 'vehicle.alert.raised', ofCar);
    expect(e.vehicle).toMatchObject({ vin: car.vin });
  });

  it('vehicle.alert.fixed: the alert fixed', async () => {
    const alert = (await control('GET', '/world')).body.vehicles
      .find((v: { id: string }) => v.id === car.id)
      .alerts.find((a: { active: boolean }) => a.active);
    expect((await control('POST', `/vehicles/${car.id}/alerts/${alert.id}/fix`)).status).toBe(200);
    await expectWebhook('/all', 'vehicle.alert.fixed', ofCar);
  });

  it('vehicle.collision.detected: a collision', async () => {
    expect((await control('POST', `/vehicles/${car.id}/collisions`, { front: 'high' })).status).toBe(201);
    await expectWebhook('/all', 'vehicle.collision.detected', ofCar);
  });

  it('vehicle.trip.completed: a trip driven', async () => {
    expect(
      (await control('POST', `/vehicles/${car.id}/trips`, { durationS: 1200, distanceKm: 14 })).status,
    ).toBe(201);
    await expectWebhook('/all', 'vehicle.trip.completed', ofCar);
  });

  it('vehicle.refuel.detected: a refuel', async () => {
    expect((await control('POST', `/vehicles/${car.id}/events`, { type: 'refuel', liters: 30 })).status).toBe(
      201,
    );
    await expectWebhook('/all', 'vehicle.refuel.detected', ofCar);
  });

  it('vehicle.fuel_theft.detected: fuel stolen', async () => {
    expect(
      (await control('POST', `/vehicles/${car.id}/events`, { type: 'fuel_stolen', liters: 12 })).status,
    ).toBe(201);
    await expectWebhook('/all', 'vehicle.fuel_theft.detected', ofCar);
  });

  it('vehicle.maintenance.due, .overdue, .reset: the countdown crosses the threshold, zero, then jumps back', async () => {
    const set = async (days: number, mileage: number) => {
      expect((await control('PUT', `/vehicles/${car.id}/maintenance`, { days, mileage })).status).toBe(200);
      await twoReadsOf('v2.vehicles.maintenance');
    };
    await set(300, 20_000);
    await set(20, 5000);
    await expectWebhook('/all', 'vehicle.maintenance.due', ofCar);
    await set(-3, 5000);
    await expectWebhook('/all', 'vehicle.maintenance.overdue', ofCar);
    await set(365, 30_000);
    await expectWebhook('/all', 'vehicle.maintenance.reset', ofCar);
  });

  it('vehicle.services.changed: a service turned off (--services-interval)', async () => {
    expect((await control('PUT', `/vehicles/${car.id}/services`, { ECALL: false })).status).toBe(200);
    await expectWebhook('/all', 'vehicle.services.changed', ofCar);
  });

  it('vehicle.map_update.available: a map update released (--map-interval)', async () => {
    expect((await control('POST', `/map/${car.vin}/release`, { version: '2027.04' })).status).toBe(200);
    await expectWebhook('/all', 'vehicle.map_update.available', ofCar);
  });

  it('vehicle.reporting.stopped, .resumed: the car stops reporting, then drives again', {
    timeout: 300_000,
  }, async () => {
    // The car's events so far (its history is older than the threshold: told silent, then resumed, at the start).
    const told = Math.max(...rx.received.filter((r) => ofCar(r.envelope)).map((r) => r.envelope.sequence));
    const later = (e: EventEnvelope) => ofCar(e) && e.sequence > told;
    const stopped = await expectWebhook('/all', 'vehicle.reporting.stopped', later, 100);
    expect(stopped.data).toMatchObject({ basis: expect.stringMatching(/^(default|learned)$/) });
    // The simulator never overlaps trips: a new one starts a minute after the car's last stop, so
    // it may end after the simulated now. Its records move, and the car resumes, only then. The
    // shortest trip keeps that wait (and the simulated clock's lead on the wall clock, which the
    // webhook verifier bounds to 5 minutes) short.
    const created = await control('POST', `/vehicles/${car.id}/trips`, { durationS: 60 });
    expect(created.status).toBe(201);
    const world = (rt.sim as NonNullable<LocalRuntime['sim']>).world;
    const untilStop = Math.max(0, Date.parse(created.body.trip.stoppedAt) - world.now());
    const resumed = await expectWebhook(
      '/all',
      'vehicle.reporting.resumed',
      later,
      Math.ceil(untilStop / STEP_MS) + MAX_STEPS,
    );
    expect(resumed.data).toMatchObject({ silentSince: stopped.data.silentSince });
    expect(resumed.sequence).toBeGreaterThan(stopped.sequence);
  });

  it('enrollment.vehicle.added and .removed: a fleet contract enrolled, then deleted', async () => {
    const world = (rt.sim as NonNullable<LocalRuntime['sim']>).world;
    const fleetCar = world.vehicles().at(-1) as SimVehicle;
    const enrolled = await api('POST', '/enrollments/contracts', {
      vin: fleetCar.vin,
      contract: fleetCar.contract,
      brand: fleetCar.brand,
    });
    expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(201);
    const added = await expectWebhook(
      '/all',
      'enrollment.vehicle.added',
      (e) => e.enrollment?.id === enrolled.body.enrollmentId,
    );
    expect(added.enrollment).toEqual({ id: enrolled.body.enrollmentId, kind: 'fleet-contract' });
    expect(added.data).toMatchObject({ vehicleId: enrolled.body.vehicleId, vin: fleetCar.vin });

    expect((await api('DELETE', `/enrollments/${enrolled.body.enrollmentId}`)).status).toBe(200);
    await expectWebhook(
      '/all',
      'enrollment.vehicle.removed',
      (e) => e.enrollment?.id === enrolled.body.enrollmentId,
    );
  });

  it('enrollment.vehicle.removed: a fleet vehicle the v1 API no longer knows', async () => {
    const world = (rt.sim as NonNullable<LocalRuntime['sim']>).world;
    const gone = world.vehicles().at(-2) as SimVehicle;
    const enrolled = await api('POST', '/enrollments/contracts', {
      vin: gone.vin,
      contract: gone.contract,
      brand: gone.brand,
    });
    expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(201);
    const mine = (e: EventEnvelope) => e.enrollment?.id === enrolled.body.enrollmentId;
    const added = await expectWebhook('/all', 'enrollment.vehicle.added', mine);
    // The simulator's v1 API stops knowing the VIN (single reads 404, bulk lists omit it).
    expect((await control('DELETE', `/v1/vehicles/${gone.vin}`)).status).toBe(200);
    // Told at the VIN's next fleet poll, whenever the planner books it (the other cars keep it busy).
    const removed = await expectWebhook('/all', 'enrollment.vehicle.removed', mine, 600);
    expect(removed.source).toMatchObject({ api: 'v1', operation: 'v1.vehicle.information' });
    expect(removed.data).toMatchObject({ vehicleId: enrolled.body.vehicleId, vin: gone.vin });
    expect(removed.sequence).toBeGreaterThan(added.sequence);
  }, 120_000);

  it("enrollment.vehicle.removed: a vehicle leaves the user's list", async () => {
    const world = (rt.sim as NonNullable<LocalRuntime['sim']>).world;
    const userB = users[1] as SimUser;
    const leaving = world.vehicle(userB.vehicleIds[0] as string) as SimVehicle;
    expect((await control('DELETE', `/users/${userB.id}/vehicles/${leaving.id}`)).status).toBe(200);
    const removed = await expectWebhook(
      '/all',
      'enrollment.vehicle.removed',
      (e) => e.vehicle?.vin === leaving.vin && e.enrollment?.kind === 'oauth-user',
    );
    expect(removed.data).toMatchObject({ vin: leaving.vin });
  });

  it('enrollment.reauthorization_required: the user revoked the access', async () => {
    const userC = users[2] as SimUser;
    expect((await control('POST', `/users/${userC.id}/revoke`)).status).toBe(200);
    await expectWebhook('/all', 'enrollment.reauthorization_required');
  });

  it('webhook.test: a test event sent from the API', async () => {
    const sub = await subscribe('/tested', ['vehicle.alert.raised']);
    expect((await api('POST', `/subscriptions/${sub.id}/test`)).status).toBe(200);
    await expectWebhook('/tested', 'webhook.test');
  });

  it('webhook.endpoint.disabled: an endpoint answers 410, the subscriptions asking for webhook.* are told', async () => {
    const gone = await subscribe('/gone', ['vehicle.alert.raised']);
    expect(
      (await control('POST', `/vehicles/${car.id}/alerts`, { code: 'alertBrakeFluid', severity: 'low' }))
        .status,
    ).toBe(201);
    const e = await expectWebhook(
      '/ops',
      'webhook.endpoint.disabled',
      (x) => x.data.subscriptionId === gone.id,
    );
    expect(e.data).toMatchObject({ subscriptionId: gone.id, url: rx.url('/gone'), reason: 'gone' });
    expect((await api('GET', `/subscriptions/${gone.id}`)).body.status).toBe('disabled');
    // Never to the endpoint it is about, nor to a subscription to everything.
    expect(rx.received.filter((r) => r.path === '/gone').map((r) => r.envelope.type)).not.toContain(
      'webhook.endpoint.disabled',
    );
    expect(rx.received.filter((r) => r.path === '/all').map((r) => r.envelope.type)).not.toContain(
      'webhook.endpoint.disabled',
    );
  });

  it('webhook.delivery.exhausted: every retry of a delivery failed', async () => {
    const failing = await subscribe('/fail', ['vehicle.alert.raised']);
    expect(
      (await control('POST', `/vehicles/${car.id}/alerts`, { code: 'alertOilPressure', severity: 'medium' }))
        .status,
    ).toBe(201);
    const e = await expectWebhook(
      '/ops',
      'webhook.delivery.exhausted',
      (x) => x.data.subscriptionId === failing.id,
    );
    expect(e.data).toMatchObject({
      subscriptionId: failing.id,
      eventType: 'vehicle.alert.raised',
      attempts: 3,
      lastStatus: 500,
    });
    expect(rx.received.filter((r) => r.path === '/fail' && r.envelope.id === e.data.eventId)).toHaveLength(3);
  });

  it('carhook.quota.changed: the API lowers the quota, then gives it back', async () => {
    await subscribe('/carhook', ['carhook.*']);
    const clientId = (rt.sim as NonNullable<LocalRuntime['sim']>).clientId;
    expect((await control('PUT', `/clients/${clientId}/quota`, { limit: 50_000 })).status).toBe(200);
    const lowered = await expectWebhook('/carhook', 'carhook.quota.changed');
    expect(lowered.data).toMatchObject({ clientId, previousLimit: 100_000, limit: 50_000, source: 'header' });
    expect((await control('PUT', `/clients/${clientId}/quota`, { limit: 100_000 })).status).toBe(200);
    const restored = await expectWebhook(
      '/carhook',
      'carhook.quota.changed',
      (e) => e.data.limit === 100_000,
    );
    expect(restored.data).toMatchObject({ previousLimit: 50_000, limit: 100_000, ceiling: 100_000 });
    // Operational: not to a subscription to everything.
    expect(rx.received.filter((r) => r.path === '/all').map((r) => r.envelope.type)).not.toContain(
      'carhook.quota.changed',
    );
  });

  it('carhook.freshness.at_risk / restored: the quota falls below what the alerts target needs, then comes back', async () => {
    const clientId = (rt.sim as NonNullable<LocalRuntime['sim']>).clientId;
    expect((await control('PUT', `/clients/${clientId}/quota`, { limit: 6 })).status).toBe(200);
    await expectWebhook('/carhook', 'carhook.quota.changed', (e) => e.data.limit === 6);
    // The freshness check runs every 5 planner cycles (5 steps here).
    await rt.advance(5 * STEP_MS);
    const atRisk = await expectWebhook('/carhook', 'carhook.freshness.at_risk');
    // The vehicles still polled one by one: the earlier tests paused some.
    expect(atRisk.data).toMatchObject({ kind: 'alerts', targetS: 30, quotaLimit: 6, vehicles: 3 });
    expect(atRisk.data.predictedP95S as number).toBeGreaterThan(30);
    expect((await control('PUT', `/clients/${clientId}/quota`, { limit: 100_000 })).status).toBe(200);
    await expectWebhook('/carhook', 'carhook.quota.changed', (e) => e.data.limit === 100_000);
    await rt.advance(5 * STEP_MS);
    const restored = await expectWebhook('/carhook', 'carhook.freshness.restored');
    expect(restored.data).toMatchObject({
      kind: 'alerts',
      quotaLimit: 100_000,
      atRiskSince: atRisk.data.checkedAt,
    });
    expect(restored.data.predictedP95S as number).toBeLessThanOrEqual(30);
    expect(rx.received.filter((r) => r.envelope.type.startsWith('carhook.freshness.'))).toHaveLength(2);
  });

  it('covered every catalogue type, with the payload shapes docs/events.md shows', async () => {
    expect([...samples.keys()].sort()).toEqual([...EVENT_TYPES].sort());
    if (process.env.CARHOOK_WRITE_EVENT_SAMPLES === '1') return;
    const documented = await storedSamples();
    for (const type of EVENT_TYPES) {
      expect(
        shapeOf(samples.get(type)),
        `docs/events.md is stale for ${type}: run CARHOOK_WRITE_EVENT_SAMPLES=1 npx vitest run test/e2e/catalogue`,
      ).toEqual(shapeOf(documented[type]));
    }
  });
});
