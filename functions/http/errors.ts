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
