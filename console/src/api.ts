/**
 * The console's one way to the management API: same origin, the admin token as a bearer. The token
 * lives in sessionStorage (gone when the tab closes) and never in a URL.
 *
 * A page calls a route by its name in the document (`GET /subscriptions/{id}`) and its path
 * parameters; the answer's type follows from the route (functions/http/routes.ts, over the schemas
 * the OpenAPI document is generated from), so a page that reads a field the route does not return, or
 * reads one route's answer as another's, does not compile.
 */
import { type Answer, type CallArgs, type Route, routeRequest } from '../../functions/http/routes';

export type * from '../../functions/http/capacity-contract';
export type * from '../../functions/http/contract';
export type { Answer, Route } from '../../functions/http/routes';
export type * from '../../functions/http/state-contract';

const TOKEN_KEY = 'carhook.adminToken';

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  signIn: (token: string): void => sessionStorage.setItem(TOKEN_KEY, token),
  signOut: (): void => sessionStorage.removeItem(TOKEN_KEY),
};

/** The API's one error shape: `{error: {code, message, field?}}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/**
 * Where the management routes are, as the serving page says (`<meta name="carhook-api-base">`):
 * `''` locally, `/console-api` on AWS (the copy of the routes API Gateway guards with the admin token,
 * since a browser cannot sign requests for IAM).
 */
export const apiBase = (): string =>
  document.querySelector('meta[name="carhook-api-base"]')?.getAttribute('content') ?? '';

/** The server's OpenAPI document (public, at the origin's root): JSON the reference page reads. */
export async function fetchDocument(): Promise<unknown> {
  const res = await fetch('/openapi.json', { headers: { accept: 'application/json' } });
  if (!res.ok) throw new ApiError(res.status, `HTTP ${res.status}`, 'the OpenAPI document could not be read');
  return res.json();
}

interface ErrorAnswer {
  readonly error?: { readonly code?: string; readonly message?: string; readonly field?: string };
}

/** Calls a management route by its name, with its path parameters, query and body; its answer is typed by the route. */
export async function api<R extends Route>(route: R, ...[options]: CallArgs<R>): Promise<Answer<R>> {
  const { method, path } = routeRequest(route, options);
  const body: unknown = options?.body;
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = session.token();
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${apiBase()}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  // Parsing boundary: the answer is the route's documented schema (or the error shape).
  const answer: unknown = text ? JSON.parse(text) : undefined;
  if (!res.ok) {
    const error = (answer as ErrorAnswer | undefined)?.error ?? {};
    throw new ApiError(
      res.status,
      error.code ?? `HTTP ${res.status}`,
      error.message ?? res.statusText,
      error.field,
    );
  }
  return answer as Answer<R>;
}
