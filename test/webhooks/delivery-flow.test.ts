import { afterEach, describe, expect, it } from 'vitest';
import { createSender } from '../../functions/adapters/webhooks/sender';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { serializePayload } from '../../functions/core/webhooks/payload';
import {
  type NextStep,
  nextStep,
  RETRY_SCHEDULE_MS,
  recordAttempt,
  type SubscriptionHealth,
} from '../../functions/core/webhooks/policy';
import type { DeliveryAttempt } from '../../functions/core/webhooks/sender';
import { generateSecret, verify } from '../../functions/core/webhooks/signing';
import { loopbackAllowList, type Receiver, startReceiver } from './receiver';

/**
 * Sender + policy together, on a virtual clock: the retry schedule is followed by advancing the
 * clock to each `retry.at`, never by waiting. (The delivery worker with its queue comes later; this
 * is the loop it runs.)
 */
const envelope: EventEnvelope = {
  id: 'evt_flow_1',
  type: 'vehicle.alert.raised',
  schemaVersion: 1,
  occurredAt: '2026-11-22T09:59:00.000Z',
  detectedAt: '2026-11-22T10:00:00.000Z',
  sequence: 1,
  vehicle: { id: 'veh_1' },
  source: { api: 'v2' },
  data: { alertId: 'al_1' },
};

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function deliverWithRetries(receiver: Receiver, secret: string) {
  const start = new Date('2026-11-22T10:00:00.000Z');
  let clock = start;
  const sender = createSender({
    allowInsecureLoopback: true,
    allowList: loopbackAllowList(),
    now: () => clock,
  });
  cleanups.push(sender.close);
  const body = serializePayload(envelope);
  if (!body.ok) throw new Error(body.error.message);
  let health: SubscriptionHealth = {};
  const attempts: DeliveryAttempt[] = [];
  for (let n = 1; ; n++) {
    const attempt = await sender.send({
      url: receiver.url(),
      id: envelope.id,
      body: body.value,
      secrets: { current: secret },
    });
    attempts.push(attempt);
    health = recordAttempt(health, attempt);
    const step: NextStep = nextStep({ attemptNumber: n }, attempt, clock, { health, random: () => 0.5 });
    if (step.action !== 'retry') return { step, attempts, start, end: clock };
    clock = step.at;
  }
}

describe('delivery flow (virtual clock)', () => {
  it('a receiver down for three attempts then back gets the event, same id and bytes each time', async () => {
    let calls = 0;
    const receiver = await startReceiver((_req, res) => {
      calls++;
      res.writeHead(calls <= 3 ? 503 : 200).end();
    });
    cleanups.push(receiver.close);
    const secret = generateSecret();
    const { step, attempts, start, end } = await deliverWithRetries(receiver, secret);

    expect(step).toEqual({ action: 'done' });
    expect(attempts.map((a) => a.outcome)).toEqual(['failure', 'failure', 'failure', 'success']);
    expect(end.getTime() - start.getTime()).toBe(5_000 + 300_000 + 1_800_000);
    const [first, ...rest] = receiver.requests;
    for (const r of rest) {
      expect(r.body).toBe(first?.body);
      expect(r.headers['webhook-id']).toBe('evt_flow_1');
    }
    // Each attempt is signed at its own (virtual) time and verifies at that time.
    for (const [i, r] of receiver.requests.entries()) {
      const at = new Date(attempts[i]?.startedAt ?? 0);
      expect(verify(r.headers, r.body, secret, { now: at }).ok).toBe(true);
    }
  });

  it('dead-letters after 8 attempts over the whole schedule', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(500).end());
    cleanups.push(receiver.close);
    const { step, attempts, start, end } = await deliverWithRetries(receiver, generateSecret());
    expect(step).toEqual({ action: 'dead-letter', attempts: 8 });
    expect(attempts).toHaveLength(8);
    expect(receiver.requests).toHaveLength(8);
    expect(end.getTime() - start.getTime()).toBe(RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0));
  });

  it('stops at the first 410 and asks for the subscription to be disabled', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(410).end());
    cleanups.push(receiver.close);
    const { step, attempts } = await deliverWithRetries(receiver, generateSecret());
    expect(step).toMatchObject({ action: 'disable-subscription', reason: 'gone' });
    expect(attempts).toHaveLength(1);
  });
});
