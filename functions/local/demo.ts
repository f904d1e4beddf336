/**
 * `carhook dev --demo`: a receiver that verifies and prints every webhook, subscribed to every
 * event, and a script that has the simulator raise and fix alerts (and now and then a trip, a
 * collision or a refuel) through its control API, so a new user sees signed deliveries at once.
 * The simulator's own `--activity` is too slow on a real clock (a trip every 20 min to 6 h).
 */
import { type ReceivedWebhook, type RunningReceiver, startReceiver } from './receiver';
import type { LocalRuntime } from './runtime';

export interface Demo {
  readonly receiver: RunningReceiver;
  readonly subscriptionId: string;
  stop(): Promise<void>;
}

interface SimVehicleRef {
  readonly id: string;
}

export async function startDemo(
  rt: LocalRuntime,
  options: {
    everyMs?: number;
    out?: { write(chunk: string): unknown } | null;
    receiverPort?: number;
    onWebhook?: (webhook: ReceivedWebhook) => void;
  } = {},
): Promise<Demo> {
  const sim = rt.sim;
  if (!sim) throw new RangeError('--demo needs the simulator (not --api-base-url)');
  const out = options.out === undefined ? process.stdout : options.out;
  const receiver = await startReceiver({
    port: options.receiverPort ?? 0,
    out,
    ...(options.onWebhook ? { onWebhook: options.onWebhook } : {}),
  });
  const created = await fetch(`${rt.apiUrl}/subscriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${rt.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, description: 'carhook dev --demo receiver' }),
  });
  const body = (await created.json()) as { id?: string; secret?: string; error?: { message?: string } };
  if (created.status !== 201 || !body.id || !body.secret) {
    await receiver.close();
    throw new RangeError(
      `demo: subscribing the receiver failed (${created.status}): ${body.error?.message ?? ''}`,
    );
  }
  receiver.setSecret(body.secret);

  const control = async (method: string, path: string, payload?: unknown): Promise<unknown> => {
    const res = await fetch(`${sim.url}/_sim${path}`, {
      method,
      ...(payload !== undefined
        ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) }
        : {}),
    });
    return res.ok ? res.json() : undefined;
  };
  const vehicles: SimVehicleRef[] = sim.world.vehicles().map((v) => ({ id: v.id }));
  const open: { vehicleId: string; alertId: string }[] = [];
  let step = 0;
  const tick = async () => {
    const vehicle = vehicles[step % Math.max(1, vehicles.length)];
    step++;
    if (!vehicle) return;
    const fix = open.shift();
    if (fix) await control('POST', `/vehicles/${fix.vehicleId}/alerts/${fix.alertId}/fix`);
    const raised = (await control('POST', `/vehicles/${vehicle.id}/alerts`, { severity: 'medium' })) as
      | { id?: string }
      | undefined;
    if (raised?.id) open.push({ vehicleId: vehicle.id, alertId: raised.id });
    if (step % 3 === 0)
      await control('POST', `/vehicles/${vehicle.id}/trips`, { durationS: 900, distanceKm: 14 });
    if (step % 4 === 0)
      await control('POST', `/vehicles/${vehicle.id}/events`, { type: 'refuel', liters: 35 });
    if (step % 7 === 0) await control('POST', `/vehicles/${vehicle.id}/collisions`, { front: 'low' });
  };
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    tick()
      .catch(() => {})
      .finally(() => {
        busy = false;
      });
  }, options.everyMs ?? 10_000);
  return {
    receiver,
    subscriptionId: body.id,
    async stop() {
      clearInterval(timer);
      await receiver.close();
    },
  };
}
