/**
 * The v1 alert referential of a locale and brand group (`alertCodeBook`, detection/alert-codes.ts),
 * read at most once a day per process: it changes with the API's releases, not with the cars. Read
 * only when a poll has alerts to tell and the budget allows; a failed read is retried after an
 * hour. Kept in memory per process, per API (base URL and client id), locale and brand group:
 * losing it costs one read. At most MAX_BOOKS are kept (a deployment has one API and a few locales).
 */
import type { CarClient } from '../api';
import { alertCodeBook } from '../detection/alert-codes';

const DAY_MS = 86_400_000;
const RETRY_MS = 3_600_000;

interface Entry {
  readonly book: ReadonlyMap<string, string> | undefined;
  readonly until: number;
}

const MAX_BOOKS = 64;
const cache = new Map<string, Entry>();

/**
 * The code book for `locale` / `brand` of the API `api` (its base URL and client id): cached, or
 * read now with `client` (one request) when `mayRead` (the budget allows it). Undefined when
 * unknown: events then carry no code.
 */
export async function alertCodesFor(
  api: { readonly baseUrl: string; readonly clientId: string },
  client: Pick<CarClient, 'v1'>,
  query: { readonly locale: string; readonly brand: 'C' | 'P' },
  now: number,
  mayRead: boolean,
): Promise<ReadonlyMap<string, string> | undefined> {
  const key = `${api.baseUrl}|${api.clientId}|${query.locale}|${query.brand}`;
  const cached = cache.get(key);
  if (cached !== undefined && now < cached.until) return cached.book;
  if (!mayRead) return cached?.book;
  const r = await client.v1.referentialAlert({ locale: query.locale, brand: query.brand });
  const entry: Entry = r.ok
    ? { book: alertCodeBook(r.value), until: now + DAY_MS }
    : { book: cached?.book, until: now + RETRY_MS };
  cache.delete(key);
  cache.set(key, entry);
  // Oldest first in insertion order: drop beyond the bound.
  for (const k of cache.keys()) {
    if (cache.size <= MAX_BOOKS) break;
    cache.delete(k);
  }
  return entry.book;
}
