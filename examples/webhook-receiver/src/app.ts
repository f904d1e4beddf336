/**
 * A Carhook webhook receiver: verifies each request's Standard Webhooks signature with
 * `@carhook/events`, drops redeliveries (Carhook retries with the same `webhook-id`), and hands each
 * event, typed, to `onEvent`. Answer 2xx quickly: Carhook times an attempt out after 15 s and retries.
 */
import {
  type CarhookEvent,
  isKnownEvent,
  verifyWebhook,
  WebhookPayloadError,
  WebhookVerificationError,
} from '@carhook/events';
import { Hono } from 'hono';

export interface ReceiverOptions {
  /** The subscription's secrets; during a rotation, the new and the previous one. */
  readonly secrets: () => readonly string[];
  readonly onEvent: (event: CarhookEvent) => void | Promise<void>;
  /** Events of a type newer than the installed @carhook/events (default: ignored, still 204). */
  readonly onUnknown?: (event: { readonly type: string; readonly id: string }) => void;
  /** How many recent event ids to remember to drop redeliveries (default 10,000). */
  readonly rememberIds?: number;
}

export function createReceiver(options: ReceiverOptions): Hono {
  const seen = new Set<string>();
  const capacity = options.rememberIds ?? 10_000;
  const app = new Hono();
  app.post('/webhooks', async (c) => {
    // The raw text: a parsed and re-serialized body would no longer match its signature.
    const body = await c.req.text();
    let event: { readonly type: string; readonly id: string; readonly schemaVersion: number };
    try {
      event = verifyWebhook(options.secrets(), c.req.raw.headers, body).data;
    } catch (error) {
      if (error instanceof WebhookVerificationError) return c.json({ error: error.message }, 401);
      if (error instanceof WebhookPayloadError)
        return c.json({ error: error.message, field: error.field }, 400);
      throw error;
    }
    if (seen.has(event.id)) return c.body(null, 204);
    if (isKnownEvent(event)) await options.onEvent(event);
    else options.onUnknown?.(event);
    // Remembered only once handled: an event whose handler threw is retried by Carhook.
    seen.add(event.id);
    if (seen.size > capacity) seen.delete(seen.values().next().value as string);
    return c.body(null, 204);
  });
  // A handler that failed: 500, so Carhook retries the delivery later with the same id.
  app.onError((error, c) => c.json({ error: `handler failed: ${error.message}` }, 500));
  return app;
}
