/**
 * The end-to-end scenario of a rehearsal, as an operator and a user would live it on a fresh
 * deployment: secrets set, a user enrolled through OAuth, webhooks subscribed, a consumer's rule on
 * the bus, then schedule ticks while the simulator raises and fixes an alert, adds a collision and a
 * trip; the token key ring rotated while polling goes on; a subscriber whose endpoint is down
 * exhausts its retries. Every change must reach the consumer's queue and the webhook, once, signed.
 */
import { GetSecretValueCommand, PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { RUNTIME_ENV } from '../../functions/runtime/config';
import { BRANDS } from '../../sim';
import { type ConsumerQueue, checkBusEvent, consumerQueue } from './consumers';
import type { RunningDeployment } from './deploy';
import { rotateKeyRing } from './key-ring';
import { functionByArn } from './model';
import { createOperator, type Operator } from './operator';
import { type Receiver, startReceiver } from './receivers';
import type { RehearsalSimulator } from './simulator';
import { type Steps, until } from './steps';

export interface ScenarioOptions {
  /** How long each wait for a change to arrive may take. */
  readonly waitMs: number;
  /** Whether to wait for a failing endpoint to exhaust its retries (needs the `fast` retry schedule). */
  readonly exhaust: boolean;
  /** The certificate the webhook endpoints serve. */
  readonly tls: { key: string; cert: string };
}

export interface ScenarioResult {
  readonly eventsDelivered: number;
  readonly consumerEvents: number;
  readonly failingAttempts: number;
}

export async function runScenario(
  rd: RunningDeployment,
  sim: RehearsalSimulator,
  steps: Steps,
  options: ScenarioOptions,
  cleanups: (() => Promise<void>)[],
): Promise<ScenarioResult> {
  const { deployment, admin } = rd;
  const envOf = (name: string) =>
    deployment.functions.map((f) => f.environment[name]).find((v) => v !== undefined);
  const api = deployment.apis[0];
  const front = api && rd.fronts.get(api.logicalId);
  if (!api || !front) throw new Error('the templates declare no HTTP API: nothing to enroll through');
  const source = envOf(RUNTIME_ENV.eventSource) ?? 'carhook';
  const busName = envOf(RUNTIME_ENV.eventBusName) ?? '';
  const brand = (envOf(RUNTIME_ENV.brands) ?? 'cielo').split(',')[0] ?? 'cielo';
  const apiFunction = functionByArn(deployment, api.routes[0]?.functionArn ?? '');

  let ticking: Promise<unknown> | undefined;
  const tick = async () => {
    ticking ??= rd.tickSchedules().finally(() => {
      ticking = undefined;
    });
    await ticking;
  };
  const wait = <T>(
    what: string,
    check: () => Promise<T | undefined> | T | undefined,
    timeoutMs = options.waitMs,
  ) => until(what, check, { timeoutMs, between: tick, everyMs: 1_000 });

  const receiver = await startReceiver('verify', options.tls);
  const failing = await startReceiver('fail', options.tls);
  const rotated = await startReceiver('verify', options.tls);
  cleanups.push(receiver.close, failing.close, rotated.close);

  await steps.run('the operator puts the API client credentials in Secrets Manager', async () => {
    const arn = envOf(RUNTIME_ENV.apiClientSecretArn);
    if (!arn) throw new Error(`no function has ${RUNTIME_ENV.apiClientSecretArn}`);
    await admin.secrets.send(
      new PutSecretValueCommand({
        SecretId: arn,
        SecretString: JSON.stringify({ clientId: sim.clientId, clientSecret: sim.clientSecret }),
      }),
    );
  });

  const operator = await steps.run('the operator may call the management API, and nobody else', async () => {
    const op = await createOperator(admin, deployment, api, front.url);
    rd.principals.add(op.principal);
    const health = await op.call('GET', '/health', undefined, { unsigned: true });
    if (health.status !== 200) throw new Error(`GET /health answered ${health.status}: ${health.text}`);
    const unsigned = await op.call('GET', '/subscriptions', undefined, { unsigned: true });
    if (unsigned.status !== 403)
      throw new Error(`an unsigned GET /subscriptions answered ${unsigned.status}, not 403`);
    const signed = await op.call('GET', '/subscriptions');
    if (signed.status !== 200)
      throw new Error(`a signed GET /subscriptions answered ${signed.status}: ${signed.text}`);
    return op;
  });

  await steps.run(
    'the console routes take the admin token from Secrets Manager',
    async () => {
      const arn = envOf(RUNTIME_ENV.consoleTokenSecretArn);
      if (!arn) return 'no console authorizer in this app';
      const token =
        (await admin.secrets.send(new GetSecretValueCommand({ SecretId: arn }))).SecretString ?? '';
      const get = (authorization?: string) =>
        fetch(new URL('/console-api/subscriptions', front.url), {
          headers: authorization ? { authorization } : {},
        }).then((r) => r.status);
      const [good, wrong, none] = [
        await get(`Bearer ${token}`),
        await get('Bearer not-the-token'),
        await get(),
      ];
      if (good !== 200 || wrong !== 403 || none !== 401) {
        throw new Error(
          `answered ${good} with the token (want 200), ${wrong} with a wrong one (403), ${none} without (401)`,
        );
      }
      return 'token 200, wrong token 403, none 401';
    },
    (d) => d,
  );

  const subscribe = async (r: Receiver, eventTypes?: string[]) => {
    const created = await operator.call('POST', '/subscriptions', {
      url: r.url,
      ...(eventTypes ? { eventTypes } : {}),
    });
    const body = created.json as { id?: string; secret?: string };
    if (created.status !== 201 || !body.secret)
      throw new Error(`POST /subscriptions answered ${created.status}: ${created.text}`);
    r.secret = body.secret;
    return body.id ?? '';
  };
  let receiverId = '';
  const failingId = await steps.run(
    'webhooks subscribed through the HTTP API (one endpoint that is down)',
    async () => {
      receiverId = await subscribe(receiver);
      return subscribe(failing, ['vehicle.alert.raised']);
    },
  );
  /** What the deliveries API says of a subscription's latest attempts: for a wait that timed out. */
  const lastAttempts = async (id: string) => {
    const r = await operator.call('GET', `/subscriptions/${id}/deliveries?limit=5`);
    return r.text.slice(0, 1500);
  };

  const [alerts, operational] = await steps.run(
    "a consumer's rules on Carhook's bus",
    async () => [
      await consumerQueue(
        admin,
        deployment,
        busName,
        source,
        ['vehicle.alert.raised'],
        'rehearsal-consumer-alerts',
      ),
      await consumerQueue(
        admin,
        deployment,
        busName,
        source,
        ['webhook.delivery.exhausted', 'webhook.endpoint.disabled'],
        'rehearsal-consumer-operations',
      ),
    ],
    ([a]) => `vehicle.alert.raised through ${a.origin}`,
  );

  const enrolled = await steps.run(
    `a user enrolls through the HTTP API's OAuth routes (${brand})`,
    async () => {
      const user = sim.world
        .users()
        .find((u) => BRANDS[u.brand].authSegment === brand && u.vehicleIds.length > 0);
      if (!user) throw new Error(`the simulator has no ${brand} user with a vehicle`);
      const start = await fetch(new URL(`/oauth/${brand}/authorize`, front.url), { redirect: 'manual' });
      const signIn = start.headers.get('location');
      if (start.status !== 302 || !signIn)
        throw new Error(`authorize answered ${start.status}, not a redirect to the provider`);
      const consent = await fetch(signIn, {
        method: 'POST',
        body: new URLSearchParams({ user: user.id }),
        redirect: 'manual',
      });
      const back = consent.headers.get('location');
      if (!back)
        throw new Error(`the provider answered ${consent.status} to the consent, without a redirect`);
      // API Gateway answers on https; the rehearsal's front is plain HTTP on loopback: the browser's hop.
      const callback = new URL(back);
      callback.protocol = 'http:';
      const done = await fetch(callback, { headers: { accept: 'application/json' } });
      const body = (await done.json()) as { enrollmentId?: string; vehicles?: { id: string; vin: string }[] };
      if (done.status !== 200 || !body.enrollmentId)
        throw new Error(`the callback answered ${done.status}: ${JSON.stringify(body)}`);
      return { user, enrollmentId: body.enrollmentId, vehicles: body.vehicles ?? [] };
    },
    (e) => `enrollment ${e.enrollmentId}, ${e.vehicles.length} vehicle(s)`,
  );

  // Two vehicles of the user: changes on both run at once (each read is one poll of one vehicle).
  const [first = '', second = first] = enrolled.user.vehicleIds;
  const vinOf = (id: string) => sim.world.vehicle(id)?.vin;
  const seen = (r: Receiver) =>
    r.deliveries
      .map((d) => `${d.type} ${(d.body.data?.vehicle as { vin?: string } | undefined)?.vin ?? ''}`)
      .join(', ') || 'nothing';
  const delivered = (r: Receiver, type: string, vehicleId: string, since: number) =>
    r.deliveries.find(
      (d) =>
        d.type === type &&
        d.at >= since &&
        (d.body.data?.vehicle as { vin?: string } | undefined)?.vin === vinOf(vehicleId),
    );
  const waitDelivered = async (
    type: string,
    vehicleId: string,
    since: number,
    r: Receiver,
    subscriptionId: string,
  ) => {
    try {
      return await wait(`${type} of ${vinOf(vehicleId)} delivered to the webhook`, () =>
        delivered(r, type, vehicleId, since),
      );
    } catch (error) {
      throw new Error(
        `${(error as Error).message}; received: ${seen(r)}; the subscription's latest deliveries: ${await lastAttempts(subscriptionId)}`,
      );
    }
  };

  await steps.run('enrollment.vehicle.added reaches the webhook', () =>
    waitDelivered('enrollment.vehicle.added', first, 0, receiver, receiverId),
  );
  // A vehicle's first events read is its baseline: a change before it is history and not told.
  await steps.run('the first poll of each vehicle (its baseline: history is not reported)', () =>
    wait(
      'a first events read of each vehicle',
      () =>
        [first, second].every((id) =>
          sim.requests.some((r) => r.path === `/connectedcar/v2/vehicles/${id}/events`),
        ) || undefined,
    ),
  );

  const control = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(new URL(`/_sim${path}`, sim.url), {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!r.ok) throw new Error(`simulator ${method} ${path} answered ${r.status}: ${await r.text()}`);
    return (await r.json()) as Record<string, unknown>;
  };
  /** Makes each change, then waits until every one of them reached the webhook: their latencies. */
  const changes = async (
    list: { type: string; vehicleId: string; act: () => Promise<unknown>; to?: [Receiver, string] }[],
  ) => {
    const since = Date.now();
    for (const c of list) await c.act();
    const latencies: string[] = [];
    for (const c of list) {
      const [r, id] = c.to ?? [receiver, receiverId];
      const d = await waitDelivered(c.type, c.vehicleId, since, r, id);
      latencies.push(`${c.type} in ${((d.at - since) / 1000).toFixed(1)} s`);
    }
    return latencies.join(', ');
  };

  let alertId = '';
  await steps.run(
    'an alert, a collision and a trip in the simulator reach the webhook',
    () =>
      changes([
        {
          type: 'vehicle.alert.raised',
          vehicleId: first,
          act: async () => {
            alertId = String(
              (await control('POST', `/vehicles/${first}/alerts`, { code: 'engineFault', severity: 'high' }))
                .id,
            );
          },
        },
        {
          type: 'vehicle.collision.detected',
          vehicleId: second,
          act: () => control('POST', `/vehicles/${second}/collisions`, { front: 'high' }),
        },
        {
          type: 'vehicle.trip.completed',
          vehicleId: second,
          act: () => control('POST', `/vehicles/${second}/trips`, { durationS: 900, distanceKm: 12 }),
        },
      ]),
    (d) => d,
  );
  await steps.run("the consumer's queue gets the alert from EventBridge, as the schema says", async () => {
    const event = await wait('vehicle.alert.raised on the consumer queue', async () =>
      (await alerts.drain()).find((e) => e['detail-type'] === 'vehicle.alert.raised'),
    );
    checkBusEvent(event, source, 'vehicle.alert.raised');
  });

  let rotatedId = '';
  await steps.run(
    'the token key ring rotated in Secrets Manager while polling goes on',
    async () => {
      const arn = envOf(RUNTIME_ENV.tokenKeyRingSecretArn);
      if (!arn) throw new Error(`no function has ${RUNTIME_ENV.tokenKeyRingSecretArn}`);
      await rotateKeyRing(admin.secrets, arn);
      // A new container of the HTTP API reads the new ring (the warm ones keep theirs until their cache expires).
      if (apiFunction) rd.hosts.get(apiFunction.logicalId)?.recycle();
      rotatedId = await subscribe(rotated);
      return 'AWSCURRENT k2, AWSPREVIOUS k1';
    },
    (d) => d,
  );
  await steps.run(
    'the alert fixed, and a new alert reaches a subscription sealed with the new key',
    () =>
      changes([
        {
          type: 'vehicle.alert.fixed',
          vehicleId: first,
          act: () => control('POST', `/vehicles/${first}/alerts/${alertId}/fix`),
        },
        {
          type: 'vehicle.alert.raised',
          vehicleId: second,
          act: () => control('POST', `/vehicles/${second}/alerts`, { code: 'riskOfIce', severity: 'low' }),
          to: [rotated, rotatedId],
        },
      ]),
    (d) => d,
  );

  if (options.exhaust) {
    await steps.run(
      'the endpoint that is down: retries through the deliveries queue, then webhook.delivery.exhausted on the bus',
      async () => {
        const event = await wait(
          'webhook.delivery.exhausted on the bus',
          async () =>
            (await operational.drain()).find(
              (e) =>
                e['detail-type'] === 'webhook.delivery.exhausted' &&
                JSON.stringify(e.detail).includes(failingId),
            ),
          90_000,
        );
        checkBusEvent(event, source, 'webhook.delivery.exhausted');
        return `${failing.attempts} attempts`;
      },
      (d) => d,
    );
  }

  return steps.run(
    'nothing lost, nothing doubled, every signature valid',
    async () => {
      const unverified = [...receiver.deliveries, ...rotated.deliveries].filter((d) => !d.verified);
      if (unverified.length > 0)
        throw new Error(
          `${unverified.length} delivery(ies) failed verification: ${unverified.map((d) => d.id).join(', ')}`,
        );
      const counts = new Map<string, number>();
      for (const d of receiver.deliveries) counts.set(d.id, (counts.get(d.id) ?? 0) + 1);
      const doubled = [...counts].filter(([, n]) => n > 1);
      if (doubled.length > 0)
        throw new Error(`delivered more than once: ${doubled.map(([id, n]) => `${id} ×${n}`).join(', ')}`);
      const logged = await operator.call(
        'GET',
        `/events?limit=100&since=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`,
      );
      const events = ((logged.json as { events?: { id: string; type: string }[] }).events ?? []).filter(
        (e) => !e.type.startsWith('webhook.'),
      );
      const missing = events.filter((e) => !counts.has(e.id));
      if (missing.length > 0)
        throw new Error(
          `in the event log but never delivered: ${missing.map((e) => `${e.type} ${e.id}`).join(', ')}`,
        );
      return {
        eventsDelivered: counts.size,
        consumerEvents: alerts.events.length,
        failingAttempts: failing.attempts,
      };
    },
    (r) => `${r.eventsDelivered} events, each delivered once`,
  );
}

export type { ConsumerQueue, Operator };
