/**
 * Every operation of the OpenAPI document is called, and every answer is checked against what the
 * document says of its status: the JSON schema (validated with Ajv over `components.schemas`, where an
 * undocumented field fails), the media type, or no body. An operation the test does not call, or a
 * status the document does not list, fails it.
 */
import Ajv2020 from 'ajv/dist/2020';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMetricsWindow } from '../../functions/runtime/metrics-window';
import type { SimRuntime } from '../runtime/support';
import { type Receiver, startReceiver } from '../webhooks/receiver';
import { DOCUMENT_TOKEN, documentedApp } from './document-support';

// biome-ignore lint/suspicious/noExplicitAny: the document and the answers are JSON, read freely.
type Json = any;

const auth = { authorization: `Bearer ${DOCUMENT_TOKEN}` };

describe('what every operation answers', () => {
  let s: SimRuntime;
  let env: Awaited<ReturnType<typeof documentedApp>>;
  let rx: Receiver;
  let failing: Receiver;

  beforeEach(async () => {
    rx = await startReceiver((_req, res) => res.writeHead(204).end());
    failing = await startReceiver((_req, res) => res.writeHead(500).end('down'));
    let now = 0;
    const recent = createMetricsWindow({ now: () => now, quota: { limit: 120, windowSeconds: 60 } });
    env = await documentedApp({ recentMetrics: recent.snapshot });
    s = env.s;
    now = s.runtime.now();
  });
  afterEach(async () => {
    await rx.close();
    await failing.close();
    await env.close();
  });

  it('calls every operation of the document, and each answer is what the document says of its status', {
    timeout: 60_000,
  }, async () => {
    const { app, doc } = env;
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'doc', components: doc.components });
    const called = new Set<string>();
    const problems: string[] = [];

    /**
     * Calls `operation` (`GET /subscriptions/{id}`) at `url`, expects `status`, and checks the answer
     * against the document's response for that status; the JSON answer, parsed.
     */
    const hit = async (
      operation: string,
      url: string,
      status: number,
      init: { body?: unknown; headers?: Record<string, string>; anonymous?: boolean } = {},
    ): Promise<Json> => {
      const [method = '', path = ''] = operation.split(' ');
      const op = doc.paths[path]?.[method.toLowerCase()];
      if (!op) throw new Error(`${operation} is not in the document`);
      called.add(operation);
      const res = await app.request(url, {
        method,
        headers: {
          ...(init.anonymous ? {} : auth),
          ...init.headers,
          ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      });
      const text = await res.text();
      expect(res.status, `${operation} (${url}): ${text.slice(0, 300)}`).toBe(status);
      const documented = op.responses[String(status)];
      if (!documented) {
        problems.push(`${operation}: ${status} is not documented`);
        return undefined;
      }
      const [mediaType, content] =
        Object.entries((documented.content ?? {}) as Record<string, Json>)[0] ?? [];
      const type = res.headers.get('content-type') ?? '';
      if (mediaType === undefined) {
        if (text !== '') problems.push(`${operation} ${status}: a body where none is documented`);
        return undefined;
      }
      if (!type.startsWith(mediaType))
        problems.push(`${operation} ${status}: ${type}, documented ${mediaType}`);
      if (mediaType !== 'application/json') return text;
      const json = JSON.parse(text);
      const ref = (content.schema.$ref as string).replace('#/', 'doc#/');
      const validate = ajv.getSchema(ref);
      if (!validate) throw new Error(`no schema at ${ref}`);
      if (!validate(json)) problems.push(`${operation} ${status}: ${ajv.errorsText(validate.errors)}`);
      return json;
    };

    // The service and the console.
    await hit('GET /health', '/health', 200, { anonymous: true });
    await hit('GET /openapi.json', '/openapi.json', 200, { anonymous: true });
    const page = (await hit('GET /', '/', 200, { anonymous: true })) as string;
    const script = /src="(\/console\/app\.js[^"]*)"/.exec(page)?.[1] ?? '/console/app.js';
    const style = /href="(\/console\/app\.css[^"]*)"/.exec(page)?.[1] ?? '/console/app.css';
    await hit('GET /console/app.js', script, 200, { anonymous: true });
    await hit('GET /console/app.css', style, 200, { anonymous: true });
    await hit('GET /favicon.ico', '/favicon.ico', 200, { anonymous: true });

    // Enrolling: a user through the brand's sign-in, and a fleet vehicle.
    const user = s.sim.world.users().find((u) => u.vehicleIds.length > 0);
    if (!user) throw new Error('the simulator has a user with vehicles');
    const start = await app.request('/oauth/cielo/authorize');
    called.add('GET /oauth/{brand}/authorize');
    expect(start.status).toBe(302);
    expect(doc.paths['/oauth/{brand}/authorize'].get.responses['302']).toBeDefined();
    const login = await fetch(start.headers.get('location') ?? '', {
      method: 'POST',
      body: new URLSearchParams({ user: user.id }),
      redirect: 'manual',
    });
    const back = new URL(login.headers.get('location') ?? '');
    await hit('GET /oauth/{brand}/authorize', '/oauth/flying/authorize', 400, { anonymous: true });
    await hit('GET /oauth/callback', `/oauth/callback${back.search}`, 200, {
      anonymous: true,
      headers: { accept: 'application/json' },
    });
    const car = s.sim.world.vehicles()[0];
    if (!car) throw new Error('the simulator has vehicles');
    const fleet = await hit('POST /enrollments/contracts', '/enrollments/contracts', 201, {
      body: { vin: car.vin, contract: car.contract, brand: car.brand },
    });
    await hit('GET /enrollments', '/enrollments', 200);
    await hit('GET /enrollments/{id}', `/enrollments/${fleet.enrollmentId}`, 200);
    const vehicle = `/vehicles/${encodeURIComponent(fleet.vehicleId)}`;
    await hit('GET /vehicles/{id}', vehicle, 200);
    await hit('POST /vehicles/{id}/pause', `${vehicle}/pause`, 200);
    await hit('POST /vehicles/{id}/resume', `${vehicle}/resume`, 200);
    await hit('GET /vehicles/{id}', '/vehicles/enr_nope%3Avv1', 404);
    await hit('GET /vehicles/{id}/state', `${vehicle}/state`, 200);
    await hit('GET /vehicles/{id}/state', '/vehicles/enr_nope%3Avv1/state', 404);

    // Events and metrics.
    const events = await hit('GET /events', '/events', 200);
    const added = events.events.find((e: Json) => e.vehicle?.id === fleet.vehicleId);
    if (!added) throw new Error('the fleet enrollment published an event');
    await hit('GET /event-types', '/event-types', 200);
    await hit('GET /metrics/recent', '/metrics/recent', 200);
    await hit('GET /capacity', '/capacity', 200);

    // Subscriptions: one to an endpoint that answers, one to an endpoint that fails.
    const sub = await hit('POST /subscriptions', '/subscriptions', 201, { body: { url: rx.url() } });
    const bad = await hit('POST /subscriptions', '/subscriptions', 201, { body: { url: failing.url() } });
    const path = `/subscriptions/${sub.id}`;
    await hit('GET /subscriptions', '/subscriptions', 200);
    await hit('GET /subscriptions/{id}', path, 200);
    await hit('PATCH /subscriptions/{id}', path, 200, { body: { description: 'answers' } });
    await hit('POST /subscriptions/{id}/rotate-secret', `${path}/rotate-secret`, 200);
    await hit('POST /subscriptions/{id}/test', `${path}/test`, 200);
    await hit('POST /subscriptions/{id}/sample', `${path}/sample`, 200, {
      body: { type: 'vehicle.alert.fixed' },
    });
    const failed = await hit('POST /subscriptions/{id}/test', `/subscriptions/${bad.id}/test`, 200);
    expect(failed.attempt).toMatchObject({ outcome: 'failure', statusCode: 500 });
    await hit('GET /subscriptions/{id}', `/subscriptions/${bad.id}`, 200);
    await hit('GET /subscriptions/{id}/deliveries', `/subscriptions/${bad.id}/deliveries`, 200);
    await hit('POST /subscriptions/{id}/disable', `${path}/disable`, 200);
    await hit('GET /subscriptions/{id}/backlog', `${path}/backlog`, 200);
    await hit('POST /subscriptions/{id}/enable', `${path}/enable`, 200, { body: { backlog: 'recover' } });

    // A dead letter of the enrollment's event: listed, shown with its event, recovered; a replay.
    const { published: _p, publishedAt: _at, ...envelope } = added;
    const at = new Date(s.runtime.now() - 60_000).toISOString();
    await env.subscriptionStores.deliveries.create({
      id: `dlv_dead_${added.id}`,
      subscriptionId: sub.id,
      eventId: added.id,
      eventType: added.type,
      envelope,
      origin: 'event',
      status: 'dead',
      attempts: 8,
      nextAttemptAt: at,
      createdAt: at,
      updatedAt: at,
      lastAttemptAt: at,
      lastStatusCode: 500,
    });
    await hit('GET /subscriptions/{id}/dead-letters', `${path}/dead-letters`, 200);
    const shown = await hit('GET /events/{id}', `/events/${added.id}`, 200);
    expect(shown.deliveries.map((d: Json) => d.subscriptionId)).toEqual([sub.id]);
    await hit('POST /subscriptions/{id}/recover', `${path}/recover`, 202, {
      body: { since: new Date(s.runtime.now() - 3_600_000).toISOString() },
    });
    await hit('POST /subscriptions/{id}/replay', `${path}/replay`, 202, { body: { eventIds: [added.id] } });

    // The errors share one shape.
    await hit('GET /subscriptions', '/subscriptions', 401, { anonymous: true });
    await hit('GET /subscriptions/{id}', '/subscriptions/sub_nope', 404);
    await hit('GET /enrollments', '/enrollments?limit=0', 400);

    // Removing.
    await hit('DELETE /subscriptions/{id}', `/subscriptions/${bad.id}`, 204);
    await hit('DELETE /enrollments/{id}', `/enrollments/${fleet.enrollmentId}`, 200);

    expect(problems).toEqual([]);
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(
      ([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(documented.filter((o) => !called.has(o))).toEqual([]);
  });
});
