/**
 * The sweeper Lambda on DynamoDB Local, the simulator and fake AWS clients: the freshness check it
 * runs when targets are set, the deliveries it re-queues when a first attempt was abandoned, and a
 * failing part named while the others still run.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDynamoSubscriptionStores } from '../../functions/adapters/dynamodb';
import { DEFAULT_LEASE_MS, DEFAULT_SWEEP_GRACE_MS } from '../../functions/core/delivery/engine';
import { envelopeSchema } from '../../functions/core/events/envelope';
import { deliveryId } from '../../functions/core/subscriptions/logic';
import { createDeliveryHandler } from '../../functions/handlers/delivery';
import { createHttpApiHandler } from '../../functions/handlers/http-api';
import { createPlannerHandler } from '../../functions/handlers/planner';
import { createPollWorkerHandler } from '../../functions/handlers/poll-worker';
import { createSweeperHandler, SweeperError } from '../../functions/handlers/sweeper';
import { type AwsRuntime, lazy } from '../../functions/runtime/aws';
import { logger } from '../../functions/runtime/observability';
import { startReceiver } from '../webhooks/receiver';
import { enrollThroughHttp, type Json, simControl, WEBHOOK_NEEDS, WEBHOOK_UNBOUND } from './flows';
import {
  DELIVERY_QUEUE_ARN,
  type HandlerWorld,
  httpEvent,
  lambdaContext,
  SECRET_ARNS,
  schedulerEvent,
  sqsRecord,
  startHandlerWorld,
} from './support';

describe('the sweeper Lambda', () => {
  let w: HandlerWorld;
  beforeEach(async () => {
    w = await startHandlerWorld();
  });
  afterEach(() => w.close());
  const control = (path: string, body: unknown = {}) => simControl(w, path, body);
  const enrollThroughHttpApi = (http: ReturnType<typeof createHttpApiHandler>) => enrollThroughHttp(w, http);

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
});
