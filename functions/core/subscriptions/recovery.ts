import { createHash } from 'node:crypto';
import type { DeliveryEngine } from '../delivery/engine';
import { err, ok, type Result } from '../result';
import type { EventLog } from '../store/ports';
import { type BacklogWindow, backlogWindow, type Skipped, selectByIds, selectEvents } from './backlog';
import type { HealthView } from './health';
import type { DeliveryStore, SubscriptionStore } from './ports';
import type { DeliveryRecord, SubscriptionRecord } from './records';
import { parseBody, type SubscriptionSchemas, type ValidationError } from './schemas';

/**
 * The use cases that deliver past events: the backlog a disabled subscription would receive on
 * `enable`, `enable` itself (recover or discard that backlog, resume parked deliveries) and replay.
 * Transport-free; results as values (functions/core/subscriptions/service.ts composes them).
 */

export interface RecoveryContext {
  readonly subscriptions: SubscriptionStore;
  readonly deliveries: DeliveryStore;
  readonly events: Pick<EventLog, 'listByTime' | 'get'>;
  readonly engine: Pick<DeliveryEngine, 'enqueueReplay' | 'enqueueRecovery' | 'resume'>;
  readonly schemas: SubscriptionSchemas;
  readonly clock: () => Date;
  readonly retentionMs: number;
  readonly maxEvents: number;
  readonly load: (id: string) => Promise<Result<SubscriptionRecord, RecoveryError>>;
  /** The record as the API shows it (no secret, the health read now). */
  readonly view: (s: SubscriptionRecord) => Promise<PublicView>;
}

export type PublicView = Omit<SubscriptionRecord, 'secretCiphertext' | 'health'> & {
  readonly health: HealthView;
};

export type RecoveryError =
  | ValidationError
  | { readonly kind: 'NotFound'; readonly message: string; readonly id: string }
  | { readonly kind: 'Conflict'; readonly message: string };

/** What `enable` would deliver, shown before the operator confirms. */
export interface BacklogPreview {
  readonly subscriptionId: string;
  readonly status: SubscriptionRecord['status'];
  /** Absent when the subscription is active: nothing is waiting in the log. */
  readonly window?: BacklogWindow;
  /** Matching events in the window (at most the limit: `more` says there are others). */
  readonly events: number;
  readonly more: boolean;
  /** The most events one `enable` recovers. */
  readonly limit: number;
  /** Deliveries parked when it was disabled (at most 1,000 counted). */
  readonly parked: number;
}

export interface BacklogOutcome extends BacklogWindow {
  readonly action: 'recover' | 'discard';
  /** Matching events found in the window (at most the limit). */
  readonly matched: number;
  /** Deliveries created and queued for them (an event already delivered is not counted again). */
  readonly recovered: number;
  /** Matching events not delivered because the operator discarded them. */
  readonly discarded: number;
  /** More matching events follow the last one handled: replay from `nextFrom` (the first of them) to recover them. */
  readonly more: boolean;
  readonly nextFrom?: string;
}

export interface EnableOutcome {
  readonly subscription: PublicView;
  /** Parked deliveries made pending again. */
  readonly resumed: number;
  /** What happened to the events detected while it was disabled; absent when it was active. */
  readonly backlog?: BacklogOutcome;
}

export interface ReplayOutcome {
  readonly replayId: string;
  readonly events: number;
  readonly eventIds: readonly string[];
  /** Requested event ids that were not sent, each with the reason. */
  readonly skipped: readonly Skipped[];
  /** Events of the range read (matching or not); absent for a replay by ids. */
  readonly scanned?: number;
}

export interface RecoverOutcome {
  readonly recoverId: string;
  /** New deliveries queued (one per dead-lettered event). */
  readonly deliveries: number;
  readonly eventIds: readonly string[];
}

const PARKED_COUNT_LIMIT = 1000;

function malformed(field: string, reason: string): ValidationError {
  return { kind: 'Malformed', message: `${field}: ${reason}`, issues: [{ field, reason }] };
}

export function recoveryUseCases(ctx: RecoveryContext) {
  async function countParked(id: string): Promise<number> {
    const page = await ctx.deliveries.listBySubscription({
      subscriptionId: id,
      status: 'parked',
      limit: PARKED_COUNT_LIMIT,
    });
    return page.items.length;
  }

  const load = ctx.load;
  return {
    async backlog(id: string): Promise<Result<BacklogPreview, RecoveryError>> {
      const s = await ctx.load(id);
      if (!s.ok) return s;
      const now = ctx.clock().getTime();
      const window = backlogWindow(s.value, now, ctx.retentionMs);
      const selection = window
        ? await selectEvents(ctx.events, {
            subscription: s.value,
            since: window.from,
            until: window.until,
            now,
            max: ctx.maxEvents,
          })
        : { events: [], more: false };
      return ok({
        subscriptionId: id,
        status: s.value.status,
        ...(window ? { window } : {}),
        events: selection.events.length,
        more: selection.more,
        limit: ctx.maxEvents,
        parked: await countParked(id),
      });
    },

    async enable(id: string, body?: unknown): Promise<Result<EnableOutcome, RecoveryError>> {
      const s = await ctx.load(id);
      if (!s.ok) return s;
      const parsed = parseBody(ctx.schemas.enable, body);
      if (!parsed.ok) return parsed;
      const action = parsed.value?.backlog ?? 'recover';
      await ctx.subscriptions.enable(id, ctx.clock().getTime());
      // Also after a lost race or on an active subscription: parked deliveries must not stay parked.
      const resumed = await ctx.engine.resume(id);
      // The window ends after the transition: an event detected before it may have been fanned out
      // while the subscription was still disabled; one detected after it reads it active.
      const now = ctx.clock().getTime();
      const window = backlogWindow(s.value, now, ctx.retentionMs);
      let backlog: BacklogOutcome | undefined;
      if (window) {
        const selection = await selectEvents(ctx.events, {
          subscription: s.value,
          since: window.from,
          until: window.until,
          now,
          max: ctx.maxEvents,
        });
        const created =
          action === 'recover' ? await ctx.engine.enqueueRecovery(s.value, selection.events) : [];
        backlog = {
          ...window,
          action,
          matched: selection.events.length,
          recovered: created.length,
          discarded: action === 'discard' ? selection.events.length : 0,
          more: selection.more,
          ...(selection.nextAt !== undefined ? { nextFrom: selection.nextAt } : {}),
        };
      }
      const after = await ctx.load(id);
      if (!after.ok) return after;
      return ok({ subscription: await ctx.view(after.value), resumed, ...(backlog ? { backlog } : {}) });
    },

    /**
     * Delivers again every delivery of this subscription that gave up (dead-lettered) since `since`
     * (by its last attempt), as new deliveries of the same events (same `webhook-id`s).
     */
    async recover(id: string, body: unknown): Promise<Result<RecoverOutcome, RecoveryError>> {
      const s = await load(id);
      if (!s.ok) return s;
      const parsed = parseBody(ctx.schemas.recover, body);
      if (!parsed.ok) return parsed;
      if (s.value.status !== 'active')
        return err({ kind: 'Conflict', message: `subscription ${id} is disabled: enable it first` });
      const now = ctx.clock();
      const since = Date.parse(parsed.value.since);
      const until =
        parsed.value.until !== undefined ? Date.parse(parsed.value.until) : Number.POSITIVE_INFINITY;
      const dead: DeliveryRecord[] = [];
      let cursor: string | undefined;
      do {
        const page = await ctx.deliveries.listBySubscription({
          subscriptionId: id,
          status: 'dead',
          limit: 500,
          ...(cursor ? { cursor } : {}),
        });
        for (const d of page.items) {
          const at = Date.parse(d.lastAttemptAt ?? d.updatedAt);
          if (at >= since && at < until) dead.push(d);
          if (dead.length > ctx.maxEvents)
            return err(
              malformed('since', `more than ${ctx.maxEvents} dead letters since then: narrow since/until`),
            );
        }
        cursor = page.cursor;
      } while (cursor);
      const recoverId = `rcv_${createHash('sha256')
        .update([id, parsed.value.since, parsed.value.until ?? '', now.toISOString()].join('\u001f'))
        .digest('base64url')
        .slice(0, 20)}`;
      const events = [...new Map(dead.map((d) => [d.eventId, d.envelope])).values()];
      const created = await ctx.engine.enqueueReplay(s.value, events, recoverId);
      return ok({ recoverId, deliveries: created.length, eventIds: events.map((e) => e.id) });
    },

    async replay(id: string, body: unknown): Promise<Result<ReplayOutcome, RecoveryError>> {
      const s = await ctx.load(id);
      if (!s.ok) return s;
      const parsed = parseBody(ctx.schemas.replay, body);
      if (!parsed.ok) return parsed;
      if (s.value.status !== 'active')
        return err({ kind: 'Conflict', message: `subscription ${id} is disabled: enable it first` });
      const now = ctx.clock();
      const v = parsed.value;
      const since = v.since !== undefined ? new Date(v.since).toISOString() : undefined;
      const until = v.until !== undefined ? new Date(v.until).toISOString() : undefined;
      const types = v.eventTypes;
      let events: Awaited<ReturnType<typeof selectByIds>>['events'];
      let skipped: readonly Skipped[] = [];
      let scanned: number | undefined;
      if (v.eventIds) {
        ({ events, skipped } = await selectByIds(ctx.events, {
          subscription: s.value,
          ids: v.eventIds,
          now: now.getTime(),
          types,
          since,
          until,
        }));
      } else {
        const selection = await selectEvents(ctx.events, {
          subscription: s.value,
          since: since ?? now.toISOString(),
          until: until ?? now.toISOString(),
          now: now.getTime(),
          max: ctx.maxEvents,
          types,
        });
        if (selection.more)
          return err(
            malformed(
              'since',
              `the range selects more than ${ctx.maxEvents} events: narrow since/until or eventTypes`,
            ),
          );
        events = selection.events;
        scanned = selection.scanned;
      }
      const replayId = `rpl_${createHash('sha256')
        .update(
          [
            id,
            since ?? '',
            until ?? '',
            (types ?? []).join(','),
            (v.eventIds ?? []).join(','),
            now.toISOString(),
          ].join('\u001f'),
        )
        .digest('base64url')
        .slice(0, 20)}`;
      await ctx.engine.enqueueReplay(s.value, events, replayId);
      return ok({
        replayId,
        events: events.length,
        eventIds: events.map((e) => e.id),
        skipped,
        ...(scanned !== undefined ? { scanned } : {}),
      });
    },
  };
}
