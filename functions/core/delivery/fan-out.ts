import type { EventEnvelope } from '../events/envelope';
import { deliveryId } from '../subscriptions/logic';
import { attemptClaimed } from './attempt';
import { DeliveryError, type FanOutResult } from './contract';
import { attemptDirect } from './direct';
import { deliveryMatches } from './operational';
import { activeSubscriptions, describe, type EngineState, enqueue, newDelivery, remember } from './state';

/**
 * One event from the bus → one delivery per matching active subscription, first attempt direct and
 * before any write (or queued, or written first: see the comments below).
 */
export async function fanOut(state: EngineState, event: EventEnvelope): Promise<FanOutResult> {
  const detectedAt = Date.parse(event.detectedAt);
  const targets = (
    await activeSubscriptions(state, Number.isNaN(detectedAt) ? undefined : detectedAt)
  ).filter((s) => deliveryMatches(s, event));
  const now = state.clock().getTime();
  const created: string[] = [];
  const queued: string[] = [];
  // Stryker disable next-line ArrayDeclaration: a non-promise element settles fulfilled and is no delivery, so it changes nothing
  const durable: { id: string; written: Promise<void> }[] = [];
  // Stryker disable next-line ArrayDeclaration: `settled` waits on allSettled, which treats a string as fulfilled
  const done: Promise<unknown>[] = [];
  const started = await Promise.allSettled(
    targets.map(async (subscription) => {
      const id = deliveryId(event.id, subscription.id);
      if (state.seen.has(id)) return;
      remember(state, id);
      try {
        const stats = state.limiter.stats();
        // A subscription with a long line of waiting attempts goes through the queue instead of
        // growing this process's memory without bound.
        if (stats.queuedFor(subscription.id) >= state.maxWaiting) {
          if (
            !(await state.deps.deliveries.create(newDelivery(state, event, subscription, 'event', id, false)))
          )
            return;
          created.push(id);
          queued.push(id);
          return;
        }
        // Write first (claimed, leased) for a subscription whose endpoint lately kept an attempt
        // past the hold: its attempts would not end soon, and the fan-out should.
        if ((state.slowUntil.get(subscription.id) ?? 0) > now) {
          const record = newDelivery(state, event, subscription, 'event', id, true);
          if (!(await state.deps.deliveries.create(record))) return;
          created.push(id);
          done.push(attemptClaimed(state, record, subscription));
          return;
        }
        created.push(id);
        const direct = attemptDirect(
          state,
          // Stryker disable next-line BooleanLiteral: attemptDirect sets attempts to 1 and every write of it sets nextAttemptAt, the two fields `claimed` changes
          newDelivery(state, event, subscription, 'event', id, false),
          subscription,
        );
        durable.push({ id, written: direct.durable });
        done.push(direct.done);
      } catch (error) {
        state.seen.delete(id);
        throw error;
      }
    }),
  );
  // Stryker disable next-line ConditionalExpression,EqualityOperator: enqueue of no ids makes no queue call
  if (queued.length > 0) await enqueue(state, queued);
  const written = await Promise.allSettled(durable.map((d) => d.written));
  // Stryker disable next-line OptionalChaining: `written` is allSettled of `durable`, one result per element
  const lost = durable.filter((_, i) => written[i]?.status === 'rejected').map((d) => d.id);
  for (const id of lost) state.seen.delete(id);
  const failures = [...started, ...written].filter((r) => r.status === 'rejected');
  if (failures.length > 0) {
    // The caller must not acknowledge the event: its redelivery attempts these again (same
    // webhook-id); what was recorded is recorded again, idempotently.
    throw new DeliveryError(
      'StoreFailure',
      `fan-out of ${event.id}: ${failures.length} of ${targets.length} deliveries not recorded: ${describe(
        (failures[0] as PromiseRejectedResult).reason,
      )}`,
      { eventId: event.id, ...(lost.length > 0 ? { deliveryIds: lost.join(',') } : {}) },
    );
  }
  return {
    deliveryIds: created,
    queued,
    settled: Promise.allSettled(done).then(() => undefined),
  };
}
