import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/**
 * The simulator's one error body (the API does not show one): every 4xx/5xx answers
 * `application/json` with
 *   { "error": { "status": 404, "code": "not_found", "message": "…", "field"?: "…" } }
 * `field` names the offending parameter for 400s. Documented in sim/README.md.
 */
export type SimErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'rate_limited'
  | 'server_error'
  | 'invalid_grant'
  | 'invalid_client'
  | 'unsupported_grant_type'
  | 'conflict';

export interface SimErrorBody {
  readonly error: {
    readonly status: number;
    readonly code: SimErrorCode;
    readonly message: string;
    readonly field?: string;
  };
}

export function errorBody(status: number, code: SimErrorCode, message: string, field?: string): SimErrorBody {
  return { error: { status, code, message, field } };
}

export function simError(
  c: Context,
  status: ContentfulStatusCode,
  code: SimErrorCode,
  message: string,
  field?: string,
): Response {
  return c.json(errorBody(status, code, message, field), status);
}

/** 400 for an invalid or missing parameter, naming it. */
export function invalidParam(c: Context, field: string, why: string): Response {
  return simError(c, 400, 'invalid_request', `Invalid parameter '${field}': ${why}`, field);
}
