import * as z from 'zod';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Tunables of the diff engine. Every field has a default; see README.md for the reasoning.
 */
export const diffConfigSchema = z.object({
  /**
   * What the first poll of a vehicle (no stored state) emits:
   * - `active-alerts` (default): current conditions — active alerts, maintenance due/overdue, an
   *   available map update — once, with `initial: true`; history is baseline.
   * - `none`: nothing; everything seen is baseline.
   * - `all`: history too (old collisions, trips, ended alerts…), as if it had just happened.
   */
  initialPolicy: z.enum(['active-alerts', 'none', 'all']).default('active-alerts'),
  /** Maintenance is due when days left ≤ `days` OR km left ≤ `mileageKm`. */
  maintenanceDue: z
    .object({ days: z.number().int().nonnegative(), mileageKm: z.number().int().nonnegative() })
    .default({ days: 30, mileageKm: 1000 }),
  /** A countdown that jumps UP by at least this much is a reset (service done). */
  maintenanceResetJump: z
    .object({ days: z.number().int().positive(), mileageKm: z.number().int().positive() })
    .default({ days: 30, mileageKm: 1000 }),
  /** How long a completed v2 trip waits for its eco-driving evaluation; 0 = never wait. */
  ecoDrivingWaitMs: z
    .number()
    .int()
    .nonnegative()
    .default(10 * MINUTE),
  /** Seen-id sets forget records older than this (anything older is treated as already seen). */
  retentionMs: z
    .number()
    .int()
    .positive()
    .default(30 * DAY),
  /** Bound of each seen-id set (collisions, trips, fuel records). */
  maxSeen: z.number().int().positive().default(200),
  /** Bound of the fixed alerts kept (active alerts are always kept). */
  maxFixedAlerts: z.number().int().positive().default(50),
  /** Bound of trips held for eco-driving. */
  maxPendingTrips: z.number().int().positive().default(20),
  /** The events cursor trails the newest event by this much, so late-indexed events are not missed. */
  eventsOverlapMs: z
    .number()
    .int()
    .nonnegative()
    .default(10 * MINUTE),
  /** A full (unwindowed) alert list at least this often, to catch what events did not reveal. */
  alertsReconcileMs: z
    .number()
    .int()
    .positive()
    .default(6 * HOUR),
  /**
   * An active alert missing from a complete alert list is fixed only once the absence is confirmed:
   * by its own record (read by id, or an inactive-inclusive list) saying it ended, or by a second
   * complete list fetched at least this long after the first one that missed it (a later cycle, so
   * one answer repeated within a cycle never counts twice). A services change likewise waits for a
   * second read this far apart.
   */
  absenceConfirmMs: z
    .number()
    .int()
    .nonnegative()
    .default(30 * 1000),
  /**
   * `false` fixes an alert at the first complete list that misses it and tells a services change at
   * its first read, as Carhook did before absences were confirmed: only the fault-injection
   * benchmark sets it, to measure both behaviours in one run. Never turn it off in production: a
   * stale or flapping answer then becomes a false fix and a false re-raise.
   */
  confirmAbsences: z.boolean().default(true),
  /**
   * A vehicle whose reads succeed but whose records stop advancing this long is told silent
   * (`vehicle.reporting.stopped`); learned from its own history once it has one (./reporting.ts).
   */
  silenceAfterMs: z
    .number()
    .int()
    .positive()
    .default(2 * DAY),
  /**
   * A trip moves the maintenance countdown, so maintenance is read after one. A reading whose own
   * time (`updatedAt`, v1 `lastUpdate`) is older than that trip's end and that was fetched less than
   * this long after it (a cached answer, or a countdown not yet recomputed) is not that read:
   * maintenance is read again with the vehicle's next events read. A read this long after the trip
   * counts whatever it says, so an API whose countdown time does not move with trips costs at most
   * the reads made in this window.
   */
  maintenanceSettleMs: z
    .number()
    .int()
    .nonnegative()
    .default(10 * 60 * 1000),
  /** Maintenance refresh period. */
  dailyMs: z.number().int().positive().default(DAY),
  /** Services (activation status) refresh period. */
  servicesMs: z.number().int().positive().default(DAY),
  /** Map update information refresh period. */
  mapMs: z.number().int().positive().default(DAY),
});

export type DiffConfig = z.output<typeof diffConfigSchema>;
export type DiffConfigInput = z.input<typeof diffConfigSchema>;

export const DEFAULT_CONFIG: DiffConfig = diffConfigSchema.parse({});

export type ConfigError = { readonly kind: 'Malformed'; readonly field: string; readonly reason: string };

/** Validates user-supplied configuration (e.g. from the environment); names the field on error. */
export const parseDiffConfig = (
  input: unknown,
): { ok: true; config: DiffConfig } | { ok: false; errors: readonly ConfigError[] } => {
  const parsed = diffConfigSchema.safeParse(input ?? {});
  if (parsed.success) return { ok: true, config: parsed.data };
  return {
    ok: false,
    errors: parsed.error.issues.map((i) => ({
      kind: 'Malformed',
      field: `config.${i.path.join('.')}`,
      reason: i.message,
    })),
  };
};
