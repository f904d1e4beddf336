/**
 * The HTTP layer shared by every operation: authentication per area, per-attempt timeout composed
 * with the caller's signal, retries with full-jitter backoff, 429 handling, single-flight token
 * refresh on 401, rate observation, request counting and redacted logging. It returns the raw
 * response (or a typed error); operations parse and normalize the body.
 */

import { backoffCeiling, fullJitter } from '../backoff';
import { systemNow } from '../clock';
import { type ApiError, CarhookApiError, fail, isApiError, ok, type Result, redact } from './errors';
import { errorDetail, type RateHeaders, readRateHeaders, statusError } from './responses';
import {
  type CallOptions,
  type ClientStats,
  DEFAULT_RETRY,
  DEFAULT_TIMEOUT_MS,
  type HttpRequest,
  type HttpResponse,
  type RetryOptions,
  type Sleep,
  type TransportOptions,
} from './transport-types';

export * from './transport-types';

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
    this.#now = options.now ?? systemNow;
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

  /** On a 401, refresh once; concurrent callers rejected with the same token share that refresh. */
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

  #observe(operation: string, response: Response): RateHeaders {
    const rate = readRateHeaders(response.status, response.headers, this.#now());
    try {
      this.#o.rateObserver?.observe({
        clientId: this.#o.clientId,
        operation,
        status: response.status,
        ...rate,
      });
    } catch {
      // An observer's failure must not fail the call.
    }
    return rate;
  }

  #backoff(attempt: number): number {
    const { baseDelayMs, maxDelayMs } = this.#retry;
    return fullJitter(backoffCeiling(attempt, baseDelayMs, maxDelayMs), this.#random);
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
        const detail = errorDetail(text, (t) => this.redact(t));
        if (s === 401 && token !== undefined && !replayed) {
          replayed = true;
          const fresh = await this.#refresh(operation, token);
          if (!fresh.ok) return fail(fresh.error, requests);
          token = fresh.value;
          attempt--; // the replay after a refresh is not a retry
          continue;
        }
        if (s === 429) {
          this.#stats.rateLimited++;
          const rateLimited: ApiError = {
            kind: 'RateLimited',
            operation,
            status: s,
            message: `429 from the API${rate.resetAt ? `, resets at ${rate.resetAt.toISOString()}` : ''}`,
            ...rate,
          };
          // Wait for the counter's reset instead of hammering; without a reset time, back off.
          const wait = rate.resetAt
            ? Math.max(0, rate.resetAt.getTime() - this.#now())
            : this.#backoff(attempt);
          if (this.#now() - started + wait > this.#retry.maxTotalMs || attempt >= this.#retry.maxAttempts) {
            return fail(rateLimited, requests);
          }
          retryable = rateLimited;
          waitMs = wait;
        } else if (s >= 500) {
          retryable = statusError(operation, s, detail);
        } else {
          return fail(statusError(operation, s, detail), requests);
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
