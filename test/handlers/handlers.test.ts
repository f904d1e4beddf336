import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDeliveryHandler } from '../../functions/handlers/delivery';
import { createFanOutHandler } from '../../functions/handlers/fanout';
import { createHttpApiHandler } from '../../functions/handlers/http-api';
import { createPlannerHandler } from '../../functions/handlers/planner';
import { createPollWorkerHandler } from '../../functions/handlers/poll-worker';
import { createSweeperHandler } from '../../functions/handlers/sweeper';
import { lazy } from '../../functions/runtime/aws';
import { createAwsPlanner } from '../../functions/runtime/aws-planner';
import { logger } from '../../functions/runtime/observability';
import { startReceiver } from '../webhooks/receiver';
import { CALLBACK, enrollThroughHttp, type Json, simControl, WEBHOOK_NEEDS, WEBHOOK_UNBOUND } from './flows';
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

describe('Lambda handlers on DynamoDB Local, the simulator and fake AWS clients', () => {
  let w: HandlerWorld;
  afterEach(() => w.close());

  const control = (path: string, body: unknown = {}) => simControl(w, path, body);
  const enrollThroughHttpApi = (http: ReturnType<typeof createHttpApiHandler>) => enrollThroughHttp(w, http);

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
