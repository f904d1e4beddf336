/**
 * The example receiver (examples/webhook-receiver) against `carhook dev`: a subscription created
 * through the HTTP API, a test event and a simulated alert arrive verified and typed; a forged
 * request is refused and never reaches the handler. It runs on the simulated clock (`--clock
 * simulated`): the test steps the simulator's clock instead of waiting.
 */
import type { AddressInfo } from 'node:net';
import type { CarhookEvent } from '@carhook/events';
import { isVehicleAlertRaised, isWebhookTest } from '@carhook/events';
import { serve } from '@hono/node-server';
import { afterAll, describe, expect, it } from 'vitest';
import { createReceiver } from '../../examples/webhook-receiver/src/app';
import {
  type AnyJson,
  type DevProcess,
  freePort,
  json,
  startDev,
  stepUntil,
  stepUntilQuiet,
} from '../e2e/support';

const TOKEN = 'example-admin-token-0123456789abcdef';

describe('example webhook receiver', () => {
  let dev: DevProcess | undefined;
  const cleanups: (() => void)[] = [];
  afterAll(async () => {
    await dev?.kill();
    for (const c of cleanups) c();
  });

  it('receives the test event and a simulated alert, verified and typed, and refuses a forgery', {
    timeout: 240_000,
  }, async () => {
    let secrets: readonly string[] = [];
    const events: CarhookEvent[] = [];
    const app = createReceiver({ secrets: () => secrets, onEvent: (e) => void events.push(e) });
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
    cleanups.push(() => server.close());
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;

    dev = await startDev({
      args: [
        '--poll-interval',
        '1s',
        '--vehicles',
        '2',
        '--seed',
        '5',
        '--quota',
        '3000',
        '--clock',
        'simulated',
      ],
      token: TOKEN,
      port: await freePort(),
      simPort: await freePort(),
    });
    const running = dev;
    const api = (path: string, init: Parameters<typeof json>[1] = {}) =>
      json(`${running.api}${path}`, { token: TOKEN, ...init });

    const sub = await api('/subscriptions', {
      method: 'POST',
      body: { url, eventTypes: ['vehicle.alert.raised'] },
    });
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    secrets = [sub.body.secret];

    expect((await api(`/subscriptions/${sub.body.id}/test`, { method: 'POST' })).status).toBeLessThan(300);
    const test = await stepUntil('the test event', () => events.find(isWebhookTest), running);
    expect(test.type).toBe('webhook.test');

    // As a user would: once the first polls are done (the event log is quiet), make a change.
    await stepUntilQuiet(
      'a quiet event log',
      async () => (await api('/events?limit=100')).body.events.length as number,
      running,
    );
    const world = (await json(`${running.sim}/_sim/world`)).body;
    const vehicleApiId: string = world.users.find((u: AnyJson) => u.vehicleIds.length > 0).vehicleIds[0];
    const raised = await json(`${running.sim}/_sim/vehicles/${vehicleApiId}/alerts`, {
      method: 'POST',
      body: { severity: 'high' },
    });
    expect(raised.status).toBe(201);
    const alert = await stepUntil(
      'the alert raised',
      () => events.filter(isVehicleAlertRaised).find((e) => e.data.alertId === raised.body.id),
      running,
    );
    expect(alert.data.severity).toBe('high');
    expect(alert.vehicle?.id).toContain(vehicleApiId);

    const before = events.length;
    const forged = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': alert.id,
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      },
      body: JSON.stringify({ type: alert.type, timestamp: alert.occurredAt, data: alert }),
    });
    expect(forged.status).toBe(401);
    const unsigned = await fetch(url, { method: 'POST', body: '{}' });
    expect(unsigned.status).toBe(401);
    expect(events).toHaveLength(before);
    // Each event was handed over once, whatever the retries.
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });
});
