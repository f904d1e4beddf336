/**
 * Keyed concurrency limiter: at most `perKey` tasks in flight per key (subscription) and at most
 * `global` overall. Waiting tasks are queued per key and started round-robin across keys, and a
 * key at its own limit never holds up the global queue, so a hung endpoint occupies at most
 * `perKey` slots and every other subscription keeps flowing.
 */
export interface LimiterOptions {
  readonly perKey: number;
  readonly global: number;
  /** Waiting tasks allowed per key before `run` refuses (bounded memory). Default unbounded. */
  readonly maxQueuedPerKey?: number;
}

export interface LimiterStats {
  readonly inFlight: number;
  readonly queued: number;
  readonly inFlightFor: (key: string) => number;
  readonly queuedFor: (key: string) => number;
}

export class LimiterOverloaded extends Error {
  readonly kind = 'Overloaded' as const;
  readonly key: string;
  constructor(key: string, limit: number) {
    super(`subscription ${key} already has ${limit} deliveries waiting`);
    this.name = 'LimiterOverloaded';
    this.key = key;
  }
}

export interface KeyedLimiter {
  /** Runs `task` when both limits allow; rejects with LimiterOverloaded if the key's queue is full. */
  readonly run: <T>(key: string, task: () => Promise<T>) => Promise<T>;
  readonly stats: () => LimiterStats;
}

interface KeyState {
  inFlight: number;
  readonly waiting: (() => void)[];
}

export interface LimiterConfigError {
  readonly kind: 'Malformed';
  readonly field: 'perKey' | 'global' | 'maxQueuedPerKey';
  readonly message: string;
}

function positiveInt(n: number | undefined): boolean {
  return n !== undefined && Number.isInteger(n) && n > 0;
}

export function validateLimiterOptions(options: LimiterOptions): LimiterConfigError | undefined {
  if (!positiveInt(options.perKey))
    return { kind: 'Malformed', field: 'perKey', message: 'perKey: must be a positive integer' };
  if (!positiveInt(options.global))
    return { kind: 'Malformed', field: 'global', message: 'global: must be a positive integer' };
  if (options.maxQueuedPerKey !== undefined && !positiveInt(options.maxQueuedPerKey)) {
    return {
      kind: 'Malformed',
      field: 'maxQueuedPerKey',
      message: 'maxQueuedPerKey: must be a positive integer',
    };
  }
  return undefined;
}

/** Invalid limits fall back to 1 rather than deadlocking (0) or running unbounded (NaN). */
export function createKeyedLimiter(options: LimiterOptions): KeyedLimiter {
  const perKey = positiveInt(options.perKey) ? options.perKey : 1;
  const global = positiveInt(options.global) ? options.global : 1;
  const maxQueued = positiveInt(options.maxQueuedPerKey)
    ? (options.maxQueuedPerKey as number)
    : Number.POSITIVE_INFINITY;
  const keys = new Map<string, KeyState>();
  // Keys with waiting tasks, in round-robin order.
  const ready: string[] = [];
  let inFlight = 0;
  let queued = 0;

  function state(key: string): KeyState {
    let s = keys.get(key);
    if (!s) {
      s = { inFlight: 0, waiting: [] };
      keys.set(key, s);
    }
    return s;
  }

  function pump(): void {
    let scanned = 0;
    while (inFlight < global && ready.length > 0 && scanned < ready.length) {
      const key = ready.shift() as string;
      const s = state(key);
      if (s.inFlight >= perKey) {
        // At its own limit: skip it (back of the line) without blocking the others.
        ready.push(key);
        scanned++;
        continue;
      }
      scanned = 0;
      const start = s.waiting.shift();
      if (s.waiting.length > 0) ready.push(key);
      if (start) {
        queued--;
        start();
      }
    }
  }

  function release(key: string): void {
    const s = state(key);
    s.inFlight--;
    inFlight--;
    if (s.inFlight === 0 && s.waiting.length === 0) keys.delete(key);
    pump();
  }

  function run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const s = state(key);
    if (s.waiting.length >= maxQueued) return Promise.reject(new LimiterOverloaded(key, maxQueued));
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        s.inFlight++;
        inFlight++;
        let result: Promise<T>;
        try {
          result = Promise.resolve(task());
        } catch (e) {
          result = Promise.reject(e);
        }
        result.then(resolve, reject).finally(() => release(key));
      };
      if (s.waiting.length === 0) ready.push(key);
      s.waiting.push(start);
      queued++;
      pump();
    });
  }

  return {
    run,
    stats: () => ({
      inFlight,
      queued,
      inFlightFor: (key) => keys.get(key)?.inFlight ?? 0,
      queuedFor: (key) => keys.get(key)?.waiting.length ?? 0,
    }),
  };
}
