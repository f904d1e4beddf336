import { createMemorySubscriptionStores } from '../../functions/adapters/memory/subscriptions';
import type { DeliveryJob } from '../../functions/core/delivery/engine';
import { createHttpApp } from '../../functions/http/app';
import { createWebhooks } from '../../functions/runtime/webhooks';
import { MemoryQueue } from '../polling/support';
import { type SimRuntime, startSimRuntime } from '../runtime/support';
import { loopbackAllowList } from '../webhooks/receiver';

export const DOCUMENT_TOKEN = 'admin-token-0123456789abcdef';

/** The HTTP app over a simulator runtime (memory stores), and the document it serves. */
export async function documentedApp(): Promise<{
  readonly s: SimRuntime;
  readonly app: ReturnType<typeof createHttpApp>;
  readonly webhooks: Awaited<ReturnType<typeof createWebhooks>>;
  // biome-ignore lint/suspicious/noExplicitAny: the document is JSON, read freely by the tests.
  readonly doc: any;
  close(): Promise<void>;
}> {
  const s = await startSimRuntime();
  const webhooks = await createWebhooks(s.runtime, {
    ...createMemorySubscriptionStores(),
    deliveryQueue: new MemoryQueue<DeliveryJob>(),
    senderOptions: { allowInsecureLoopback: true, allowList: loopbackAllowList() },
  });
  const app = createHttpApp(
    { runtime: s.runtime, subscriptions: webhooks.service },
    { auth: { kind: 'admin-token', token: DOCUMENT_TOKEN } },
  );
  const res = await app.request('/openapi.json');
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
  const doc = await res.json();
  return { s, app, webhooks, doc, close: () => s.close() };
}
