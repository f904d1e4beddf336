/**
 * `carhook dev` end to end: started as a user would, a receiver subscribed through the
 * HTTP API, the simulator driven through its control API; each expected event arrives once, signed,
 * and nothing else; after Ctrl-C and a restart on the same data dir, a delivery that was pending
 * arrives with its original id and nothing already delivered is sent again.
 *
 * It runs on the simulated clock (`--clock simulated`): the test moves the simulator's clock a
 * second at a time through its control API, and each advance answers once Carhook has run its
 * cycle and every job and delivery due, so nothing here waits on wall time (only the process
 * start does).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type AnyJson,
  type DevProcess,
  freePort,
  json,
  startDev,
  startRecorder,
  stepUntil as stepUntilOf,
  stepUntilQuiet as stepUntilQuietOf,
} from './support';

const TOKEN = 'e2e-admin-token-0123456789abcdef';
/** One step of the simulated clock: the planner's cadence (`--poll-interval 1s`). */
const STEP_MS = 1000;
/** Steps after which something expected is reported missing (simulated seconds). */
const MAX_STEPS = 120;

interface Got {
  readonly webhookId: string;
  readonly event: AnyJson;
  readonly answered: number;
}

describe('carhook dev end to end', () => {
  let dev: DevProcess | undefined;
  let dataDir = '';
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    await dev?.kill();
    for (const c of cleanups) await c();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('delivers each simulated change once, signed, and survives a restart without loss or new ids', {
    timeout: 150_000,
  }, async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'carhook-e2e-'));
    const port = await freePort();
    const simPort = await freePort();
    const args = [
      '--data-dir',
      dataDir,
      '--poll-interval',
      '1s',
      '--vehicles',
      '4',
      '--seed',
      '11',
      '--quota',
      '3000',
      '--clock',
      'simulated',
    ];
    dev = await startDev({ args, token: TOKEN, port, simPort });
    const running = dev;
    const api = (path: string, init: Parameters<typeof json>[1] = {}) =>
      json(`${running.api}${path}`, { token: TOKEN, ...init });
    const control = (method: string, path: string, body?: unknown) =>
      json(`${dev?.sim}/_sim${path}`, { method, ...(body !== undefined ? { body } : {}) });
    const stepUntil = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>) =>
      stepUntilOf(what, probe, running, { stepMs: STEP_MS, maxSteps: MAX_STEPS });
    const stepUntilQuiet = (what: string, count: () => Promise<number>, steps = 3) =>
      stepUntilQuietOf(what, count, running, { steps, stepMs: STEP_MS, maxSteps: MAX_STEPS });

    // The banner says what runs where.
    const banner = running.output();
    expect(banner).toContain(
      `console         http://127.0.0.1:${port}/   (sign in with the admin token below)\n`,
    );
    expect(banner).toContain(
      `HTTP API        http://127.0.0.1:${port}   OpenAPI 3.1 at http://127.0.0.1:${port}/openapi.json\n`,
    );
    expect(banner).toContain(`control API http://127.0.0.1:${simPort}/_sim`);
    expect(banner).toMatch(
      new RegExp(`DynamoDB Local  http://127\\.0\\.0\\.1:\\d+   persisted in ${dataDir}`),
    );
    expect(banner).toContain(`events (JSONL)  ${join(dataDir, 'events.jsonl')}`);
    // The token came from the environment: the banner says so and never prints it.
    expect(banner).toContain('admin token     from the environment (CARHOOK_ADMIN_TOKEN)\n');
    expect(banner).not.toContain(TOKEN);
    expect((await api('/health')).body.status).toBe('ok');
    // Management routes need the admin token.
    expect((await json(`${running.api}/subscriptions`)).status).toBe(401);

    // The simulator's users were enrolled through OAuth at start.
    const enrollments: AnyJson[] = (await api('/enrollments')).body.enrollments;
    const world = (await control('GET', '/world')).body;
    expect(enrollments.filter((e) => e.status === 'active')).toHaveLength(world.users.length);

    // Baseline first: the first polls record history (and announce it); wait until the log is quiet.
    const logSize = async () => (await api('/events?limit=100')).body.events.length as number;
    await stepUntilQuiet('a quiet event log', logSize);

    let failing = false;
    const recorder = await startRecorder(() => (failing ? 503 : 204));
    cleanups.push(recorder.close);
    const sub = await api('/subscriptions', { method: 'POST', body: { url: recorder.url } });
    expect(sub.status).toBe(201);
    const webhook = new Webhook(sub.body.secret);
    const received = (): Got[] =>
      recorder.requests.map((r) => {
        // Signed: standardwebhooks verifies headers and body (throws otherwise).
        const payload = webhook.verify(r.body, {
          'webhook-id': String(r.headers['webhook-id']),
          'webhook-timestamp': String(r.headers['webhook-timestamp']),
          'webhook-signature': String(r.headers['webhook-signature']),
        }) as AnyJson;
        const event = payload.data;
        expect(payload.type).toBe(event.type);
        expect(event.id).toBe(r.headers['webhook-id']);
        return { webhookId: String(r.headers['webhook-id']), event, answered: r.answered };
      });
    const delivered = () => received().filter((g) => g.answered === 204);
    const arrived = (pred: (e: AnyJson) => boolean) => () => delivered().find((g) => pred(g.event));

    // One user's vehicle is driven; another user is revoked.
    const owner = world.users.find((u: AnyJson) => u.vehicleIds.length > 0);
    const other = world.users.find((u: AnyJson) => u.id !== owner.id);
    const vehicleApiId: string = owner.vehicleIds[0];
    const ownerEnrollment = enrollments.find((e) => e.userId === owner.id).id;
    const otherEnrollment = enrollments.find((e) => e.userId === other.id).id;
    const vehicleId = `${ownerEnrollment}:${vehicleApiId}`;
    const ofVehicle = (type: string) => (e: AnyJson) => e.type === type && e.vehicle?.id === vehicleId;

    // Anything detected from here on must come from the actions below (a slow baseline poll, detected
    // before, is history, not something else arriving).
    // (Detection times are the simulated clock's.)
    const actionsStart: string = (await control('GET', '/clock')).body.now;
    const raised = await control('POST', `/vehicles/${vehicleApiId}/alerts`, { severity: 'high' });
    expect(raised.status).toBe(201);
    const alertId: string = raised.body.id;
    const aboutAlert = (type: string, id: string) => (e: AnyJson) =>
      ofVehicle(type)(e) && JSON.stringify(e.data).includes(id);
    expect((await control('POST', `/vehicles/${vehicleApiId}/collisions`, { front: 'high' })).status).toBe(
      201,
    );
    expect(
      (await control('PUT', `/vehicles/${vehicleApiId}/maintenance`, { days: 10, mileage: 5000 })).status,
    ).toBe(200);
    // A trip: its poll follows up on maintenance.
    expect(
      (await control('POST', `/vehicles/${vehicleApiId}/trips`, { durationS: 900, distanceKm: 12 })).status,
    ).toBe(201);
    expect(
      (await control('POST', `/vehicles/${vehicleApiId}/events`, { type: 'refuel', liters: 30 })).status,
    ).toBe(201);
    expect((await control('POST', `/users/${other.id}/revoke`)).status).toBe(200);

    await stepUntil('the alert raised', arrived(aboutAlert('vehicle.alert.raised', alertId)));
    expect((await control('POST', `/vehicles/${vehicleApiId}/alerts/${alertId}/fix`)).status).toBe(200);

    const expected = [
      aboutAlert('vehicle.alert.raised', alertId),
      aboutAlert('vehicle.alert.fixed', alertId),
      ofVehicle('vehicle.collision.detected'),
      ofVehicle('vehicle.maintenance.due'),
      ofVehicle('vehicle.trip.completed'),
      ofVehicle('vehicle.refuel.detected'),
      (e: AnyJson) =>
        e.type === 'enrollment.reauthorization_required' && e.enrollment?.id === otherEnrollment,
    ];
    for (const [i, pred] of expected.entries()) await stepUntil(`expected event #${i}`, arrived(pred));

    // Let a few more cycles run: nothing else may arrive, and nothing twice.
    const fromActions = () => delivered().filter((g) => g.event.detectedAt >= actionsStart);
    const settled = fromActions().length;
    await stepUntilQuiet('three more poll cycles', logSize);
    const phase1 = fromActions();
    const beforeRestart = delivered();
    const describeAll = phase1
      .map((g) => `${g.event.type} ${g.event.vehicle?.id ?? g.event.enrollment?.id}`)
      .join('\n');
    expect(phase1.length, describeAll).toBe(settled);
    for (const pred of expected)
      expect(
        phase1.filter((g) => pred(g.event)),
        describeAll,
      ).toHaveLength(1);
    expect(phase1, describeAll).toHaveLength(expected.length);
    expect(new Set(phase1.map((g) => g.webhookId)).size).toBe(phase1.length);

    // A delivery left pending at shutdown: the endpoint fails, Ctrl-C before the retry.
    failing = true;
    const second = await control('POST', `/vehicles/${vehicleApiId}/alerts`, { severity: 'low' });
    const pending = await stepUntil('a failed attempt of the second alert', () =>
      received().find(
        (g) => g.answered === 503 && aboutAlert('vehicle.alert.raised', second.body.id)(g.event),
      ),
    );
    expect(await running.stop()).toBe(0);
    expect(running.output()).toContain('carhook dev: stopped');
    failing = false;

    const before = recorder.requests.length;
    dev = await startDev({ args, token: TOKEN, port, simPort });
    const restarted = dev;
    // The same subscription, the same stored events (persisted data dir).
    expect(
      (await json(`${restarted.api}/subscriptions`, { token: TOKEN })).body.items.map((s: AnyJson) => s.id),
    ).toEqual([sub.body.id]);
    // Its retry is due a few simulated seconds later (the endpoint asked for 12 s).
    const retried = await stepUntil('the pending delivery after the restart', () =>
      delivered().find((g) => g.webhookId === pending.webhookId),
    );
    expect(retried.event).toEqual(pending.event);

    // Nothing delivered before is sent again, with its id or a new one.
    const after = received()
      .slice(before)
      .filter((g) => g.answered === 204);
    const seenIds = new Set(beforeRestart.map((g) => g.webhookId));
    expect(after.filter((g) => seenIds.has(g.webhookId))).toEqual([]);
    for (const pred of expected) expect(after.filter((g) => pred(g.event))).toEqual([]);
    expect(await restarted.stop()).toBe(0);
  });
});
