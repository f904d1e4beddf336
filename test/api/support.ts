import { type CarClientOptions, createCarClient } from '../../functions/core/api';

export interface Recorded {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
  readonly body: string | undefined;
}

export type Handler = (req: Recorded, n: number) => Response | Promise<Response>;

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** A fake fetch answering from `handler`, recording every request. */
export function fakeFetch(handler: Handler) {
  const requests: Recorded[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === 'string' ? init.body : init?.body ? String(init.body) : undefined;
    const rec: Recorded = { method: init?.method ?? 'GET', url, headers, body };
    requests.push(rec);
    const n = requests.length;
    const signal = init?.signal;
    if (signal?.aborted) throw signal.reason;
    // Like the real fetch: the request's signal rejects it, even when the server never answers.
    return new Promise<Response>((resolve, reject) => {
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      Promise.resolve()
        .then(() => handler(rec, n))
        .then(resolve, reject);
    });
  }) as typeof globalThis.fetch;
  return { fetch, requests };
}

/** A fake clock whose sleep advances time instantly; records every sleep. */
export function fakeTime(start = Date.UTC(2026, 10, 22, 10, 0, 0)) {
  let now = start;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
    advance: (ms: number) => {
      now += ms;
    },
    sleeps,
  };
}

export const VIN = 'VF3ABCDEF12345678';
export const TOKEN = 'access-token-AAAA1111';

export function testClient(handler: Handler, overrides: Partial<CarClientOptions> = {}) {
  const ff = fakeFetch(handler);
  const time = fakeTime();
  const client = createCarClient({
    baseUrl: 'https://api.example.test',
    authUrl: 'https://auth.example.test',
    clientId: 'client-1',
    clientSecret: 'super-secret-value',
    brand: 'brand-c',
    fetch: ff.fetch,
    now: time.now,
    sleep: time.sleep,
    random: () => 0.5,
    tokenProvider: {
      getAccessToken: async () => TOKEN,
      refreshAccessToken: async () => 'access-token-BBBB2222',
    },
    ...overrides,
  });
  return { client, requests: ff.requests, time };
}

/** A HAL list body: `_links`, `total` and the items under `_embedded.<name>`. */
export function hal(name: string, items: unknown[], total = items.length): Record<string, unknown> {
  return { total, _links: { self: { href: '/x' } }, _embedded: { [name]: items } };
}
