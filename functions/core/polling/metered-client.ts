/**
 * An API client whose every HTTP request is drawn from the shared rate budget of the client_id
 * and whose every response corrects that budget: the client's
 * `RateObserver` feeds `X-RateLimit-Remaining` to `budget.observe` and a 429's `X-RateLimit-Reset`
 * (the seconds to wait until the counter resets) to `budget.freezeUntil`.
 *
 * The draw sits in the `fetch` the client uses, so retries, pages and the replay after a 401 are
 * each counted: the quota is never exceeded whatever the client does internally. A request the
 * budget refuses is never sent; the client sees it as a network failure and the caller reads
 * `exhausted()` to stop its poll (the next planner run picks the vehicle up again).
 */
import { type CarClient, createCarClient, type RateObserver, type TokenProvider } from '../api';
import type { RateBudget } from '../ratelimit/budget';

/** How to reach the API (client credentials come from Secrets Manager / env in the handlers). */
export interface ApiAccess {
  readonly baseUrl: string;
  readonly authUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The map API's own basic credentials, when they differ from the client's. */
  readonly mapCredentials?: { readonly username: string; readonly password: string };
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
}

export interface MeteredClient {
  readonly client: CarClient;
  /** Requests the budget granted (and that were sent). */
  requests(): number;
  /** Requests the budget refused (never sent). */
  denied(): number;
  /** True once the budget refused a request: make no further call in this job. */
  exhausted(): boolean;
  /** Epoch ms from which the budget may grant again, when it refused. */
  retryAt(): number | undefined;
  /** Waits for the budget corrections of the responses seen so far. */
  settle(): Promise<void>;
}

export interface MeteredClientOptions {
  /** `<brand_path_segment>` of the OAuth addresses for v2; any non-empty value for v1/map-only use. */
  readonly brand: string;
  readonly tokenProvider?: TokenProvider;
  /** Absent: requests are not drawn (only for tools; every worker passes one). */
  readonly budget?: RateBudget;
  readonly now: () => number;
}

/** The budget refused a request: thrown from `fetch`, so nothing is sent. */
export class BudgetDeniedError extends Error {
  override readonly name = 'BudgetDeniedError';
  readonly kind = 'BudgetDenied';
  constructor(readonly retryAt: number) {
    super(`rate budget exhausted until ${new Date(retryAt).toISOString()}`);
  }
}

export function createMeteredClient(access: ApiAccess, options: MeteredClientOptions): MeteredClient {
  const { budget, now } = options;
  const baseFetch: typeof fetch = access.fetch ?? ((input, init) => globalThis.fetch(input, init));
  let granted = 0;
  let refused = 0;
  let refusedUntil: number | undefined;
  // Corrections are applied in order, and before the next draw (a 429 freezes the next request).
  let pending: Promise<void> = Promise.resolve();

  const rateObserver: RateObserver = {
    observe(sample) {
      if (!budget) return;
      const clientId = sample.clientId;
      pending = pending.then(async () => {
        try {
          if (sample.status === 429) {
            // No request before X-RateLimit-Reset; without it, wait one window to be safe.
            const resetAt = sample.resetAt?.getTime() ?? now() + 60_000;
            await budget.freezeUntil(clientId, resetAt);
          }
          if (sample.limit !== undefined && sample.remaining !== undefined) {
            await budget.observe(clientId, {
              limit: sample.limit,
              remaining: sample.remaining,
              observedAt: now(),
            });
          }
        } catch {
          // A header the budget refuses (negative, not an integer) leaves the local view as is.
        }
      });
    },
  };

  const meteredFetch: typeof fetch = async (input, init) => {
    if (budget) {
      await pending;
      const take = await budget.tryTake(access.clientId, 1, now());
      if (!take.granted) {
        refused++;
        refusedUntil = take.retryAt;
        throw new BudgetDeniedError(take.retryAt);
      }
    }
    granted++;
    return baseFetch(input, init);
  };

  const client = createCarClient({
    baseUrl: access.baseUrl,
    authUrl: access.authUrl,
    clientId: access.clientId,
    clientSecret: access.clientSecret,
    ...(access.mapCredentials ? { mapCredentials: access.mapCredentials } : {}),
    brand: options.brand,
    ...(options.tokenProvider ? { tokenProvider: options.tokenProvider } : {}),
    rateObserver,
    fetch: meteredFetch,
    now,
    // One attempt per call: the next planner run is the retry, and a retry the budget would have
    // to absorb inside a call (or a wait for X-RateLimit-Reset inside a job) is not worth it.
    retry: { maxAttempts: 1 },
    ...(access.timeoutMs !== undefined ? { timeoutMs: access.timeoutMs } : {}),
  });

  return {
    client,
    requests: () => granted,
    denied: () => refused,
    exhausted: () => refused > 0,
    retryAt: () => refusedUntil,
    settle: () => pending,
  };
}
