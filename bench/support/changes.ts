/**
 * Scripted changes made through the simulator's control API, and how each is recognised on the bus.
 * The script is generated from a seed, so both strategies see the same changes at the same times.
 */
import type { EventEnvelope } from '../../functions/core/events/envelope';
import type { SimVehicle } from '../../sim/world/types';
import { BenchError, type BenchPipeline, type Published } from './pipeline';
import { percentile, rng, round } from './stats';

export const changeKinds = ['alert-raised', 'alert-fixed', 'collision', 'trip', 'maintenance'] as const;
export type ChangeKind = (typeof changeKinds)[number];

/** One planned change: `offsetMs` after the start of the scripted phase, on vehicle number `vehicle`. */
export interface PlannedChange {
  readonly offsetMs: number;
  readonly kind: ChangeKind;
  readonly vehicle: number;
}

/** A change made in the simulator, waiting to be seen on the bus. */
export interface MadeChange {
  readonly kind: ChangeKind;
  readonly vin: string;
  /** Simulated epoch ms the change became visible at the API. */
  readonly changedAt: number;
  readonly matches: (e: EventEnvelope) => boolean;
  /**
   * Other changes made on the way, each told by its own event: the trip driven before a
   * maintenance change, and `due` when a countdown goes straight from fine to overdue (detection
   * README: due then overdue).
   */
  readonly companions?: readonly MadeChange[];
  /** Simulated epoch ms the bus accepted the matching event; undefined while not seen. */
  detectedAt?: number;
}

export function planChanges(
  count: number,
  durationMs: number,
  vehicles: number,
  seed: number,
): PlannedChange[] {
  const random = rng(seed);
  const out: PlannedChange[] = [];
  for (let i = 0; i < count; i++) {
    out.push({
      offsetMs: Math.floor(random() * durationMs),
      kind: changeKinds[i % changeKinds.length] as ChangeKind,
      vehicle: Math.floor(random() * vehicles),
    });
  }
  return out.sort((a, b) => a.offsetMs - b.offsetMs);
}

const dataOf = (e: EventEnvelope, field: string): unknown => e.data[field];

/** What a run's script remembers between changes. */
export interface ScriptState {
  /** Simulated epoch ms the scripted phase started. */
  readonly startedAt: number;
  /** Vehicles that already had their maintenance change. */
  readonly maintained: Set<string>;
  /**
   * Alerts raised during the run that may be fixed too (their raise was already seen on the bus);
   * by default only alerts from before the run are fixed.
   */
  readonly fixable?: (alertId: string) => boolean;
}

const MINUTE = 60_000;

/**
 * A vehicle from `index` on that can have driven a trip ending now (its last trip stopped at least
 * two minutes ago), and how long that trip lasts (at most 5 min). A scripted trip always ends at
 * the current simulated time, so the change is visible at once and its time is exact.
 */
function parkedVehicle(
  p: BenchPipeline,
  vehicles: readonly SimVehicle[],
  index: number,
  now: number,
  skip: ReadonlySet<string> = new Set(),
): { vehicle: SimVehicle; durationS: number } | undefined {
  for (let i = 0; i < vehicles.length; i++) {
    const vehicle = vehicles[(index + i) % vehicles.length] as SimVehicle;
    if (skip.has(vehicle.id)) continue;
    const lastStop = p.sim.world.trips(vehicle.id).at(-1)?.stoppedAt ?? 0;
    // The simulator starts a trip at least one minute after the previous one stopped.
    const room = Math.floor((now - lastStop - MINUTE) / 1000);
    if (room >= 60) return { vehicle, durationS: Math.min(300, room) };
  }
  return undefined;
}

async function driveTrip(
  p: BenchPipeline,
  vehicle: SimVehicle,
  durationS: number,
  now: number,
): Promise<{ id: string; status: number }> {
  const r = await p.control('POST', `/vehicles/${vehicle.id}/trips`, {
    durationS,
    distanceKm: 4,
    startedAt: new Date(now - durationS * 1000).toISOString(),
  });
  return { id: (r.body as { trip?: { id?: string } } | undefined)?.trip?.id ?? '', status: r.status };
}

interface Created {
  readonly id: string;
}

/**
 * Makes one change. A fix needs an active alert, a trip a parked vehicle: the first vehicle from
 * `vehicle` on that qualifies (deterministic: the world evolves the same way under every strategy).
 * Returns undefined when no vehicle qualifies.
 */
export async function makeChange(
  p: BenchPipeline,
  planned: PlannedChange,
  vehicles: readonly SimVehicle[],
  script: ScriptState,
): Promise<MadeChange | undefined> {
  const vehicle = vehicles[planned.vehicle % vehicles.length] as SimVehicle;
  const now = p.now();
  const ok = (status: number, step: string): void => {
    if (status !== 200 && status !== 201) throw new BenchError(step, `control API answered ${status}`);
  };
  switch (planned.kind) {
    case 'alert-raised': {
      const r = await p.control('POST', `/vehicles/${vehicle.id}/alerts`, { severity: 'high' });
      ok(r.status, 'raise an alert');
      const id = (r.body as Created).id;
      return {
        kind: planned.kind,
        vin: vehicle.vin,
        changedAt: now,
        matches: (e) => e.type === 'vehicle.alert.raised' && dataOf(e, 'alertId') === id,
      };
    }
    case 'alert-fixed': {
      for (let i = 0; i < vehicles.length; i++) {
        const v = vehicles[(planned.vehicle + i) % vehicles.length] as SimVehicle;
        // An alert from before the run: one the script raised may not have been seen yet, and a
        // raise undone before any poll is invisible to every poller.
        const active = p.sim.world
          .alerts(v.id)
          .find((a) => a.active && (a.createdAt < script.startedAt || script.fixable?.(a.id) === true));
        if (!active) continue;
        const r = await p.control('POST', `/vehicles/${v.id}/alerts/${active.id}/fix`);
        ok(r.status, 'fix an alert');
        return {
          kind: planned.kind,
          vin: v.vin,
          changedAt: now,
          matches: (e) => e.type === 'vehicle.alert.fixed' && dataOf(e, 'alertId') === active.id,
        };
      }
      return undefined;
    }
    case 'collision': {
      const r = await p.control('POST', `/vehicles/${vehicle.id}/collisions`, { front: 'low' });
      ok(r.status, 'add a collision');
      const id = (r.body as Created).id;
      return {
        kind: planned.kind,
        vin: vehicle.vin,
        changedAt: now,
        matches: (e) => e.type === 'vehicle.collision.detected' && dataOf(e, 'collisionId') === id,
      };
    }
    case 'trip': {
      const parked = parkedVehicle(p, vehicles, planned.vehicle, now);
      if (!parked) return undefined;
      const trip = await driveTrip(p, parked.vehicle, parked.durationS, now);
      ok(trip.status, 'add a trip');
      return {
        kind: planned.kind,
        vin: parked.vehicle.vin,
        // A trip exists for the API once it has stopped (sim README "The world"): now.
        changedAt: now,
        matches: (e) => e.type === 'vehicle.trip.completed' && dataOf(e, 'tripId') === trip.id,
      };
    }
    case 'maintenance': {
      // The countdown changes while driving: a trip ends and the service is now overdue (or, for a
      // vehicle already overdue, was just done). Carhook reads maintenance after trips and daily.
      // One maintenance change per vehicle and run: a second one could undo the first before any
      // poll saw it (a state shorter than the poll interval is invisible to every poller).
      const parked = parkedVehicle(p, vehicles, planned.vehicle, now, script.maintained);
      if (!parked) return undefined;
      const { vehicle } = parked;
      script.maintained.add(vehicle.id);
      const trip = await driveTrip(p, vehicle, parked.durationS, now);
      ok(trip.status, 'add a trip before a maintenance change');
      const tripDriven: MadeChange = {
        kind: 'trip',
        vin: vehicle.vin,
        changedAt: now,
        matches: (e) => e.type === 'vehicle.trip.completed' && dataOf(e, 'tripId') === trip.id,
      };
      const current = p.sim.world.maintenance(vehicle.id);
      const overdue = current !== undefined && (current.days < 0 || current.mileage < 0);
      // Detection's default thresholds (functions/core/detection/README.md "Levels").
      const due = current !== undefined && (current.days <= 30 || current.mileage <= 1000);
      const r = await p.control(
        'PUT',
        `/vehicles/${vehicle.id}/maintenance`,
        overdue ? { days: 365, mileage: 20_000 } : { days: -2, mileage: -150 },
      );
      ok(r.status, 'change maintenance');
      const onVehicle = (e: EventEnvelope, type: string): boolean =>
        e.vehicle?.vin === vehicle.vin && e.type === type && Date.parse(e.detectedAt) >= now;
      const becameDue: MadeChange = {
        kind: 'maintenance',
        vin: vehicle.vin,
        changedAt: now,
        matches: (e) => onVehicle(e, 'vehicle.maintenance.due'),
      };
      return {
        kind: planned.kind,
        vin: vehicle.vin,
        changedAt: now,
        companions: overdue || due ? [tripDriven] : [tripDriven, becameDue],
        matches: (e) => onVehicle(e, overdue ? 'vehicle.maintenance.reset' : 'vehicle.maintenance.overdue'),
      };
    }
  }
}

/** Marks every change whose event the bus accepted since `from` (index into `bus.received`). */
export function matchDetections(
  changes: readonly MadeChange[],
  received: readonly Published[],
  from = 0,
): number {
  let next = from;
  for (; next < received.length; next++) {
    const p = received[next] as Published;
    for (const c of changes) {
      if (c.detectedAt === undefined && p.at >= c.changedAt && c.matches(p.envelope)) {
        c.detectedAt = p.at;
        break;
      }
    }
  }
  return next;
}

/** One planner cycle of a scripted phase, for the caller's counters. */
export type CycleOutcome = Awaited<ReturnType<BenchPipeline['cycle']>>;

/**
 * A scripted phase: a planner cycle every simulated minute, the planned changes made at their
 * simulated times (by `make`), detections matched on the bus after each cycle. Runs `minutes`,
 * then up to `drainMinutes` more until every change was seen. Returns the changes made and the
 * minutes run.
 */
export async function runScriptedPhase<T extends { readonly offsetMs: number }>(
  p: BenchPipeline,
  plan: readonly T[],
  make: (planned: T) => Promise<MadeChange | undefined>,
  o: {
    readonly minutes: number;
    readonly drainMinutes: number;
    readonly onCycle?: (c: CycleOutcome) => void;
  },
): Promise<{ readonly changes: MadeChange[]; readonly minutes: number; readonly startedAt: number }> {
  const start = p.now();
  const changes: MadeChange[] = [];
  let seen = p.bus.received.length;
  let next = 0;
  let minute = 0;
  for (; minute < o.minutes + o.drainMinutes; minute++) {
    o.onCycle?.(await p.cycle());
    seen = matchDetections(changes, p.bus.received, seen);
    const end = start + (minute + 1) * MINUTE;
    while (next < plan.length && start + (plan[next]?.offsetMs ?? 0) < end) {
      const planned = plan[next++];
      if (!planned) break;
      await p.advance(start + planned.offsetMs - p.now());
      const made = await make(planned);
      if (made) changes.push(made);
    }
    await p.advance(end - p.now());
    if (minute >= o.minutes && changes.every((c) => c.detectedAt !== undefined)) {
      minute++;
      break;
    }
  }
  return { changes, minutes: minute, startedAt: start };
}

/** Detection lag figures of a set of changes, in seconds (never seen = infinite). */
export interface LagFigures {
  readonly n: number;
  readonly p50S: number;
  readonly p95S: number;
  readonly p99S: number;
  readonly maxS: number;
}

/** Lag of one change in ms: bus acceptance − change time; infinite when not seen. */
export const lagMs = (c: MadeChange): number =>
  c.detectedAt === undefined ? Number.POSITIVE_INFINITY : c.detectedAt - c.changedAt;

export function lagOf(lagsMs: readonly number[]): LagFigures {
  const s = [...lagsMs].sort((a, b) => a - b).map((ms) => ms / 1000);
  return {
    n: s.length,
    p50S: round(percentile(s, 50), 1),
    p95S: round(percentile(s, 95), 1),
    p99S: round(percentile(s, 99), 1),
    maxS: round(s.at(-1) ?? Number.NaN, 1),
  };
}
