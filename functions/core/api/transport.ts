/**
 * The HTTP layer shared by every operation: authentication per area, per-attempt timeout composed
 * with the caller's signal, retries with full-jitter backoff, 429 handling, single-flight token
 * refresh on 401, rate observation, request counting and redacted logging. It returns the raw
 * response (or a typed error); operations parse and normalize the body.
 */
import { type ApiError, CarhookApiError, fail, isApiError, ok, type Result, redact } from './errors';
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
   * HTTP basic credentials of the map API (spec 4.3, 5.3). Default: the client id and secret; a
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

/** How a request authenticates (spec 4.1, 4.3, 5.3). `client_id` is always in the query. */
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

const defaultSleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** The largest epoch ms a Date holds (ECMA-262 21.4.1.1). */
const MAX_DATE_MS = 8.64e15;

function headerNumber(headers: Headers, name: string): number | undefined {
  const raw = headers.get(name);
  if (raw === null || raw.trim() === '') return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

type Attempt =
  | { readonly kind: 'response'; readonly response: Response; readonly body: Uint8Array }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'aborted' }
  | { readonly kind: 'network'; readonly reason: string };

export class Transport {
  readonly #o: TransportOptions;
  readonly #retry: RetryOptions;
  readonly #fetch: typeof fetch;
  readonly #sleep: Sleep;
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #refreshes = new Map<string, Promise<string>>();
  /** Recent tokens, so redaction removes them even where no pattern matches. */
  readonly #secrets = new Set<string>();
  /** How many of #secrets are the fixed credentials (never trimmed). */
  readonly #fixedSecrets: number;
  #stats = { requests: 0, calls: 0, retries: 0, refreshes: 0, rateLimited: 0 };
  readonly #byOperation = new Map<string, number>();

  constructor(options: TransportOptions) {
    this.#o = options;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#sleep = options.sleep ?? defaultSleep;
    this.#now = options.now ?? Date.now;
    this.#random = options.random ?? Math.random;
    this.#secrets.add(options.clientSecret);
    this.#secrets.add(this.#basicCredentials());
    if (options.mapCredentials) this.#secrets.add(options.mapCredentials.password);
    this.#fixedSecrets = this.#secrets.size;
  }

  /** base64 of `user:password` for the map API's HTTP basic authentication. */
  #basicCredentials(): string {
    const { username, password } = this.#o.mapCredentials ?? {
      username: this.#o.clientId,
      password: this.#o.clientSecret,
    };
    return Buffer.from(`${username}:${password}`).toString('base64');
  }

  get clientId(): string {
    return this.#o.clientId;
  }

  stats(): ClientStats {
    return { ...this.#stats, byOperation: Object.fromEntries(this.#byOperation) };
  }

  /** Redacts a text with every secret this transport knows. */
  redact(text: string): string {
    return redact(text, this.#secrets);
  }

  #remember(token: string): void {
    this.#secrets.add(token);
    if (this.#secrets.size > this.#fixedSecrets + 32) {
      // Keep the fixed credentials and the newest tokens: drop the oldest token.
      const all = [...this.#secrets];
      this.#secrets.clear();
      for (const s of [...all.slice(0, this.#fixedSecrets), ...all.slice(this.#fixedSecrets + 1)])
        this.#secrets.add(s);
    }
  }

  #url(req: HttpRequest): string {
    const url = new URL(this.#o.baseUrl.replace(/\/+$/, '') + req.path);
    url.searchParams.set('client_id', this.#o.clientId);
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, v);
      else url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  async #token(operation: string): Promise<Result<string>> {
    const provider = this.#o.tokenProvider;
    if (!provider) {
      return fail(
        { kind: 'Unauthorized', operation, message: 'no token provider configured for a bearer call' },
        0,
      );
    }
    try {
      const token = await provider.getAccessToken();
      this.#remember(token);
      return ok(token, 0);
    } catch (cause) {
      return fail(this.#providerError(operation, cause), 0);
    }
  }

  #providerError(operation: string, cause: unknown): ApiError {
    const error = cause instanceof CarhookApiError ? cause.error : isApiError(cause) ? cause : undefined;
    if (error) return { ...error, message: this.redact(error.message) };
    return { kind: 'Unauthorized', operation, message: 'the token provider failed to supply a token' };
  }

  /** spec 7 + issue: on 401 refresh once; concurrent callers rejected with the same token share it. */
  async #refresh(operation: string, rejected: string): Promise<Result<string>> {
    const provider = this.#o.tokenProvider;
    if (!provider) return fail({ kind: 'Unauthorized', operation, message: 'no token provider' }, 0);
    let pending = this.#refreshes.get(rejected);
    if (!pending) {
      this.#stats.refreshes++;
      pending = provider.refreshAccessToken(rejected);
      this.#refreshes.set(rejected, pending);
      // A failed refresh is forgotten so a later call may try again; a successful one is kept
      // (bounded) so late callers holding the old token reuse its result instead of refreshing.
      pending.then(
        () => {
          if (this.#refreshes.size > 16) {
            const oldest = this.#refreshes.keys().next().value;
            if (oldest !== undefined) this.#refreshes.delete(oldest);
          }
        },
        () => this.#refreshes.delete(rejected),
      );
    }
    try {
      const token = await pending;
      this.#remember(token);
      return ok(token, 0);
    } catch (cause) {
      return fail(this.#providerError(operation, cause), 0);
    }
  }

  async #attempt(
    req: HttpRequest,
    url: string,
    token: string | undefined,
    call: CallOptions,
  ): Promise<Attempt> {
    const headers: Record<string, string> = { Accept: req.accept, ...req.headers };
    if (token !== undefined) headers.Authorization = `Bearer ${token}`;
    if (req.auth === 'basic') {
      headers.Authorization = `Basic ${this.#basicCredentials()}`;
    }
    let body: string | undefined;
    if (req.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(req.json);
    }
    const timeoutMs = call.timeoutMs ?? this.#o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
    try {
      const response = await this.#fetch(url, { method: req.method, headers, body, signal });
      // The body is read under the same signal: a server that stalls mid-body times out too.
      const buffer = new Uint8Array(await response.arrayBuffer());
      return { kind: 'response', response, body: buffer };
    } catch (cause) {
      if (call.signal?.aborted) return { kind: 'aborted' };
      if (timeout.aborted) return { kind: 'timeout' };
      const name = (cause as { name?: unknown } | null)?.name;
      if (name === 'TimeoutError') return { kind: 'timeout' };
      if (name === 'AbortError') return { kind: 'aborted' };
      const reason = cause instanceof Error ? cause.message : String(cause);
      return { kind: 'network', reason: this.redact(reason).slice(0, 200) };
    }
  }

  #observe(operation: string, response: Response): { limit?: number; remaining?: number; resetAt?: Date } {
    const limit = headerNumber(response.headers, 'x-ratelimit-limit');
    const remaining = headerNumber(response.headers, 'x-ratelimit-remaining');
    // spec 8: X-RateLimit-Reset is "seconds to wait until the counter resets"; `Retry-After`
    // (RFC 9110, seconds) stands in when a 429 lacks it. A value that can only be an epoch
    // (after 2001 in seconds) is read as one rather than as a 30-year wait.
    const resetS =
      headerNumber(response.headers, 'x-ratelimit-reset') ??
      (response.status === 429 ? headerNumber(response.headers, 'retry-after') : undefined);
    const now = this.#now();
    const resetMs =
      resetS === undefined
        ? undefined
        : resetS > 1_000_000_000
          ? Math.max(now, resetS * 1000)
          : now + Math.max(0, resetS) * 1000;
    // A reset beyond what a Date holds (`1e300`) is no reset time: it would make an Invalid Date
    // whose toISOString throws. The 429 is then backed off like one without the header.
    const resetAt = resetMs !== undefined && resetMs <= MAX_DATE_MS ? new Date(resetMs) : undefined;
    try {
      this.#o.rateObserver?.observe({
        clientId: this.#o.clientId,
        operation,
        status: response.status,
        ...(limit !== undefined ? { limit } : {}),
        ...(remaining !== undefined ? { remaining } : {}),
        ...(resetAt ? { resetAt } : {}),
      });
    } catch {
      // An observer's failure must not fail the call.
    }
    return { limit, remaining, resetAt };
  }

  #backoff(attempt: number): number {
    const { baseDelayMs, maxDelayMs } = this.#retry;
    const cap = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
    return Math.floor(this.#random() * cap);
  }

  #log(level: 'debug' | 'warn', message: string, details: Record<string, unknown>): void {
    const logger = this.#o.logger;
    if (!logger) return;
    const clean = JSON.parse(this.redact(JSON.stringify(details))) as Record<string, unknown>;
    try {
      logger[level](this.redact(message), clean);
    } catch {
      // Logging never fails a call.
    }
  }

  #errorDetail(text: string): { message?: string; field?: string } {
    try {
      const body = JSON.parse(text) as unknown;
      const error = (body as { error?: unknown }).error;
      const inner =
        typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : undefined;
      const message =
        (typeof inner?.message === 'string' ? inner.message : undefined) ??
        (typeof (body as { message?: unknown }).message === 'string'
          ? (body as { message: string }).message
          : undefined) ??
        (typeof error === 'string' ? error : undefined);
      const field = typeof inner?.field === 'string' ? inner.field : undefined;
      return {
        ...(message ? { message: this.redact(message).slice(0, 200) } : {}),
        ...(field ? { field } : {}),
      };
    } catch {
      return text.trim() ? { message: this.redact(text).slice(0, 200) } : {};
    }
  }

  /** Sends one logical call, with retries; the `Result` carries the number of requests sent. */
  async send(req: HttpRequest, call: CallOptions = {}): Promise<Result<HttpResponse>> {
    this.#stats.calls++;
    const { operation } = req;
    const url = this.#url(req);
    const logUrl = url.replace(/^[a-z]+:\/\/[^/]+/i, '');
    const started = this.#now();
    let requests = 0;
    let attempt = 0;
    let replayed = false;
    let token: string | undefined;

    if (call.signal?.aborted) {
      return fail(
        { kind: 'Timeout', operation, aborted: true, message: 'the caller aborted the request' },
        0,
      );
    }
    if (req.auth === 'bearer' || (req.auth === 'bearer-if-available' && this.#o.tokenProvider)) {
      const t = await this.#token(operation);
      if (!t.ok) return fail(t.error, 0);
      token = t.value;
    }

    for (;;) {
      attempt++;
      const t0 = this.#now();
      const result = await this.#attempt(req, url, token, call);
      requests++;
      this.#stats.requests++;
      this.#byOperation.set(operation, (this.#byOperation.get(operation) ?? 0) + 1);
      const durationMs = this.#now() - t0;
      const status = result.kind === 'response' ? result.response.status : undefined;
      try {
        this.#o.onRequest?.({
          operation,
          method: req.method,
          attempt,
          durationMs,
          ...(status !== undefined ? { status } : {}),
          ...(result.kind !== 'response' ? { failure: result.kind } : {}),
        });
      } catch {
        // Observers never fail a call.
      }
      this.#log('debug', 'car api request', {
        operation,
        method: req.method,
        url: logUrl,
        attempt,
        status,
        failure: result.kind === 'response' ? undefined : result.kind,
        durationMs,
      });

      if (result.kind === 'aborted') {
        return fail(
          { kind: 'Timeout', operation, aborted: true, message: 'the caller aborted the request' },
          requests,
        );
      }

      let retryable: ApiError;
      let waitMs: number | undefined;
      if (result.kind === 'response') {
        const { response, body } = result;
        const rate = this.#observe(operation, response);
        const text = new TextDecoder().decode(body);
        const s = response.status;
        if (s >= 200 && s < 300) {
          return ok(
            { status: s, contentType: response.headers.get('content-type') ?? '', bytes: body, text },
            requests,
          );
        }
        const detail = this.#errorDetail(text);
        const why = detail.message ? `: ${detail.message}` : '';
        if (s === 401 && token !== undefined && !replayed) {
          replayed = true;
          const fresh = await this.#refresh(operation, token);
          if (!fresh.ok) return fail(fresh.error, requests);
          token = fresh.value;
          attempt--; // the replay after a refresh is not a retry
          continue;
        }
        if (s === 401) {
          return fail(
            { kind: 'Unauthorized', operation, status: s, message: `401 from the API${why}` },
            requests,
          );
        }
        if (s === 403) {
          // spec 7: 403 = the user (enrollment) has no access to this vehicle or trip.
          return fail(
            { kind: 'AccessDenied', operation, status: s, message: `403 from the API${why}` },
            requests,
          );
        }
        if (s === 404) {
          return fail(
            { kind: 'NotFound', operation, status: s, message: `404 from the API${why}` },
            requests,
          );
        }
        if (s === 429) {
          this.#stats.rateLimited++;
          const rateLimited: ApiError = {
            kind: 'RateLimited',
            operation,
            status: s,
            message: `429 from the API${rate.resetAt ? `, resets at ${rate.resetAt.toISOString()}` : ''}`,
            ...(rate.resetAt ? { resetAt: rate.resetAt } : {}),
            ...(rate.limit !== undefined ? { limit: rate.limit } : {}),
            ...(rate.remaining !== undefined ? { remaining: rate.remaining } : {}),
          };
          // spec 8: wait for X-RateLimit-Reset instead of hammering; without it, back off.
          const wait = rate.resetAt
            ? Math.max(0, rate.resetAt.getTime() - this.#now())
            : this.#backoff(attempt);
          if (this.#now() - started + wait > this.#retry.maxTotalMs || attempt >= this.#retry.maxAttempts) {
            return fail(rateLimited, requests);
          }
          retryable = rateLimited;
          waitMs = wait;
        } else if (s >= 500) {
          retryable = { kind: 'Upstream', operation, status: s, message: `${s} from the API${why}` };
        } else if (s === 400 || s === 405 || s === 409 || s === 415 || s === 422) {
          return fail(
            {
              kind: 'InvalidRequest',
              operation,
              status: s,
              message: `${s} from the API${why}`,
              ...(detail.field ? { field: detail.field } : {}),
            },
            requests,
          );
        } else {
          // Other statuses (3xx without redirect, 410…) are not retried: nothing suggests a retry helps.
          return fail(
            { kind: 'Upstream', operation, status: s, message: `unexpected ${s} from the API${why}` },
            requests,
          );
        }
      } else if (result.kind === 'timeout') {
        retryable = { kind: 'Timeout', operation, aborted: false, message: 'the request timed out' };
      } else {
        retryable = { kind: 'Network', operation, message: `network error: ${result.reason}` };
      }

      if (attempt >= this.#retry.maxAttempts) return fail(retryable, requests);
      const delay = waitMs ?? this.#backoff(attempt);
      if (this.#now() - started + delay > this.#retry.maxTotalMs) return fail(retryable, requests);
      this.#stats.retries++;
      this.#log('warn', 'car api retry', { operation, attempt, kind: retryable.kind, delayMs: delay });
      await this.#sleep(delay, call.signal);
      if (call.signal?.aborted) {
        return fail(
          { kind: 'Timeout', operation, aborted: true, message: 'the caller aborted the request' },
          requests,
        );
      }
    }
  }
}
