import type { FinishInput } from '../subscriptions/ports';
import type {
  AttemptDecision,
  AttemptRecord,
  DeliveryRecord,
  SubscriptionRecord,
} from '../subscriptions/records';
import { serializePayload } from '../webhooks/payload';
import { type NextStep, nextStep, type SubscriptionHealth } from '../webhooks/policy';
import type { DeliveryAttempt } from '../webhooks/sender';
import { disabledEvent, exhaustedEvent } from './operational';
import type { SecretBox } from './secrets';
import { describe, type EngineState, enqueue, publish, reportStoreFailure } from './state';

// One attempt of one delivery: send it, record the subscription's health, decide what follows
// (the retry policy), write the outcome of a claimed delivery, and act on the decision.

/** The subscription's health after `attempt`, as the store now has it (or as it would, if it failed). */
async function health(
  state: EngineState,
  subscription: SubscriptionRecord,
  attempt: DeliveryAttempt,
): Promise<SubscriptionHealth> {
  const { deps, failing } = state;
  const now = state.clock().getTime();
  try {
    if (attempt.outcome === 'success') {
      if (subscription.health.firstFailureAt || failing.has(subscription.id)) {
        failing.delete(subscription.id);
        await deps.subscriptions.recordSuccess(subscription.id, attempt.startedAt, now);
      }
      // Stryker disable next-line ObjectLiteral: the policy ends a successful attempt ('done') before it reads the health
      return { lastSuccessAt: attempt.startedAt };
    }
    failing.add(subscription.id);
    return (
      // Stryker disable next-line ObjectLiteral: a streak starting now is never 5 days old, so this health and {} decide alike
      (await deps.subscriptions.recordFailure(
        subscription.id,
        {
          at: attempt.startedAt,
          outcome: attempt.outcome,
          ...(attempt.statusCode !== undefined ? { statusCode: attempt.statusCode } : {}),
          ...(attempt.error !== undefined ? { error: attempt.error } : {}),
        },
        now,
      )) ?? { firstFailureAt: attempt.startedAt }
    );
  } catch (error) {
    state.report({ kind: 'StoreFailure', subscriptionId: subscription.id, message: describe(error) });
    return attempt.outcome === 'success'
      ? { lastSuccessAt: attempt.startedAt }
      : { firstFailureAt: subscription.health.firstFailureAt ?? attempt.startedAt };
  }
}

function refused(state: EngineState, error: string): DeliveryAttempt {
  return {
    startedAt: state.clock().toISOString(),
    durationMs: 0,
    outcome: 'refused',
    errorClass: 'invalid',
    error,
  };
}

/**
 * Sends one attempt (in the subscription's concurrency slot). `leaseEnd` is read once the slot is
 * held: under a lease, an attempt that could outlive it is not sent (undefined: give the claim back).
 */
export async function attemptOnce(
  state: EngineState,
  delivery: DeliveryRecord,
  subscription: SubscriptionRecord,
  leaseEnd: () => Promise<number | undefined>,
): Promise<DeliveryAttempt | undefined> {
  const body = serializePayload(delivery.envelope);
  if (!body.ok) return refused(state, body.error.message);
  let secrets: Awaited<ReturnType<SecretBox['open']>>;
  try {
    secrets = await state.deps.secrets.open(subscription.secretCiphertext, subscription.id);
  } catch (error) {
    return refused(state, `the subscription's secret cannot be decrypted: ${describe(error)}`);
  }
  return state.limiter.run(subscription.id, async () => {
    const end = await leaseEnd();
    // Waited too long for a slot: the attempt could outlive the lease and be duplicated.
    if (end !== undefined && state.clock().getTime() + state.budgetMs > end) return undefined;
    return state.deps.sender.send({ url: subscription.url, id: delivery.eventId, body: body.value, secrets });
  });
}

export interface Decided {
  readonly now: Date;
  readonly step: NextStep;
  readonly record: AttemptRecord;
  readonly status: FinishInput['status'];
}

/** The policy's decision on attempt number `delivery.attempts`, and its attempt log line. */
export async function decide(
  state: EngineState,
  delivery: DeliveryRecord,
  subscription: SubscriptionRecord,
  done: DeliveryAttempt,
): Promise<Decided> {
  const now = state.clock();
  const healthNow = await health(state, subscription, done);
  const step = nextStep({ attemptNumber: delivery.attempts }, done, now, {
    health: healthNow,
    ...(state.deps.random ? { random: state.deps.random } : {}),
    ...(state.deps.retrySchedule ? { schedule: state.deps.retrySchedule } : {}),
  });
  const decision: AttemptDecision = step.action === 'disable-subscription' ? 'disabled' : step.action;
  const record: AttemptRecord = {
    subscriptionId: subscription.id,
    deliveryId: delivery.id,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    attemptNumber: delivery.attempts,
    startedAt: done.startedAt,
    durationMs: done.durationMs,
    outcome: done.outcome,
    ...(done.statusCode !== undefined ? { statusCode: done.statusCode } : {}),
    ...(done.error !== undefined ? { error: done.error } : {}),
    ...(done.errorClass !== undefined ? { errorClass: done.errorClass } : {}),
    ...(done.requestHeaders !== undefined ? { requestHeaders: done.requestHeaders } : {}),
    ...(done.responseHeaders !== undefined ? { responseHeaders: done.responseHeaders } : {}),
    ...(done.responseExcerpt !== undefined ? { responseExcerpt: done.responseExcerpt } : {}),
    ...(done.responseTruncated ? { responseTruncated: true } : {}),
    ...(done.retryAfterMs !== undefined ? { retryAfterMs: done.retryAfterMs } : {}),
    decision,
    ...(step.action === 'retry' ? { nextAttemptAt: step.at.toISOString() } : {}),
  };
  const status =
    step.action === 'done'
      ? 'succeeded'
      : step.action === 'retry'
        ? 'pending'
        : step.action === 'dead-letter'
          ? 'dead'
          : 'parked';
  return { now, step, record, status };
}

/** What follows a recorded decision: the retry's message, the dead letter's or disabling's event. */
export async function afterRecorded(
  state: EngineState,
  delivery: DeliveryRecord,
  subscription: SubscriptionRecord,
  done: DeliveryAttempt,
  { now, step }: Decided,
): Promise<void> {
  if (step.action === 'retry') await enqueue(state, [delivery.id], Math.ceil(step.delayMs / 1000));
  if (step.action === 'dead-letter')
    await publish(state, exhaustedEvent(subscription, delivery, done, step.attempts, now));
  if (step.action === 'disable-subscription') {
    if (await state.deps.subscriptions.disable(subscription.id, step.reason, now.getTime())) {
      state.cache = undefined;
      await publish(state, disabledEvent(subscription, step.reason, now));
    }
  }
}

/** Ends attempt `delivery.attempts` of a claimed delivery: `finish` (conditional), then what follows. */
export async function finishClaimed(
  state: EngineState,
  delivery: DeliveryRecord,
  subscription: SubscriptionRecord,
  done: DeliveryAttempt,
): Promise<AttemptRecord> {
  const decided = await decide(state, delivery, subscription, done);
  const finished = await state.deps.deliveries.finish({
    deliveryId: delivery.id,
    attemptNumber: delivery.attempts,
    status: decided.status,
    ...(decided.step.action === 'retry' ? { nextAttemptAt: decided.step.at.toISOString() } : {}),
    attempt: decided.record,
    now: decided.now.getTime(),
  });
  // Stale claim: this attempt outlived its lease and another worker took the delivery over.
  if (finished) await afterRecorded(state, delivery, subscription, done, decided);
  return decided.record;
}

/** One attempt of a claimed delivery, recorded; the decision applied. Never rejects. */
export async function attemptClaimed(
  state: EngineState,
  delivery: DeliveryRecord,
  subscription: SubscriptionRecord,
): Promise<AttemptRecord | undefined> {
  try {
    const leaseEnd = Date.parse(delivery.nextAttemptAt);
    const done = await attemptOnce(state, delivery, subscription, async () => leaseEnd);
    if (!done) {
      if (await state.deps.deliveries.release(delivery.id, delivery.attempts, state.clock().getTime()))
        await enqueue(state, [delivery.id]);
      return undefined;
    }
    return await finishClaimed(state, delivery, subscription, done);
  } catch (error) {
    // The delivery stays claimed: when its lease ends the sweep (or its queue message) retries it.
    reportStoreFailure(state, delivery, subscription, error);
    return undefined;
  }
}
