/**
 * The webhook side of the composition root: the delivery engine (fan-out, delivery
 * queue handler) and the subscription management service, over the webhook stores, the
 * `deliveries` queue and a sender. Subscription secrets are sealed with the token key ring, so no
 * further secret is needed. Shared by the Lambda handlers (fanout, delivery, http-api) and the local
 * runtime (which passes a loopback-friendly URL policy).
 */

import { systemResolver } from '../adapters/webhooks/dns';
import { createSender, type SenderOptions } from '../adapters/webhooks/sender';
import { createDeliveryEngine, type DeliveryEngine, type DeliveryJob } from '../core/delivery/engine';
import type { RetrySchedule } from '../core/delivery/retry-schedule';
import { createSecretBox } from '../core/delivery/secrets';
import type { JobQueue } from '../core/queue/ports';
import type { DeliveryStore, SubscriptionStore } from '../core/subscriptions/ports';
import { createSubscriptionService, type SubscriptionService } from '../core/subscriptions/service';
import type { Sender } from '../core/webhooks/sender';
import { compileAllowList, parseAllowEntries } from '../core/webhooks/ssrf';
import { ConfigError, RUNTIME_ENV } from './config';
import { sampleOf } from './event-samples';
import { CARHOOK_METRIC_NAMES, type MetricSink, meteredBus } from './observability';
import type { Runtime } from './runtime';

export interface WebhookPorts {
  readonly subscriptions: SubscriptionStore;
  readonly deliveries: DeliveryStore;
  /** The `deliveries` queue (retries, replays, resumed deliveries). */
  readonly deliveryQueue: JobQueue<DeliveryJob>;
  /** URL policy, DNS, timeout of the sender and of subscribe-time checks (local: loopback allowed). */
  readonly senderOptions?: SenderOptions;
  /**
   * Without `senderOptions`: hosts webhooks may reach besides the public internet (the deployment's
   * `CARHOOK_WEBHOOK_ALLOW_HOSTS`, entries as the CDK prop `webhookAllowHosts` checked them).
   */
  readonly allowHosts?: readonly string[];
  /** Overrides the sender (tests). */
  readonly sender?: Sender;
  readonly onProblem?: (problem: { kind: string; message: string }) => void;
  /** Webhook retry schedule (default `standard`). */
  readonly retrySchedule?: RetrySchedule;
  /** How long the event log keeps events (default 30 days): how far back `enable` recovers. */
  readonly eventRetentionMs?: number;
}

export interface Webhooks {
  readonly engine: DeliveryEngine;
  readonly service: SubscriptionService;
}

/**
 * The sender's policy from the deployment's allow-list: none, only the public internet. Compiled
 * here, where webhooks are sent, so functions that send none carry no address parser; an entry
 * that does not parse is a ConfigError naming the variable.
 */
export function allowListOptions(allowHosts: readonly string[]): SenderOptions | undefined {
  if (allowHosts.length === 0) return undefined;
  const compiled = compileAllowList(parseAllowEntries(allowHosts));
  if (!compiled.ok) {
    throw new ConfigError([
      {
        variable: RUNTIME_ENV.webhookAllowHosts,
        message: `"${compiled.error.value}" is not an IP address, CIDR, hostname or *.suffix`,
      },
    ]);
  }
  return { allowList: compiled.value };
}

/** `DeliveriesSucceeded` / `DeliveriesFailed` per attempt (lib/config.ts: each attempt counts). */
export function meteredSender(sender: Sender, sink: MetricSink): Sender {
  return {
    close: () => sender.close(),
    send: async (input) => {
      const attempt = await sender.send(input);
      sink.record(
        attempt.outcome === 'success'
          ? CARHOOK_METRIC_NAMES.deliveriesSucceeded
          : CARHOOK_METRIC_NAMES.deliveriesFailed,
        'Count',
        1,
      );
      return attempt;
    },
  };
}

export async function createWebhooks(
  runtime: Pick<Runtime, 'ports' | 'now' | 'metrics' | 'cipher'>,
  ports: WebhookPorts,
): Promise<Webhooks> {
  // Each use reads the key ring through the secrets cache, so a rotation is followed (see SecretBox.open).
  const secrets = createSecretBox({
    current: () => runtime.cipher(),
    fresh: () => runtime.cipher({ fresh: true }),
  });
  const now = () => new Date(runtime.now());
  // Absent: the secure defaults (public addresses only).
  const senderOptions = ports.senderOptions ?? allowListOptions(ports.allowHosts ?? []);
  const sender = meteredSender(ports.sender ?? createSender({ ...senderOptions, now }), runtime.metrics);
  const engine = createDeliveryEngine({
    subscriptions: ports.subscriptions,
    deliveries: ports.deliveries,
    queue: ports.deliveryQueue,
    bus: meteredBus(runtime.ports.bus, runtime.metrics, { firstPublish: true }),
    sender,
    secrets,
    now,
    onProblem: ports.onProblem,
    retrySchedule: ports.retrySchedule,
  });
  const { allowInsecureLoopback, allowList, extraPorts, resolve } = senderOptions ?? {};
  const service = createSubscriptionService({
    subscriptions: ports.subscriptions,
    deliveries: ports.deliveries,
    events: runtime.ports.stores.events,
    engine,
    secrets,
    now,
    ...(ports.retrySchedule ? { retrySchedule: ports.retrySchedule } : {}),
    sampleOf,
    ...(ports.eventRetentionMs !== undefined ? { eventRetentionMs: ports.eventRetentionMs } : {}),
    urlPolicy: {
      allowInsecureLoopback,
      allowList,
      extraPorts,
      resolve: resolve ?? systemResolver,
    },
  });
  return { engine, service };
}
