/**
 * Scripted changes for fleet contracts (v1): the same control-API changes as ./changes.ts, matched
 * on the bus the way the v1 lists tell them. v1 records carry other ids than v2: a crash has no id
 * (Carhook keys it by its `lastUpdate`), a trip is known by its numeric v1 id, an alert by the
 * world's alert id (sim/v1/SHAPES.md "Records").
 */
import type { EventEnvelope } from '../../functions/core/events/envelope';
import type { SimVehicle } from '../../sim/world/types';
import { type ChangeKind, type MadeChange, type PlannedChange, planChanges } from './changes';
import { BenchError, type BenchPipeline } from './pipeline';

export type { MadeChange, PlannedChange };

/** The kinds a v1 fleet poll can see: poll-fleet reads active alerts, crash, maintenance and trips. */
export const fleetChangeKinds: readonly ChangeKind[] = [
  'alert-raised',
  'alert-fixed',
  'collision',
  'trip',
  'maintenance',
];

/** What the fleet script remembers between changes. */
export interface FleetScriptState {
  /** Simulated epoch ms the scripted phase started. */
  readonly startedAt: number;
  /** Vehicles already changed by the script: one change per vehicle keeps each one unambiguous. */
  readonly touched: Set<string>;
}

const MINUTE = 60_000;

/** Seeded change plan over the fleet (same generator as the v2 runs). */
export function planFleetChanges(
  count: number,
  durationMs: number,
  vehicles: number,
  seed: number,
): PlannedChange[] {
  return planChanges(count, durationMs, vehicles, seed);
}

const onVin = (e: EventEnvelope, vin: string, type: string): boolean =>
  e.vehicle?.vin === vin && e.type === type;

/**
 * The first vehicle from `index` on that the script has not touched, and that `accept` takes: each
 * vehicle gets at most one change, so "the first event of this type on this VIN after the change"
 * names it (the world's own trips are told apart by id).
 */
function pick(
  vehicles: readonly SimVehicle[],
  index: number,
  state: FleetScriptState,
  accept: (v: SimVehicle) => boolean = () => true,
): SimVehicle | undefined {
  for (let i = 0; i < vehicles.length; i++) {
    const v = vehicles[(index + i) % vehicles.length] as SimVehicle;
    if (state.touched.has(v.id) || !accept(v)) continue;
    return v;
  }
  return undefined;
}

/** Seconds a trip ending now may last: its last trip stopped ≥ 1 min before it starts (sim rule). */
function tripRoom(p: BenchPipeline, v: SimVehicle, now: number): number {
  const lastStop = p.sim.world.trips(v.id).at(-1)?.stoppedAt ?? 0;
  return Math.min(300, Math.floor((now - lastStop - MINUTE) / 1000));
}

/** Drives a completed trip ending now; returns the trip's v1 id (what the v1 trip list shows). */
async function driveTrip(p: BenchPipeline, v: SimVehicle, durationS: number, now: number): Promise<number> {
  const r = await p.control('POST', `/vehicles/${v.id}/trips`, {
    durationS,
    distanceKm: 4,
    startedAt: new Date(now - durationS * 1000).toISOString(),
  });
  if (r.status !== 201 && r.status !== 200)
    throw new BenchError('add a trip', `control API answered ${r.status}`);
  const id = (r.body as { trip?: { id?: string } } | undefined)?.trip?.id;
  const trip = p.sim.world.trips(v.id).find((t) => t.id === id);
  if (!trip) throw new BenchError('add a trip', `trip ${String(id)} not in the world after creation`);
  return trip.v1Id;
}

/** Makes one v1-visible change; undefined when no vehicle qualifies. */
export async function makeFleetChange(
  p: BenchPipeline,
  planned: PlannedChange,
  vehicles: readonly SimVehicle[],
  state: FleetScriptState,
): Promise<MadeChange | undefined> {
  const now = p.now();
  const ok = (status: number, step: string): void => {
    if (status !== 200 && status !== 201) throw new BenchError(step, `control API answered ${status}`);
  };
  const made = (kind: ChangeKind, v: SimVehicle, matches: (e: EventEnvelope) => boolean): MadeChange => {
    state.touched.add(v.id);
    return { kind, vin: v.vin, changedAt: now, matches };
  };
  switch (planned.kind) {
    case 'alert-raised': {
      const v = pick(vehicles, planned.vehicle, state);
      if (!v) return undefined;
      const r = await p.control('POST', `/vehicles/${v.id}/alerts`, { severity: 'high' });
      ok(r.status, 'raise an alert');
      const id = String((r.body as { id?: unknown }).id);
      return made(
        'alert-raised',
        v,
        (e) => onVin(e, v.vin, 'vehicle.alert.raised') && String(e.data.alertId) === id,
      );
    }
    case 'alert-fixed': {
      // An alert from before the run: its raise is in the baseline, so the fix is visible alone.
      let alertId: string | undefined;
      const v = pick(vehicles, planned.vehicle, state, (c) => {
        alertId = p.sim.world.alerts(c.id).find((a) => a.active && a.createdAt < state.startedAt)?.id;
        return alertId !== undefined;
      });
      if (!v || alertId === undefined) return undefined;
      const id = alertId;
      const r = await p.control('POST', `/vehicles/${v.id}/alerts/${id}/fix`);
      ok(r.status, 'fix an alert');
      return made(
        'alert-fixed',
        v,
        (e) => onVin(e, v.vin, 'vehicle.alert.fixed') && String(e.data.alertId) === id,
      );
    }
    case 'collision': {
      const v = pick(vehicles, planned.vehicle, state);
      if (!v) return undefined;
      const r = await p.control('POST', `/vehicles/${v.id}/collisions`, { front: 'medium' });
      ok(r.status, 'add a collision');
      // A v1 crash record has no id (Carhook keys it by lastUpdate): the first collision event on
      // this VIN after the change is this one (one change per vehicle).
      return made('collision', v, (e) => onVin(e, v.vin, 'vehicle.collision.detected'));
    }
    case 'trip': {
      const v = pick(vehicles, planned.vehicle, state, (c) => tripRoom(p, c, now) >= 60);
      if (!v) return undefined;
      const v1Id = String(await driveTrip(p, v, tripRoom(p, v, now), now));
      return made(
        'trip',
        v,
        (e) => onVin(e, v.vin, 'vehicle.trip.completed') && String(e.data.tripId) === v1Id,
      );
    }
    case 'maintenance': {
      // The countdown crosses zero (or is reset when already overdue): read by every fleet poll.
      const v = pick(vehicles, planned.vehicle, state, (c) => p.sim.world.maintenance(c.id) !== undefined);
      if (!v) return undefined;
      const current = p.sim.world.maintenance(v.id);
      const overdue = current !== undefined && (current.days < 0 || current.mileage < 0);
      const r = await p.control(
        'PUT',
        `/vehicles/${v.id}/maintenance`,
        overdue ? { days: 365, mileage: 20_000 } : { days: -2, mileage: -150 },
      );
      ok(r.status, 'change maintenance');
      const type = overdue ? 'vehicle.maintenance.reset' : 'vehicle.maintenance.overdue';
      return made('maintenance', v, (e) => onVin(e, v.vin, type));
    }
  }
}
