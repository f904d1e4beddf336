/**
 * The clock port. Use cases take `now` (epoch ms, or a Date where they need one) so tests run on an
 * injected clock; this module is the one place in core that reads the system clock, as the default
 * for a caller that injects none. test/architecture/layers.test.ts keeps it the only one.
 */

/** Epoch milliseconds. */
export type Clock = () => number;

/** The system clock, epoch ms. */
export const systemNow: Clock = () => Date.now();

/** The system clock as a Date. */
export const systemDate = (): Date => new Date(systemNow());

/**
 * Process time and a one-shot timer: what a wait inside this process is measured with (monotonic,
 * unaffected by the wall clock being set). `after` runs `run` once, `ms` from now, unless the
 * returned function cancels it first.
 */
export interface ProcessTimer {
  readonly now: () => number;
  readonly after: (ms: number, run: () => void) => () => void;
}

/** `performance.now()` and `setTimeout`: a cancelled timer never runs (`clearTimeout`). */
export const systemTimer: ProcessTimer = {
  now: () => performance.now(),
  after: (ms, run) => {
    const timer = setTimeout(run, ms);
    return () => clearTimeout(timer);
  },
};
