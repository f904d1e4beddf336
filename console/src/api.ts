/**
 * The console's one way to the management API: same origin, the admin token as a bearer. The token
 * lives in sessionStorage (gone when the tab closes) and never in a URL.
 *
 * Answers are typed by the API's contract (functions/http/contract.ts: the schemas the OpenAPI
 * document is generated from), so a page that reads a field the API does not return does not compile.
 */
export type * from '../../functions/http/capacity-contract';
export type * from '../../functions/http/contract';
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

/** Calls a management route; `T` is the contract's type of its answer. */
export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = session.token();
  if (token) headers.authorization = `Bearer ${token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${apiBase()}${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  // Parsing boundary: the answer is the route's documented schema (or the error shape).
  const body: unknown = text ? JSON.parse(text) : undefined;
  if (!res.ok) {
    const error = (body as ErrorAnswer | undefined)?.error ?? {};
    throw new ApiError(
      res.status,
      error.code ?? `HTTP ${res.status}`,
      error.message ?? res.statusText,
      error.field,
    );
  }
  return body as T;
}
