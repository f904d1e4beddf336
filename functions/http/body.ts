/**
 * Request bodies at the HTTP edge, the same on the local server and behind API Gateway:
 *
 * - a body is streamed through Hono's `bodyLimit`, which counts bytes as they arrive and stops
 *   reading at the limit (a chunked body has no Content-Length to check up front), so memory stays
 *   bounded whatever the body's size or transfer encoding; the answer is a 413 in the API's one
 *   error shape;
 * - a body must declare `Content-Type: application/json` (415 otherwise): nothing else is parsed;
 * - every JSON body goes through one zod schema per route (`@hono/zod-validator`), strict objects
 *   that refuse unknown fields and name them; strings holding NUL or a lone UTF-16 surrogate are
 *   refused before the schema runs, naming the field.
 */
import { zValidator } from '@hono/zod-validator';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type * as z from 'zod';
import { errorBody, sendError } from './errors';

/** Largest JSON body accepted on any route (the management bodies are small). */
export const MAX_JSON_BODY_BYTES = 64 * 1024;

/**
 * For comparison (README "Limits"): API Gateway HTTP APIs refuse payloads over 10 MB before the
 * Lambda runs, and a synchronous Lambda invocation carries at most 6 MB; ours is far below both, so
 * the same 413 answers on both paths.
 */
export const API_GATEWAY_MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * Over HTTP/1.1 a request has a body exactly when it carries Transfer-Encoding or a non-zero
 * Content-Length. A Request built in-process (tests, an adapter) may have neither header: then a
 * body stream together with a Content-Type counts as a body.
 */
function hasBody(c: Context): boolean {
  if (c.req.header('transfer-encoding') !== undefined) return true;
  const length = c.req.header('content-length');
  if (length !== undefined) return length.trim() !== '0';
  return c.req.raw.body !== null && c.req.header('content-type') !== undefined;
}

/** 413 in the one error shape, the same on every route. */
export function payloadTooLarge(c: Context): Response {
  return sendError(
    c,
    413,
    'PayloadTooLarge',
    `body: larger than ${MAX_JSON_BODY_BYTES} bytes; send at most ${MAX_JSON_BODY_BYTES} bytes of JSON`,
    { field: 'body' },
  );
}

/**
 * Applies to every request with a body: JSON only (415), at most MAX_JSON_BODY_BYTES, counted while
 * streaming (413). Requests without a body pass untouched.
 */
/** Requests whose body a bodyPolicy already bounded (a sub-app mounted in the app has its own). */
const bounded = new WeakSet<Request>();

export function bodyPolicy(maxBytes: number = MAX_JSON_BODY_BYTES): MiddlewareHandler {
  const limit = bodyLimit({ maxSize: maxBytes, onError: (c) => payloadTooLarge(c) });
  return async (c, next) => {
    if (!hasBody(c) || bounded.has(c.req.raw)) return next();
    const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim() ?? '';
    if (!JSON_MEDIA_TYPE.test(type)) {
      return sendError(
        c,
        415,
        'UnsupportedMediaType',
        `content-type: must be application/json (got ${type === '' ? 'none' : JSON.stringify(type.slice(0, 100))})`,
        { field: 'content-type' },
      );
    }
    return limit(c, async () => {
      bounded.add(c.req.raw);
      await next();
    });
  };
}

/** `url`, `eventTypes[1]`, `body` for the body as a whole. */
export function fieldName(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || 'body';
}

/** A lone surrogate cannot be encoded as UTF-8: it would be stored as U+FFFD or refused downstream. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function stringProblem(s: string): string | undefined {
  if (s.includes('\u0000')) return 'must not contain NUL (U+0000)';
  if (LONE_SURROGATE.test(s)) return 'must not contain a lone UTF-16 surrogate (invalid Unicode)';
  return undefined;
}

export interface FieldIssue {
  readonly field: string;
  readonly reason: string;
}

/** The first string (value or key) in a JSON value that no field may hold, with its path. */
export function findBadString(value: unknown, path: PropertyKey[] = [], depth = 0): FieldIssue | undefined {
  if (depth > 64) return { field: 'body', reason: 'is nested more than 64 levels deep' };
  if (typeof value === 'string') {
    const reason = stringProblem(value);
    return reason ? { field: fieldName(path), reason } : undefined;
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findBadString(item, [...path, i], depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = stringProblem(key);
      if (keyProblem) return { field: fieldName([...path, key]), reason: `field name ${keyProblem}` };
      const found = findBadString(item, [...path, key], depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

export function issuesOf(error: z.core.$ZodError): FieldIssue[] {
  return error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      // Name the unknown field itself, not the object holding it.
      const first = issue.keys[0] ?? '';
      return {
        field: fieldName([...issue.path, first]),
        reason: `unknown field(s): ${issue.keys.join(', ')}`,
      };
    }
    const reason = issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message;
    return { field: fieldName(issue.path), reason };
  });
}

function invalidBody(c: Context, code: string, issues: readonly FieldIssue[]): Response {
  const first = issues[0] ?? { field: 'body', reason: 'is not valid' };
  return c.json(
    errorBody(code, issues.map((i) => `${i.field}: ${i.reason}`).join('; '), {
      field: first.field,
      issues,
    }),
    400,
  );
}

export interface JsonBodyOptions {
  /** The error code of a schema failure (`Malformed` on the webhook routes, `InvalidInput` elsewhere). */
  readonly code?: string;
}

/**
 * The route's JSON body, validated by `schema` (read it with `c.req.valid('json')`). An absent or
 * empty body is validated as `undefined`, so a schema that needs an object says "is required".
 */
export function jsonBody<S extends z.ZodType>(schema: S, options: JsonBodyOptions = {}) {
  const code = options.code ?? 'InvalidInput';
  const validate = zValidator('json', schema, (result, c) => {
    if (!result.success) return invalidBody(c, code, issuesOf(result.error));
    return undefined;
  });
  const middleware: MiddlewareHandler = async (c, next) => {
    // Without a body Hono's validator hands the schema `{}`; the schema must see "nothing"
    // instead, so a required body is named as missing. The text read here (already bounded by
    // bodyPolicy) is cached by Hono and parsed once by the validator.
    const text = hasBody(c) ? await c.req.text() : '';
    if (text.trim() === '') {
      const parsed = await schema.safeParseAsync(undefined);
      if (!parsed.success) {
        return invalidBody(c, code, [{ field: 'body', reason: 'is required (a JSON object)' }]);
      }
      c.req.addValidatedData('json', parsed.data as object);
      return next();
    }
    // Checked on the body as sent, before any schema transforms it (a URL parser would
    // percent-encode a NUL and hide it).
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      raw = undefined; // malformed: the validator's reader reports it below
    }
    const bad = raw === undefined ? undefined : findBadString(raw);
    if (bad) return invalidBody(c, code, [bad]);
    try {
      return await validate(c, next);
    } catch (error) {
      // Hono's JSON reader throws a 400 HTTPException on malformed JSON.
      if (error instanceof HTTPException && error.status === 400) {
        return sendError(c, 400, 'Malformed', 'body: is not valid JSON', {
          field: 'body',
          issues: [{ field: 'body', reason: 'is not valid JSON' }],
        });
      }
      throw error;
    }
  };
  // Typed as the validator it wraps, so handlers read `c.req.valid('json')` with the schema's type.
  return middleware as unknown as typeof validate;
}
