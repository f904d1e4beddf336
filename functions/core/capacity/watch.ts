/**
 * The freshness check: every few minutes, each kind with a freshness target is compared with the
 * capacity model's p95 for the fleet as it is and with the p95 measured over the last hour;
 * `carhook.freshness.at_risk` / `.restored` follow from ./freshness.ts (at most one pair per kind
 * per hour). The model runs once per check; the quota that would meet a target (a bisection over
 * the model) only for a kind that is told.
 *
 * What it remembers (the last check, and per kind whether an at-risk is standing and when it was
 * told) is one versioned state in the VehicleStateStore under `carhook:freshness`, the port's own
 * optimistic versioning: the events are committed with that state in one write, then published, so
 * a check never tells twice (a concurrent one gets a version conflict and stands down) and never
 * loses an event (one committed but not published is the sweeper's, like any vehicle event). An
 * at-risk's id names the kind and the moment it was told; a restored's, the at-risk it ends.
 */
import * as z from 'zod';
import { buildEvent } from '../events/catalogue';
import { eventId } from '../events/ids';
import { type CommitDeps, publishCommitted } from '../polling/commit';
import type { Stores } from '../store/ports';
import {
  decideFreshness,
  FRESHNESS_CHECK_CYCLES,
  type FreshnessSignal,
  type KindFreshness,
} from './freshness';
import { freshnessKinds } from './kinds';
import { type MeasuredLag, readMeasuredLags } from './measured';
import { type CapacityQuota, predictFleet, quotaForTarget } from './model';
import { type CapacityDeps, type FleetNow, readFleet } from './read';
import { type FreshnessTargets, seconds } from './report';

/** The VehicleStateStore key of the freshness check's state. */
export const FRESHNESS_STATE_KEY = 'carhook:freshness';
export const FRESHNESS_STATE_FORMAT = 'freshness-1';

const kindMemorySchema = z.object({ atRisk: z.boolean(), toldAt: z.number().int().optional() });
const watchStateSchema = z.object({
  checkedAt: z.number().int(),
  kinds: z.partialRecord(z.enum(freshnessKinds), kindMemorySchema),
});
type WatchState = z.infer<typeof watchStateSchema>;

export interface FreshnessWatchDeps extends Omit<CapacityDeps, 'targets'> {
  readonly stores: Pick<Stores, 'states' | 'events'>;
  readonly bus: CommitDeps['bus'];
  readonly publish?: CommitDeps['publish'];
  readonly targets: FreshnessTargets;
}

export type FreshnessWatchResult =
  | { readonly kind: 'NoTargets' }
  | { readonly kind: 'NotDue'; readonly checkedAt: number }
  /** Another check committed first: it told what there was to tell. */
  | { readonly kind: 'Concurrent' }
  /** The stored state is in a format this version does not know (a newer Carhook wrote it). */
  | { readonly kind: 'UnknownFormat'; readonly stateFormat: string }
  | {
      readonly kind: 'Checked';
      readonly told: readonly string[];
      readonly published: readonly string[];
      readonly unpublished: readonly string[];
      /** The stored state could not be read and was started again (why). */
      readonly reset?: string;
    };

function parseState(text: string): WatchState | string {
  try {
    const parsed = watchStateSchema.safeParse(JSON.parse(text));
    return parsed.success
      ? parsed.data
      : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  } catch (error) {
    return (error as Error).message;
  }
}

const finite = (ms: number): number | null => (Number.isFinite(ms) ? ms : null);

/** Each targeted kind as the decision reads it: the model's prediction, the measured lag. */
function kindsOf(
  fleet: FleetNow,
  deps: Pick<FreshnessWatchDeps, 'targets' | 'pollingConfig'>,
  measured: Partial<Record<string, MeasuredLag>>,
): KindFreshness[] {
  const p = predictFleet(fleet.vehicles, fleet.quota, deps.pollingConfig);
  return freshnessKinds.flatMap((kind) => {
    const targetMs = deps.targets[kind];
    if (targetMs === undefined) return [];
    const m = measured[kind];
    return [
      {
        kind,
        targetMs,
        predictedP95Ms: finite(p.kinds[kind].p95Ms),
        guaranteeMs: finite(p.kinds[kind].guaranteeMs),
        ...(m?.p95Ms !== undefined ? { measuredP95Ms: m.p95Ms } : {}),
        vehicles: fleet.vehicles.length,
        // Filled in for the kinds that are told (./model.ts bisects the model for it).
        quotaForTarget: null,
      },
    ];
  });
}

/** The catalogue event of one signal. */
export function freshnessEvent(signal: FreshnessSignal, quota: CapacityQuota, measuredEvents: number) {
  const f = signal.freshness;
  const at = new Date(signal.at).toISOString();
  const s = (ms: number | null) => seconds(ms ?? Number.POSITIVE_INFINITY);
  const common = {
    id: eventId({
      scope: 'carhook',
      type: signal.type,
      key: f.kind,
      // An at-risk is told at most once per kind at one moment; a restored ends one at-risk.
      transition: String(signal.type === 'carhook.freshness.restored' ? signal.atRiskSince : signal.at),
    }),
    occurredAt: at,
    detectedAt: at,
    sequence: 0,
    source: { api: 'carhook' as const, operation: signal.type },
  };
  const data = {
    kind: f.kind,
    targetS: f.targetMs / 1000,
    predictedP95S: s(f.predictedP95Ms),
    guaranteeS: s(f.guaranteeMs),
    ...(f.measuredP95Ms !== undefined ? { measuredP95S: s(f.measuredP95Ms) as number } : {}),
    measuredEvents,
    vehicles: f.vehicles,
    quotaLimit: quota.limit,
    windowSeconds: Math.max(1, Math.round(quota.windowMs / 1000)),
    quotaForTarget: f.quotaForTarget,
    checkedAt: at,
  };
  return signal.type === 'carhook.freshness.restored'
    ? buildEvent(signal.type, {
        ...common,
        data: { ...data, atRiskSince: new Date(signal.atRiskSince).toISOString() },
      })
    : buildEvent(signal.type, { ...common, data });
}

/**
 * Due once `FRESHNESS_CHECK_CYCLES` cycles have passed, give or take half a cycle (the sweeper's
 * schedule jitters by a second or two), or when the last check is in the future (a clock set back).
 */
const isDue = (elapsed: number, cycleMs: number): boolean =>
  elapsed < 0 || elapsed >= (FRESHNESS_CHECK_CYCLES - 0.5) * cycleMs;

/** One check, when one is due: decides, commits the state with what it tells, publishes it. */
export async function watchFreshness(deps: FreshnessWatchDeps): Promise<FreshnessWatchResult> {
  const targeted = freshnessKinds.filter((k) => deps.targets[k] !== undefined);
  if (targeted.length === 0) return { kind: 'NoTargets' };
  const now = deps.now();
  const stored = await deps.stores.states.getState(FRESHNESS_STATE_KEY);
  if (stored && stored.stateFormat !== FRESHNESS_STATE_FORMAT) {
    // Another version of Carhook wrote it: not this one's to overwrite.
    return { kind: 'UnknownFormat', stateFormat: stored.stateFormat };
  }
  const parsed = stored ? parseState(stored.state) : undefined;
  const previous = typeof parsed === 'object' ? parsed : undefined;
  if (previous && !isDue(now - previous.checkedAt, deps.pollingConfig.cycleMs)) {
    return { kind: 'NotDue', checkedAt: previous.checkedAt };
  }
  const fleet = await readFleet(deps);
  const measured = await readMeasuredLags(deps.stores.events, targeted, now);
  const decided = decideFreshness(previous?.kinds ?? {}, kindsOf(fleet, deps, measured), now);
  const events = decided.signals.map((signal) => {
    const f = signal.freshness;
    const needed = quotaForTarget({
      vehicles: fleet.vehicles,
      quota: fleet.quota,
      settings: deps.pollingConfig,
      kind: f.kind,
      targetMs: f.targetMs,
    });
    const told = { ...signal, freshness: { ...f, quotaForTarget: needed ?? null } };
    return freshnessEvent(told, fleet.quota, measured[f.kind]?.events ?? 0);
  });
  const next: WatchState = { checkedAt: now, kinds: decided.memory };
  const result = await deps.stores.states.commitPoll({
    vehicleId: FRESHNESS_STATE_KEY,
    expectedVersion: stored?.version ?? 0,
    state: JSON.stringify(next),
    stateFormat: FRESHNESS_STATE_FORMAT,
    events,
    now,
  });
  if (result.kind === 'VersionConflict') return { kind: 'Concurrent' };
  // Only what this commit wrote: an id already in the log was told by an earlier check.
  const written = new Set(result.eventsWritten);
  const outcome = await publishCommitted(
    deps,
    events.filter((e) => written.has(e.id)),
  );
  return {
    kind: 'Checked',
    told: [...written],
    ...outcome,
    ...(typeof parsed === 'string' ? { reset: parsed } : {}),
  };
}
