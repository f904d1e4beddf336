import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { summarizeHealth } from '../../functions/core/subscriptions/health';
import type { AttemptRecord } from '../../functions/core/subscriptions/records';
import { event, harness, T0 } from '../delivery/harness';
import { startReceiver } from '../webhooks/receiver';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const at = (ms: number) => new Date(ms).toISOString();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function world() {
  const h = harness();
  cleanups.push(h.sender.close);
  let status = 204;
  const rx = await startReceiver((_req, res: http.ServerResponse) => {
    res.writeHead(status).end(status >= 300 ? 'down for maintenance' : '');
  });
  cleanups.push(rx.close);
  const sub = await h.subscribe({ url: rx.url() });
  const health = async () => {
    const got = await h.service.get(sub.id);
    if (!got.ok) throw new Error(got.error.message);
    return got.value.health;
  };
  return { h, sub, health, answer: (s: number) => (status = s) };
}

describe('subscription health, as the API returns it', () => {
  it('a new subscription: no attempt yet', async () => {
    const { health } = await world();
    expect(await health()).toEqual({
      state: 'new',
      consecutiveFailures: 0,
      last24h: {
        since: at(T0 - DAY),
        attempts: 0,
        succeeded: 0,
        failed: 0,
        successRate: null,
        complete: true,
      },
      retrying: { deliveries: 0 },
    });
  });

  it('a failing endpoint is failing after its first failed attempt: status, retry and when it would be disabled', async () => {
    const { h, health, answer } = await world();
    answer(500);
    await h.publish(event());
    expect(await health()).toEqual({
      state: 'failing',
      consecutiveFailures: 1,
      failingSince: at(T0),
      lastFailure: {
        at: at(T0),
        outcome: 'failure',
        statusCode: 500,
        error: 'HTTP 500 Internal Server Error',
      },
      last24h: { since: at(T0 - DAY), attempts: 1, succeeded: 0, failed: 1, successRate: 0, complete: true },
      retrying: { deliveries: 1, nextAttemptAt: at(T0 + 5000) },
      disablesAt: at(T0 + 5 * DAY),
    });
  });

  it('counts every failure of a streak (six 500s are 6), and a success ends it, keeping the last failure', async () => {
    const { h, health, answer } = await world();
    answer(500);
    for (let i = 0; i < 6; i++) {
      await h.publish(event({}, h.clock.ms()));
      h.clock.advance(1000);
    }
    const failing = await health();
    expect(failing).toMatchObject({ state: 'failing', consecutiveFailures: 6, failingSince: at(T0) });
    expect(failing.last24h).toMatchObject({ attempts: 6, failed: 6, successRate: 0 });
    expect(failing.retrying.deliveries).toBe(6);
    answer(200);
    const okAt = h.clock.ms();
    await h.publish(event({}, okAt));
    const recovered = await health();
    expect(recovered).toMatchObject({
      state: 'healthy',
      consecutiveFailures: 0,
      lastSuccessAt: at(okAt),
      lastFailure: { at: at(T0 + 5000), statusCode: 500 },
      last24h: { attempts: 7, succeeded: 1, failed: 6, successRate: 0.1429 },
    });
    expect(recovered.failingSince).toBeUndefined();
    expect(recovered.disablesAt).toBeUndefined();
  });

  it('the last success is the newest successful attempt, though a steady success writes nothing on the subscription', async () => {
    const { h, sub, health } = await world();
    for (let i = 0; i < 100; i++) {
      await h.publish(event({}, h.clock.ms()));
      h.clock.advance(60_000);
    }
    expect((await h.stores.subscriptions.get(sub.id))?.health).toEqual({});
    const seen = await health();
    expect(seen).toMatchObject({
      state: 'healthy',
      consecutiveFailures: 0,
      lastSuccessAt: at(T0 + 99 * 60_000),
      last24h: { attempts: 100, succeeded: 100, failed: 0, successRate: 1, complete: true },
    });
    // A day later the window is empty, and the last success is still known.
    h.clock.advance(2 * DAY);
    expect(await health()).toMatchObject({
      lastSuccessAt: at(T0 + 99 * 60_000),
      last24h: { attempts: 0, successRate: null },
    });
  });

  it('is listed with every subscription, and never shows the secret', async () => {
    const { h, sub, answer } = await world();
    answer(503);
    await h.publish(event());
    const listed = await h.service.list({});
    expect(
      listed.ok && listed.value.items.map((s) => [s.id, s.health.state, s.health.consecutiveFailures]),
    ).toEqual([[sub.id, 'failing', 1]]);
    expect(JSON.stringify(listed)).not.toContain('secret');
  });
});

describe('summarizeHealth', () => {
  const line = (n: number, startedAt: number, outcome: AttemptRecord['outcome'], statusCode?: number) =>
    ({
      subscriptionId: 'sub_a',
      deliveryId: `dlv_${n}`,
      eventId: `evt_${n}`,
      eventType: 'vehicle.alert.raised',
      attemptNumber: 1,
      startedAt: at(startedAt),
      durationMs: 10,
      outcome,
      ...(statusCode !== undefined ? { statusCode } : {}),
      decision: outcome === 'success' ? 'done' : 'retry',
    }) satisfies AttemptRecord;

  it('a success in the log newer than the stored streak means healthy, whatever the record still says', () => {
    const view = summarizeHealth({
      subscription: {
        status: 'active',
        health: {
          firstFailureAt: at(T0 - HOUR),
          consecutiveFailures: 3,
          lastFailure: { at: at(T0 - 10_000), outcome: 'timeout', error: 'timed out after 15000 ms' },
        },
      },
      attempts: [line(2, T0 - 1000, 'success', 200), line(1, T0 - 10_000, 'timeout')],
      complete: true,
      pending: [],
      now: T0,
      disableAfterFailingMs: 5 * DAY,
    });
    expect(view).toMatchObject({ state: 'healthy', consecutiveFailures: 0, lastSuccessAt: at(T0 - 1000) });
    expect(view.disablesAt).toBeUndefined();
  });

  it('counts the window from the attempts read; past the read limit it says how far it reached', () => {
    const attempts = [line(3, T0 - HOUR, 'success', 200), line(2, T0 - 2 * HOUR, 'failure', 502)];
    const view = summarizeHealth({
      subscription: { status: 'disabled', health: {} },
      attempts: [...attempts, line(1, T0 - 2 * DAY, 'failure', 500)],
      complete: false,
      pending: [{ attempts: 0, nextAttemptAt: at(T0) }],
      now: T0,
      disableAfterFailingMs: 5 * DAY,
    });
    expect(view.state).toBe('disabled');
    expect(view.last24h).toEqual({
      since: at(T0 - DAY),
      attempts: 2,
      succeeded: 1,
      failed: 1,
      successRate: 0.5,
      complete: false,
    });
    // A pending delivery not yet attempted is not a retry.
    expect(view.retrying).toEqual({ deliveries: 0 });
  });
});
