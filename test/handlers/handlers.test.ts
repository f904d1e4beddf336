import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDynamoSubscriptionStores } from '../../functions/adapters/dynamodb';
import { DEFAULT_LEASE_MS, DEFAULT_SWEEP_GRACE_MS } from '../../functions/core/delivery/engine';
import { envelopeSchema } from '../../functions/core/events/envelope';
import { deliveryId } from '../../functions/core/subscriptions/logic';
import { createDeliveryHandler } from '../../functions/handlers/delivery';
import { createFanOutHandler } from '../../functions/handlers/fanout';
import { createHttpApiHandler } from '../../functions/handlers/http-api';
import { createPlannerHandler } from '../../functions/handlers/planner';
import { createPollWorkerHandler } from '../../functions/handlers/poll-worker';
import { createSweeperHandler, SweeperError } from '../../functions/handlers/sweeper';
import { type AwsRuntime, lazy } from '../../functions/runtime/aws';
import { createAwsPlanner } from '../../functions/runtime/aws-planner';
import { logger } from '../../functions/runtime/observability';
import { BRANDS } from '../../sim';
import { startReceiver } from '../webhooks/receiver';
import {
  ACCOUNT,
  DELIVERY_QUEUE_ARN,
  FANOUT_QUEUE_ARN,
  type HandlerWorld,
  httpEvent,
  lambdaContext,
  SECRET_ARNS,
  schedulerEvent,
  sqsRecord,
  startHandlerWorld,
} from './support';

// The simulator only accepts loopback redirect URIs: that origin is allowed the way a deployment
// allows its console (CARHOOK_OAUTH_REDIRECT_ORIGINS, in the handlers' environment: ./support.ts).
const CALLBACK = 'http://127.0.0.1:9/oauth/callback';

// As the CDK binds them (lib/carhook.ts): the webhook functions and the sweeper read the key ring and
// the deliveries queue, not the API credentials or the poll-jobs queue.
const WEBHOOK_NEEDS = ['keyRing', 'bus', 'deliveryQueue'] as const;
const WEBHOOK_UNBOUND = [
  'CARHOOK_API_CLIENT_SECRET_ARN',
  'CARHOOK_MAP_API_SECRET_ARN',
  'CARHOOK_POLL_QUEUE_URL',
];

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies read freely by tests.
type Json = any;

describe('Lambda handlers on DynamoDB Local, the simulator and fake AWS clients', () => {
  let w: HandlerWorld;
  afterEach(() => w.close());

  async function control(path: string, body: unknown = {}): Promise<Json> {
    const res = await fetch(`${w.sim.url}/_sim${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status, path).toBeLessThan(300);
    return res.json();
  }

  /** Enrolls the first user with vehicles through the http-api handler (API Gateway v2 events). */
  async function enrollThroughHttpApi(http: ReturnType<typeof createHttpApiHandler>) {
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

  describe('with configured secrets', () => {
    beforeEach(async () => {
      w = await startHandlerWorld();
    });

    it('enrolls over HTTP, plans, polls with a partial batch failure, and sweeps what was not published', async () => {
      const http = createHttpApiHandler(lazy(() => w.runtime(['secrets', 'bus'])));
      const planner = createPlannerHandler(lazy(() => w.planner()));
      const worker = createPollWorkerHandler(lazy(() => w.runtime(['secrets', 'bus'])));
      const sweeper = createSweeperHandler(lazy(() => w.runtime(WEBHOOK_NEEDS, WEBHOOK_UNBOUND)));

      const health = await http(httpEvent('GET', '/health'), lambdaContext('http-api'));
      expect(health.statusCode).toBe(200);
      expect(JSON.parse(health.body ?? '{}')).toMatchObject({
        status: 'ok',
        checks: { store: 'ok', apiCredentials: 'ok' },
      });

      const { user, body } = await enrollThroughHttpApi(http);
      expect(body.vehicles).toHaveLength(user.vehicleIds.length);
      expect(w.eventBridge.detailTypes().filter((t) => t === 'enrollment.vehicle.added')).toHaveLength(
        user.vehicleIds.length,
      );
      expect(
        w.eventBridge.entries.every((e) => e.EventBusName === 'carhook-test' && e.Source === 'carhook'),
      ).toBe(true);

      // IAM-authorized management route: no bearer token in the app.
      const list = await http(httpEvent('GET', '/enrollments'), lambdaContext('http-api'));
      expect(list.statusCode).toBe(200);
      expect(JSON.parse(list.body ?? '{}').enrollments).toHaveLength(1);

      const vehicleId = user.vehicleIds[0] as string;
      await control(`/vehicles/${vehicleId}/alerts`, { severity: 'high' });
      await control('/clock/advance', { seconds: 60 });

      const run = await planner(schedulerEvent(), lambdaContext('planner'));
      expect(run.jobs).toBeGreaterThanOrEqual(user.vehicleIds.length);
      const jobs = w.sqs.sent.map((e) => JSON.parse(e.MessageBody ?? '{}') as Json);
      expect(jobs.filter((j) => j.kind === 'poll-vehicle')).toHaveLength(user.vehicleIds.length);
      // The map secret is blank: no map jobs are sent.
      expect(jobs.some((j) => j.kind === 'poll-map')).toBe(false);

      const poisoned = sqsRecord('{"kind":"poll-vehicle"', 'poisoned-1');
      const invalid = sqsRecord(JSON.stringify({ kind: 'poll-everything' }), 'invalid-1');
      const result = await worker(w.sqs.drainAsEvent([poisoned, invalid]), lambdaContext('poll-worker'));
      expect(result.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual([
        'invalid-1',
        'poisoned-1',
      ]);
      expect(w.eventBridge.detailTypes()).toContain('vehicle.alert.raised');
      expect(w.metrics.total('PollsCompleted')).toBe(user.vehicleIds.length);
      expect(w.metrics.total('ApiRequests')).toBeGreaterThan(0);
      expect(
        w.metrics.recorded.some(
          (r) => r.name === 'EventsPublished' && r.dimensions?.type === 'vehicle.alert.raised',
        ),
      ).toBe(true);

      // EventBridge down during a poll: the events stay unpublished in the log; the sweeper sends them.
      w.eventBridge.failing = true;
      const raised = await control(`/vehicles/${vehicleId}/alerts`, { severity: 'low' });
      await control('/clock/advance', { seconds: 60 });
      await planner(schedulerEvent(), lambdaContext('planner'));
      const second = await worker(w.sqs.drainAsEvent(), lambdaContext('poll-worker'));
      expect(second.batchItemFailures).toEqual([]);
      const before = w.eventBridge.entries.length;
      w.eventBridge.failing = false;
      const swept = await sweeper(schedulerEvent(), lambdaContext('sweeper'));
      expect(swept.events.published).toBeGreaterThanOrEqual(1);
      expect(swept.events.unpublished).toBe(0);
      expect(swept.deliveries).toEqual({ requeued: 0 });
      const sent = w.eventBridge.entries.slice(before).map((e) => JSON.parse(e.Detail ?? '{}') as Json);
      expect(
        sent.some(
          (e) => e.type === 'vehicle.alert.raised' && JSON.stringify(e.data).includes(String(raised.id)),
        ),
      ).toBe(true);
      expect((await sweeper(schedulerEvent(), lambdaContext('sweeper'))).events.published).toBe(0);
    });

    it('runs the freshness check in the sweep when targets are set: at risk told once on the bus', async () => {
      const http = createHttpApiHandler(lazy(() => w.runtime(['secrets', 'bus'])));
      await enrollThroughHttpApi(http);
      const sweeper = createSweeperHandler(
        lazy(() => w.runtime(WEBHOOK_NEEDS, WEBHOOK_UNBOUND, { CARHOOK_FRESHNESS_TARGETS: 'trips=1s' })),
      );
      const first = await sweeper(schedulerEvent(), lambdaContext('sweeper'));
      // A read a minute at best: a p95 of 1 s cannot be met.
      expect(first.freshness).toMatchObject({ kind: 'Checked', told: [expect.any(String)] });
      const told = w.eventBridge.entries.filter((e) => e.DetailType === 'carhook.freshness.at_risk');
      expect(told.map((e) => (JSON.parse(e.Detail ?? '{}') as Json).id)).toEqual(
        (first.freshness as { told: readonly string[] }).told,
      );
      expect(told[0]?.Source).toBe('carhook');
      // The next run within five planner cycles: not due, nothing told.
      expect((await sweeper(schedulerEvent(), lambdaContext('sweeper'))).freshness).toMatchObject({
        kind: 'NotDue',
      });
      expect(w.eventBridge.detailTypes().filter((t) => t.startsWith('carhook.freshness.'))).toHaveLength(1);
    });

    it('subscribes a webhook over the HTTP API, fans a bus event out to it, and retries through the deliveries queue', async () => {
      let calls = 0;
      const receiver = await startReceiver((_req, res) => {
        calls++;
        res.writeHead(calls === 1 ? 503 : 204).end();
      });
      try {
        const http = createHttpApiHandler(lazy(() => w.runtime(['secrets', 'bus', 'deliveryQueue'])));
        const fanout = createFanOutHandler(lazy(() => w.runtime(WEBHOOK_NEEDS, WEBHOOK_UNBOUND)));
        const delivery = createDeliveryHandler(lazy(() => w.runtime(WEBHOOK_NEEDS, WEBHOOK_UNBOUND)));

        const created = await http(
          httpEvent(
            'POST',
            '/subscriptions',
            '',
            { 'content-type': 'application/json' },
            JSON.stringify({ url: receiver.url() }),
          ),
          lambdaContext('http-api'),
        );
        expect(created.statusCode, created.body).toBe(201);
        expect(JSON.parse(created.body ?? '{}').secret).toMatch(/^whsec_/);

        // The same edge limits as locally: one Hono app behind API Gateway.
        for (const [headers, body, status, field] of [
          [{ 'content-type': 'text/plain' }, JSON.stringify({ url: receiver.url() }), 415, 'content-type'],
          [{ 'content-type': 'application/json' }, JSON.stringify({ url: receiver.url(), x: 1 }), 400, 'x'],
          [{ 'content-type': 'application/json' }, `{"url":"${'a'.repeat(70_000)}"}`, 413, 'body'],
        ] as const) {
          const refused = await http(
            httpEvent('POST', '/subscriptions', '', headers, body),
            lambdaContext('http-api'),
          );
          expect(refused.statusCode, refused.body).toBe(status);
          expect(JSON.parse(refused.body ?? '{}').error.field).toBe(field);
        }

        await enrollThroughHttpApi(http);
        const entry = w.eventBridge.entries[0];
        const detail = JSON.parse(entry?.Detail ?? '{}') as Json;
        const busEvent = {
          version: '0',
          id: 'eb-1',
          'detail-type': entry?.DetailType ?? '',
          source: entry?.Source ?? '',
          account: ACCOUNT,
          time: new Date().toISOString(),
          region: 'eu-west-1',
          resources: [],
          detail,
        };
        expect(await fanout(busEvent, lambdaContext('fanout'))).toEqual({ deliveries: 1 });
        expect(receiver.requests).toHaveLength(1);
        expect(receiver.requests[0]?.headers['webhook-id']).toBe(detail.id);
        // The same bus event again (EventBridge delivers at least once): no second delivery.
        expect(await fanout(busEvent, lambdaContext('fanout'))).toEqual({ deliveries: 0 });
        await expect(fanout({ ...busEvent, detail: { id: 1 } }, lambdaContext('fanout'))).rejects.toThrow(
          /^detail\./,
        );

        // As the stack wires it: EventBridge rule → fan-out SQS queue → fanout, partial batch failures.
        const second = w.eventBridge.entries[1];
        expect(second).toBeDefined();
        const wrapped = { ...busEvent, id: 'eb-2', detail: JSON.parse(second?.Detail ?? '{}') };
        const viaQueue = await fanout(
          {
            Records: [
              sqsRecord(JSON.stringify(wrapped), 'fan-1', FANOUT_QUEUE_ARN),
              sqsRecord(
                JSON.stringify({ ...busEvent, detail: { type: 'nope' } }),
                'fan-bad',
                FANOUT_QUEUE_ARN,
              ),
            ],
          },
          lambdaContext('fanout'),
        );
        expect(viaQueue).toEqual({ batchItemFailures: [{ itemIdentifier: 'fan-bad' }] });
        expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([detail.id, wrapped.detail.id]);
        receiver.requests.splice(1);

        // The 503 was retried through the deliveries queue: deliver it with the delivery handler.
        const retries = w.sqs.sent.splice(0).map((e) => e.MessageBody ?? '');
        expect(retries).toHaveLength(1);
        await control('/clock/advance', { seconds: 3600 });
        const poisoned = sqsRecord('{"deliveryId":5}', 'bad-1', DELIVERY_QUEUE_ARN);
        const result = await delivery(
          { Records: [sqsRecord(retries[0] ?? '', 'retry-1', DELIVERY_QUEUE_ARN), poisoned] },
          lambdaContext('delivery'),
        );
        expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'bad-1' }]);
        expect(receiver.requests).toHaveLength(2);
        expect(receiver.requests[1]?.headers['webhook-id']).toBe(detail.id);
        expect(w.metrics.total('DeliveriesFailed')).toBe(1);
        expect(w.metrics.total('DeliveriesSucceeded')).toBe(2);
      } finally {
        await receiver.close();
      }
    });

    /**
     * What the fan-out Lambda leaves behind when it dies mid-attempt: the delivery record, written
     * and claimed (attempt 1 leased), and no queue message. Returns the delivery id and its event.
     */
    async function abandonedFirstAttempt(http: ReturnType<typeof createHttpApiHandler>, url: string) {
      const created = await http(
        httpEvent(
          'POST',
          '/subscriptions',
          '',
          { 'content-type': 'application/json' },
          JSON.stringify({ url }),
        ),
        lambdaContext('http-api'),
      );
      expect(created.statusCode, created.body).toBe(201);
      const subscriptionId = String(JSON.parse(created.body ?? '{}').id);
      await enrollThroughHttpApi(http);
      const event = envelopeSchema.parse(JSON.parse(w.eventBridge.entries[0]?.Detail ?? '{}'));
      const { deliveries } = createDynamoSubscriptionStores({
        client: w.dynamodb,
        tableName: String(w.env.CARHOOK_TABLE_NAME),
      });
      const now = w.sim.world.now();
      const at = new Date(now).toISOString();
      const id = deliveryId(event.id, subscriptionId);
      await deliveries.create({
        id,
        subscriptionId,
        eventId: event.id,
        eventType: event.type,
        envelope: event,
        origin: 'event',
        status: 'pending',
        attempts: 0,
        nextAttemptAt: at,
        createdAt: at,
        updatedAt: at,
      });
      expect((await deliveries.claim(id, now, DEFAULT_LEASE_MS)).kind).toBe('Claimed');
      w.sqs.sent.splice(0);
      return { id, event, deliveries };
    }

    it('re-queues a delivery whose claim expired (a Lambda died mid-attempt); the delivery worker sends it again with the same webhook-id', async () => {
      const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
      try {
        const http = createHttpApiHandler(lazy(() => w.runtime(['secrets', 'bus', 'deliveryQueue'])));
        const sweeper = createSweeperHandler(lazy(() => w.runtime(WEBHOOK_NEEDS, WEBHOOK_UNBOUND)));
        const delivery = createDeliveryHandler(lazy(() => w.runtime(WEBHOOK_NEEDS, WEBHOOK_UNBOUND)));
        const { id, event, deliveries } = await abandonedFirstAttempt(http, receiver.url());
        const sweep = () => sweeper(schedulerEvent(), lambdaContext('sweeper'));

        // The lease is still running: the attempt may be in flight.
        expect((await sweep()).deliveries).toEqual({ requeued: 0 });
        // Lease over, but within the grace: its own queue message could still be on its way.
        await control('/clock/advance', { seconds: (DEFAULT_LEASE_MS + DEFAULT_SWEEP_GRACE_MS) / 1000 - 5 });
        expect((await sweep()).deliveries).toEqual({ requeued: 0 });
        expect(w.sqs.sent).toEqual([]);

        await control('/clock/advance', { seconds: 10 });
        const swept = await sweep();
        expect(swept.deliveries).toEqual({ requeued: 1 });
        expect(swept.events).toEqual({ published: 0, unpublished: 0 });
        const bodies = w.sqs.sent.map((e) => e.MessageBody ?? '');
        expect(bodies.map((b) => JSON.parse(b))).toEqual([{ deliveryId: id }]);
        expect(receiver.requests).toHaveLength(0);

        const result = await delivery(
          { Records: [sqsRecord(bodies[0] ?? '', 'recovered-1', DELIVERY_QUEUE_ARN)] },
          lambdaContext('delivery'),
        );
        expect(result.batchItemFailures).toEqual([]);
        expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([event.id]);
        // Attempt 1 was abandoned (it counts), attempt 2 succeeded.
        expect(await deliveries.get(id)).toMatchObject({ status: 'succeeded', attempts: 2 });

        w.sqs.sent.splice(0);
        expect((await sweep()).deliveries).toEqual({ requeued: 0 });
        expect(w.sqs.sent).toEqual([]);
      } finally {
        await receiver.close();
      }
    });

    it('sweeps deliveries when the event log fails, then fails the invocation naming the part; needs no key ring', async () => {
      const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
      try {
        const http = createHttpApiHandler(lazy(() => w.runtime(['secrets', 'bus', 'deliveryQueue'])));
        const { id } = await abandonedFirstAttempt(http, receiver.url());
        await control('/clock/advance', { seconds: (DEFAULT_LEASE_MS + DEFAULT_SWEEP_GRACE_MS) / 1000 + 5 });
        // An event committed while EventBridge was down: only the sweeper publishes it.
        w.eventBridge.failing = true;
        const vehicleId = w.sim.world.users().find((u) => u.vehicleIds.length > 0)?.vehicleIds[0];
        await control(`/vehicles/${vehicleId}/alerts`, { severity: 'high' });
        const worker = createPollWorkerHandler(lazy(() => w.runtime(['secrets', 'bus'])));
        const planner = createPlannerHandler(lazy(() => w.planner()));
        await control('/clock/advance', { seconds: 60 });
        await planner(schedulerEvent(), lambdaContext('planner'));
        await worker(w.sqs.drainAsEvent(), lambdaContext('poll-worker'));
        w.eventBridge.failing = false;
        const published = w.eventBridge.entries.length;

        // The event log's query fails (a DynamoDB outage on that index): deliveries are swept anyway.
        const aws = w.runtime(WEBHOOK_NEEDS, WEBHOOK_UNBOUND);
        const eventsDown: AwsRuntime = {
          ...aws,
          runtime: {
            ...aws.runtime,
            republishDeps: () => {
              const deps = aws.runtime.republishDeps();
              const events = Object.assign(Object.create(deps.events) as typeof deps.events, {
                listUnpublished: () =>
                  Promise.reject(
                    Object.assign(new Error('Throughput exceeds the current capacity'), {
                      name: 'ProvisionedThroughputExceededException',
                    }),
                  ),
              });
              return { ...deps, events };
            },
          },
        };
        const error = vi.spyOn(logger, 'error');
        const first = await createSweeperHandler(lazy(() => eventsDown))(
          schedulerEvent(),
          lambdaContext('sweeper'),
        ).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(first).toBeInstanceOf(SweeperError);
        const failure = first as SweeperError;
        expect(failure.kind).toBe('SweepFailed');
        expect(failure.events).toEqual({
          ok: false,
          error: 'ProvisionedThroughputExceededException: Throughput exceeds the current capacity',
        });
        expect(failure.deliveries).toEqual({ ok: true, value: { requeued: 1 } });
        expect(failure.freshness).toEqual({ ok: true, value: { kind: 'NoTargets' } });
        expect(failure.message).toMatch(/^sweep failed \(events: ProvisionedThroughputExceededException/);
        expect(w.sqs.sent.map((e) => JSON.parse(e.MessageBody ?? '{}'))).toEqual([{ deliveryId: id }]);
        expect(w.eventBridge.entries).toHaveLength(published);
        // Both parts in one log line.
        expect(error.mock.calls.find((c) => c[0] === 'sweep failed')?.[1]).toMatchObject({
          kind: 'SweepFailed',
          events: { ok: false },
          deliveries: { ok: true, value: { requeued: 1 } },
        });
        error.mockRestore();

        // Without a key ring (the template binds none to the sweeper): both parts still run, since a
        // sweep opens no subscription secret; the event the first sweep could not list goes out.
        const noKeyRing = createSweeperHandler(
          lazy(() =>
            w.runtime(WEBHOOK_NEEDS, WEBHOOK_UNBOUND, {
              CARHOOK_TOKEN_KEY_RING_SECRET_ARN: `${SECRET_ARNS.keyRing.slice(0, -6)}Gone00`,
            }),
          ),
        );
        const second = await noKeyRing(schedulerEvent(), lambdaContext('sweeper'));
        expect(second.events.published).toBeGreaterThanOrEqual(1);
        // The delivery the first sweep queued is still pending (no worker took it): queued again, same id.
        expect(second.deliveries).toEqual({ requeued: 1 });
        expect(w.sqs.sent.map((e) => JSON.parse(e.MessageBody ?? '{}'))).toEqual([
          { deliveryId: id },
          { deliveryId: id },
        ]);
        const sent = w.eventBridge.entries.slice(published).map((e) => e.DetailType);
        expect(sent).toContain('vehicle.alert.raised');
      } finally {
        await receiver.close();
      }
    });

    it('reports a configuration error naming every missing variable', async () => {
      const planner = createPlannerHandler(lazy(() => createAwsPlanner({ env: {}, needs: ['pollQueue'] })));
      await expect(planner(schedulerEvent(), lambdaContext('planner'))).rejects.toThrow(
        /CARHOOK_TABLE_NAME: is required.*CARHOOK_POLL_QUEUE_URL: is required/,
      );
    });
  });

  describe('with blank client credentials', () => {
    beforeEach(async () => {
      w = await startHandlerWorld({ apiClientSecret: JSON.stringify({ clientId: '', clientSecret: '' }) });
    });

    it('refuses to poll, failing each job with the secret named, and health says not configured', async () => {
      const warn = vi.spyOn(logger, 'warn');
      const worker = createPollWorkerHandler(lazy(() => w.runtime(['secrets', 'bus'])));
      const job = {
        kind: 'poll-vehicle',
        vehicleId: 'enr_x:v1',
        resources: ['events'],
        plannedAt: new Date().toISOString(),
      };
      const result = await worker(
        { Records: [sqsRecord(JSON.stringify(job), 'job-1')] },
        lambdaContext('poll-worker'),
      );
      expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'job-1' }]);
      const logged = warn.mock.calls.find((c) => c[0] === 'poll job failed');
      expect(JSON.stringify(logged)).toContain(SECRET_ARNS.apiClient);
      warn.mockRestore();

      const http = createHttpApiHandler(lazy(() => w.runtime(['secrets', 'bus'])));
      const health = await http(httpEvent('GET', '/health'), lambdaContext('http-api'));
      expect(JSON.parse(health.body ?? '{}')).toMatchObject({
        status: 'degraded',
        checks: { apiCredentials: 'not_configured' },
      });
      const start = await http(
        httpEvent('GET', '/oauth/cielo/authorize', `redirect=${encodeURIComponent(CALLBACK)}`),
        lambdaContext('http-api'),
      );
      expect(start.statusCode).toBe(503);
      expect(JSON.parse(start.body ?? '{}').error.message).toContain(SECRET_ARNS.apiClient);
    });
  });
});
