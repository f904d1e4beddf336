/**
 * How the scenario runs its steps: each one timed and printed, the first failure stops the run
 * with the step, the reason, and whatever the deployment reported meanwhile (a function's error, an
 * AccessDenied at the gate, a batch Lambda would have retried).
 */
import type { Incident } from './deploy';

export class StepFailed extends Error {
  readonly kind = 'RehearsalFailed';
  constructor(
    readonly step: string,
    readonly reason: string,
    readonly incidents: readonly Incident[],
  ) {
    super(
      `${step}: ${reason}${incidents.length > 0 ? `\n  reported meanwhile:\n${incidents.map((i) => `  - ${i.where}: ${i.message}`).join('\n')}` : ''}`,
    );
    this.name = 'StepFailed';
  }
}

export interface StepRecord {
  readonly name: string;
  readonly ms: number;
  readonly detail?: string;
}

export class Steps {
  readonly done: StepRecord[] = [];
  private seen = 0;

  constructor(
    private readonly incidents: Incident[],
    private readonly print: (line: string) => void,
    private readonly started = Date.now(),
  ) {}

  /** Runs `fn` as a step; it fails on a thrown error or on any incident reported while it ran. */
  async run<T>(name: string, fn: () => Promise<T>, describe?: (value: T) => string): Promise<T> {
    const t0 = Date.now();
    let value: T;
    try {
      value = await fn();
    } catch (error) {
      throw this.failure(
        name,
        error instanceof StepFailed ? error.reason : error instanceof Error ? error.message : String(error),
      );
    }
    const fresh = this.incidents.slice(this.seen);
    if (fresh.length > 0) throw this.failure(name, `${fresh.length} problem(s) reported while it ran`);
    const ms = Date.now() - t0;
    const detail = describe?.(value);
    this.done.push({ name, ms, ...(detail ? { detail } : {}) });
    this.print(
      `  ✓ ${name} (${seconds(ms)}, at ${seconds(Date.now() - this.started)})${detail ? `: ${detail}` : ''}`,
    );
    return value;
  }

  /** Problems reported since the last step ended: a wait gives up at the first one. */
  pending(): number {
    return this.incidents.length - this.seen;
  }

  private failure(name: string, reason: string): StepFailed {
    const fresh = this.incidents.slice(this.seen);
    this.seen = this.incidents.length;
    this.print(`  ✗ ${name}: ${reason}`);
    return new StepFailed(name, reason, fresh);
  }
}

export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Waits until `check` holds, calling `between` (a schedule tick) before each look; fails with
 * `what` after `timeoutMs`.
 */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  options: { timeoutMs: number; between?: () => Promise<unknown>; everyMs?: number; giveUp?: () => boolean },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    await options.between?.();
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (options.giveUp?.()) throw new Error(`${what}: stopped waiting, a problem was reported`);
    if (Date.now() > deadline) throw new Error(`${what}: not within ${seconds(options.timeoutMs)}`);
    await new Promise((r) => setTimeout(r, options.everyMs ?? 500));
  }
}
