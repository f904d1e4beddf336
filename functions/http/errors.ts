import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** Every error of the HTTP API: `{ error: { code, message, field? } }`. */
export interface ApiErrorBody {
  readonly error: {
    readonly code: string;
    readonly message: string;
    readonly field?: string;
    readonly [extra: string]: unknown;
  };
}

export function errorBody(
  code: string,
  message: string,
  extra: { readonly field?: string | undefined; readonly [k: string]: unknown } = {},
): ApiErrorBody {
  const { field, ...rest } = extra;
  return { error: { code, message, ...(field !== undefined ? { field } : {}), ...rest } };
}

export function sendError(
  c: Context,
  status: ContentfulStatusCode,
  code: string,
  message: string,
  extra: { readonly field?: string | undefined; readonly [k: string]: unknown } = {},
): Response {
  return c.json(errorBody(code, message, extra), status);
}

/** Largest management body accepted (fleet enrollments are tiny). */
export const MAX_JSON_BODY_BYTES = 64 * 1024;

export type JsonBody =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly response: Response };

/** A JSON body, or the 400/413 response naming why not. An empty body is `undefined`. */
export async function readJsonBody(c: Context): Promise<JsonBody> {
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > MAX_JSON_BODY_BYTES) {
    return {
      ok: false,
      response: sendError(c, 413, 'PayloadTooLarge', `body: larger than ${MAX_JSON_BODY_BYTES} bytes`, {
        field: 'body',
      }),
    };
  }
  let text: string;
  try {
    text = await c.req.text();
  } catch {
    return {
      ok: false,
      response: sendError(c, 400, 'Malformed', 'body: could not be read', { field: 'body' }),
    };
  }
  if (Buffer.byteLength(text) > MAX_JSON_BODY_BYTES) {
    return {
      ok: false,
      response: sendError(c, 413, 'PayloadTooLarge', `body: larger than ${MAX_JSON_BODY_BYTES} bytes`, {
        field: 'body',
      }),
    };
  }
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const why = error instanceof Error ? error.message : 'invalid';
    return {
      ok: false,
      response: sendError(c, 400, 'Malformed', `body: not valid JSON (${why})`, { field: 'body' }),
    };
  }
}
