import { randomBytes } from 'node:crypto';
import { createMemoryStores } from '../../functions/adapters/memory/stores';
import { createMemorySubscriptionStores } from '../../functions/adapters/memory/subscriptions';
import { createSender, type SenderOptions } from '../../functions/adapters/webhooks/sender';
import { createKeyRing, createTokenCipher } from '../../functions/core/crypto/token-cipher';
import {
  createDeliveryEngine,
  type DeliveryEngineDeps,
  type DeliveryJob,
} from '../../functions/core/delivery/engine';
import { createSecretBox, fixedCipher } from '../../functions/core/delivery/secrets';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import type { EventBus } from '../../functions/core/publishing/ports';
import type { JobQueue, OutgoingMessage } from '../../functions/core/queue/ports';
import type { DeliveryStore, SubscriptionStore } from '../../functions/core/subscriptions/ports';
import {
  createSubscriptionService,
  type SubscriptionServiceDeps,
} from '../../functions/core/subscriptions/service';
import type { AllowList, Resolver } from '../../functions/core/webhooks/ssrf';
import { loopbackAllowList } from '../webhooks/receiver';

export const T0 = Date.parse('2026-11-22T10:00:00.000Z');

/** A virtual clock: tests advance it instead of sleeping. `real` follows the wall clock. */
export interface Clock {
  now: () => Date;
  ms: () => number;
  set: (ms: number) => void;
  advance: (ms: number) => void;
}

export function virtualClock(start = T0): Clock {
  let t = start;
  return { now: () => new Date(t), ms: () => t, set: (ms) => (t = ms), advance: (ms) => (t += ms) };
}

export function realClock(): Clock {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    ms: () => Date.now() + offset,
    set: (ms) => (offset = ms - Date.now()),
    advance: (ms) => (offset += ms),
  };
}

/** A queue on the virtual clock: a message becomes available `delaySeconds` after it was sent. */
export class FakeQueue implements JobQueue<DeliveryJob> {
  readonly pending: { body: DeliveryJob; availableAt: number }[] = [];
  readonly sent: OutgoingMessage<DeliveryJob>[] = [];
  constructor(private readonly clock: Clock) {}
  async send(messages: readonly OutgoingMessage<DeliveryJob>[]) {
    for (const m of messages) {
      this.sent.push(m);
      this.pending.push({ body: m.body, availableAt: this.clock.ms() + (m.delaySeconds ?? 0) * 1000 });
    }
  }
  takeAvailable(): DeliveryJob[] {
    const now = this.clock.ms();
    const due = this.pending.filter((m) => m.availableAt <= now);
    for (const m of due) this.pending.splice(this.pending.indexOf(m), 1);
    return due.map((m) => m.body);
  }
  nextAt(): number | undefined {
    return this.pending.reduce<number | undefined>(
      (a, m) => (a === undefined || m.availableAt < a ? m.availableAt : a),
      undefined,
    );
  }
}

export class RecordingBus implements EventBus {
  readonly events: EventEnvelope[] = [];
  async publish(events: readonly EventEnvelope[]) {
    this.events.push(...events);
    return { published: events.map((e) => e.id), failed: [] };
  }
}

export interface HarnessOptions {
  readonly clock?: Clock;
  readonly sender?: SenderOptions;
  readonly resolve?: Resolver;
  readonly allowList?: AllowList | null;
  readonly allowInsecureLoopback?: boolean;
  readonly engine?: Partial<DeliveryEngineDeps>;
  readonly stores?: { subscriptions: SubscriptionStore; deliveries: DeliveryStore };
  readonly service?: Partial<SubscriptionServiceDeps>;
}

export function harness(options: HarnessOptions = {}) {
  const clock = options.clock ?? virtualClock();
  const stores = options.stores ?? createMemorySubscriptionStores();
  const log = createMemoryStores().events;
  const queue = new FakeQueue(clock);
  const bus = new RecordingBus();
  const allowList = options.allowList === null ? undefined : (options.allowList ?? loopbackAllowList());
  const allowInsecureLoopback = options.allowInsecureLoopback ?? true;
  const policy = {
    allowInsecureLoopback,
    ...(allowList ? { allowList } : {}),
    ...(options.resolve ? { resolve: options.resolve } : {}),
  };
  const sender = createSender({ ...policy, now: clock.now, timeoutMs: 2_000, ...options.sender });
  const ring = createKeyRing('k1', new Map([['k1', randomBytes(32)]]));
  const secrets = createSecretBox(fixedCipher(createTokenCipher(ring)));
  const problems: string[] = [];
  const makeEngine = (extra: Partial<DeliveryEngineDeps> = {}) =>
    createDeliveryEngine({
      ...stores,
      queue,
      bus,
      sender,
      secrets,
      now: clock.now,
      random: () => 0.5,
      subscriptionCacheMs: 0,
      // A held endpoint is written claimed after 200 ms (not 1 s): tests that hold one stay quick.
      directHoldMs: 200,
      onProblem: (p) => problems.push(`${p.kind}: ${p.message}`),
      ...options.engine,
      ...extra,
    });
  const engine = makeEngine();
  const service = createSubscriptionService({
    ...stores,
    events: log,
    engine,
    secrets,
    urlPolicy: policy,
    now: clock.now,
    ...options.service,
  });

  /** Runs queued jobs, advancing the clock to the next one, until the queue is empty. */
  async function drain(maxSteps = 500): Promise<number> {
    let steps = 0;
    for (; steps < maxSteps; steps++) {
      const jobs = queue.takeAvailable();
      if (jobs.length === 0) {
        const next = queue.nextAt();
        if (next === undefined) return steps;
        clock.set(Math.max(clock.ms(), next));
        continue;
      }
      for (const job of jobs) {
        const outcome = await engine.handleJob(job);
        if (outcome) await queue.send([{ body: job, delaySeconds: outcome.retryInSeconds }]);
      }
    }
    throw new Error(`queue not drained after ${maxSteps} steps`);
  }

  async function publish(...events: EventEnvelope[]) {
    const results = [];
    for (const e of events) {
      await log.append([e], clock.ms());
      const r = await engine.fanOut(e);
      await r.settled;
      results.push(r);
    }
    return results;
  }

  async function subscribe(body: Record<string, unknown>) {
    const created = await service.create(body);
    if (!created.ok) throw new Error(`create failed: ${created.error.message}`);
    return created.value;
  }

  return {
    clock,
    stores,
    log,
    queue,
    bus,
    sender,
    secrets,
    engine,
    makeEngine,
    service,
    drain,
    publish,
    subscribe,
    problems,
  };
}

let n = 0;
export function event(overrides: Partial<EventEnvelope> = {}, at = T0): EventEnvelope {
  n += 1;
  return {
    id: `evt_test_${n}_${randomBytes(4).toString('hex')}`,
    type: 'vehicle.alert.raised',
    schemaVersion: 1,
    occurredAt: new Date(at - 60_000).toISOString(),
    detectedAt: new Date(at).toISOString(),
    sequence: n,
    vehicle: { id: 'veh_1', vin: 'VF7AAAAAAAAAAAAA1', brand: 'peugeot' },
    enrollment: { id: 'enr_1', kind: 'oauth-user' },
    source: { api: 'v2', operation: 'getAlerts', recordId: `al_${n}` },
    data: { alertId: `al_${n}`, code: 'TYRE_PRESSURE' },
    ...overrides,
  };
}
