import { iso } from '../subscriptions/logic';
import type { DeliveryRecord, SubscriptionRecord } from '../subscriptions/records';
import type { DeliveryAttempt } from '../webhooks/sender';
import { afterRecorded, attemptOnce, decide, finishClaimed } from './attempt';
import { DeliveryError } from './contract';
import { recordAttempt } from './recording';
import { type EngineState, enqueue, reportStoreFailure } from './state';

/**
 * A fan-out's first attempt before any write: the fan-out message (SQS; the unpublished event
 * locally) is the delivery's record until `durable` settles, which is when the outcome is written
 * (batched) or, for an attempt still unfinished after `directHoldMs`, when the delivery has been
 * written claimed with a lease (it then ends through `finish`, like a queued attempt). `durable`
 * rejects when neither could be written: the fan-out fails and its message comes back.
 */
export function attemptDirect(
  state: EngineState,
  delivery: DeliveryRecord,
  subscription: SubscriptionRecord,
): { durable: Promise<void>; done: Promise<void> } {
  let markDurable: () => void = () => undefined;
  let markFailed: (error: unknown) => void = () => undefined;
  const durable = new Promise<void>((resolve, reject) => {
    markDurable = resolve;
    markFailed = reject;
  });
  const first: DeliveryRecord = { ...delivery, attempts: 1 };
  // Resolves to the lease end when the claimed record was written, undefined when it was not.
  let escalation: Promise<number | undefined> | undefined;
  // When the request began (process time); no request yet is never a whole hold in flight.
  let sendingSince = Number.POSITIVE_INFINITY;
  const startedAt = state.timer.now();
  const escalate = () => {
    const now = state.clock().getTime();
    const lease = now + state.leaseMs;
    const claimed: DeliveryRecord = { ...first, nextAttemptAt: iso(lease), updatedAt: iso(now) };
    escalation = state.deps.deliveries.create(claimed).then(
      (created) => {
        // Not created: a record of this delivery exists (another process's fan-out of the same
        // event); this attempt's outcome then replaces it like any direct outcome.
        if (!created) return undefined;
        markDurable();
        return lease;
      },
      (error: unknown) => {
        reportStoreFailure(state, delivery, subscription, error);
        return undefined;
      },
    );
  };
  // Every hold: is the endpoint slow (a request in flight for a whole hold), already known slow, or
  // has the line for a slot lasted `lineHoldMs`? Then write the claimed record. A wait that is only
  // this process being busy, or a short line, writes nothing: under load, extra writes would make
  // every attempt later still.
  let cancel: () => void;
  const tick = () => {
    const t = state.timer.now();
    const slowEndpoint = t - sendingSince >= state.holdMs;
    if (slowEndpoint) state.slowUntil.set(subscription.id, state.clock().getTime() + state.slowForMs);
    if (
      slowEndpoint ||
      (state.slowUntil.get(subscription.id) ?? 0) > state.clock().getTime() ||
      t - startedAt >= state.lineHoldMs
    )
      escalate();
    else cancel = state.timer.after(state.holdMs, tick);
  };
  cancel = state.timer.after(state.holdMs, tick);
  const done = (async () => {
    let attempt: DeliveryAttempt | undefined;
    try {
      attempt = await attemptOnce(state, first, subscription, async () => {
        sendingSince = state.timer.now();
        return escalation ? await escalation : undefined;
      });
    } finally {
      // The attempt is over: a tick still to come would find nothing to escalate.
      cancel();
    }
    const leaseEnd = escalation ? await escalation : undefined;
    if (leaseEnd !== undefined) {
      const claimed: DeliveryRecord = { ...first, nextAttemptAt: iso(leaseEnd) };
      if (!attempt) {
        if (await state.deps.deliveries.release(claimed.id, claimed.attempts, state.clock().getTime()))
          await enqueue(state, [claimed.id]);
        return;
      }
      await finishClaimed(state, claimed, subscription, attempt);
      return;
    }
    // Without a lease nothing limits the attempt's start: attemptOnce always attempts.
    if (!attempt) throw new DeliveryError('StoreFailure', `delivery ${delivery.id}: no attempt was made`);
    const decided = await decide(state, first, subscription, attempt);
    const a = decided.record;
    const at = iso(decided.now.getTime());
    await recordAttempt(state, {
      delivery: {
        ...first,
        status: decided.status,
        nextAttemptAt: decided.step.action === 'retry' ? decided.step.at.toISOString() : at,
        updatedAt: at,
        firstAttemptAt: a.startedAt,
        lastAttemptAt: a.startedAt,
        ...(a.statusCode !== undefined ? { lastStatusCode: a.statusCode } : {}),
        ...(a.error !== undefined ? { lastError: a.error } : {}),
      },
      attempt: a,
    });
    await afterRecorded(state, first, subscription, attempt, decided);
    markDurable();
  })().catch((error: unknown) => {
    reportStoreFailure(state, delivery, subscription, error);
    markFailed(error);
  });
  return { durable, done };
}
