import { createMemorySubscriptionStores } from '../../functions/adapters/memory/subscriptions';
import type { DeliveryJob } from '../../functions/core/delivery/engine';
import { createHttpApp } from '../../functions/http/app';
import type { RecentMetrics } from '../../functions/runtime/metrics-window';
import { createWebhooks } from '../../functions/runtime/webhooks';
import { MemoryQueue } from '../polling/support';
import { type SimRuntime, startSimRuntime } from '../runtime/support';
import { loopbackAllowList } from '../webhooks/receiver';

export const DOCUMENT_TOKEN = 'admin-token-0123456789abcdef';

/**
 * The HTTP app over a simulator runtime (memory stores), and the document it serves; the runtime's
 * recent metrics when given (the local runtime keeps them), and the subscriptions' stores.
 */
export async function documentedApp(
  options: { readonly recentMetrics?: () => RecentMetrics; readonly publicUrl?: string } = {},
): Promise<{
  readonly s: SimRuntime;
  readonly subscriptionStores: ReturnType<typeof createMemorySubscriptionStores>;
  readonly app: ReturnType<typeof createHttpApp>;
  readonly webhooks: Awaited<ReturnType<typeof createWebhooks>>;
  // biome-ignore lint/suspicious/noExplicitAny: the document is JSON, read freely by the tests.
  readonly doc: any;
  close(): Promise<void>;
}> {
  const s = await startSimRuntime(options.publicUrl !== undefined ? { publicUrl: options.publicUrl } : {});
  const subscriptionStores = createMemorySubscriptionStores();
  const webhooks = await createWebhooks(s.runtime, {
    ...subscriptionStores,
    deliveryQueue: new MemoryQueue<DeliveryJob>(),
    senderOptions: { allowInsecureLoopback: true, allowList: loopbackAllowList() },
  });
  const app = createHttpApp(
    {
      runtime: s.runtime,
      subscriptions: webhooks.service,
      ...(options.recentMetrics ? { recentMetrics: options.recentMetrics } : {}),
    },
    { auth: { kind: 'admin-token', token: DOCUMENT_TOKEN } },
  );
  const res = await app.request('/openapi.json');
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
  const doc = await res.json();
  return { s, subscriptionStores, app, webhooks, doc, close: () => s.close() };
}
