/**
 * When a kind of change is at risk of missing its freshness target, and when it is back: the
 * decision behind `carhook.freshness.at_risk` and `.restored`, pure, on an injected clock.
 *
 * A kind is at risk when the capacity model's p95 lag for the fleet as it is (./model.ts, the
 * figure `GET /capacity` compares with the target) or its measured p95 passes the target. The
 * runtime records detection lag for all kinds together, not per kind, so `measuredP95Ms` is given
 * only where a measurement of that kind exists; without one the model's prediction decides alone.
 *
 * Never more than one at-risk / restored pair per kind per hour: an at-risk is told only when the
 * last one of that kind is an hour old or more; a restored only after a told at-risk. A kind whose
 * risk comes back within the hour is therefore told again once the hour has passed, if still at risk.
 */
import type { FreshnessKind } from './kinds';

/**
 * The kinds are checked every this many planner cycles (./watch.ts): 5 minutes with the default
 * cycle of a minute. The sweeper runs every minute; most runs find no check due.
 */
export const FRESHNESS_CHECK_CYCLES = 5;

/** At most one at-risk (and the restored that follows it) per kind in this long. */
export const FRESHNESS_TELL_EVERY_MS = 3_600_000;

export interface KindFreshness {
  readonly kind: FreshnessKind;
  readonly targetMs: number;
  /** The model's p95 lag for the fleet as it is (ms); null: never (no read left for it). */
  readonly predictedP95Ms: number | null;
  /** The model's guarantee (ms); reported, not decided on. */
  readonly guaranteeMs: number | null;
  /** A measured p95 lag of this kind (ms), when the runtime has one. */
  readonly measuredP95Ms?: number;
  readonly vehicles: number;
  /** Requests per window that would meet the target (null: none can, or not quota-bound). */
  readonly quotaForTarget: number | null;
}

/** What is remembered per kind between checks. */
export interface KindMemory {
  /** An at-risk was told and no restored since. */
  readonly atRisk: boolean;
  /** When the last at-risk was told (epoch ms). */
  readonly toldAt?: number;
}
export type FreshnessMemory = Readonly<Partial<Record<FreshnessKind, KindMemory>>>;

/** A signal: when it was decided, and the kind's figures then. */
interface Signal<T extends string> {
  readonly type: T;
  readonly at: number;
  readonly freshness: KindFreshness;
}
export type FreshnessSignal =
  | Signal<'carhook.freshness.at_risk'>
  /** `atRiskSince`: when the at-risk it ends was told. */
  | (Signal<'carhook.freshness.restored'> & { readonly atRiskSince: number });

export const isAtRisk = (f: KindFreshness): boolean =>
  f.predictedP95Ms === null ||
  f.predictedP95Ms > f.targetMs ||
  // Stryker disable next-line ConditionalExpression: `undefined > n` is false, so the guard is there for the reader and the types
  (f.measuredP95Ms !== undefined && f.measuredP95Ms > f.targetMs);

/**
 * The signals a check at `now` gives, and the memory after it. Kinds without a target are not
 * given and their memory is kept as it is: a target removed while an at-risk stands and set again
 * later continues that at-risk (told restored once met), never tells a second one in the hour.
 * A `toldAt` in the future (a clock set back) does not hold an at-risk back.
 */
export function decideFreshness(
  memory: FreshnessMemory,
  kinds: readonly KindFreshness[],
  now: number,
): { readonly memory: FreshnessMemory; readonly signals: readonly FreshnessSignal[] } {
  const next: Partial<Record<FreshnessKind, KindMemory>> = { ...memory };
  const signals: FreshnessSignal[] = [];
  for (const f of kinds) {
    const before = memory[f.kind] ?? { atRisk: false };
    const risk = isAtRisk(f);
    if (risk && !before.atRisk) {
      const since = before.toldAt === undefined ? Number.POSITIVE_INFINITY : now - before.toldAt;
      // Stryker disable next-line EqualityOperator: `since` is 0 only for a kind told and restored at the same moment, which one check cannot do
      const mayTell = since >= FRESHNESS_TELL_EVERY_MS || since < 0;
      if (mayTell) {
        signals.push({ type: 'carhook.freshness.at_risk', at: now, freshness: f });
        next[f.kind] = { atRisk: true, toldAt: now };
        continue;
      }
    } else if (!risk && before.atRisk) {
      signals.push({
        type: 'carhook.freshness.restored',
        at: now,
        freshness: f,
        atRiskSince: before.toldAt ?? now,
      });
      // Stryker disable next-line ConditionalExpression: a `toldAt` of undefined is dropped when the state is written as JSON
      next[f.kind] = { atRisk: false, ...(before.toldAt !== undefined ? { toldAt: before.toldAt } : {}) };
      continue;
    }
    next[f.kind] = before;
  }
  return { memory: next, signals };
}
