import type { ClientRegistry } from '../auth/clients';
import type { TokenStore } from '../auth/tokens';
import type { SpecOperation } from '../spec/operations';
import type { World } from '../world/world';
import type { AnswerHistory } from './answers';
import type { Chaos, ChaosFlags } from './chaos';
import type { RateLimiter } from './ratelimit';
import type { Stats } from './stats';

/** Requests held open by `slow` and `hung` chaos; all released when the server closes. */
export class PendingRequests {
  private readonly waiting = new Set<() => void>();
  private closed = false;

  /** Resolves after `ms` (or never when `ms` is undefined) — or at once when the server closes. */
  wait(ms: number | undefined, signal?: AbortSignal): Promise<'elapsed' | 'released'> {
    if (this.closed) return Promise.resolve('released');
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const release = (): void => {
        if (timer) clearTimeout(timer);
        this.waiting.delete(release);
        signal?.removeEventListener('abort', release);
        resolve('released');
      };
      if (ms !== undefined) {
        timer = setTimeout(() => {
          this.waiting.delete(release);
          signal?.removeEventListener('abort', release);
          resolve('elapsed');
        }, ms);
      }
      this.waiting.add(release);
      signal?.addEventListener('abort', release, { once: true });
    });
  }

  get size(): number {
    return this.waiting.size;
  }

  releaseAll(): void {
    this.closed = true;
    for (const release of [...this.waiting]) release();
  }
}

/** Everything the routes share: one per simulator instance. */
export interface SimServices {
  readonly world: World;
  readonly clients: ClientRegistry;
  readonly tokens: TokenStore;
  readonly limiter: RateLimiter;
  readonly chaos: Chaos;
  readonly stats: Stats;
  readonly pending: PendingRequests;
  /** Answers given, kept while the `stale` chaos mode may serve them again. */
  readonly answers: AnswerHistory;
  /** Default access token lifetime, seconds. */
  readonly accessTtlSeconds: number;
}

/** Hono variables set by the gateway for the API routes. */
export type SimEnv = {
  Variables: {
    op: SpecOperation | undefined;
    clientId: string | undefined;
    /** Set on v2 requests with a valid bearer token. */
    userId: string | undefined;
    chaos: ChaosFlags;
  };
};
