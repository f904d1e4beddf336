/**
 * One contract for the API, the console and the CLI: the served OpenAPI document names every body
 * and answer (`components.schemas`), describes what a subscriber receives (`webhooks`), and gives
 * each route the answer the route map types it with. What the tools make of it (Redocly, the client
 * openapi-typescript generates and examples/api-client holds, the compiler on the console and the
 * CLI) is ./contract-tools.test.ts.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as z from 'zod';
import type { fleetContractSchema } from '../../functions/core/enrollment';
import { EVENT_TYPES } from '../../functions/core/events/catalogue';
import { apiSchemas } from '../../functions/http/contract';
import { routeAnswers } from '../../functions/http/route-answers';
import type { RouteBody } from '../../functions/http/routes';
import { ROOT } from '../e2e/support';
import { documentedApp } from './document-support';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The route map spells the fleet contract's body (its schema lives with Node code): the two agree. */
const fleetBodyAgrees: Same<
  z.input<typeof fleetContractSchema>,
  RouteBody<'POST /enrollments/contracts'>
> = true;

// biome-ignore lint/suspicious/noExplicitAny: the document is JSON, read freely by the test.
type Json = any;

describe('the contract', () => {
  let doc: Json;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ doc, close } = await documentedApp());
  }, 60_000);
  afterAll(async () => {
    await close();
  });

  it('names every body and JSON answer in components.schemas', () => {
    const schemas = doc.components.schemas as Record<string, Json>;
    for (const name of [
      'Subscription',
      'SubscriptionHealth',
      'Delivery',
      'Attempt',
      'Event',
      'Vehicle',
      'Error',
    ])
      expect(schemas[name], name).toBeDefined();
    const inline: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      for (const [method, op] of Object.entries(operations)) {
        const contents = [
          ...Object.entries(op.responses ?? {}).map(([status, r]) => [status, (r as Json).content]),
          ['body', op.requestBody?.content],
        ];
        for (const [what, content] of contents) {
          const schema = content?.['application/json']?.schema;
          if (schema && !(typeof schema.$ref === 'string' && schema.$ref.startsWith('#/components/schemas/')))
            inline.push(`${method} ${path} ${what}`);
        }
      }
    }
    expect(inline).toEqual([]);
    // Answers are documented as output: a field not in the schema is not allowed.
    expect(schemas.Vehicle.additionalProperties).toBe(false);
    expect(schemas.Vehicle.properties.lastPolledAt).toBeUndefined();
  });

  it('describes in `webhooks` what a subscriber receives, one entry per event type, and the samples received match it', async () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    const fixed = doc.webhooks['vehicle.alert.fixed'].post;
    expect(fixed.parameters.map((p: Json) => `${p.in} ${p.name}`)).toEqual([
      'header webhook-id',
      'header webhook-timestamp',
      'header webhook-signature',
    ]);
    expect(fixed.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/VehicleAlertFixedWebhook',
    });
    // Every sample a webhook received in the end-to-end catalogue test, as the body it came in.
    const samples = JSON.parse(await readFile(join(ROOT, 'docs', 'events.samples.json'), 'utf8')) as Record<
      string,
      Json
    >;
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'doc', components: doc.components });
    for (const [type, envelope] of Object.entries(samples)) {
      const name = doc.webhooks[type].post.requestBody.content['application/json'].schema.$ref
        .split('/')
        .at(-1);
      const validate = ajv.getSchema(`doc#/components/schemas/${name}`);
      if (!validate) throw new Error(`no schema ${name}`);
      const body = { type, timestamp: envelope.occurredAt, data: envelope };
      expect(validate(body) ? [] : validate.errors, type).toEqual([]);
      expect(validate({ ...body, type: 'vehicle.other' }), `${type} with another type`).toBe(false);
    }
  });

  it('the route map gives each management route the answer the document gives it, and names no other route', () => {
    const documented: Record<string, string | undefined> = {};
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      for (const [method, op] of Object.entries(operations)) {
        if (Array.isArray(op.security) && op.security.length === 0) continue; // public: not called by name
        const [status, success] = Object.entries(op.responses as Record<string, Json>).find(([code]) =>
          code.startsWith('2'),
        ) ?? ['none', undefined];
        const ref = success?.content?.['application/json']?.schema?.$ref as string | undefined;
        documented[`${method.toUpperCase()} ${path}`] = ref ? ref.split('/').at(-1) : `no body (${status})`;
      }
    }
    const mapped = Object.fromEntries(
      Object.entries(routeAnswers).map(([route, schema]) => [
        route,
        schema === null ? 'no body (204)' : (apiSchemas.get(schema)?.id ?? 'unnamed'),
      ]),
    );
    expect(mapped).toEqual(documented);
    expect(fleetBodyAgrees).toBe(true);
  });
});
