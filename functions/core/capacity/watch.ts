/**
 * The freshness check: every few minutes, each kind with a freshness target is compared with the
 * capacity model's p95 for the fleet as it is and with the p95 measured over the last hour;
 * `carhook.freshness.at_risk` / `.restored` follow from ./freshness.ts (at most one pair per kind
 * per hour).
 *
 * What it remembers (the last check, and per kind whether an at-risk is standing and when it was
 * told) is one versioned state in the VehicleStateStore under `carhook:freshness`, the port's own
 * optimistic versioning: the events are committed with that state in one write, then published, so
 * a check never tells twice (a concurrent one gets a version conflict and stands down) and never
 * loses an event (one committed but not published is the sweeper's, like any vehicle event). Ids
 * derive from the kind and the state they change, so a retried check tells the same event.
 */
import * as z from 'zod';
import { buildEvent } from '../events/catalogue';
import { eventId } from '../events/ids';
import { type CommitDeps, publishCommitted } from '../polling/commit';
import type { Stores } from '../store/ports';
import {
  decideFreshness,
  FRESHNESS_CHECK_CYCLES,
  type FreshnessMemory,
  type FreshnessSignal,
  type KindFreshness,
} from './freshness';
import { type FreshnessKind, freshnessKinds } from './kinds';
import { readMeasuredLags } from './measured';
import { type CapacityDeps, readCapacity } from './read';
import type { CapacityReport, FreshnessTargets } from './report';

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

/** Each targeted kind as the decision reads it: the report's prediction, the measured lag. */
function kindsOf(
  report: CapacityReport,
  targets: FreshnessTargets,
  measured: Awaited<ReturnType<typeof readMeasuredLags>>,
): (KindFreshness & { readonly measuredEvents: number })[] {
  const ms = (s: number | null) => (s === null ? null : s * 1000);
  return report.kinds.flatMap((k) => {
    const targetMs = targets[k.kind];
    if (targetMs === undefined) return [];
    const m = measured[k.kind];
    return [
      {
        kind: k.kind,
        targetMs,
        predictedP95Ms: ms(k.p95S),
        guaranteeMs: ms(k.guaranteeS),
        ...(m?.p95Ms !== undefined ? { measuredP95Ms: m.p95Ms } : {}),
        measuredEvents: m?.events ?? 0,
        vehicles: report.vehicles,
        quotaForTarget: k.target?.quotaForTarget ?? null,
      },
    ];
  });
}

/** The catalogue event of one signal; `before` is the kind's memory the signal changes. */
export function freshnessEvent(
  signal: FreshnessSignal,
  quota: CapacityReport['quota'],
  measuredEvents: number,
  before: { readonly toldAt?: number },
) {
  const f = signal.freshness;
  const at = new Date(signal.at).toISOString();
  const s = (ms: number | null) => (ms === null ? null : Math.round(ms / 100) / 10);
  const common = {
    id: eventId({
      scope: 'carhook',
      type: signal.type,
      key: f.kind,
      // The at-risk it follows (or none) names an at-risk; the at-risk it ends names a restored.
      transition: String(
        signal.type === 'carhook.freshness.restored' ? signal.atRiskSince : (before.toldAt ?? 'first'),
      ),
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
    windowSeconds: Math.max(1, Math.round(quota.windowSeconds)),
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

/** One check, when one is due: decides, commits the state with what it tells, publishes it. */
export async function watchFreshness(deps: FreshnessWatchDeps): Promise<FreshnessWatchResult> {
  const targeted = freshnessKinds.filter((k) => deps.targets[k] !== undefined);
  if (targeted.length === 0) return { kind: 'NoTargets' };
  const now = deps.now();
  const stored = await deps.stores.states.getState(FRESHNESS_STATE_KEY);
  const parsed = stored ? parseState(stored.state) : undefined;
  const previous = typeof parsed === 'object' ? parsed : undefined;
  if (previous && now - previous.checkedAt < FRESHNESS_CHECK_CYCLES * deps.pollingConfig.cycleMs) {
    return { kind: 'NotDue', checkedAt: previous.checkedAt };
  }
  const report = await readCapacity({ ...deps, targets: deps.targets });
  const measured = await readMeasuredLags(deps.stores.events, targeted, now);
  const kinds = kindsOf(report, deps.targets, measured);
  const memory: FreshnessMemory = previous?.kinds ?? {};
  const decided = decideFreshness(memory, kinds, now);
  const events = decided.signals.map((signal) =>
    freshnessEvent(
      signal,
      report.quota,
      kinds.find((k) => k.kind === signal.freshness.kind)?.measuredEvents ?? 0,
      memory[signal.freshness.kind as FreshnessKind] ?? {},
    ),
  );
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
  const outcome = await publishCommitted(deps, events);
  return {
    kind: 'Checked',
    told: events.map((e) => e.id),
    ...outcome,
    ...(typeof parsed === 'string' ? { reset: parsed } : {}),
  };
}
