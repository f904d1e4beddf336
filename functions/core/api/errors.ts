/**
 * Errors of the API client are VALUES: every call returns a `Result`, and a failure carries an
 * `ApiError` with a `kind` the caller switches on (no try/catch). Every error is a plain,
 * serializable object whose texts are redacted (no token, secret or authorization code ever
 * appears in `message` or `excerpt`), so it can be logged or stored as-is.
 *
 * For code that prefers exceptions (the CLI, scripts), `unwrap(result)` throws a
 * `CarhookApiError` carrying the same value.
 */
import type { Err, Ok } from '../result';

export type ApiErrorKind =
  | 'Unauthorized'
  | 'AccessDenied'
  | 'NotFound'
  | 'RateLimited'
  | 'Upstream'
  | 'Timeout'
  | 'Malformed'
  | 'InvalidRequest'
  | 'InvalidGrant'
  | 'Network';

interface ErrorBase {
  /** Operation id from operations.json (`v2.vehicles.alerts`, `auth.token`…). */
  readonly operation: string;
  /** Human-readable, redacted. */
  readonly message: string;
  /** HTTP status of the last response, when there was one. */
  readonly status?: number;
}

/** 401 even after one token refresh, or no usable token at all. */
export interface UnauthorizedError extends ErrorBase {
  readonly kind: 'Unauthorized';
}
/** 403: the enrollment lost access to the vehicle or trip. */
export interface AccessDeniedError extends ErrorBase {
  readonly kind: 'AccessDenied';
}
/** 404 on a single resource: vehicle, trip, last position. Never returned for lists. */
export interface NotFoundError extends ErrorBase {
  readonly kind: 'NotFound';
}
/** 429 that could not be waited out within the retry budget. */
export interface RateLimitedError extends ErrorBase {
  readonly kind: 'RateLimited';
  /** When the server's window resets (`X-RateLimit-Reset` seconds after the response), if sent. */
  readonly resetAt?: Date;
  readonly limit?: number;
  readonly remaining?: number;
}
/** 5xx (or an unexpected status) after the retries were spent. */
export interface UpstreamError extends ErrorBase {
  readonly kind: 'Upstream';
  readonly status: number;
}
/** The attempt's timeout elapsed (after retries), or the caller's signal aborted (`aborted: true`). */
export interface TimeoutError extends ErrorBase {
  readonly kind: 'Timeout';
  readonly aborted: boolean;
}
/** The body was not JSON or did not match the operation's schema. */
export interface MalformedError extends ErrorBase {
  readonly kind: 'Malformed';
  /** At most 200 characters of the body, redacted. */
  readonly excerpt: string;
  /** Where the schema failed (`_embedded.alerts.0.id: expected string`), when it did. */
  readonly issues?: readonly string[];
}
/** 400 from the server, or a parameter refused before any request was sent. */
export interface InvalidRequestError extends ErrorBase {
  readonly kind: 'InvalidRequest';
  /** The offending parameter, when known. */
  readonly field?: string;
}
/** The token endpoint answered `invalid_grant`: the enrollment must be re-authorized. */
export interface InvalidGrantError extends ErrorBase {
  readonly kind: 'InvalidGrant';
}
/** The request never got a response (DNS, connection refused, reset…), after retries. */
export interface NetworkError extends ErrorBase {
  readonly kind: 'Network';
}

export type ApiError =
  | UnauthorizedError
  | AccessDeniedError
  | NotFoundError
  | RateLimitedError
  | UpstreamError
  | TimeoutError
  | MalformedError
  | InvalidRequestError
  | InvalidGrantError
  | NetworkError;

/**
 * The outcome of one client call. `requests` counts the HTTP requests the call sent to the API,
 * including retries and the one replay after a token refresh (token endpoint requests are counted
 * separately in `client.stats()`).
 */
export type Result<T, E extends ApiError = ApiError> =
  | (Ok<T> & { readonly requests: number })
  | (Err<E> & { readonly requests: number });

export function ok<T>(value: T, requests: number): Result<T, never> {
  return { ok: true, value, requests };
}

export function fail<E extends ApiError>(error: E, requests: number): Result<never, E> {
  return { ok: false, error, requests };
}

/** An `ApiError` as an exception, for callers that prefer throwing (`unwrap`). */
export class CarhookApiError extends Error {
  override readonly name = 'CarhookApiError';
  readonly kind: ApiErrorKind;
  readonly error: ApiError;

  constructor(error: ApiError) {
    super(`${error.kind} (${error.operation}): ${error.message}`);
    this.kind = error.kind;
    this.error = error;
  }

  toJSON(): ApiError {
    return this.error;
  }
}

/** The value of a successful result, or throws its error as a `CarhookApiError`. */
export function unwrap<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  throw new CarhookApiError(result.error);
}

export function isApiError(value: unknown): value is ApiError {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { kind?: unknown }).kind === 'string' &&
    typeof (value as { operation?: unknown }).operation === 'string' &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

export function invalidRequest(operation: string, field: string, why: string): InvalidRequestError {
  return { kind: 'InvalidRequest', operation, field, message: `Invalid parameter '${field}': ${why}` };
}

// ---- Redaction ----

const REDACTED = '[REDACTED]';

/**
 * Strips credentials from a text: the given secrets verbatim, bearer/basic credentials, and
 * OAuth parameters (`access_token`, `refresh_token`, `code`, `client_secret`, `code_verifier`)
 * in query strings, forms and JSON.
 */
export function redact(text: string, secrets: Iterable<string | undefined> = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join(REDACTED);
  }
  return out
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`)
    .replace(
      /((?:access_token|refresh_token|id_token|client_secret|code_verifier|code)=)[^&\s"']+/gi,
      `$1${REDACTED}`,
    )
    .replace(
      /("(?:access_token|refresh_token|id_token|client_secret|code_verifier|code)"\s*:\s*")[^"]*"/gi,
      `$1${REDACTED}"`,
    );
}

/** A bounded, redacted excerpt of a body for `Malformed` errors (spec-independent safety rule). */
export function excerpt(text: string, secrets: Iterable<string | undefined> = [], max = 200): string {
  const clean = redact(text, secrets);
  return clean.length <= max ? clean : `${clean.slice(0, max - 1)}…`;
}
