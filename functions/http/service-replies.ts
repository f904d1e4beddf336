/**
 * How the routes over the subscription service answer: its results as HTTP (an error's kind is its
 * status), and list routes whose cursors are sealed at the edge (functions/http/cursor.ts).
 */
import type { Context } from 'hono';
import type { ServiceError } from '../core/subscriptions/service';
import type { Result } from '../core/webhooks/result';
import type { CursorCodec } from './cursor';

type Json = Record<string, unknown>;

/**
 * The HTTP API's one error shape (functions/http/errors.ts): `{ error: { code, message, field?,
 * issues? } }`, `field` naming the first offending field.
 */
export function errorBody(error: ServiceError | { kind: string; message: string }): Json {
  const { kind, ...rest } = error;
  const issues = 'issues' in error ? (error.issues as readonly { field?: string }[] | undefined) : undefined;
  const field = issues?.[0]?.field;
  return { error: { code: kind, ...(field !== undefined ? { field } : {}), ...rest } };
}

export function statusOf(error: ServiceError): 400 | 404 | 409 {
  return error.kind === 'NotFound' ? 404 : error.kind === 'Conflict' ? 409 : 400;
}

export function reply<T>(c: Context, result: Result<T, ServiceError>, status: 200 | 201 | 202 = 200) {
  if (!result.ok) return c.json(errorBody(result.error), statusOf(result.error));
  return c.json(result.value as Json, status);
}

export type ListRun<T> = (
  c: Context,
  page: { limit?: string; cursor?: string },
) => Promise<Result<{ items: readonly T[]; cursor?: string }, ServiceError>>;

/**
 * A list route: the client's cursor is opened (authenticated) before the service sees it, and the
 * next page's cursor is sealed on the way out. `list` names the list a cursor belongs to.
 */
export function listedRoute(cursors: () => Promise<CursorCodec>) {
  return <T>(list: (c: Context) => string, run: ListRun<T>) =>
    async (c: Context) => {
      const codec = await cursors();
      const name = list(c);
      const opened = codec.open(name, c.req.query('cursor'));
      if (!opened.ok) {
        return c.json(
          errorBody({
            kind: 'Malformed',
            message: opened.message,
            issues: [{ field: 'cursor', reason: opened.message.replace(/^cursor: /, '') }],
          }),
          400,
        );
      }
      const limit = c.req.query('limit');
      const result = await run(c, {
        ...(limit !== undefined ? { limit } : {}),
        ...(opened.value !== undefined ? { cursor: opened.value } : {}),
      });
      if (!result.ok) return c.json(errorBody(result.error), statusOf(result.error));
      const next = codec.seal(name, result.value.cursor);
      const { cursor: _store, ...rest } = result.value;
      return c.json({ ...rest, ...(next ? { cursor: next } : {}) } as Json, 200);
    };
}

export type Listed = ReturnType<typeof listedRoute>;
