/**
 * A rate budget that tells each change of the quota it follows: `carhook.quota.changed` on the bus
 * (operational: to the webhook subscriptions that name it, ../delivery/operational.ts). The store
 * returns a change to the one caller whose conditional write made it, so one event per change
 * whatever the workers; its id is derived from the client, the limits and the time, so a retried
 * publish is the same event.
 */
import { buildEvent } from '../events/catalogue';
import { eventId } from '../events/ids';
import type { EventBus } from '../publishing/ports';
import type { RateBudget } from './budget';
import type { QuotaChange } from './quota';

/** `carhook.quota.changed` for one change. */
export function quotaChangedEvent(change: QuotaChange) {
  const at = new Date(change.changedAt).toISOString();
  return buildEvent('carhook.quota.changed', {
    id: eventId({
      scope: change.clientId,
      type: 'carhook.quota.changed',
      key: `${change.previousLimit}->${change.limit}/${change.windowMs}`,
      transition: at,
    }),
    occurredAt: at,
    detectedAt: at,
    sequence: 0,
    source: { api: 'carhook', operation: 'carhook.quota.changed' },
    data: {
      clientId: change.clientId,
      previousLimit: change.previousLimit,
      limit: change.limit,
      windowSeconds: Math.max(1, Math.round(change.windowMs / 1000)),
      source: change.source,
      ceiling: change.ceiling,
      changedAt: at,
    },
  });
}

export interface AnnounceOptions {
  readonly bus: EventBus;
  /** Told every change (the runtime logs it); a failure to publish is told too, never thrown. */
  readonly report?: (change: QuotaChange, published: { ok: true } | { ok: false; message: string }) => void;
}

/** `budget`, whose `observe` publishes each change it returns. */
export function announcingBudget(budget: RateBudget, options: AnnounceOptions): RateBudget {
  return {
    tryTake: (clientId, n, now) => budget.tryTake(clientId, n, now),
    freezeUntil: (clientId, resetAt) => budget.freezeUntil(clientId, resetAt),
    followed: () => budget.followed(),
    async observe(clientId, observation) {
      const change = await budget.observe(clientId, observation);
      if (!change) return undefined;
      let outcome: { ok: true } | { ok: false; message: string } = { ok: true };
      try {
        const result = await options.bus.publish([quotaChangedEvent(change)]);
        const failed = result.failed[0];
        if (failed) outcome = { ok: false, message: `${failed.code}: ${failed.message}` };
      } catch (error) {
        outcome = { ok: false, message: error instanceof Error ? error.message : String(error) };
      }
      options.report?.(change, outcome);
      return change;
    },
  };
}
