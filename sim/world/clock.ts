/**
 * The world clock. `real` follows wall time from `startTime`; `manual` stands still until
 * `advance(ms)`. Both can be advanced, so long scenarios run in seconds.
 */
export type ClockMode = 'real' | 'manual';

/** Default start of a manual clock: fixed, so a seed gives the same world byte for byte. */
export const DEFAULT_MANUAL_START = Date.UTC(2026, 0, 15, 9, 0, 0);

export class WorldClock {
  private offsetMs = 0;
  private readonly realOrigin: number;

  constructor(
    readonly mode: ClockMode,
    readonly startTime: number,
    private readonly wallNow: () => number = Date.now,
  ) {
    this.realOrigin = wallNow();
  }

  now(): number {
    const elapsed = this.mode === 'real' ? this.wallNow() - this.realOrigin : 0;
    return this.startTime + elapsed + this.offsetMs;
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  /** Back to `startTime` (manual) or to wall time since start (real), dropping advances. */
  resetAdvances(): void {
    this.offsetMs = 0;
  }
}
