import { randomBytes } from 'node:crypto';
import { createMemorySubscriptionStores } from '../../functions/adapters/memory/subscriptions';
import { createKeyRing, createTokenCipher } from '../../functions/core/crypto/token-cipher';
import { createDeliveryEngine, type DeliveryEngineDeps } from '../../functions/core/delivery/engine';
import { createSecretBox, fixedCipher } from '../../functions/core/delivery/secrets';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { deliveryId } from '../../functions/core/subscriptions/logic';
import type { DeliveryRecord, SubscriptionRecord } from '../../functions/core/subscriptions/records';
import type { DeliveryAttempt, Sender, SendInput } from '../../functions/core/webhooks/sender';
import { FakeQueue, RecordingBus, T0, virtualClock } from './harness';

/**
 * The delivery engine's test setup: memory stores with a scripted sender: no sockets, the clock virtual, the
 * jitter fixed (random = 0.5, so the first retry is exactly 5 s). Each test states the exact
 * records written, the queue messages sent and the operational events published.
 */

export const at = (ms: number) => new Date(ms).toISOString();
export const URL = 'https://hooks.example.com/carhook';

export type Script = (
  input: SendInput,
  startedAt: string,
) => Partial<DeliveryAttempt> | Promise<Partial<DeliveryAttempt>>;

export function setup(options: { script?: Script; engine?: Partial<DeliveryEngineDeps> } = {}) {
  const clock = virtualClock();
  const stores = createMemorySubscriptionStores();
  const queue = new FakeQueue(clock);
  const bus = new RecordingBus();
  const cipher = createTokenCipher(createKeyRing('k1', new Map([['k1', randomBytes(32)]])));
  const secrets = createSecretBox(fixedCipher(cipher));
  const sent: SendInput[] = [];
  const script: Script = options.script ?? (() => ({ outcome: 'success', statusCode: 200 }));
  const sender: Sender = {
    send: async (input) => {
      sent.push(input);
      const startedAt = clock.now().toISOString();
      const result = await script(input, startedAt);
      return { startedAt, durationMs: 7, outcome: 'success', ...result } as DeliveryAttempt;
    },
    close: () => undefined,
  };
  const problems: { kind: string; deliveryId?: string; subscriptionId?: string; message: string }[] = [];
  const deps: DeliveryEngineDeps = {
    ...stores,
    queue,
    bus,
    sender,
    secrets,
    now: clock.now,
    random: () => 0.5,
    subscriptionCacheMs: 0,
    directHoldMs: 200,
    onProblem: (p) => problems.push({ ...p }),
    ...options.engine,
  };
  const engine = createDeliveryEngine(deps);
  let subs = 0;
  async function subscribe(fields: Partial<SubscriptionRecord> = {}): Promise<SubscriptionRecord> {
    subs += 1;
    const id = fields.id ?? `sub_${subs}`;
    const record: SubscriptionRecord = {
      id,
      url: URL,
      status: 'active',
      // The fixed cipher seals synchronously underneath: the record is built at once.
      secretCiphertext: cipher.encrypt(
        JSON.stringify({ current: `whsec_${Buffer.alloc(24, subs).toString('base64')}` }),
        id,
      ),
      health: {},
      createdAt: at(T0),
      updatedAt: at(T0),
      ...fields,
    };
    await stores.subscriptions.create(record);
    return record;
  }
  return { clock, stores, queue, bus, sent, problems, engine, deps, subscribe, secrets };
}

let n = 0;
/** The id of the last event made by `event()`. */
export const lastEventId = (): string => `evt_engine_${n}`;

export function event(overrides: Partial<EventEnvelope> = {}): EventEnvelope {
  n += 1;
  return {
    id: `evt_engine_${n}`,
    type: 'vehicle.alert.raised',
    schemaVersion: 1,
    occurredAt: at(T0 - 60_000),
    detectedAt: at(T0),
    sequence: n,
    vehicle: { id: 'veh_1', vin: 'VF7AAAAAAAAAAAAA1', brand: 'peugeot' },
    enrollment: { id: 'enr_1', kind: 'oauth-user' },
    source: { api: 'v2', operation: 'getAlerts', recordId: `al_${n}` },
    data: { alertId: `al_${n}`, code: 'TYRE_PRESSURE' },
    ...overrides,
  };
}

/** A pending delivery written as a queued one would be (attempts made so far, due now). */
export async function pendingDelivery(
  ctx: ReturnType<typeof setup>,
  subscription: SubscriptionRecord,
  e: EventEnvelope,
  attempts: number,
  extra: Partial<DeliveryRecord> = {},
): Promise<DeliveryRecord> {
  const record: DeliveryRecord = {
    id: deliveryId(e.id, subscription.id),
    subscriptionId: subscription.id,
    eventId: e.id,
    eventType: e.type,
    envelope: e,
    origin: 'event',
    status: 'pending',
    attempts,
    nextAttemptAt: at(ctx.clock.ms()),
    createdAt: at(T0),
    updatedAt: at(T0),
    ...extra,
  };
  await ctx.stores.deliveries.create(record);
  return record;
}

export async function attemptsOf(ctx: ReturnType<typeof setup>, subscriptionId: string) {
  return (await ctx.stores.deliveries.listAttempts({ subscriptionId, limit: 100 })).items;
}
