/**
 * What the handler tests share: the simulator's control API, an enrollment through the http-api
 * handler, and the bindings the CDK gives the webhook functions and the sweeper.
 */
import { expect } from 'vitest';
import type { createHttpApiHandler } from '../../functions/handlers/http-api';
import { BRANDS } from '../../sim';
import { type HandlerWorld, httpEvent, lambdaContext } from './support';

// The simulator only accepts loopback redirect URIs: that origin is allowed the way a deployment
// allows its console (CARHOOK_OAUTH_REDIRECT_ORIGINS, in the handlers' environment: ./support.ts).
export const CALLBACK = 'http://127.0.0.1:9/oauth/callback';

// As the CDK binds them (lib/carhook.ts): the webhook functions and the sweeper read the key ring and
// the deliveries queue, not the API credentials or the poll-jobs queue.
export const WEBHOOK_NEEDS = ['keyRing', 'bus', 'deliveryQueue'] as const;
export const WEBHOOK_UNBOUND = [
  'CARHOOK_API_CLIENT_SECRET_ARN',
  'CARHOOK_MAP_API_SECRET_ARN',
  'CARHOOK_POLL_QUEUE_URL',
];

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies read freely by tests.
export type Json = any;

export async function simControl(w: HandlerWorld, path: string, body: unknown = {}): Promise<Json> {
  const res = await fetch(`${w.sim.url}/_sim${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, path).toBeLessThan(300);
  return res.json();
}

/** Enrolls the first user with vehicles through the http-api handler (API Gateway v2 events). */
export async function enrollThroughHttp(w: HandlerWorld, http: ReturnType<typeof createHttpApiHandler>) {
  const user = w.sim.world.users().find((u) => u.vehicleIds.length > 0);
  if (!user) throw new Error('no user with vehicles');
  const brand = BRANDS[user.brand].authSegment;
  const start = await http(
    httpEvent('GET', `/oauth/${brand}/authorize`, `redirect=${encodeURIComponent(CALLBACK)}`),
    lambdaContext('http-api'),
  );
  expect(start.statusCode).toBe(302);
  const location = String(start.headers?.location ?? start.headers?.Location);
  const login = await fetch(location, {
    method: 'POST',
    body: new URLSearchParams({ user: user.id }),
    redirect: 'manual',
  });
  const back = new URL(login.headers.get('location') ?? '');
  const done = await http(
    httpEvent('GET', '/oauth/callback', back.searchParams.toString()),
    lambdaContext('http-api'),
  );
  expect(done.statusCode).toBe(200);
  return { user, body: JSON.parse(done.body ?? '{}') as Json };
}
