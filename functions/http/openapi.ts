/**
 * Routes declared once, served and documented from the same declaration.
 *
 * A route is registered through `RouteBook.add`: its path parameters, query and JSON body are zod
 * schemas that validate the request before the handler runs, and the same schema objects are turned
 * into the OpenAPI 3.1 document (`GET /openapi.json`) with zod's own `z.toJSONSchema`. OpenAPI 3.1
 * uses JSON Schema draft 2020-12 as its schema dialect, which is zod's default target, so nothing is
 * translated by hand and the document cannot describe a request the route would validate otherwise.
 *
 * Every validation failure is a 400 in the API's one error shape, naming the field
 * (`{ error: { code, message, field, issues } }`).
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import * as z from 'zod';
import { issuesOf, jsonBody } from './body';
import { apiSchemas, errorSchema } from './contract';
import { errorBody } from './errors';
import { WEBHOOK_TAG, webhookSchemas, webhooksSection } from './webhooks-document';

const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  service: 'The service itself: liveness and this document.',
  console: 'The web console: its page and assets.',
  enrollment: 'Enrolling users through the brand’s sign-in (OAuth).',
  enrollments: 'Enrollments (users, fleet contracts) and their vehicles.',
  vehicles: 'Vehicles: connection state, planned reads, recent events; pause and resume.',
  events: 'The event log and the event catalogue.',
  metrics: 'Quota use and detection lag.',
  subscriptions: 'Webhook subscriptions, their deliveries, replay and recovery.',
  [WEBHOOK_TAG]: 'What a subscription receives: one signed request per event.',
};

type Method = 'get' | 'post' | 'patch' | 'delete';
type AnyObject = z.ZodObject<z.ZodRawShape>;

export interface ResponseSpec {
  readonly description: string;
  /** JSON body (application/json); omitted for an empty answer. */
  readonly schema?: z.ZodType;
  /** Another media type than JSON (the console's page and assets, a redirect). */
  readonly mediaType?: string;
}

export interface RouteSpec<P extends AnyObject | undefined, Q extends AnyObject | undefined, B> {
  readonly method: Method;
  /** Hono path syntax (`/subscriptions/:id`); the document spells it `/subscriptions/{id}`. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tag: string;
  /** `public`: no credentials; `management`: IAM on AWS, the admin token locally and in the console. */
  readonly access: 'public' | 'management';
  readonly params?: P;
  readonly query?: Q;
  /** Query parameters that may repeat (`?type=a&type=b`): the schema receives every value. */
  readonly repeated?: readonly string[];
  readonly body?: B;
  /** The body's name in `components.schemas` (every body has one). */
  readonly bodyName?: string;
  /** Error code of a body that fails its schema (default `InvalidInput`). */
  readonly bodyErrorCode?: string;
  readonly responses: Readonly<Record<number, ResponseSpec>>;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface Validated<P, Q, B> {
  readonly params: Out<P>;
  readonly query: Out<Q>;
  readonly body: Out<B>;
}

type Described = RouteSpec<AnyObject | undefined, AnyObject | undefined, z.ZodType | undefined>;

/** Hono's `:id` → OpenAPI's `{id}`. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const toSchema = (schema: z.ZodType): Record<string, unknown> => {
  // `io: 'input'`: what a client sends (before defaults and transforms); a refinement that JSON
  // Schema cannot state (a URL policy, a DNS check) is left to the route, not guessed at.
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return rest;
};

function invalid(c: Context, issues: readonly { field: string; reason: string }[]): Response {
  const first = issues[0] ?? { field: 'query', reason: 'is not valid' };
  return c.json(
    errorBody('InvalidInput', `${first.field}: ${first.reason}`, { field: first.field, issues }),
    400,
  );
}

/** The routes of one app (and the sub-apps it mounts), as served and as documented. */
export class RouteBook {
  readonly #routes: Described[] = [];

  /** Registers the route on `app` with its validators, and records it for the document. */
  add<P extends AnyObject | undefined, Q extends AnyObject | undefined, B extends z.ZodType | undefined>(
    app: Hono,
    spec: RouteSpec<P, Q, B>,
    handler: (c: Context, input: Validated<P, Q, B>) => Response | Promise<Response>,
  ): void {
    this.#routes.push(spec as unknown as Described);
    const body = spec.body ? jsonBody(spec.body, { code: spec.bodyErrorCode ?? 'InvalidInput' }) : undefined;
    const run = async (c: Context): Promise<Response> => {
      let params: unknown;
      if (spec.params) {
        const parsed = spec.params.safeParse(c.req.param());
        if (!parsed.success) return invalid(c, issuesOf(parsed.error));
        params = parsed.data;
      }
      let query: unknown;
      if (spec.query) {
        const raw: Record<string, unknown> = {};
        for (const key of Object.keys(spec.query.shape)) {
          const values = c.req.queries(key);
          if (values === undefined) continue;
          raw[key] = spec.repeated?.includes(key) ? values : values[0];
        }
        const parsed = spec.query.safeParse(raw);
        if (!parsed.success) return invalid(c, issuesOf(parsed.error));
        query = parsed.data;
      }
      const json = spec.body ? (c.req.valid as (target: 'json') => unknown)('json') : undefined;
      return handler(c, { params, query, body: json } as Validated<P, Q, B>);
    };
    const method = spec.method.toUpperCase();
    if (body) app.on(method, spec.path, body as unknown as MiddlewareHandler, run);
    else app.on(method, spec.path, run);
  }

  /** Every route recorded so far (method, path), in registration order. */
  routes(): readonly { readonly method: Method; readonly path: string }[] {
    return this.#routes.map(({ method, path }) => ({ method, path }));
  }

  /**
   * The OpenAPI 3.1 document of every route recorded: every body and JSON answer is a named schema
   * of `components.schemas` (functions/http/contract.ts names the answers, each route its body), and
   * `webhooks` describes what a subscriber receives, one entry per event type.
   */
  document(info: { readonly title: string; readonly version: string }): Record<string, unknown> {
    // Two sets of named schemas: what clients send (bodies, read as input: before defaults and
    // transforms) and what the API sends (answers and webhooks, read as output: a field not in the
    // schema is `additionalProperties: false`, so an answer carrying an undocumented field fails).
    const sent = z.registry<{ id: string }>();
    const received = z.registry<{ id: string }>();
    const names = new Map<string, z.ZodType>();
    const register = (registry: typeof sent, id: string, schema: z.ZodType, where: string) => {
      const known = names.get(id);
      if (known === schema) return;
      if (known) throw new Error(`OpenAPI: two different schemas are named ${id} (${where})`);
      names.set(id, schema);
      registry.add(schema, { id });
    };
    for (const [id, schema] of apiSchemas._idmap) register(sent, id, schema as z.ZodType, 'contract');
    for (const [id, schema] of webhookSchemas()) register(sent, id, schema, 'webhooks');
    for (const spec of this.#routes) {
      if (!spec.body) continue;
      if (!spec.bodyName) throw new Error(`OpenAPI: the body of ${spec.operationId} has no name (bodyName)`);
      register(received, spec.bodyName, spec.body, spec.operationId);
    }
    const ref = (schema: z.ZodType, where: string) => {
      const id = sent.get(schema)?.id ?? received.get(schema)?.id;
      if (!id)
        throw new Error(`OpenAPI: ${where} answers JSON without a named schema (functions/http/contract.ts)`);
      return { $ref: `#/components/schemas/${id}` };
    };
    const components: Record<string, unknown> = {};
    for (const [registry, io] of [
      [sent, 'output'],
      [received, 'input'],
    ] as const) {
      const { schemas } = z.toJSONSchema(registry, {
        uri: (id) => `#/components/schemas/${id}`,
        io,
        unrepresentable: 'any',
      }) as { schemas: Record<string, Record<string, unknown>> };
      for (const [id, schema] of Object.entries(schemas)) {
        const { $id: _id, $schema: _dialect, ...rest } = schema;
        components[id] = rest;
      }
    }

    const paths: Record<string, Record<string, unknown>> = {};
    for (const spec of this.#routes) {
      const parameters: Record<string, unknown>[] = [];
      for (const [name, schema] of Object.entries(spec.params?.shape ?? {})) {
        parameters.push({ name, in: 'path', required: true, schema: toSchema(schema as z.ZodType) });
      }
      for (const [name, field] of Object.entries(spec.query?.shape ?? {})) {
        const schema = field as z.ZodType;
        const json = toSchema(schema);
        const description = typeof json.description === 'string' ? json.description : undefined;
        parameters.push({
          name,
          in: 'query',
          required: !schema.safeParse(undefined).success,
          ...(description ? { description } : {}),
          ...(spec.repeated?.includes(name) ? { style: 'form', explode: true } : {}),
          schema: json,
        });
      }
      const responses: Record<string, unknown> = {};
      for (const [status, response] of Object.entries(spec.responses)) {
        const content = response.schema
          ? {
              content: {
                'application/json': { schema: ref(response.schema, `${spec.operationId} ${status}`) },
              },
            }
          : response.mediaType
            ? { content: { [response.mediaType]: { schema: { type: 'string' } } } }
            : {};
        responses[status] = { description: response.description, ...content };
      }
      // Every management route refuses a caller without the admin token (or, on AWS, IAM's own 403).
      if (spec.access === 'management' && responses['401'] === undefined) {
        responses['401'] = {
          description: 'No admin token, or a wrong one (on AWS, IAM answers 403 before the route).',
          content: { 'application/json': { schema: ref(errorSchema, `${spec.operationId} 401`) } },
        };
      }
      const operation = {
        operationId: spec.operationId,
        summary: spec.summary,
        ...(spec.description ? { description: spec.description } : {}),
        tags: [spec.tag],
        ...(spec.access === 'public' ? { security: [] } : {}),
        ...(parameters.length > 0 ? { parameters } : {}),
        ...(spec.body
          ? {
              requestBody: {
                required: !spec.body.safeParse(undefined).success,
                content: { 'application/json': { schema: ref(spec.body, `${spec.operationId} body`) } },
              },
            }
          : {}),
        responses,
      };
      paths[openApiPath(spec.path)] = { ...paths[openApiPath(spec.path)], [spec.method]: operation };
    }
    const tags = [...new Set(this.#routes.map((r) => r.tag)), WEBHOOK_TAG];
    return {
      openapi: '3.1.0',
      info: {
        ...info,
        description:
          'Carhook management and enrollment API. Management routes take SigV4 (IAM) on AWS, or the admin token as a bearer locally and from the console. `webhooks` describes what a subscription receives: one request per event, signed as Standard Webhooks say.',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      // Relative: the routes are where this document is served from.
      servers: [{ url: '/', description: 'This Carhook API (the document is served at its root)' }],
      tags: tags.map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name })),
      // Management routes by default; public routes clear it (`security: []`).
      security: [{ adminToken: [] }, { sigv4: [] }],
      paths,
      webhooks: webhooksSection(),
      components: {
        schemas: components,
        securitySchemes: {
          adminToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'The admin token (local runtime; the console on AWS under /console-api).',
          },
          sigv4: {
            type: 'apiKey',
            name: 'Authorization',
            in: 'header',
            description: 'AWS Signature Version 4 (service execute-api): API Gateway IAM authorization.',
          },
        },
      },
    };
  }
}

export const errorResponse = (description: string): ResponseSpec => ({ description, schema: errorSchema });
