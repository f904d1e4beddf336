/**
 * The admin token guard of the local runtime (and of the console's calls): a bearer token compared
 * in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { FieldError } from '../core/field-error';
import { sendError } from './errors';

export const MIN_ADMIN_TOKEN_LENGTH = 16;

export class HttpAppConfigError extends FieldError {
  override readonly name = 'HttpAppConfigError';
  readonly kind = 'InvalidConfig';
}

/**
 * `Authorization: Bearer <token>`, compared in constant time (both sides hashed to 32 bytes first,
 * so neither the content nor the length leaks through timing).
 */
export function bearerAuth(token: string): MiddlewareHandler {
  if (typeof token !== 'string' || token.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new HttpAppConfigError(
      'auth.token',
      `the admin token must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters`,
    );
  }
  const expected = createHash('sha256').update(token).digest();
  return async (c, next) => {
    const match = /^Bearer\s+(\S+)$/i.exec((c.req.header('authorization') ?? '').trim());
    const given = createHash('sha256')
      .update(match?.[1] ?? '')
      .digest();
    if (!match || !timingSafeEqual(given, expected)) {
      c.header('WWW-Authenticate', 'Bearer realm="carhook"');
      return sendError(
        c,
        401,
        'Unauthorized',
        match ? 'the admin token is not valid' : 'missing "Authorization: Bearer <admin token>"',
      );
    }
    await next();
  };
}
