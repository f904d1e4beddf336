import { invalidInput } from '../../core/store/errors';
import { requireId, requireIsoDate } from '../../core/store/logic';
import {
  attemptMatches,
  attemptSortKey,
  dueSortKey,
  iso,
  MAX_FAILURE_ERROR,
  validateAttemptFilter,
  validateDelivery,
  validateFinish,
  validateRecordedAttempt,
  validateSubscription,
} from '../../core/subscriptions/logic';
import type { DeliveryStore, SubscriptionStore } from '../../core/subscriptions/ports';
import type {
  AttemptRecord,
  DeliveryRecord,
  FailureNote,
  SubscriptionRecord,
} from '../../core/subscriptions/records';
import type { SubscriptionHealth } from '../../core/webhooks/policy';
import { clone, copyOf, paginate } from './data';

function withoutNulls<T extends object>(record: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) if (v !== null && v !== undefined) out[k] = v;
  return out as T;
}

/** The health fields that are history, not the streak: kept when a streak ends. */
function historyOf(health: SubscriptionHealth): SubscriptionHealth {
  return {
    ...(health.lastSuccessAt !== undefined ? { lastSuccessAt: health.lastSuccessAt } : {}),
    ...(health.lastFailure !== undefined ? { lastFailure: health.lastFailure } : {}),
  };
}

function noteOf(failure: FailureNote): NonNullable<SubscriptionHealth['lastFailure']> {
  return {
    at: failure.at,
    outcome: failure.outcome,
    ...(failure.statusCode !== undefined ? { statusCode: failure.statusCode } : {}),
    ...(failure.error !== undefined ? { error: failure.error.slice(0, MAX_FAILURE_ERROR) } : {}),
  };
}

/** In-memory SubscriptionStore + DeliveryStore (unit tests of the use cases, and the contract suite). */
export function createMemorySubscriptionStores(): {
  readonly subscriptions: SubscriptionStore;
  readonly deliveries: DeliveryStore;
} {
  const subs = new Map<string, SubscriptionRecord>();
  const dlvs = new Map<string, DeliveryRecord>();
  const attempts = new Map<string, AttemptRecord[]>();

  const subscriptions: SubscriptionStore = {
    async create(s) {
      validateSubscription(s);
      if (subs.has(s.id)) return false;
      subs.set(s.id, clone(s));
      return true;
    },
    async get(id) {
      return copyOf(subs, 'id', id);
    },
    async list(request = {}) {
      return paginate([...subs.values()], (s) => s.id, request);
    },
    async listActive() {
      return [...subs.values()]
        .filter((s) => s.status === 'active')
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map(clone);
    },
    async update(id, changes, now) {
      requireId('id', id);
      if (changes.url !== undefined) requireId('url', changes.url);
      const s = subs.get(id);
      if (!s) return undefined;
      const next = withoutNulls({ ...s, ...changes, updatedAt: iso(now) }) as SubscriptionRecord;
      subs.set(id, clone(next));
      return clone(next);
    },
    async disable(id, reason, now) {
      requireId('reason', reason);
      const s = subs.get(id);
      if (s?.status !== 'active') return false;
      subs.set(id, {
        ...s,
        status: 'disabled',
        disabledReason: reason,
        disabledAt: iso(now),
        updatedAt: iso(now),
      });
      return true;
    },
    async enable(id, now) {
      const s = subs.get(id);
      if (s?.status !== 'disabled') return false;
      const { disabledAt: _a, disabledReason: _r, ...rest } = s;
      subs.set(id, { ...rest, status: 'active', health: historyOf(s.health), updatedAt: iso(now) });
      return true;
    },
    async recordFailure(id, failure) {
      requireIsoDate('failure.at', failure.at);
      const s = subs.get(id);
      if (!s) return undefined;
      const health: SubscriptionHealth = {
        ...s.health,
        firstFailureAt: s.health.firstFailureAt ?? failure.at,
        consecutiveFailures: (s.health.consecutiveFailures ?? 0) + 1,
        lastFailure: noteOf(failure),
      };
      subs.set(id, { ...s, health });
      return clone(health);
    },
    async recordSuccess(id, at) {
      requireIsoDate('at', at);
      const s = subs.get(id);
      if (!s) return false;
      subs.set(id, { ...s, health: { ...historyOf(s.health), lastSuccessAt: at } });
      return true;
    },
    async delete(id) {
      requireId('id', id);
      return subs.delete(id);
    },
  };

  const transition = (
    id: string,
    from: DeliveryRecord['status'],
    to: DeliveryRecord['status'],
    now: number,
  ) => {
    requireId('id', id);
    const d = dlvs.get(id);
    if (!d || d.status !== from) return false;
    dlvs.set(id, {
      ...d,
      status: to,
      updatedAt: iso(now),
      ...(to === 'pending' ? { nextAttemptAt: iso(now) } : {}),
    });
    return true;
  };

  const deliveries: DeliveryStore = {
    async create(d) {
      validateDelivery(d);
      if (dlvs.has(d.id)) return false;
      dlvs.set(d.id, clone(d));
      return true;
    },
    async get(id) {
      return copyOf(dlvs, 'id', id);
    },
    async claim(id, now, leaseMs) {
      requireId('id', id);
      if (!Number.isInteger(leaseMs) || leaseMs <= 0)
        throw invalidInput('leaseMs', 'must be a positive integer');
      const d = dlvs.get(id);
      if (!d) return { kind: 'NotFound' };
      if (d.status !== 'pending') return { kind: 'NotPending', status: d.status };
      if (d.nextAttemptAt > iso(now)) return { kind: 'NotDue', at: d.nextAttemptAt };
      const claimed: DeliveryRecord = {
        ...d,
        attempts: d.attempts + 1,
        nextAttemptAt: iso(now + leaseMs),
        updatedAt: iso(now),
      };
      dlvs.set(id, claimed);
      return { kind: 'Claimed', delivery: clone(claimed) };
    },
    async finish(input) {
      validateFinish(input);
      const d = dlvs.get(input.deliveryId);
      if (d?.status !== 'pending' || d.attempts !== input.attemptNumber) return false;
      const a = input.attempt;
      const list = attempts.get(d.subscriptionId) ?? [];
      list.push(clone(a));
      attempts.set(d.subscriptionId, list);
      const { lastStatusCode: _c, lastError: _e, ...rest } = d;
      dlvs.set(d.id, {
        ...rest,
        status: input.status,
        nextAttemptAt: input.nextAttemptAt ?? iso(input.now),
        updatedAt: iso(input.now),
        firstAttemptAt: d.firstAttemptAt ?? a.startedAt,
        lastAttemptAt: a.startedAt,
        ...(a.statusCode !== undefined ? { lastStatusCode: a.statusCode } : {}),
        ...(a.error !== undefined ? { lastError: a.error } : {}),
      });
      return true;
    },
    async recordAttempts(entries) {
      for (const e of entries) validateRecordedAttempt(e);
      for (const { delivery, attempt } of entries) {
        dlvs.set(delivery.id, clone(delivery));
        // Same key as a line already written (a repeated write of the same attempt) replaces it.
        const list = (attempts.get(delivery.subscriptionId) ?? []).filter(
          (a) => attemptSortKey(a) !== attemptSortKey(attempt),
        );
        list.push(clone(attempt));
        attempts.set(delivery.subscriptionId, list);
      }
      return { failed: [] };
    },
    async release(id, attemptNumber, now) {
      requireId('id', id);
      const d = dlvs.get(id);
      if (d?.status !== 'pending' || d.attempts !== attemptNumber) return false;
      dlvs.set(id, { ...d, attempts: d.attempts - 1, nextAttemptAt: iso(now), updatedAt: iso(now) });
      return true;
    },
    async park(id, now) {
      return transition(id, 'pending', 'parked', now);
    },
    async resume(id, now) {
      return transition(id, 'parked', 'pending', now);
    },
    async cancel(id, now) {
      return transition(id, 'pending', 'cancelled', now);
    },
    async listBySubscription(query) {
      requireId('subscriptionId', query.subscriptionId);
      const items = [...dlvs.values()].filter(
        (d) => d.subscriptionId === query.subscriptionId && d.status === query.status,
      );
      return paginate(items, (d) => `${d.createdAt}#${d.id}`, query);
    },
    async listDue(query) {
      requireIsoDate('before', query.before);
      const items = [...dlvs.values()].filter(
        (d) => d.status === 'pending' && d.nextAttemptAt <= query.before,
      );
      return paginate(items, dueSortKey, query);
    },
    async listAttempts(query) {
      requireId('subscriptionId', query.subscriptionId);
      validateAttemptFilter(query);
      const lines = (attempts.get(query.subscriptionId) ?? []).filter((a) => attemptMatches(a, query));
      return paginate(lines, attemptSortKey, query, 'desc');
    },
  };

  return { subscriptions, deliveries };
}
