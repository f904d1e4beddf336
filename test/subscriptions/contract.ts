import { describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { StoreError } from '../../functions/core/store/errors';
import { deliveryId, newSubscriptionId } from '../../functions/core/subscriptions/logic';
import type { DeliveryStore, SubscriptionStore } from '../../functions/core/subscriptions/ports';
import type {
  AttemptRecord,
  DeliveryRecord,
  SubscriptionRecord,
} from '../../functions/core/subscriptions/records';

/**
 * One behaviour suite for every implementation of SubscriptionStore + DeliveryStore (memory and
 * DynamoDB), so they cannot drift. `make` gives fresh, empty stores on each call.
 */
export type SubscriptionStoresFactory = () => Promise<{
  readonly subscriptions: SubscriptionStore;
  readonly deliveries: DeliveryStore;
}>;

export const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const failure = (ms: number) => ({ at: iso(ms), outcome: 'failure' as const, statusCode: 500 });

export function subscription(id: string, overrides: Partial<SubscriptionRecord> = {}): SubscriptionRecord {
  return {
    id,
    url: 'https://hooks.example.com/carhook',
    status: 'active',
    secretCiphertext: 'v1.k1.iv.tag.body',
    health: {},
    createdAt: iso(T0),
    updatedAt: iso(T0),
    ...overrides,
  };
}

export function envelope(id: string, type = 'vehicle.alert.raised'): EventEnvelope {
  return {
    id,
    type,
    schemaVersion: 1,
    occurredAt: iso(T0 - 60_000),
    detectedAt: iso(T0),
    sequence: 1,
    vehicle: { id: 'veh_1' },
    source: { api: 'v2' },
    data: { alertId: 'al_1' },
  };
}

export function delivery(
  subscriptionId: string,
  eventId: string,
  overrides: Partial<DeliveryRecord> = {},
): DeliveryRecord {
  return {
    id: deliveryId(eventId, subscriptionId),
    subscriptionId,
    eventId,
    eventType: 'vehicle.alert.raised',
    envelope: envelope(eventId),
    origin: 'event',
    status: 'pending',
    attempts: 0,
    nextAttemptAt: iso(T0),
    createdAt: iso(T0),
    updatedAt: iso(T0),
    ...overrides,
  };
}

function attempt(d: DeliveryRecord, n: number, startedAt: number, statusCode = 500): AttemptRecord {
  return {
    subscriptionId: d.subscriptionId,
    deliveryId: d.id,
    eventId: d.eventId,
    eventType: d.eventType,
    attemptNumber: n,
    startedAt: iso(startedAt),
    durationMs: 12.5,
    outcome: statusCode < 300 ? 'success' : 'failure',
    statusCode,
    responseExcerpt: 'é'.repeat(10),
    decision: statusCode < 300 ? 'done' : 'retry',
  };
}

async function storeError(p: Promise<unknown>): Promise<StoreError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StoreError) return e;
    throw e;
  }
  throw new Error('expected a StoreError');
}

export function subscriptionStoreContract(name: string, make: SubscriptionStoresFactory): void {
  describe(`${name}: subscriptions`, () => {
    it('creates a subscription once, reads it back and refuses a second create of the id', async () => {
      const { subscriptions } = await make();
      const s = subscription('sub_a', { eventTypes: ['vehicle.alert.*'], description: 'ops' });
      expect(await subscriptions.create(s)).toBe(true);
      expect(await subscriptions.create({ ...s, url: 'https://other.example.com/' })).toBe(false);
      expect(await subscriptions.get('sub_a')).toEqual(s);
      expect(await subscriptions.get('sub_missing')).toBeUndefined();
    });

    it('lists every subscription in id order, page by page', async () => {
      const { subscriptions } = await make();
      const ids = [0, 1, 2, 3, 4].map((i) => newSubscriptionId(T0 + i));
      for (const id of [...ids].reverse()) await subscriptions.create(subscription(id));
      const first = await subscriptions.list({ limit: 2 });
      expect(first.items.map((s) => s.id)).toEqual(ids.slice(0, 2));
      const second = await subscriptions.list({ limit: 2, cursor: first.cursor });
      const third = await subscriptions.list({ limit: 2, cursor: second.cursor });
      expect([...second.items, ...third.items].map((s) => s.id)).toEqual(ids.slice(2));
      expect(third.cursor).toBeUndefined();
    });

    it('refuses a forged cursor naming the field', async () => {
      const { subscriptions } = await make();
      const error = await storeError(subscriptions.list({ cursor: 'not-a-cursor' }));
      expect(error.kind).toBe('InvalidInput');
      expect(error.context.field).toBe('cursor');
    });

    it('updates fields, and null removes an optional filter', async () => {
      const { subscriptions } = await make();
      await subscriptions.create(subscription('sub_a', { vehicleIds: ['veh_1'], description: 'x' }));
      const updated = await subscriptions.update(
        'sub_a',
        { url: 'https://new.example.com/h', vehicleIds: null, eventTypes: ['vehicle.trip.completed'] },
        T0 + 1000,
      );
      expect(updated?.url).toBe('https://new.example.com/h');
      expect(updated?.vehicleIds).toBeUndefined();
      expect(updated?.eventTypes).toEqual(['vehicle.trip.completed']);
      expect(updated?.description).toBe('x');
      expect(updated?.updatedAt).toBe(iso(T0 + 1000));
      expect(await subscriptions.get('sub_a')).toEqual(updated);
      expect(await subscriptions.update('sub_missing', { description: 'y' }, T0)).toBeUndefined();
    });

    it('disables once, leaves the active list, and enable clears the failing streak but keeps the history', async () => {
      const { subscriptions } = await make();
      await subscriptions.create(subscription('sub_a'));
      await subscriptions.create(subscription('sub_b'));
      expect(await subscriptions.recordFailure('sub_a', failure(T0), T0)).toEqual({
        firstFailureAt: iso(T0),
        consecutiveFailures: 1,
        lastFailure: { at: iso(T0), outcome: 'failure', statusCode: 500 },
      });
      expect(await subscriptions.disable('sub_a', 'gone', T0 + 5)).toBe(true);
      expect(await subscriptions.disable('sub_a', 'gone', T0 + 6)).toBe(false);
      const disabled = await subscriptions.get('sub_a');
      expect(disabled).toMatchObject({ status: 'disabled', disabledReason: 'gone', disabledAt: iso(T0 + 5) });
      expect((await subscriptions.listActive()).map((s) => s.id)).toEqual(['sub_b']);
      expect(await subscriptions.enable('sub_a', T0 + 10)).toBe(true);
      expect(await subscriptions.enable('sub_a', T0 + 11)).toBe(false);
      const enabled = await subscriptions.get('sub_a');
      expect(enabled?.status).toBe('active');
      expect(enabled?.health).toEqual({ lastFailure: { at: iso(T0), outcome: 'failure', statusCode: 500 } });
      expect(enabled?.disabledReason).toBeUndefined();
      expect((await subscriptions.listActive()).map((s) => s.id)).toEqual(['sub_a', 'sub_b']);
    });

    it('counts a failing streak from its first failure, keeps the last failure, until a success ends it', async () => {
      const { subscriptions } = await make();
      await subscriptions.create(subscription('sub_a'));
      expect(await subscriptions.recordFailure('sub_a', failure(T0), T0)).toEqual({
        firstFailureAt: iso(T0),
        consecutiveFailures: 1,
        lastFailure: { at: iso(T0), outcome: 'failure', statusCode: 500 },
      });
      const timeout = { at: iso(T0 + 9), outcome: 'timeout' as const, error: 'x'.repeat(800) };
      expect(await subscriptions.recordFailure('sub_a', timeout, T0 + 9)).toEqual({
        firstFailureAt: iso(T0),
        consecutiveFailures: 2,
        // The status of the previous failure does not linger; a long error is cut to 500 characters.
        lastFailure: { at: iso(T0 + 9), outcome: 'timeout', error: 'x'.repeat(500) },
      });
      expect(await subscriptions.get('sub_a')).toMatchObject({ health: { consecutiveFailures: 2 } });
      expect(await subscriptions.recordSuccess('sub_a', iso(T0 + 20), T0 + 20)).toBe(true);
      expect((await subscriptions.get('sub_a'))?.health).toEqual({
        lastSuccessAt: iso(T0 + 20),
        lastFailure: { at: iso(T0 + 9), outcome: 'timeout', error: 'x'.repeat(500) },
      });
      expect(await subscriptions.recordFailure('sub_a', failure(T0 + 30), T0 + 30)).toMatchObject({
        firstFailureAt: iso(T0 + 30),
        consecutiveFailures: 1,
        lastSuccessAt: iso(T0 + 20),
      });
      expect(await subscriptions.recordFailure('sub_missing', failure(T0), T0)).toBeUndefined();
      expect(await subscriptions.recordSuccess('sub_missing', iso(T0), T0)).toBe(false);
    });

    it('deletes once', async () => {
      const { subscriptions } = await make();
      await subscriptions.create(subscription('sub_a'));
      expect(await subscriptions.delete('sub_a')).toBe(true);
      expect(await subscriptions.delete('sub_a')).toBe(false);
      expect(await subscriptions.get('sub_a')).toBeUndefined();
    });

    it('refuses a subscription without a secret ciphertext, naming the field', async () => {
      const { subscriptions } = await make();
      const error = await storeError(subscriptions.create(subscription('sub_a', { secretCiphertext: '' })));
      expect(error.kind).toBe('InvalidInput');
      expect(error.message).toContain('secretCiphertext');
    });
  });

  describe(`${name}: deliveries`, () => {
    it('creates a delivery once per id (a repeated fan-out writes nothing)', async () => {
      const { deliveries } = await make();
      const d = delivery('sub_a', 'evt_1');
      expect(await deliveries.create(d)).toBe(true);
      expect(await deliveries.create({ ...d, attempts: 1 })).toBe(false);
      expect(await deliveries.get(d.id)).toEqual(d);
    });

    it('lets exactly one of many concurrent claimers start an attempt, leased', async () => {
      const { deliveries } = await make();
      const d = delivery('sub_a', 'evt_1');
      await deliveries.create(d);
      const results = await Promise.all(Array.from({ length: 8 }, () => deliveries.claim(d.id, T0, 60_000)));
      const claimed = results.filter((r) => r.kind === 'Claimed');
      expect(claimed).toHaveLength(1);
      expect(claimed[0]).toMatchObject({ delivery: { attempts: 1, nextAttemptAt: iso(T0 + 60_000) } });
      expect(
        results
          .filter((r) => r.kind === 'NotDue')
          .every((r) => r.kind === 'NotDue' && r.at === iso(T0 + 60_000)),
      ).toBe(true);
      // The lease ends: a worker that died mid-attempt is replaced.
      expect((await deliveries.claim(d.id, T0 + 60_000, 60_000)).kind).toBe('Claimed');
      expect((await deliveries.get(d.id))?.attempts).toBe(2);
      expect(await deliveries.claim('dlv_missing', T0, 1000)).toEqual({ kind: 'NotFound' });
    });

    it('gives a claim back without an attempt, only while it is the current claim', async () => {
      const { deliveries } = await make();
      const d = delivery('sub_a', 'evt_1');
      await deliveries.create(d);
      await deliveries.claim(d.id, T0, 60_000);
      expect(await deliveries.release(d.id, 2, T0 + 10)).toBe(false);
      expect(await deliveries.release(d.id, 1, T0 + 10)).toBe(true);
      expect(await deliveries.get(d.id)).toMatchObject({
        status: 'pending',
        attempts: 0,
        nextAttemptAt: iso(T0 + 10),
      });
      expect(await deliveries.release(d.id, 1, T0 + 10)).toBe(false);
      const due = await deliveries.listDue({ before: iso(T0 + 10) });
      expect(due.items.map((x) => x.id)).toEqual([d.id]);
    });

    it('finishes an attempt with its log line, and refuses a stale claim', async () => {
      const { deliveries } = await make();
      const d = delivery('sub_a', 'evt_1');
      await deliveries.create(d);
      await deliveries.claim(d.id, T0, 60_000);
      await deliveries.claim(d.id, T0 + 60_000, 60_000); // attempt 1 abandoned
      const stale = await deliveries.finish({
        deliveryId: d.id,
        attemptNumber: 1,
        status: 'succeeded',
        attempt: attempt(d, 1, T0, 200),
        now: T0 + 61_000,
      });
      expect(stale).toBe(false);
      const ok = await deliveries.finish({
        deliveryId: d.id,
        attemptNumber: 2,
        status: 'pending',
        nextAttemptAt: iso(T0 + 400_000),
        attempt: attempt(d, 2, T0 + 60_000, 503),
        now: T0 + 61_000,
      });
      expect(ok).toBe(true);
      expect(await deliveries.get(d.id)).toMatchObject({
        status: 'pending',
        attempts: 2,
        nextAttemptAt: iso(T0 + 400_000),
        lastStatusCode: 503,
        firstAttemptAt: iso(T0 + 60_000),
      });
      expect((await deliveries.claim(d.id, T0 + 399_999, 60_000)).kind).toBe('NotDue');
      const log = await deliveries.listAttempts({ subscriptionId: 'sub_a' });
      expect(log.items).toEqual([attempt(d, 2, T0 + 60_000, 503)]);
    });

    it('lists the attempt log newest first, page by page', async () => {
      const { deliveries } = await make();
      const d = delivery('sub_a', 'evt_1');
      await deliveries.create(d);
      for (let n = 1; n <= 5; n++) {
        await deliveries.claim(d.id, T0 + n * 1000, 500);
        await deliveries.finish({
          deliveryId: d.id,
          attemptNumber: n,
          status: 'pending',
          nextAttemptAt: iso(T0 + n * 1000 + 1),
          attempt: attempt(d, n, T0 + n * 1000),
          now: T0 + n * 1000,
        });
      }
      const first = await deliveries.listAttempts({ subscriptionId: 'sub_a', limit: 2 });
      expect(first.items.map((a) => a.attemptNumber)).toEqual([5, 4]);
      const second = await deliveries.listAttempts({
        subscriptionId: 'sub_a',
        limit: 2,
        cursor: first.cursor,
      });
      const third = await deliveries.listAttempts({
        subscriptionId: 'sub_a',
        limit: 2,
        cursor: second.cursor,
      });
      expect([...second.items, ...third.items].map((a) => a.attemptNumber)).toEqual([3, 2, 1]);
      expect(third.cursor).toBeUndefined();
      expect((await deliveries.listAttempts({ subscriptionId: 'sub_other' })).items).toEqual([]);
    });

    it('filters the attempt log by time, status, event type and event id, page by page; keeps headers and 4 KB', async () => {
      const { deliveries } = await make();
      const a = delivery('sub_a', 'evt_1');
      const b = delivery('sub_a', 'evt_2', { eventType: 'vehicle.trip.completed' });
      const lines = [
        attempt(a, 1, T0 + 1000, 500),
        attempt(b, 1, T0 + 2000, 200),
        attempt(a, 2, T0 + 3000, 503),
        attempt(a, 3, T0 + 4000, 200),
        attempt(b, 2, T0 + 5000, 200),
      ];
      const detailed = {
        ...attempt(a, 4, T0 + 6000, 502),
        errorClass: 'http' as const,
        requestHeaders: { 'webhook-id': 'evt_1', 'content-type': 'application/json' },
        responseHeaders: { 'retry-after': '30', server: 'test' },
        responseExcerpt: 'x'.repeat(4096),
      };
      await deliveries.recordAttempts(
        [...lines, detailed].map((line) => ({ delivery: line.deliveryId === a.id ? a : b, attempt: line })),
      );
      const list = async (filter: Record<string, string>, limit?: number, cursor?: string) =>
        deliveries.listAttempts({
          subscriptionId: 'sub_a',
          ...filter,
          ...(limit ? { limit } : {}),
          ...(cursor ? { cursor } : {}),
        });
      const started = async (filter: Record<string, string>) =>
        (await list(filter)).items.map((x) => x.startedAt);
      expect((await list({})).items[0]).toEqual(detailed);
      expect(await started({ since: iso(T0 + 2000), until: iso(T0 + 5000) })).toEqual([
        iso(T0 + 4000),
        iso(T0 + 3000),
        iso(T0 + 2000),
      ]);
      expect(await started({ status: 'failed' })).toEqual([iso(T0 + 6000), iso(T0 + 3000), iso(T0 + 1000)]);
      expect(await started({ status: 'succeeded', eventId: 'evt_1' })).toEqual([iso(T0 + 4000)]);
      expect(await started({ eventType: 'vehicle.trip.completed' })).toEqual([
        iso(T0 + 5000),
        iso(T0 + 2000),
      ]);
      const first = await list({ status: 'failed', until: iso(T0 + 6000) }, 1);
      expect(first.items.map((x) => x.startedAt)).toEqual([iso(T0 + 3000)]);
      const next = await list({ status: 'failed', until: iso(T0 + 6000) }, 1, first.cursor);
      expect(next.items.map((x) => x.startedAt)).toEqual([iso(T0 + 1000)]);
      expect(next.cursor).toBeUndefined();
      const refused = await storeError(
        deliveries.listAttempts({ subscriptionId: 'sub_a', since: 'yesterday' }),
      );
      expect(refused.message).toContain('since');
    });

    it('parks, resumes (due now) and cancels only from the right status', async () => {
      const { deliveries } = await make();
      const a = delivery('sub_a', 'evt_1', { nextAttemptAt: iso(T0 + 3_600_000) });
      const b = delivery('sub_a', 'evt_2');
      await deliveries.create(a);
      await deliveries.create(b);
      expect(await deliveries.park(a.id, T0)).toBe(true);
      expect(await deliveries.park(a.id, T0)).toBe(false);
      expect(await deliveries.cancel(a.id, T0)).toBe(false);
      const parked = await deliveries.listBySubscription({ subscriptionId: 'sub_a', status: 'parked' });
      expect(parked.items.map((d) => d.id)).toEqual([a.id]);
      expect((await deliveries.claim(a.id, T0 + 9e6, 1000)).kind).toBe('NotPending');
      expect(await deliveries.resume(a.id, T0 + 10)).toBe(true);
      expect(await deliveries.get(a.id)).toMatchObject({ status: 'pending', nextAttemptAt: iso(T0 + 10) });
      expect(
        (await deliveries.listBySubscription({ subscriptionId: 'sub_a', status: 'parked' })).items,
      ).toEqual([]);
      expect(await deliveries.cancel(b.id, T0)).toBe(true);
      expect((await deliveries.get(b.id))?.status).toBe('cancelled');
    });

    it('lists due pending deliveries earliest first across pages, and not finished ones', async () => {
      const { deliveries } = await make();
      const made: DeliveryRecord[] = [];
      for (let i = 0; i < 7; i++) {
        const d = delivery('sub_a', `evt_${i}`, { nextAttemptAt: iso(T0 + (7 - i) * 1000) });
        made.push(d);
        await deliveries.create(d);
      }
      const late = delivery('sub_a', 'evt_late', { nextAttemptAt: iso(T0 + 100_000) });
      await deliveries.create(late);
      await deliveries.create(delivery('sub_b', 'evt_done', { status: 'succeeded' }));
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await deliveries.listDue({
          before: iso(T0 + 7000),
          limit: 3,
          ...(cursor ? { cursor } : {}),
        });
        seen.push(...page.items.map((d) => d.id));
        cursor = page.cursor;
      } while (cursor);
      expect(seen).toEqual([...made].reverse().map((d) => d.id));
    });

    it('keeps dead letters listable per subscription', async () => {
      const { deliveries } = await make();
      const d = delivery('sub_a', 'evt_1', { attempts: 7 });
      await deliveries.create(d);
      await deliveries.claim(d.id, T0, 1000);
      await deliveries.finish({
        deliveryId: d.id,
        attemptNumber: 8,
        status: 'dead',
        attempt: { ...attempt(d, 8, T0), decision: 'dead-letter' },
        now: T0,
      });
      const dead = await deliveries.listBySubscription({ subscriptionId: 'sub_a', status: 'dead' });
      expect(dead.items.map((x) => [x.id, x.status, x.attempts])).toEqual([[d.id, 'dead', 8]]);
      expect(dead.items[0]?.envelope).toEqual(d.envelope);
      expect((await deliveries.listDue({ before: iso(T0 + 1e9) })).items).toEqual([]);
    });
  });
}
