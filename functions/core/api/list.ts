/**
 * The two shapes of v2 read: a HAL list (one page per call, `.pages()` to iterate, `.all()` to
 * collect) and a single resource by id. A list answers 404 for "no such items", so a 404 on a list
 * is an empty, complete page rather than an error.
 */
import type * as z from 'zod';
import { checkId, checkPage, HAL, type PageParams, seg } from './checks';
import type { ApiContext } from './context';
import { fail, type InvalidRequestError, ok, type Result } from './errors';
import type { CallOptions, HttpRequest } from './transport';
import { type WireListPage, wHalList } from './wire/common';

export type { DateRange, PageParams } from './checks';

export interface ListPage<T> {
  readonly items: readonly T[];
  /** `total` of the body (items matching the filters); 0 for a 404-as-empty list. */
  readonly total: number;
  readonly offset: number;
  /**
   * True when this page alone holds every item matching the filters (offset 0 and nothing beyond
   * it). Only a complete list proves an item is gone (the detection engine relies on it).
   */
  readonly complete: boolean;
  /** The server answered 404, which a list uses to say "no such items". */
  readonly notFoundAsEmpty?: boolean;
}

export interface ListAll<T> {
  readonly items: readonly T[];
  readonly total: number;
  /** Always true: a page that failed makes the whole result an error. */
  readonly complete: true;
  readonly pages: number;
}

/** Arguments of a list call: `params` may be left out when none of its fields is required. */
export type ListArgs<P> =
  Record<string, never> extends P ? [params?: P, call?: CallOptions] : [params: P, call?: CallOptions];

/** A list operation: call it for one page, `.pages()` to iterate, `.all()` to collect every page. */
export interface ListOperation<P extends PageParams, T> {
  (...args: ListArgs<P>): Promise<Result<ListPage<T>>>;
  /** Pages until `total` (or an empty page); yields the failing result last if a page fails. */
  pages(...args: ListArgs<P>): AsyncIterable<Result<ListPage<T>>>;
  /** Every item of every page; an error if any page fails, never a silently short list. */
  all(...args: ListArgs<P>): Promise<Result<ListAll<T>>>;
}

export interface ListSpec<P extends PageParams, T> {
  readonly op: string;
  /** Name(s) of the `_embedded` array holding the items. */
  readonly embedded: string | readonly string[];
  readonly item: z.ZodType<T>;
  /** The server's page size when `limit` is not sent. */
  readonly defaultLimit: number;
  readonly validate: (p: P) => InvalidRequestError | undefined;
  readonly build: (p: P) => Omit<HttpRequest, 'operation' | 'method' | 'accept' | 'auth'>;
}

/** Builds a HAL list operation. */
export function list<P extends PageParams, T>(ctx: ApiContext, spec: ListSpec<P, T>): ListOperation<P, T> {
  const { op, defaultLimit } = spec;
  const schema = wHalList(spec.embedded, spec.item);
  const page = async (params: P, call?: CallOptions): Promise<Result<ListPage<T>>> => {
    const bad = spec.validate(params ?? ({} as P)) ?? checkPage(op, params ?? {});
    if (bad) return fail(bad, 0);
    const offset = params?.offset ?? 0;
    const r = await ctx.transport.send(
      { operation: op, method: 'GET', accept: HAL, auth: 'bearer', ...spec.build(params ?? ({} as P)) },
      call,
    );
    if (!r.ok) {
      if (r.error.kind === 'NotFound') {
        return ok({ items: [], total: 0, offset, complete: true, notFoundAsEmpty: true }, r.requests);
      }
      return r;
    }
    const parsed = ctx.parse<WireListPage<T>>(op, r.value.text, schema, r.requests);
    if (!parsed.ok) return parsed;
    const { items, total } = parsed.value;
    const limit = params?.limit ?? defaultLimit;
    // Without `total`, a full page means there may be more: claim one more so iteration goes on.
    const knownTotal = total ?? offset + items.length + (items.length >= limit ? 1 : 0);
    const complete = offset === 0 && items.length >= knownTotal;
    return ok({ items, total: knownTotal, offset, complete }, r.requests);
  };

  async function* pages(params: P, call?: CallOptions): AsyncGenerator<Result<ListPage<T>>> {
    let offset = params?.offset ?? 0;
    const limit = params?.limit ?? defaultLimit;
    for (let n = 1; ; n++) {
      if (n > ctx.maxPages) {
        yield fail(
          {
            kind: 'Malformed',
            operation: op,
            message: `pagination did not end after ${ctx.maxPages} pages (total ${offset} items read): the server's total looks wrong`,
            excerpt: '',
          },
          0,
        );
        return;
      }
      const r = await page({ ...params, offset, limit }, call);
      yield r;
      if (!r.ok) return;
      const { items, total } = r.value;
      // Stop on an empty page too: the server has nothing more, whatever `total` said.
      if (items.length === 0) return;
      offset += items.length;
      if (offset >= total) return;
    }
  }

  async function all(params: P, call?: CallOptions): Promise<Result<ListAll<T>>> {
    const items: T[] = [];
    const seen = new Set<string>();
    let requests = 0;
    let count = 0;
    let total = 0;
    for await (const r of pages(params, call)) {
      requests += r.requests;
      if (!r.ok) return fail(r.error, requests);
      count++;
      for (const item of r.value.items) {
        // An item created between two page reads shifts the newest-first pages by one: the
        // same record then shows up twice; keep its first copy.
        const id = (item as { id?: unknown }).id;
        if (typeof id === 'string') {
          if (seen.has(id)) continue;
          seen.add(id);
        }
        items.push(item);
      }
      total = r.value.total;
    }
    return ok({ items, total: Math.max(total, items.length), complete: true, pages: count }, requests);
  }

  // The implementations accept an omitted `params`; ListArgs only decides when callers may omit it.
  return Object.assign(page, { pages, all }) as unknown as ListOperation<P, T>;
}

/** A GET of one resource by id; `{id}` in `path` is replaced by the encoded id. */
export function single<T>(ctx: ApiContext, op: string, path: string, schema: z.ZodType<T>, accept = HAL) {
  return (id: string, call?: CallOptions): Promise<Result<T>> => {
    const bad = checkId(op, 'id', id);
    if (bad) return ctx.invalid(bad);
    return ctx.request(
      { operation: op, method: 'GET', path: path.replace('{id}', seg(id)), accept, auth: 'bearer' },
      schema,
      call,
    );
  };
}
