import { buildEvent } from '../events/catalogue';
import type { EventEnvelope } from '../events/envelope';
import { eventId } from '../events/ids';
import { deliveryId, extraDeliveryId, iso } from '../subscriptions/logic';
import type {
  AttemptRecord,
  DeliveryOrigin,
  DeliveryRecord,
  SubscriptionRecord,
} from '../subscriptions/records';
import { attemptClaimed } from './attempt';
import { DeliveryError, type DeliveryJob } from './contract';
import { type EngineState, enqueue, newDelivery } from './state';

// The engine's entry points besides the fan-out: the queue worker, test sends, replays, resuming
// parked deliveries and the recovery sweep.

/** The longest delay one queue message may ask for before it comes back (under SQS's 12 hours). */
const MAX_QUEUE_RETRY_SECONDS = 11 * 3600;

/** The `deliveries` queue handler: claim the delivery, attempt it, record the outcome. */
export async function handleJob(
  state: EngineState,
  job: DeliveryJob,
): Promise<undefined | { retryInSeconds: number }> {
  const { deps, perKey, leaseMs } = state;
  const now = state.clock().getTime();
  const delivery = await deps.deliveries.get(job.deliveryId);
  if (delivery?.status !== 'pending') return undefined;
  const subscription = await deps.subscriptions.get(delivery.subscriptionId);
  if (!subscription) {
    await deps.deliveries.cancel(delivery.id, now);
    return undefined;
  }
  if (subscription.status !== 'active') {
    // Resumed by `enable` (the engine's `resume`).
    await deps.deliveries.park(delivery.id, now);
    return undefined;
  }
  // A subscription at its limit with a line already waiting: come back later (jittered, so a
  // burst does not return as one herd) rather than hold a consumer slot that others need.
  const stats = state.limiter.stats();
  if (stats.inFlightFor(subscription.id) >= perKey && stats.queuedFor(subscription.id) >= perKey)
    return { retryInSeconds: 1 + Math.floor(state.random() * 5) };
  const claim = await deps.deliveries.claim(delivery.id, now, leaseMs);
  if (claim.kind === 'NotDue') {
    const wait = Date.parse(claim.at) - now;
    // Within a lease: another worker's attempt; if it dies, this message takes over. A later
    // time is a scheduled retry, which has its own message: drop this duplicate.
    if (wait > leaseMs) return undefined;
    return { retryInSeconds: Math.min(MAX_QUEUE_RETRY_SECONDS, Math.max(1, Math.ceil(wait / 1000))) };
  }
  if (claim.kind !== 'Claimed') return undefined;
  await attemptClaimed(state, claim.delivery, subscription);
  return undefined;
}

/** Sends a `webhook.test` event to one subscription now; resolves with the attempt. */
export function sendTest(
  state: EngineState,
  subscription: SubscriptionRecord,
): Promise<{ delivery: DeliveryRecord; attempt: AttemptRecord }> {
  const at = state.clock().toISOString();
  const id = eventId({ scope: subscription.id, type: 'webhook.test', key: 'test', transition: at });
  const event = buildEvent('webhook.test', {
    id,
    occurredAt: at,
    detectedAt: at,
    sequence: 0,
    source: { api: 'carhook', operation: 'webhook.test' },
    data: { subscriptionId: subscription.id, message: 'A test delivery from Carhook.' },
  });
  return sendNow(state, subscription, event);
}

/**
 * Sends a sample of an event type to one subscription now: the sample's envelope under a new id,
 * stamped now, `sample: true` and `sequence` 0 (it is no change of the vehicle's), signed like any
 * delivery; resolves with the attempt.
 */
export function sendSample(
  state: EngineState,
  subscription: SubscriptionRecord,
  sample: EventEnvelope,
): Promise<{ delivery: DeliveryRecord; attempt: AttemptRecord }> {
  const at = state.clock().toISOString();
  const id = eventId({ scope: subscription.id, type: sample.type, key: 'sample', transition: at });
  return sendNow(state, subscription, {
    ...sample,
    id,
    occurredAt: at,
    detectedAt: at,
    sequence: 0,
    sample: true,
  });
}

/** One event to one subscription now (origin `test`), attempted at once; resolves with the attempt. */
async function sendNow(
  state: EngineState,
  subscription: SubscriptionRecord,
  event: EventEnvelope,
): Promise<{ delivery: DeliveryRecord; attempt: AttemptRecord }> {
  const record = newDelivery(
    state,
    event,
    subscription,
    'test',
    extraDeliveryId('test', event.id, subscription.id, event.detectedAt),
    true,
  );
  await state.deps.deliveries.create(record);
  const attempt = await attemptClaimed(state, record, subscription);
  const delivery = (await state.deps.deliveries.get(record.id)) ?? record;
  if (!attempt) {
    throw new DeliveryError('StoreFailure', `test delivery ${record.id} could not be recorded`, {
      subscriptionId: subscription.id,
      deliveryId: record.id,
    });
  }
  return { delivery, attempt };
}

/** New deliveries of `events` to one subscription, created in order and queued; the ids created. */
async function enqueueNew(
  state: EngineState,
  subscription: SubscriptionRecord,
  events: readonly EventEnvelope[],
  origin: DeliveryOrigin,
  idOf: (event: EventEnvelope) => string,
): Promise<readonly string[]> {
  const ids: string[] = [];
  // 16 writes at a time: a large replay is bounded by the store's latency, not serialized on it.
  for (let i = 0; i < events.length; i += 16) {
    const created = await Promise.all(
      events.slice(i, i + 16).map(async (event) => {
        const id = idOf(event);
        return (await state.deps.deliveries.create(
          newDelivery(state, event, subscription, origin, id, false),
        ))
          ? id
          : undefined;
      }),
    );
    for (const id of created) if (id) ids.push(id);
  }
  await enqueue(state, ids);
  return ids;
}

/** New deliveries of already-published events (replay), same `webhook-id`s, through the queue. */
export function enqueueReplay(
  state: EngineState,
  subscription: SubscriptionRecord,
  events: readonly EventEnvelope[],
  runId: string,
): Promise<readonly string[]> {
  return enqueueNew(state, subscription, events, 'replay', (event) =>
    extraDeliveryId('replay', event.id, subscription.id, runId),
  );
}

/**
 * The events a subscription missed while disabled, through the queue, each under the delivery id its
 * fan-out would have had: an event that has a delivery already (fanned out around the disable, or
 * recovered by an earlier enable) is not delivered again.
 */
export function enqueueRecovery(
  state: EngineState,
  subscription: SubscriptionRecord,
  events: readonly EventEnvelope[],
): Promise<readonly string[]> {
  return enqueueNew(state, subscription, events, 'recovery', (event) =>
    deliveryId(event.id, subscription.id),
  );
}

/** After `enable`: parked deliveries become pending and are queued. Returns how many. */
export async function resume(state: EngineState, subscriptionId: string): Promise<number> {
  const now = state.clock().getTime();
  const resumed: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await state.deps.deliveries.listBySubscription({
      subscriptionId,
      status: 'parked',
      limit: 500,
      ...(cursor ? { cursor } : {}),
    });
    for (const d of page.items) if (await state.deps.deliveries.resume(d.id, now)) resumed.push(d.id);
    cursor = page.cursor;
  } while (cursor);
  state.cache = undefined;
  await enqueue(state, resumed);
  return resumed.length;
}

/** Recovery: pending deliveries overdue by more than the grace (a worker died) go to the queue. */
export async function sweep(state: EngineState, options: { readonly limit?: number } = {}): Promise<number> {
  const before = iso(state.clock().getTime() - state.graceMs);
  const page = await state.deps.deliveries.listDue({ before, limit: options.limit ?? 500 });
  await enqueue(
    state,
    page.items.map((d) => d.id),
  );
  return page.items.length;
}
