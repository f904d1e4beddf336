/**
 * Tuning presets per deployment. Production and development deployments exist at two base
 * addresses of each kind, but the addresses are not known here, so `baseUrl` and `authUrl` always
 * come from configuration (environment or CLI flags); only timeouts and retries differ.
 *
 *   createCarClient({ ...API_PRESETS.production, baseUrl, authUrl, clientId, clientSecret, brand })
 */
import type { RetryOptions } from './transport';

export type ApiDeployment = 'production' | 'development' | 'simulator';

export interface ApiPreset {
  /** Per-attempt timeout. */
  readonly timeoutMs: number;
  readonly retry: RetryOptions;
}

export const API_PRESETS: Readonly<Record<ApiDeployment, ApiPreset>> = {
  // A call never takes more than ~25 s, waits included: it fits a poll Lambda of 60 s.
  production: {
    timeoutMs: 10_000,
    retry: { maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 5_000, maxTotalMs: 25_000 },
  },
  development: {
    timeoutMs: 15_000,
    retry: { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 5_000, maxTotalMs: 30_000 },
  },
  // The simulator (`npm run sim`) answers fast; its chaos modes are what retries are tested against.
  simulator: {
    timeoutMs: 5_000,
    retry: { maxAttempts: 4, baseDelayMs: 50, maxDelayMs: 1_000, maxTotalMs: 10_000 },
  },
};
