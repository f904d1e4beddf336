/**
 * The composition root: builds the use cases' dependencies from ports. The Lambda handlers
 * (./aws.ts builds the AWS ports from the environment) and the local runtime (`npm run dev`:
 * DynamoDB Local, LocalBus, LocalQueue, env/file secrets) both call `createRuntime`, so the same
 * core code runs in both. Nothing here reads the environment or imports an AWS SDK.
 *
 * Per-invocation deps (`pollDeps({ signal })`, `oauthDeps({ signal })`) are cheap objects over
 * long-lived ports: they carry the invocation's AbortSignal into every outgoing fetch.
 */
import { createHmac } from 'node:crypto';
import type { ApiClientCredentials, CarhookSecrets, MapApiCredentials } from '../adapters/secrets/types';
import { createTokenEndpoint, type TokenEndpoint } from '../core/api/oauth';
// The token endpoint alone: importing the API module's index would keep the whole client and its
// wire schemas (module-level zod calls esbuild cannot drop) in functions that never call the API.
import type { FreshnessWatchDeps } from '../core/capacity/watch';
import {
  createTokenCipher,
  type KeyRing,
  noticingUnknownKeys,
  type TokenCipher,
} from '../core/crypto/token-cipher';
import type { OAuthEnrollmentDeps } from '../core/enrollment';
import type { PublishTuning, RepublishDeps } from '../core/polling/commit';
import type { PollingConfig } from '../core/polling/config';
import type { PollJob } from '../core/polling/jobs';
import type { ApiAccess } from '../core/polling/metered-client';
import type { PlannerDeps, PlannerMemory } from '../core/polling/planner';
import type { PollDeps } from '../core/polling/poll-vehicle';
import type { EventBus } from '../core/publishing/ports';
import type { JobQueue } from '../core/queue/ports';
import { announcingBudget } from '../core/ratelimit/announce';
import type { RateBudgetConfig } from '../core/ratelimit/bucket';
import type { RateBudget } from '../core/ratelimit/budget';
import type { Stores } from '../core/store/ports';
import { createTokenManager, type TokenManager } from '../core/tokens';
import { RuntimeSetupError } from './errors';
import { logger, type MetricSink, meteredBus, noMetrics, observingFetch } from './observability';
import { createPlannerRuntime, pollingConfigOf, rateBudgetConfigOf } from './planner-runtime';

import type { RuntimeSettings } from './runtime-settings';

export type { RuntimeSettings };

/** Carhook's authorize route for a brand, under the public URL of its HTTP API. */
export const authorizeUrlFor =
  (publicUrl: string) =>
  (brand: string): string =>
    new URL(
      `oauth/${encodeURIComponent(brand)}/authorize`,
      publicUrl.endsWith('/') ? publicUrl : `${publicUrl}/`,
    ).toString();

export interface RuntimePorts {
  readonly stores: Stores;
  readonly rateBudget: RateBudget;
  readonly bus: EventBus;
  readonly secrets: CarhookSecrets;
  /** Where the planner sends poll jobs (planner only). */
  readonly pollQueue?: JobQueue<PollJob>;
  readonly now?: () => number;
  /** The HTTP client of every API call (default global fetch). */
  readonly fetch?: typeof fetch;
  readonly metrics?: MetricSink;
  readonly publish?: PublishTuning;
  /** Token refresh lease waits (tests pass a fast one). */
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface InvocationOptions {
  /** The handler's AbortSignal (middy) or the local worker's shutdown signal. */
  readonly signal?: AbortSignal;
}

export interface Runtime {
  readonly settings: RuntimeSettings;
  readonly ports: RuntimePorts;
  readonly now: () => number;
  readonly metrics: MetricSink;
  readonly rateBudgetConfig: RateBudgetConfig;
  readonly pollingConfig: PollingConfig;
  /**
   * When the planner last booked each vehicle's reads: filled where the planner runs in this
   * process (the local runtime); empty in a function that does not plan.
   */
  readonly plannerMemory: PlannerMemory;
  plannerDeps(): Promise<PlannerDeps>;
  pollDeps(options?: InvocationOptions): Promise<PollDeps>;
  oauthDeps(options?: InvocationOptions): Promise<OAuthEnrollmentDeps>;
  republishDeps(): RepublishDeps;
  /** The freshness check's deps; undefined when no freshness target is set. */
  freshnessDeps(): FreshnessWatchDeps | undefined;
  /** False when the map API secret is absent or blank: map update polling is skipped. */
  mapEnabled(): Promise<boolean>;
  /**
   * The token cipher over the current key ring (webhook secrets use it too). `fresh` reads the ring
   * past the secrets cache; so does the first call after a ciphertext named a key the ring lacked.
   */
  cipher(options?: { readonly fresh?: boolean }): Promise<TokenCipher>;
}

export { RuntimeSetupError } from './errors';

/** The OAuth state key derived from the key ring's current key (HMAC-SHA256, a fixed label). */
export function stateKeyFromKeyRing(ring: KeyRing): Buffer {
  const key = ring.keys.get(ring.currentKeyId);
  if (!key) throw new RuntimeSetupError('keyRing.current', `key ${ring.currentKeyId} is not in the ring`);
  return createHmac('sha256', key).update('carhook/oauth-state/v1').digest();
}

export function createRuntime(settings: RuntimeSettings, ports: RuntimePorts): Runtime {
  if (settings.api.brands.length === 0)
    throw new RuntimeSetupError('api.brands', 'at least one brand is required');
  const now = ports.now ?? Date.now;
  const sink = ports.metrics ?? noMetrics;
  const rateBudgetConfig = rateBudgetConfigOf(settings);
  const pollingConfig = pollingConfigOf(settings);

  // The cipher follows the key ring the secrets adapter returns (same object while cached). A
  // ciphertext that names a key this ring lacks was sealed by a process that read the ring after a
  // rotation (a newer container, another function): the next read skips the cache, so a warm
  // container fails once, not for the cache's whole lifetime.
  let cipherOf: { ring: KeyRing; cipher: TokenCipher } | undefined;
  let readFresh = false;
  const cipher = async (options: { readonly fresh?: boolean } = {}): Promise<TokenCipher> => {
    const fresh = options.fresh === true || readFresh;
    readFresh = false;
    const ring = await ports.secrets.keyRing.load(fresh ? { fresh: true } : undefined);
    if (cipherOf?.ring !== ring) {
      cipherOf = {
        ring,
        cipher: noticingUnknownKeys(createTokenCipher(ring), () => {
          readFresh = true;
        }),
      };
    }
    return cipherOf.cipher;
  };

  const accessFor = (
    credentials: ApiClientCredentials,
    mapCredentials: MapApiCredentials | undefined,
    fetchImpl: typeof fetch,
  ): ApiAccess => ({
    baseUrl: settings.api.baseUrl,
    authUrl: settings.api.authUrl,
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
    ...(mapCredentials ? { mapCredentials } : {}),
    fetch: fetchImpl,
    ...(settings.apiTimeoutMs !== undefined ? { timeoutMs: settings.apiTimeoutMs } : {}),
  });

  const endpointsFor = (access: ApiAccess, fetchImpl: typeof fetch) => {
    const endpoints = new Map<string, TokenEndpoint>();
    return (brand: string): TokenEndpoint => {
      let endpoint = endpoints.get(brand);
      if (!endpoint) {
        endpoint = createTokenEndpoint({
          authUrl: access.authUrl,
          clientId: access.clientId,
          clientSecret: access.clientSecret,
          brand,
          fetch: fetchImpl,
          now,
          // One attempt: the queue (poll) or the user (callback) is the retry.
          retry: { maxAttempts: 1 },
        });
        endpoints.set(brand, endpoint);
      }
      return endpoint;
    };
  };

  const invocation = async (options: InvocationOptions = {}) => {
    const credentials = await ports.secrets.apiClient();
    const fetchImpl = observingFetch(sink, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(ports.fetch ? { fetch: ports.fetch } : {}),
    });
    const access = accessFor(credentials, await ports.secrets.mapApi(), fetchImpl);
    return { access, endpointFor: endpointsFor(access, fetchImpl), cipher: await cipher() };
  };

  const firstPublishBus = meteredBus(ports.bus, sink, { firstPublish: true });
  const publish = ports.publish;

  const mapEnabled = async (): Promise<boolean> => (await ports.secrets.mapApi()) !== undefined;

  // Every change of the quota followed is logged and told (`carhook.quota.changed`).
  const budget = announcingBudget(ports.rateBudget, {
    bus: firstPublishBus,
    report: (change, published) =>
      logger.info('quota changed', {
        ...change,
        changedAt: new Date(change.changedAt).toISOString(),
        ...(published.ok ? {} : { publishError: published.message }),
      }),
  });

  // The planner's memory of booked reads lives as long as this runtime (a warm function).
  const planner = createPlannerRuntime(settings, {
    stores: ports.stores,
    rateBudget: ports.rateBudget,
    pollQueue: ports.pollQueue,
    mapEnabled,
    now,
  });
  return {
    settings,
    ports,
    now,
    metrics: sink,
    rateBudgetConfig,
    pollingConfig,
    plannerMemory: planner.memory,
    cipher,
    mapEnabled,

    plannerDeps: planner.plannerDeps,

    async pollDeps(options) {
      const { access, endpointFor, cipher: c } = await invocation(options);
      const tokens: TokenManager = createTokenManager({
        enrollments: ports.stores.enrollments,
        vehicles: ports.stores.vehicles,
        leases: ports.stores.leases,
        cipher: c,
        endpointFor,
        now,
        ...(ports.sleep ? { sleep: ports.sleep } : {}),
        ...(settings.publicUrl ? { authorizeUrl: authorizeUrlFor(settings.publicUrl) } : {}),
      });
      return {
        stores: ports.stores,
        budget,
        bus: firstPublishBus,
        access,
        tokens,
        now,
        config: pollingConfig,
        ...(publish ? { publish } : {}),
      };
    },

    async oauthDeps(options) {
      const { access, endpointFor, cipher: c } = await invocation(options);
      const stateKey = settings.stateKey ?? stateKeyFromKeyRing(await ports.secrets.keyRing.load());
      return {
        stores: ports.stores,
        cipher: c,
        bus: firstPublishBus,
        access,
        endpointFor,
        stateKey,
        budget,
        now,
        brands: settings.api.brands,
        ...(settings.stateTtlMs !== undefined ? { stateTtlMs: settings.stateTtlMs } : {}),
        ...(publish ? { publish } : {}),
      };
    },

    freshnessDeps() {
      const targets = settings.freshnessTargets;
      if (!targets || Object.keys(targets).length === 0) return undefined;
      return {
        stores: ports.stores,
        vehicles: ports.stores.vehicles,
        rateBudget: ports.rateBudget,
        rateBudgetConfig,
        pollingConfig,
        bus: meteredBus(ports.bus, sink, { firstPublish: false }),
        now,
        targets,
        ...(publish ? { publish } : {}),
      };
    },

    republishDeps() {
      return {
        events: ports.stores.events,
        bus: meteredBus(ports.bus, sink, { firstPublish: false }),
        now,
        ...(publish ? { publish } : {}),
      };
    },
  };
}
