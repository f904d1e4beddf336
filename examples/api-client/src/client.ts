/**
 * A typed client of Carhook's management API, and a typed webhook handler, from nothing but the
 * OpenAPI document (`GET /openapi.json`): `npm run generate -w carhook-example-api-client` writes
 * ./carhook-api.d.ts with openapi-typescript (against a running `carhook dev`, or CARHOOK_URL).
 */
import type { components, paths, webhooks } from './carhook-api';

export type Subscription = components['schemas']['Subscription'];
type Json<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer T } } };
}
  ? T
  : never;

/** `GET /subscriptions`, typed by the document. */
export async function listSubscriptions(
  baseUrl: string,
  token: string,
): Promise<Json<'/subscriptions', 'get'>['items']> {
  const res = await fetch(`${baseUrl}/subscriptions`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET /subscriptions answered ${res.status}`);
  return ((await res.json()) as Json<'/subscriptions', 'get'>).items;
}

/** The endpoints that are failing now, with their streak and last answer. */
export function failing(subscriptions: readonly Subscription[]): string[] {
  return subscriptions
    .filter((s) => s.health.state === 'failing')
    .map(
      (s) =>
        `${s.url}: ${s.health.consecutiveFailures} failure(s), last ${s.health.lastFailure?.statusCode ?? s.health.lastFailure?.outcome ?? '?'}`,
    );
}

/** The body of a `vehicle.alert.fixed` webhook (verify its signature first: @carhook/events). */
export type AlertFixed =
  webhooks['vehicle.alert.fixed']['post']['requestBody']['content']['application/json'];

export function onAlertFixed(body: AlertFixed): string {
  return `${body.data.vehicle?.vin ?? '?'} #${body.data.sequence}: alert ${body.data.data.alertId} fixed`;
}
