/**
 * The management API's routes, each with the answer it gives on success and the body it takes, by
 * the name the OpenAPI document gives it (`METHOD /path/{param}`).
 *
 * The console and the CLI call a route by this name and its path parameters, and the type of what
 * they read follows from it: `GET /vehicles/{id}` answers a `VehicleDetail`, and reading it as
 * anything else does not compile. A test holds this map to the served document (each operation's
 * success answer is the schema named here), so the map cannot drift from the routes.
 *
 * Like contract.ts, this module needs nothing from Node: the browser console's typecheck reads it; and
 * it imports the schemas as types only, so the console's bundle carries none (route-answers.ts holds
 * the map's values).
 */
import type * as z from 'zod';
import type {
  CreateSubscriptionBody,
  EnableSubscriptionBody,
  RecoverBody,
  ReplayBody,
  SampleBody,
  UpdateSubscriptionBody,
} from './contract';
import type { routeAnswers } from './route-answers';

/** A management route, as the document names it: `GET /subscriptions/{id}`. */
export type Route = keyof typeof routeAnswers;

/** What `R` answers on success (`undefined` for a route that answers no body). */
export type Answer<R extends Route> = (typeof routeAnswers)[R] extends z.ZodType
  ? z.output<(typeof routeAnswers)[R]>
  : undefined;

/**
 * The body each route that takes one expects (the route's schema, as a client writes it). The fleet
 * contract's is spelled here because its schema lives with Node code; test/http/contract.test.ts
 * checks that the two agree.
 */
export interface RouteBodies {
  readonly 'POST /enrollments/contracts': {
    readonly vin: string;
    readonly contract: string;
    readonly brand: 'cielo' | 'pavo' | 'C' | 'P';
  };
  readonly 'POST /subscriptions': CreateSubscriptionBody;
  readonly 'PATCH /subscriptions/{id}': UpdateSubscriptionBody;
  readonly 'POST /subscriptions/{id}/enable': EnableSubscriptionBody;
  readonly 'POST /subscriptions/{id}/sample': SampleBody;
  readonly 'POST /subscriptions/{id}/replay': ReplayBody;
  readonly 'POST /subscriptions/{id}/recover': RecoverBody;
}

/** The body `R` takes; a route without one takes none. */
export type RouteBody<R extends Route> = R extends keyof RouteBodies ? RouteBodies[R] : never;

type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? Name | ParamNames<Rest>
  : never;

/** The path parameters of `R`, by name: `{ id: string }` for `GET /subscriptions/{id}`. */
export type PathParams<R extends Route> = { readonly [K in ParamNames<R>]: string };

/** Query parameters; a repeated one (`?type=a&type=b`) is a list. */
export type Query = Readonly<Record<string, string | readonly string[] | undefined>>;

/** How a route is called: its path parameters (when it has any), the query and the body. */
export type CallOptions<R extends Route> = { readonly query?: Query } & ([ParamNames<R>] extends [never]
  ? { readonly params?: undefined }
  : { readonly params: PathParams<R> }) &
  ([RouteBody<R>] extends [never] ? { readonly body?: undefined } : { readonly body?: RouteBody<R> });

/** The options argument: optional for a route without path parameters. */
export type CallArgs<R extends Route> = [ParamNames<R>] extends [never]
  ? [options?: CallOptions<R>]
  : [options: CallOptions<R>];

/** The HTTP method and the path (parameters encoded, query appended) of a call of `R`. */
export function routeRequest<R extends Route>(
  route: R,
  options: CallOptions<R> | undefined,
): { readonly method: string; readonly path: string } {
  const space = route.indexOf(' ');
  const method = route.slice(0, space);
  const params = (options?.params ?? {}) as Readonly<Record<string, string>>;
  const path = route.slice(space + 1).replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${route}: no value for {${name}}`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(options?.query ?? {})) {
    if (value === undefined) continue;
    for (const v of typeof value === 'string' ? [value] : value) search.append(key, v);
  }
  const q = search.toString();
  return { method, path: q ? `${path}?${q}` : path };
}
