/**
 * The shapes the transport works with: its options (retry budget, timeouts, injected clock, sleep
 * and randomness), the request an area module builds and the raw response it gets back.
 */
import type { ApiLogger, RateObserver, RequestEvent, TokenProvider } from './ports';

export interface RetryOptions {
  /** Attempts per call, first one included (a 401 replay after refresh is not counted). */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** Budget for the whole call, waits included: a 429 whose reset lies beyond it fails at once. */
  readonly maxTotalMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxAttempts: 4,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  maxTotalMs: 20_000,
};
/** Per-attempt timeout when none is configured. */
export const DEFAULT_TIMEOUT_MS = 10_000;

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface TransportOptions {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /**
   * HTTP basic credentials of the map API. Default: the client id and secret; a
   * deployment whose map API has its own credentials sets them here.
   */
  readonly mapCredentials?: { readonly username: string; readonly password: string };
  readonly tokenProvider?: TokenProvider;
  readonly rateObserver?: RateObserver;
  readonly fetch?: typeof fetch;
  readonly timeoutMs?: number;
  readonly retry?: Partial<RetryOptions>;
  /** [0, 1); injectable so tests get deterministic jitter. */
  readonly random?: () => number;
  readonly sleep?: Sleep;
  /** Epoch ms; injectable so tests advance a fake clock with their fake sleep. */
  readonly now?: () => number;
  readonly logger?: ApiLogger;
  readonly onRequest?: (event: RequestEvent) => void;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Per-attempt timeout for this call. */
  readonly timeoutMs?: number;
}

/** How a request authenticates. `client_id` is always in the query. */
export type AuthMode = 'bearer' | 'bearer-if-available' | 'basic' | 'client_id';

export type QueryValue = string | number | readonly string[] | undefined;

export interface HttpRequest {
  readonly operation: string;
  readonly method: 'GET' | 'POST' | 'PUT';
  /** Path under baseUrl, already encoded. */
  readonly path: string;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly json?: unknown;
  readonly accept: string;
  readonly auth: AuthMode;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface HttpResponse {
  readonly status: number;
  readonly contentType: string;
  readonly bytes: Uint8Array;
  readonly text: string;
}

export interface ClientStats {
  /** HTTP requests sent to the API (retries and 401 replays included). */
  readonly requests: number;
  /** Client calls made (one per operation call; a paginated iteration is one call per page). */
  readonly calls: number;
  /** Attempts beyond the first, because of 5xx, 429, timeouts or network errors. */
  readonly retries: number;
  /** Token refreshes triggered by a 401. */
  readonly refreshes: number;
  /** 429 responses received. */
  readonly rateLimited: number;
  readonly byOperation: Readonly<Record<string, number>>;
}
