/**
 * `npm start -w carhook-example-webhook-receiver`: listens on 127.0.0.1:$PORT (default 3000) at
 * POST /webhooks and prints each verified event. CARHOOK_WEBHOOK_SECRETS: the subscription's
 * secret, or several separated by commas during a rotation.
 */
import { isVehicleAlertFixed, isVehicleAlertRaised } from '@carhook/events';
import { serve } from '@hono/node-server';
import { createReceiver } from './app';

const secrets = (process.env.CARHOOK_WEBHOOK_SECRETS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter((s) => s.length > 0);
if (secrets.length === 0) {
  console.error('CARHOOK_WEBHOOK_SECRETS is empty: set it to the whsec_… secret of your subscription');
  process.exit(2);
}
const port = Number(process.env.PORT ?? 3000);

const app = createReceiver({
  secrets: () => secrets,
  onEvent(event) {
    if (isVehicleAlertRaised(event)) {
      console.log(`alert raised on ${event.vehicle?.vin ?? event.vehicle?.id}: ${event.data.message}`);
    } else if (isVehicleAlertFixed(event)) {
      console.log(`alert fixed on ${event.vehicle?.vin ?? event.vehicle?.id}: ${event.data.message}`);
    } else {
      console.log(`${event.type} ${event.id}`);
    }
  },
  onUnknown: (event) => console.log(`(newer event type) ${event.type} ${event.id}`),
});
serve({ fetch: app.fetch, hostname: '127.0.0.1', port }, () =>
  console.log(`receiving Carhook webhooks on http://127.0.0.1:${port}/webhooks`),
);
