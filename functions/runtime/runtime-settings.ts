/**
 * What a runtime is configured with (from the settings table on AWS, from flags in `carhook dev`):
 * its own module, so the runtime and the planner's runtime both read it without importing each other.
 */
import type { FreshnessTargets } from '../core/capacity/report';
import type { PollingConfig, PollStrategy } from '../core/polling/config';

export interface RuntimeSettings {
  readonly api: { readonly baseUrl: string; readonly authUrl: string; readonly brands: readonly string[] };
  /**
   * The client's quota (the API's default: 120 requests per 60 s); `maxRequests` the highest
   * `X-RateLimit-Limit` followed (absent or 0: never past `requests`).
   */
  readonly quota: {
    readonly requests: number;
    readonly windowSeconds: number;
    readonly maxRequests?: number;
  };
  /** The planner's cadence (one cycle). */
  readonly pollIntervalSeconds: number;
  readonly pollStrategy?: PollStrategy;
  /** Further polling overrides (local runtime, tests). */
  readonly polling?: Partial<PollingConfig>;
  /** Fraction of the quota never granted (default 0.1). */
  readonly safetyMargin?: number;
  /** Reported by GET /health. */
  readonly version?: string;
  /** The p95 lag each kind of change should stay within (ms): `GET /capacity` says whether each is met. */
  readonly freshnessTargets?: FreshnessTargets;
  /**
   * HMAC key of the OAuth `state` (≥ 32 bytes). Default: derived from the token key ring's current
   * key, so no further secret is needed (a key rotation only invalidates authorizations in flight).
   */
  readonly stateKey?: string | Uint8Array;
  readonly stateTtlMs?: number;
  /** API request timeout (ms); the client's default otherwise. */
  readonly apiTimeoutMs?: number;
  /**
   * Where users reach Carhook's HTTP API (`CARHOOK_PUBLIC_URL`): `enrollment.reauthorization_required`
   * then carries `<publicUrl>/oauth/<brand>/authorize`. Absent: the event has no link.
   */
  readonly publicUrl?: string;
}
