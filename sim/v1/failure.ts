import type { Context } from 'hono';
import { invalidParam, simError } from '../http/errors';

export type V1FailureKind = 'invalid_param' | 'not_found' | 'forbidden';

/**
 * A request the v1 area refuses. Thrown by parameter parsing and lookups deep inside a handler and
 * turned into the simulator's one error body by the routes' error handler (sim/http/errors.ts).
 */
export class V1Failure extends Error {
  constructor(
    readonly kind: V1FailureKind,
    /** The parameter (or body field) at fault. */
    readonly field: string,
    readonly why: string,
  ) {
    super(`${kind}: ${field}: ${why}`);
    this.name = 'V1Failure';
  }
}

export function invalid(field: string, why: string): V1Failure {
  return new V1Failure('invalid_param', field, why);
}

export function failureResponse(c: Context, failure: V1Failure): Response {
  switch (failure.kind) {
    case 'invalid_param':
      return invalidParam(c, failure.field, failure.why);
    case 'not_found':
      return simError(c, 404, 'not_found', failure.why, failure.field);
    case 'forbidden':
      return simError(c, 403, 'forbidden', failure.why, failure.field);
  }
}
