/**
 * Ports of the API client: what the poll pipeline (or the CLI, or a test) plugs in.
 */

/**
 * Supplies bearer tokens for v2 calls. Implementations throw a `CarhookApiError` (kind
 * `InvalidGrant`, `Network`…) when no token can be had; the client turns it into the call's error.
 */
export interface TokenProvider {
  /** A current access token (may refresh first if it is about to expire). */
  getAccessToken(): Promise<string>;
  /**
   * Called once when the API answered 401 to `rejected`. Returns a fresh token. The client
   * calls it at most once per rejected token at a time (single-flight), and implementations should
   * be single-flight too (several clients may share one provider).
   */
  refreshAccessToken(rejected: string): Promise<string>;
}

/** One response's rate-limit view, reported for EVERY response, errors included. */
export interface RateSample {
  readonly clientId: string;
  readonly operation: string;
  /** `X-RateLimit-Limit`. */
  readonly limit?: number;
  /** `X-RateLimit-Remaining`. */
  readonly remaining?: number;
  /** Now + `X-RateLimit-Reset` seconds (sent on 429). */
  readonly resetAt?: Date;
  readonly status: number;
}

export interface RateObserver {
  observe(sample: RateSample): void;
}

/** Structured, redacted log lines. Compatible with the Powertools Logger (`debug`/`warn`). */
export interface ApiLogger {
  debug(message: string, details: Record<string, unknown>): void;
  warn(message: string, details: Record<string, unknown>): void;
}

/** One HTTP attempt, for `onRequest` observers (benchmarks, metrics). */
export interface RequestEvent {
  readonly operation: string;
  readonly method: string;
  /** 1-based attempt number within the call. */
  readonly attempt: number;
  /** Response status, or undefined when the attempt got no response (timeout, network). */
  readonly status?: number;
  /** `timeout`, `network`, `aborted` when there was no response. */
  readonly failure?: 'timeout' | 'network' | 'aborted';
  readonly durationMs: number;
}
