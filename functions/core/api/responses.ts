/**
 * Reading an API response without sending anything: the rate-limit headers, the error detail of a
 * body, and the typed error a status stands for. Pure functions of the response, so the transport's
 * retry loop keeps only the decisions (refresh, wait, retry, give up).
 */
import type { ApiError } from './errors';

/** The largest epoch ms a Date holds (ECMA-262 21.4.1.1). */
const MAX_DATE_MS = 8.64e15;

function headerNumber(headers: Headers, name: string): number | undefined {
  const raw = headers.get(name);
  if (raw === null || raw.trim() === '') return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

export interface RateHeaders {
  readonly limit?: number;
  readonly remaining?: number;
  readonly resetAt?: Date;
}

/**
 * `X-RateLimit-Limit`, `-Remaining` and `-Reset`. The API sends the reset as seconds to wait until
 * the counter resets; `Retry-After` (RFC 9110, seconds) stands in when a 429 lacks it. A value that
 * can only be an epoch (after 2001 in seconds) is read as one rather than as a 30-year wait.
 */
export function readRateHeaders(status: number, headers: Headers, now: number): RateHeaders {
  const limit = headerNumber(headers, 'x-ratelimit-limit');
  const remaining = headerNumber(headers, 'x-ratelimit-remaining');
  const resetS =
    headerNumber(headers, 'x-ratelimit-reset') ??
    (status === 429 ? headerNumber(headers, 'retry-after') : undefined);
  const resetMs =
    resetS === undefined
      ? undefined
      : resetS > 1_000_000_000
        ? Math.max(now, resetS * 1000)
        : now + Math.max(0, resetS) * 1000;
  // A reset beyond what a Date holds (`1e300`) is no reset time: it would make an Invalid Date
  // whose toISOString throws. The 429 is then backed off like one without the header.
  const resetAt = resetMs !== undefined && resetMs <= MAX_DATE_MS ? new Date(resetMs) : undefined;
  return {
    ...(limit !== undefined ? { limit } : {}),
    ...(remaining !== undefined ? { remaining } : {}),
    ...(resetAt ? { resetAt } : {}),
  };
}

export interface ErrorDetail {
  readonly message?: string;
  readonly field?: string;
}

/** The message (and the field, for a validation error) of an error body, redacted and bounded. */
export function errorDetail(text: string, redact: (text: string) => string): ErrorDetail {
  try {
    const body = JSON.parse(text) as unknown;
    const error = (body as { error?: unknown }).error;
    const inner =
      typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : undefined;
    const message =
      (typeof inner?.message === 'string' ? inner.message : undefined) ??
      (typeof (body as { message?: unknown }).message === 'string'
        ? (body as { message: string }).message
        : undefined) ??
      (typeof error === 'string' ? error : undefined);
    const field = typeof inner?.field === 'string' ? inner.field : undefined;
    return {
      ...(message ? { message: redact(message).slice(0, 200) } : {}),
      ...(field ? { field } : {}),
    };
  } catch {
    return text.trim() ? { message: redact(text).slice(0, 200) } : {};
  }
}

/**
 * The error a non-2xx status (other than 429) stands for. 403 means the user (the enrollment) has
 * no access to this vehicle or trip; 5xx is `Upstream` and the only kind here worth a retry; other
 * statuses (3xx without redirect, 410…) are `Upstream` too but nothing suggests a retry helps.
 */
export function statusError(operation: string, status: number, detail: ErrorDetail): ApiError {
  const why = detail.message ? `: ${detail.message}` : '';
  const message = `${status} from the API${why}`;
  switch (status) {
    case 401:
      return { kind: 'Unauthorized', operation, status, message };
    case 403:
      return { kind: 'AccessDenied', operation, status, message };
    case 404:
      return { kind: 'NotFound', operation, status, message };
    case 400:
    case 405:
    case 409:
    case 415:
    case 422:
      return {
        kind: 'InvalidRequest',
        operation,
        status,
        message,
        ...(detail.field ? { field: detail.field } : {}),
      };
    default:
      return status >= 500
        ? { kind: 'Upstream', operation, status, message }
        : { kind: 'Upstream', operation, status, message: `unexpected ${message}` };
  }
}
