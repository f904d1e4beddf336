/**
 * The console's sign-in on AWS: an API Gateway HTTP API Lambda authorizer (payload format 2.0,
 * simple responses: `{ isAuthorized }`) in front of the `/console-api/…` copy of the management
 * routes. A browser cannot sign requests with SigV4, so the console sends the admin token as
 * `Authorization: Bearer <token>`, the same way it does against `carhook dev`; the token is a
 * Secrets Manager secret (CarhookData `consoleToken`). Machine callers keep IAM on the routes
 * themselves.
 *
 * The secret's value is cached for `maxAgeMs`. A token that does not match makes one fresh read
 * (at most once per `refreshAfterMs`), so a rotated token works at once, and the previous token
 * stops working when its cached value expires (at most `maxAgeMs` after the rotation, plus API
 * Gateway's authorizer result cache).
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Prefix of the console's copy of the management routes on AWS: API Gateway routes
 * `/console-api/<route>` through this authorizer, and the HTTP function serves it as `<route>`.
 */
export const CONSOLE_API_PREFIX = '/console-api';

export const MIN_CONSOLE_TOKEN_LENGTH = 16;

/** The parts of an HTTP API authorizer event (payload 2.0) read here. */
export interface AuthorizerEvent {
  readonly headers?: Readonly<Record<string, string | undefined>> | null;
  readonly routeArn?: string;
}

export interface AuthorizerResult {
  readonly isAuthorized: boolean;
  readonly context?: Readonly<Record<string, string>>;
}

export interface ConsoleAuthorizerDeps {
  /** Reads the token from its store; `fresh` bypasses any cache underneath. */
  readonly loadToken: (options: { readonly fresh: boolean }) => Promise<string | undefined>;
  readonly now: () => number;
  /** How long a read token is reused (default 60 s). */
  readonly maxAgeMs?: number;
  /** Least time between two reads caused by a token that did not match (default 10 s). */
  readonly refreshAfterMs?: number;
}

export type ConsoleAuthorizer = (event: AuthorizerEvent) => Promise<AuthorizerResult>;

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** `Bearer <token>` from the headers (API Gateway lower-cases header names in payload 2.0). */
export function bearerToken(headers: AuthorizerEvent['headers']): string | undefined {
  const value = headers?.authorization ?? headers?.Authorization;
  const match = /^Bearer\s+(\S+)$/i.exec((value ?? '').trim());
  return match?.[1];
}

export function createConsoleAuthorizer(deps: ConsoleAuthorizerDeps): ConsoleAuthorizer {
  const maxAgeMs = deps.maxAgeMs ?? 60_000;
  const refreshAfterMs = deps.refreshAfterMs ?? 10_000;
  let cached: { readonly digest: Buffer | undefined; readonly at: number } | undefined;

  const load = async (fresh: boolean) => {
    const token = await deps.loadToken({ fresh });
    // A blank or short secret never authorizes anyone (a half-configured deployment stays closed).
    const usable = typeof token === 'string' && token.trim().length >= MIN_CONSOLE_TOKEN_LENGTH;
    cached = { digest: usable ? digest(token.trim()) : undefined, at: deps.now() };
    return cached.digest;
  };
  // Both sides hashed to 32 bytes, then compared in constant time: neither content nor length leaks.
  const matches = (given: Buffer, expected: Buffer | undefined) =>
    expected !== undefined && timingSafeEqual(given, expected);

  return async (event) => {
    const token = bearerToken(event.headers);
    if (token === undefined) return { isAuthorized: false };
    const given = digest(token);
    const now = deps.now();
    const expected = cached && now - cached.at < maxAgeMs ? cached.digest : await load(false);
    if (matches(given, expected)) return { isAuthorized: true, context: { caller: 'console' } };
    // Perhaps rotated since it was read: one fresh read, not more often than refreshAfterMs.
    if (cached && now - cached.at >= refreshAfterMs) {
      if (matches(given, await load(true))) return { isAuthorized: true, context: { caller: 'console' } };
    }
    return { isAuthorized: false };
  };
}
