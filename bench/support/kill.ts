/**
 * A worker process that can be killed at any step (issue 9, fault suite). Every call the worker
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

/** One worker's life: counts its steps and dies at `killAt` (never when undefined). */
export class WorkerLife {
  #steps = 0;
  #dead = false;
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

  /** Runs one step through the life: refused when dead, and the kill point when it is this one. */
  async step<T>(call: () => Promise<T> | T): Promise<T> {
    if (this.#dead) throw new WorkerKilled(this.#steps);
    this.#steps++;
    const fatal = this.#steps === this.killAt;
    if (fatal && this.mode === 'before') {
      this.#dead = true;
      throw new WorkerKilled(this.#steps);
    }
    const result = await call();
    if (fatal) {
      this.#dead = true;
      throw new WorkerKilled(this.#steps);
    }
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
        wrapped = (...args: unknown[]) => life.step(() => fn.apply(obj, args));
      } else if (depth > 1 && value !== null && typeof value === 'object') {
        wrapped = killable(value, life, depth - 1);
      }
      cache.set(key, wrapped);
      return wrapped;
    },
  });
}

/** A `fetch` whose every request is a step of `life`. */
export function killableFetch(life: WorkerLife, base: typeof fetch = globalThis.fetch): typeof fetch {
  return (input, init) => life.step(() => base(input, init));
}
