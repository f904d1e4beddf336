/**
 * How a vehicle's silences (./reporting.ts) are stored in its state record: its own module, with
 * the gap count a newer record moves, so the state's schema (./state.ts) and the poll's work
 * (./work.ts) read them without importing the detection that tells silences.
 */
import * as z from 'zod';
import type { IsoDate } from '../api/model';

const iso = z.string();

export const reportingSchema = z.object({
  /** Gaps between successive records counted so far. */
  gaps: z.number().int().nonnegative(),
  /** The longest of them (ms). */
  longestGapMs: z.number().nonnegative(),
  /** Set while a silence is told: the newest record time then (or the first poll's time). */
  silentSince: iso.optional(),
});
export type Reporting = z.infer<typeof reportingSchema>;

/** The statistics after a newer record at `at` than `previous` (none counted while a silence is told). */
export function countGap(
  reporting: Reporting | undefined,
  previous: IsoDate,
  at: IsoDate,
): Reporting | undefined {
  if (reporting?.silentSince !== undefined) return reporting;
  const gap = Date.parse(at) - Date.parse(previous);
  if (!(gap > 0)) return reporting;
  return {
    gaps: (reporting?.gaps ?? 0) + 1,
    longestGapMs: Math.max(reporting?.longestGapMs ?? 0, gap),
  };
}
