/**
 * The v1 alert referential of a locale and brand group (`alertCodeBook`, detection/alert-codes.ts),
 * read at most once a day per process: it changes with the API's releases, not with the cars. Read
 * only when a poll has alerts to tell and the budget allows; a failed read is retried after an
 * hour. Kept per ApiAccess (one per deployment and process), in memory: losing it costs one read.
 */
import type { CarClient } from '../api';
import { alertCodeBook } from '../detection/alert-codes';

const DAY_MS = 86_400_000;
const RETRY_MS = 3_600_000;

interface Entry {
  readonly book: ReadonlyMap<string, string> | undefined;
  readonly until: number;
}

const books = new WeakMap<object, Map<string, Entry>>();

/**
 * The code book for `locale` / `brand`: cached, or read now with `client` (one request) when
 * `mayRead` (the budget allows it). Undefined when unknown: events then carry no code.
 */
export async function alertCodesFor(
  owner: object,
  client: Pick<CarClient, 'v1'>,
  query: { readonly locale: string; readonly brand: 'C' | 'P' },
  now: number,
  mayRead: boolean,
): Promise<ReadonlyMap<string, string> | undefined> {
  const cache = books.get(owner) ?? new Map<string, Entry>();
  books.set(owner, cache);
  const key = `${query.locale}|${query.brand}`;
  const cached = cache.get(key);
  if (cached !== undefined && now < cached.until) return cached.book;
  if (!mayRead) return cached?.book;
  const r = await client.v1.referentialAlert({ locale: query.locale, brand: query.brand });
  const entry: Entry = r.ok
    ? { book: alertCodeBook(r.value), until: now + DAY_MS }
    : { book: cached?.book, until: now + RETRY_MS };
  cache.set(key, entry);
  return entry.book;
}
