/**
 * Errors as values, the one `Result` of core: a fallible function returns `ok(value)` or
 * `err(error)` and the caller branches on `ok`. The API client's results are this shape plus the
 * number of requests the call sent (api/errors.ts).
 */
export interface Ok<T> {
  readonly ok: true;
  readonly value: T;
}

export interface Err<E> {
  readonly ok: false;
  readonly error: E;
}

export type Result<T, E> = Ok<T> | Err<E>;

export function ok<T>(value: T): Ok<T> {
  return { ok: true, value };
}

export function err<E>(error: E): Err<E> {
  return { ok: false, error };
}
