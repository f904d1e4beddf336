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
