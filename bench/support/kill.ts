/**
 * A worker process that can be killed at any step (for the fault suite). Every call the worker
 * makes through a port — a store method, the rate budget, the bus, the delivery queue, a request
 * over the network — is one step. Killed at step k, the worker does nothing more: the k-th call
 * (mode `before`: never made; mode `after`: made, its result lost) and every later call throw
 * `WorkerKilled`. The job's queue message is then neither deleted nor retried by the worker: it
 * comes back when its visibility timeout ends, as it does on SQS when a Lambda dies.
 */

/** Thrown by every port call of a dead worker. */
export class WorkerKilled extends Error {
  override readonly name = 'WorkerKilled';
  readonly kind = 'WorkerKilled';
  constructor(readonly step: number) {
    super(`worker killed at step ${step}`);
  }
}

export type KillMode = 'before' | 'after';

/** How one step relates to the window a kill cannot be survived in (see `killableFetch`). */
export interface StepOptions {
  /** Opens the window once the step has answered (a refresh answer received). */
  readonly opensWindow?: boolean;
  /** Closes the window once the step has completed (the new tokens written). */
  readonly closesWindow?: boolean;
}

/**
 * One worker's life: counts its steps and dies at `killAt` (never when undefined). A kill drawn
 * inside the unsurvivable window is postponed to the first step after it.
 */
export class WorkerLife {
  #steps = 0;
  #dead = false;
  #window = false;
  constructor(
    readonly killAt?: number,
    readonly mode: KillMode = 'before',
  ) {}

  get steps(): number {
    return this.#steps;
  }

  get dead(): boolean {
    return this.#dead;
  }

  #die(): never {
    this.#dead = true;
    throw new WorkerKilled(this.#steps);
  }

  /** Runs one step through the life: refused when dead, and the kill point when it is due. */
  async step<T>(call: () => Promise<T> | T, options: StepOptions = {}): Promise<T> {
    if (this.#dead) throw new WorkerKilled(this.#steps);
    this.#steps++;
    const due = this.killAt !== undefined && this.#steps >= this.killAt;
    // Inside the window, or about to open it: the step must complete and its answer be kept.
    const protectedStep = this.#window || options.opensWindow === true;
    if (due && !protectedStep && this.mode === 'before') this.#die();
    const result = await call();
    if (options.opensWindow) this.#window = true;
    if (options.closesWindow && this.#window) {
      this.#window = false;
      return result;
    }
    if (due && !protectedStep) this.#die();
    return result;
  }
}

/**
 * `target` with every method (and, to `depth`, every method of its object properties) routed
 * through `life`. Methods are bound to the original objects, so classes with private fields work.
 */
export function killable<T extends object>(target: T, life: WorkerLife, depth = 1): T {
  const cache = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(obj, key) {
      if (cache.has(key)) return cache.get(key);
      const value: unknown = Reflect.get(obj, key, obj);
      let wrapped: unknown = value;
      if (typeof value === 'function') {
        const fn = value as (...args: unknown[]) => unknown;
        const options = key === 'saveTokens' ? { closesWindow: true } : {};
        wrapped = (...args: unknown[]) => life.step(() => fn.apply(obj, args), options);
      } else if (depth > 1 && value !== null && typeof value === 'object') {
        wrapped = killable(value, life, depth - 1);
      }
      cache.set(key, wrapped);
      return wrapped;
    },
  });
}

/**
 * A `fetch` whose every request is a step of `life`. One window is never killed in: from a refresh
 * request to the token endpoint until the new tokens are written (`saveTokens`). With a rotating
 * refresh token (the simulator rotates; the API does not document its refresh flow), a process that dies
 * there has lost the only valid refresh token, and no client can recover without the user: Carhook
 * reports it as one `enrollment.reauthorization_required` naming the lost answer
 * (functions/core/tokens, test/polling/kill.test.ts). A kill drawn in the window happens right after.
 */
export function killableFetch(life: WorkerLife, base: typeof fetch = globalThis.fetch): typeof fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    return life.step(() => base(input, init), { opensWindow: url.includes('/oauth2/token') });
  };
}
