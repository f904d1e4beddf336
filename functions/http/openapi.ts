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
import { errorBody } from './errors';

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

  /** The OpenAPI 3.1 document of every route recorded. */
  document(info: { readonly title: string; readonly version: string }): Record<string, unknown> {
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
          ? { content: { 'application/json': { schema: toSchema(response.schema) } } }
          : response.mediaType
            ? { content: { [response.mediaType]: { schema: { type: 'string' } } } }
            : {};
        responses[status] = { description: response.description, ...content };
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
                content: { 'application/json': { schema: toSchema(spec.body) } },
              },
            }
          : {}),
        responses,
      };
      paths[openApiPath(spec.path)] = { ...paths[openApiPath(spec.path)], [spec.method]: operation };
    }
    return {
      openapi: '3.1.0',
      info: {
        ...info,
        description:
          'Carhook management and enrollment API. Management routes take SigV4 (IAM) on AWS, or the admin token as a bearer locally and from the console.',
      },
      // Management routes by default; public routes clear it (`security: []`).
      security: [{ adminToken: [] }, { sigv4: [] }],
      components: {
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
      paths,
    };
  }
}

/** The API's error shape, for the document. */
export const errorSchema = z
  .object({
    error: z
      .object({
        code: z.string(),
        message: z.string(),
        field: z.string().optional(),
        issues: z.array(z.object({ field: z.string(), reason: z.string() })).optional(),
      })
      .loose(),
  })
  .meta({ description: 'Every error: a code, a message and the offending field when there is one.' });

export const errorResponse = (description: string): ResponseSpec => ({ description, schema: errorSchema });
