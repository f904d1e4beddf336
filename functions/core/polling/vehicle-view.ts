/**
 * What an operator is shown of one vehicle's polling, read where each fact is known, without a
 * write per steady poll:
 *
 * - when the events and alerts were last read: the planner's memory (it books those reads; a steady
 *   poll writes nothing), so known where the planner runs (the local runtime; on AWS the planner
 *   function keeps it and this says `unknown`);
 * - the other reads (maintenance, services, map): the vehicle record's `resourcePolledAt`, written
 *   at most twice per period;
 * - the next read at the latest: the last one plus the policy's period (for the events, the
 *   staleness guarantee G = max(15 min, 2 × N / R)); the planner books earlier when the budget allows;
 * - the learned change rate: the record's `hints.rates` (functions/core/polling/rates.ts), as
 *   observed, before the fleet prior;
 * - the share of the quota it is guaranteed: one events read per G (plus its active alerts' reads).
 */
import type { VehicleRecord } from '../store/records';
import type { PollingConfig } from './config';
import { type LastReads, lastEventsRead } from './memory';
import { decodeRates } from './rates';
import { isFleetVehicle } from './reads';
import { guaranteeMs } from './selection';

const HOUR = 3_600_000;

export type ReadKind = 'events' | 'alerts' | 'maintenance' | 'services' | 'map';

export interface PlannedRead {
  readonly kind: ReadKind;
  /** When it was last read, if known. */
  readonly lastAt?: string;
  /** `planner`: the planner's memory; `record`: the vehicle record; `unknown`: neither knows it. */
  readonly source: 'planner' | 'record' | 'unknown';
  /** The longest the policy lets pass between two reads of this kind. */
  readonly everyMs: number;
  /** The next read at the latest (the last plus `everyMs`); absent when the last is unknown. */
  readonly nextBy?: string;
  readonly note: string;
}

export interface VehicleReads {
  readonly reads: readonly PlannedRead[];
  /** Changes per hour the events feed revealed, as observed (decayed), and over how many hours. */
  readonly changeRate?: {
    readonly eventsPerHour: number;
    readonly observedHours: number;
    readonly activeAlerts: number;
    /** Fixes per hour per active alert, when alerts were active long enough to tell. */
    readonly fixesPerHour?: number;
  };
  readonly quota: {
    /** The client's requests per hour. */
    readonly perHour: number;
    /** The reads the guarantees give this vehicle per hour, at least. */
    readonly readsPerHourAtLeast: number;
    /** Their share of the quota (0 to 1). */
    readonly shareAtLeast: number;
    /** The events guarantee G for this fleet's size. */
    readonly guaranteeMs: number;
  };
}

const iso = (ms: number) => new Date(ms).toISOString();
const round = (x: number, digits = 4) => Math.round(x * 10 ** digits) / 10 ** digits;

export function vehicleReads(input: {
  readonly vehicle: Pick<VehicleRecord, 'hints' | 'resourcePolledAt' | 'apiVehicleId'>;
  readonly last: LastReads | undefined;
  readonly plannerKnown: boolean;
  readonly config: PollingConfig;
  /** Requests one cycle may spend (planner.ts `cycleBudget`). */
  readonly perCycle: number;
  /** Vehicles polled (N of the guarantee); at least 1. */
  readonly fleetSize: number;
  readonly quota: { readonly requests: number; readonly windowSeconds: number };
}): VehicleReads {
  const { vehicle: v, config } = input;
  const g = guaranteeMs(config.maxStalenessMs, Math.max(1, input.fleetSize), input.perCycle, config.cycleMs);
  const fromPlanner = (
    at: number | undefined,
    kind: ReadKind,
    everyMs: number,
    note: string,
  ): PlannedRead => {
    if (at !== undefined)
      return { kind, lastAt: iso(at), source: 'planner', everyMs, nextBy: iso(at + everyMs), note };
    return {
      kind,
      source: 'unknown',
      everyMs,
      note: `${note}${input.plannerKnown ? '' : ' (the planner runs elsewhere: its memory is not here)'}`,
    };
  };
  const fromRecord = (
    kind: 'maintenance' | 'services' | 'map',
    everyMs: number,
    note: string,
  ): PlannedRead => {
    const at = v.resourcePolledAt[kind];
    const ms = at === undefined ? Number.NaN : Date.parse(at);
    if (Number.isNaN(ms)) return { kind, source: 'unknown', everyMs, note: `${note}; not read yet` };
    return { kind, lastAt: iso(ms), source: 'record', everyMs, nextBy: iso(ms + everyMs), note };
  };
  const alertsEvery = v.hints.activeAlerts ? g : config.alertsReconcileMs;
  const fleet = isFleetVehicle(v);
  const reads: PlannedRead[] = [
    fleet
      ? {
          kind: 'events',
          source: 'unknown',
          everyMs: g,
          note: `a fleet contract: its records come in the v1 bulk lists (${config.fleetBatchSize} VINs a request), every cycle the budget allows`,
        }
      : fromPlanner(
          lastEventsRead(input.last, v),
          'events',
          g,
          'every change but an alert fix; the planner reads sooner when the vehicle changes often (rate × age²)',
        ),
    fromPlanner(
      input.last?.alerts,
      'alerts',
      alertsEvery,
      v.hints.activeAlerts
        ? `alerts are active: read every cycle the budget allows, at least every ${Math.round(g / 60_000)} min (a fix shows only there)`
        : 'no alert active: the reconciliation read',
    ),
    fromRecord('maintenance', config.dailyMs, 'after each trip and daily'),
    fromRecord('services', config.servicesIntervalMs, 'services, on their interval'),
    fromRecord('map', config.mapIntervalMs, 'map updates, in bulk'),
  ];
  const state = decodeRates(v.hints.rates);
  const changeRate =
    state && state.eventsHours > 0
      ? {
          eventsPerHour: round(state.events / state.eventsHours),
          observedHours: round(state.eventsHours, 2),
          activeAlerts: state.active,
          ...(state.alertHours > 0 ? { fixesPerHour: round(state.fixes / state.alertHours) } : {}),
        }
      : undefined;
  const perHour = (input.quota.requests * 3600) / input.quota.windowSeconds;
  const readsPerHourAtLeast = HOUR / g + (v.hints.activeAlerts ? HOUR / g : 0);
  return {
    reads,
    ...(changeRate ? { changeRate } : {}),
    quota: {
      perHour,
      readsPerHourAtLeast: round(readsPerHourAtLeast, 2),
      shareAtLeast: round(readsPerHourAtLeast / perHour, 6),
      guaranteeMs: g,
    },
  };
}
