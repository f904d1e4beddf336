import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { createHttpApp } from '../../functions/http/app';
import type { createWebhooks } from '../../functions/runtime/webhooks';
import { CARHOOK_HTTP_ROUTES } from '../../lib/constructs/carhook-http-api';
import type { SimRuntime } from '../runtime/support';
import { documentedApp, DOCUMENT_TOKEN as TOKEN } from './document-support';

const auth = { authorization: `Bearer ${TOKEN}` };

// biome-ignore lint/suspicious/noExplicitAny: the document is JSON, read freely by the test.
type Json = any;

const sorted = (xs: readonly string[]) => [...xs].sort();

/** Ajv over the document's components: `schemaOf(schema)` validates against a schema that may `$ref` them. */
function componentsAjv(doc: Json) {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  ajv.addSchema({ $id: 'carhook-openapi', components: doc.components });
  return (schema: Json) => {
    const rebased = JSON.parse(
      JSON.stringify(schema).replaceAll('"#/components/', '"carhook-openapi#/components/'),
    ) as Json;
    return ajv.compile(rebased);
  };
}

describe('GET /openapi.json', () => {
  let s: SimRuntime;
  let app: ReturnType<typeof createHttpApp>;
  let doc: Json;
  let webhooks: Awaited<ReturnType<typeof createWebhooks>>;
  let close: () => Promise<void>;

  beforeEach(async () => {
    ({ s, app, doc, webhooks, close } = await documentedApp());
  });
  afterEach(() => close());

  /** Every route the app serves, `GET /events` with `{id}` for `:id` (middleware excluded). */
  const served = () => [
    ...new Set(
      app.routes
        .filter((r) => r.method !== 'ALL')
        .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`),
    ),
  ];
  const documented = () =>
    Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );

  it('is a valid OpenAPI 3.1 document, without authentication', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('states every schema as valid JSON Schema 2020-12 (the OpenAPI 3.1 dialect), each named schema too', () => {
    const compile = componentsAjv(doc);
    let count = 0;
    JSON.stringify(doc, (key, value) => {
      if (key === 'schema') {
        compile(value); // throws on a schema that is not valid 2020-12, or a $ref to nothing
        count += 1;
      }
      return value;
    });
    expect(count).toBeGreaterThan(30);
    for (const name of Object.keys(doc.components.schemas)) compile({ $ref: `#/components/schemas/${name}` });
  });

  it('documents exactly the routes the app serves, and the routes API Gateway declares', () => {
    expect(sorted(documented())).toEqual(sorted(served()));
    expect(served()).toContain('GET /openapi.json');
    expect(served()).toContain('POST /subscriptions/{id}/replay');
    expect(sorted(CARHOOK_HTTP_ROUTES.map((r) => `${r.method} ${r.path}`))).toEqual(sorted(documented()));
  });

  it('marks public routes public and every management route as needing credentials', () => {
    for (const route of CARHOOK_HTTP_ROUTES) {
      const op = doc.paths[route.path][route.method.toLowerCase()];
      if (route.access === 'public') expect(op.security, route.path).toEqual([]);
      else expect(op.security, route.path).toBeUndefined(); // the document's default: admin token or SigV4
    }
    expect(doc.security).toEqual([{ adminToken: [] }, { sigv4: [] }]);
  });

  it('states the request schemas the routes validate with', async () => {
    expect(doc.paths['/subscriptions'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CreateSubscription',
    });
    const create = doc.components.schemas.CreateSubscription;
    const { $schema: _d, ...expected } = z.toJSONSchema(webhooks.service.schemas.create, {
      io: 'input',
      unrepresentable: 'any',
    }) as Json;
    expect(create).toEqual(expected);
    expect(create.additionalProperties).toBe(false);
    expect(create.required).toEqual(['url']);

    const events = doc.paths['/events'].get.parameters as Json[];
    expect(events.map((p) => p.name)).toEqual([
      'limit',
      'cursor',
      'since',
      'until',
      'type',
      'vehicleId',
      'vin',
    ]);
    expect(events.every((p) => p.in === 'query' && p.required === false)).toBe(true);
    // What the document says is refused, the route refuses, naming the same field.
    const bad = await app.request('/events?limit=101', { headers: auth });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).error.field).toBe('limit');
    const byId = doc.paths['/enrollments/{id}'].get.parameters as Json[];
    expect(byId).toEqual([expect.objectContaining({ name: 'id', in: 'path', required: true })]);
  });

  it('describes what the routes answer (responses checked against the documented schemas)', async () => {
    const compile = componentsAjv(doc);
    const check = async (method: string, path: string, docPath: string, status: number, body?: unknown) => {
      const res = await app.request(path, {
        method,
        headers: { ...auth, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      expect(res.status, `${method} ${path}`).toBe(status);
      const json = await res.json();
      const schema =
        doc.paths[docPath][method.toLowerCase()].responses[String(status)].content['application/json'].schema;
      const validate = compile(schema);
      expect(validate(json) ? [] : validate.errors, `${method} ${path}`).toEqual([]);
      return json as Json;
    };
    await check('GET', '/health', '/health', 200);
    // A fleet vehicle the API knows (the contract is checked with it before anything is stored).
    const car = s.sim.world.vehicles()[0];
    if (!car) throw new Error('the simulator has vehicles');
    const enrolled = await check('POST', '/enrollments/contracts', '/enrollments/contracts', 201, {
      vin: car.vin,
      contract: car.contract,
      brand: car.brand,
    });
    await check('POST', '/enrollments/contracts', '/enrollments/contracts', 404, {
      vin: 'WDD2220561A000001',
      contract: car.contract,
      brand: car.brand,
    });
    await check('GET', '/enrollments', '/enrollments', 200);
    await check('GET', `/enrollments/${enrolled.enrollmentId}`, '/enrollments/{id}', 200);
    await check('GET', '/events', '/events', 200);
    await check('GET', '/enrollments?limit=0', '/enrollments', 400);
    const sub = await check('POST', '/subscriptions', '/subscriptions', 201, {
      url: 'http://127.0.0.1:8999/h',
    });
    await check('GET', `/subscriptions/${sub.id}`, '/subscriptions/{id}', 200);
    await check('POST', `/subscriptions/${sub.id}/disable`, '/subscriptions/{id}/disable', 200);
    await check('GET', '/subscriptions/sub_nope', '/subscriptions/{id}', 404);
  });
});
