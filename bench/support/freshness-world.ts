/**
 * The freshness benchmark's worlds: a seeded script of changes made in the simulator's world
 * (its own methods, on its manual clock), and how each is recognised on the bus. The planner
 * learns only from what the API answers; the generated rates are known here only to compute the
 * known-rates bound.
 *
 * - `uniform`: every vehicle the same change rate, no daily curve.
 * - `mixed`: each vehicle's rate multiplier drawn from a log-normal with σ = 1.5 (mean 1), times a
 *   daily curve (night 0.2×, 07–09 h and 17–19 h 3×, else 1×, in UTC of the simulated clock).
 *
 * Kinds (shares of the changes drawn): trips 20 % (a third with a refuel before them), alerts raised
 * 20 % (each fixed after 5 min to 6 h, log-uniform: the fix is a change of its own), collisions
 * 20 %, maintenance 20 % (a trip, then the countdown moves), refuels 10 %, fuel thefts 10 %.
 */
import type { EventEnvelope } from '../../functions/core/events/envelope';
import type { SimVehicle } from '../../sim/world/types';
import type { BenchPipeline } from './pipeline';
import { rng } from './stats';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const worlds = ['uniform', 'mixed'] as const;
export type World = (typeof worlds)[number];

export const freshnessKinds = [
  'trip',
  'alert-raised',
  'alert-fixed',
  'collision',
  'maintenance',
  'refuel',
  'fuel-theft',
] as const;
export type FreshnessKind = (typeof freshnessKinds)[number];

/**
 * The vehicles' past made before the warm-up (the same processes, a stream of their own): a day,
 * as far back as a first poll looks (`initialEventsLookbackMs`), so a vehicle enrolled today is
 * found with the history a real one has.
 */
export const WORLD_HISTORY_MS = 24 * HOUR;

/** Changes per vehicle-hour of a vehicle with multiplier 1 at curve 1 (alert fixes come on top). */
export const BASE_RATE_PER_HOUR = 0.35;

/** The daily curve at an epoch ms (UTC hour of the simulated clock). */
export function dailyCurve(at: number): number {
  const h = new Date(at).getUTCHours();
  if (h < 6 || h >= 22) return 0.2;
  if ((h >= 7 && h < 9) || (h >= 17 && h < 19)) return 3;
  return 1;
}

/** One change to make: when, on which vehicle (index), of which kind; fixes carry their raise. */
export interface ScriptedChange {
  readonly at: number;
  readonly vehicle: number;
  readonly kind: Exclude<FreshnessKind, 'alert-fixed'>;
  /** For `alert-raised`: how long the alert stays active (ms). */
  readonly activeMs?: number;
}

export interface WorldScript {
  readonly world: World;
  /** Each vehicle's rate multiplier (1 in the uniform world). */
  readonly multipliers: readonly number[];
  readonly changes: readonly ScriptedChange[];
  /**
   * The vehicles' past before `from` (`historyMs`, default none): the same processes, drawn from a
   * stream of their own, so the changes above are the same whatever the history's length. A first
   * poll's look-back finds them as history (never reported as detected changes).
   */
  readonly history: readonly ScriptedChange[];
}

/** A standard normal from two uniforms (Box–Muller). */
const normal = (random: () => number): number =>
  Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());

/**
 * The seeded script from `from` to `to` (epoch ms): per vehicle a Poisson process of rate
 * BASE × multiplier × curve(t), drawn by thinning against the curve's maximum.
 */
export function generateScript(
  world: World,
  vehicles: number,
  from: number,
  to: number,
  seed: number,
  historyMs = 0,
): WorldScript {
  const random = rng(seed * 7919 + vehicles);
  const sigma = 1.5;
  const multipliers = Array.from({ length: vehicles }, () =>
    world === 'uniform' ? 1 : Math.exp(sigma * normal(random) - (sigma * sigma) / 2),
  );
  const changes = drawChanges(world, multipliers, from, to, random);
  const history =
    historyMs > 0
      ? drawChanges(world, multipliers, from - historyMs, from, rng(seed * 7919 + vehicles + 104_729))
      : [];
  return { world, multipliers, changes, history };
}

/** Every vehicle's changes in `[from, to)`, sorted by time then vehicle. */
function drawChanges(
  world: World,
  multipliers: readonly number[],
  from: number,
  to: number,
  random: () => number,
): ScriptedChange[] {
  const maxCurve = world === 'uniform' ? 1 : 3;
  const curve = (t: number): number => (world === 'uniform' ? 1 : dailyCurve(t));
  const changes: ScriptedChange[] = [];
  multipliers.forEach((m, vehicle) => {
    const peak = (BASE_RATE_PER_HOUR * m * maxCurve) / HOUR;
    let t = from;
    for (;;) {
      t += -Math.log(1 - random()) / peak;
      if (t >= to) break;
      if (random() * maxCurve > curve(t)) continue;
      const u = random();
      const kind: ScriptedChange['kind'] =
        u < 0.2
          ? 'trip'
          : u < 0.4
            ? 'alert-raised'
            : u < 0.6
              ? 'collision'
              : u < 0.8
                ? 'maintenance'
                : u < 0.9
                  ? 'refuel'
                  : 'fuel-theft';
      // 5 min to 6 h, log-uniform.
      const activeMs = kind === 'alert-raised' ? 5 * MINUTE * Math.exp(random() * Math.log(72)) : undefined;
      changes.push({ at: Math.floor(t), vehicle, kind, ...(activeMs !== undefined ? { activeMs } : {}) });
    }
  });
  changes.sort((a, b) => a.at - b.at || a.vehicle - b.vehicle);
  return changes;
}

/**
 * Active alerts as items of the known-rates bound, beside the vehicles' events: the alerts active
 * over `[from, to)` on average (each a slot), each slot with an equal share of the fixes made in the
 * window (an alert fixed at or after `to` is not fixed in the run). An idealisation, as the bound
 * is: it spreads the fixes evenly over the active time, where a real alert's fix is one event.
 */
export function alertFixItems(script: WorldScript, from: number, to: number): number[] {
  let activeMs = 0;
  let fixes = 0;
  for (const c of [...script.history, ...script.changes]) {
    if (c.kind !== 'alert-raised') continue;
    const fixAt = c.at + Math.max(MINUTE, Math.round(c.activeMs ?? MINUTE));
    activeMs += Math.max(0, Math.min(fixAt, to) - Math.max(c.at, from));
    if (fixAt >= from && fixAt < to) fixes++;
  }
  const slots = Math.round(activeMs / Math.max(1, to - from));
  return slots > 0 ? new Array<number>(slots).fill(fixes / slots) : [];
}

/** A change made in the simulator, waiting to be seen on the bus. */
export interface MadeFreshnessChange {
  readonly kind: FreshnessKind;
  readonly vehicle: number;
  readonly vin: string;
  readonly changedAt: number;
  readonly matches: (e: EventEnvelope) => boolean;
  /** Measured (made after the warm-up) or not. */
  readonly measured: boolean;
  detectedAt?: number;
}

const dataOf = (e: EventEnvelope, field: string): unknown => e.data[field];

/** Makes the scripted changes of one world in the simulator's world, as the clock reaches them. */
export class WorldDriver {
  readonly made: MadeFreshnessChange[] = [];
  readonly #fixes: { at: number; vehicle: number; alertId: string; measured: boolean }[] = [];
  readonly #maintained = new Set<string>();
  #next = 0;
  #seen = 0;
  /** False while the vehicles' past is made: those changes are history, not measured changes. */
  #recording = true;

  constructor(
    private readonly p: BenchPipeline,
    private readonly script: WorldScript,
    private readonly vehicles: readonly SimVehicle[],
    /** Changes made at or after this time are measured. */
    private readonly measureFrom: number,
    /** No change (fixes included) is made at or after this time. */
    private readonly stopAt: number,
  ) {}

  /**
   * Makes the script's history (the vehicles' past, before the pipeline's first poll), moving the
   * clock to each change's time: nothing of it is recorded, since a first poll reports history as
   * baseline, but alerts raised then are fixed on schedule, and a fix at or after `until` is a
   * change like any other.
   */
  async runHistory(until: number): Promise<void> {
    this.#recording = false;
    try {
      for (const change of this.script.history) {
        if (change.at >= until) break;
        await this.#fixesUntil(change.at);
        await this.p.advance(change.at - this.p.now());
        this.make(change);
      }
      await this.#fixesUntil(until);
      await this.p.advance(until - this.p.now());
    } finally {
      this.#recording = true;
      // A countdown changed in the past is read as baseline by the first poll: the run's own
      // change of each vehicle (made after the warm-up) cannot undo it unseen.
      this.#maintained.clear();
    }
  }

  async #fixesUntil(until: number): Promise<void> {
    for (let fix = this.#fixes[0]; fix && fix.at < until; fix = this.#fixes[0]) {
      await this.p.advance(fix.at - this.p.now());
      this.#fixes.shift();
      this.fix(fix);
    }
  }

  /** Makes every change due before `until`, moving the clock to each one's time. */
  async runUntil(until: number): Promise<void> {
    for (;;) {
      const change = this.script.changes[this.#next];
      const fix = this.#fixes[0];
      const nextAt = Math.min(change?.at ?? Number.POSITIVE_INFINITY, fix?.at ?? Number.POSITIVE_INFINITY);
      if (nextAt >= until || nextAt >= this.stopAt) return;
      await this.p.advance(nextAt - this.p.now());
      if (fix && fix.at === nextAt) {
        this.#fixes.shift();
        this.fix(fix);
      } else if (change) {
        this.#next++;
        this.make(change);
      }
    }
  }

  /** Marks every change whose event the bus accepted since the last call. */
  match(): void {
    const received = this.p.bus.received;
    for (; this.#seen < received.length; this.#seen++) {
      const got = received[this.#seen];
      if (!got) continue;
      for (const c of this.made) {
        if (c.detectedAt === undefined && got.at >= c.changedAt && c.matches(got.envelope)) {
          c.detectedAt = got.at;
          break;
        }
      }
    }
  }

  private record(change: Omit<MadeFreshnessChange, 'measured'>): void {
    if (!this.#recording) return;
    this.made.push({ ...change, measured: change.changedAt >= this.measureFrom });
  }

  private fix(f: { vehicle: number; alertId: string }): void {
    const v = this.vehicles[f.vehicle] as SimVehicle;
    const r = this.p.sim.world.fixAlert(v.id, f.alertId);
    if (!r.ok) return;
    const id = f.alertId;
    this.record({
      kind: 'alert-fixed',
      vehicle: f.vehicle,
      vin: v.vin,
      changedAt: this.p.now(),
      matches: (e) => e.type === 'vehicle.alert.fixed' && dataOf(e, 'alertId') === id,
    });
  }

  /** Room for a trip ending now: the last one stopped at least 2 min ago (sim: 1 min between trips). */
  private tripRoom(v: SimVehicle, now: number): number {
    const lastStop = this.p.sim.world.trips(v.id).at(-1)?.stoppedAt ?? 0;
    return Math.min(300, Math.floor((now - lastStop - MINUTE) / 1000));
  }

  private trip(index: number, refueling: boolean): string | undefined {
    const v = this.vehicles[index] as SimVehicle;
    const now = this.p.now();
    const room = this.tripRoom(v, now);
    if (room < 60) return undefined;
    const r = this.p.sim.world.addTrip(v.id, {
      durationS: room,
      distanceKm: 4,
      startedAt: now - room * 1000,
      ...(refueling ? { refueling: true } : {}),
    });
    if (!r.ok) return undefined;
    const id = r.value.trip.id;
    this.record({
      kind: 'trip',
      vehicle: index,
      vin: v.vin,
      changedAt: now,
      matches: (e) => e.type === 'vehicle.trip.completed' && dataOf(e, 'tripId') === id,
    });
    return id;
  }

  private make(c: ScriptedChange): void {
    const v = this.vehicles[c.vehicle] as SimVehicle;
    const world = this.p.sim.world;
    const now = this.p.now();
    switch (c.kind) {
      case 'trip':
        this.trip(c.vehicle, c.vehicle % 3 === 0);
        return;
      case 'alert-raised': {
        const r = world.raiseAlert(v.id, { severity: 'high' });
        if (!r.ok) return;
        const id = r.value.id;
        this.record({
          kind: 'alert-raised',
          vehicle: c.vehicle,
          vin: v.vin,
          changedAt: now,
          matches: (e) => e.type === 'vehicle.alert.raised' && dataOf(e, 'alertId') === id,
        });
        const at = now + Math.max(MINUTE, Math.round(c.activeMs ?? MINUTE));
        const i = this.#fixes.findIndex((f) => f.at > at);
        const entry = { at, vehicle: c.vehicle, alertId: id, measured: at >= this.measureFrom };
        if (i < 0) this.#fixes.push(entry);
        else this.#fixes.splice(i, 0, entry);
        return;
      }
      case 'collision': {
        const r = world.addCollision(v.id, { front: 'low' });
        if (!r.ok) return;
        const id = r.value.id;
        this.record({
          kind: 'collision',
          vehicle: c.vehicle,
          vin: v.vin,
          changedAt: now,
          matches: (e) => e.type === 'vehicle.collision.detected' && dataOf(e, 'collisionId') === id,
        });
        return;
      }
      case 'maintenance': {
        // One countdown change per vehicle and run (a second could undo the first unseen): else a trip.
        if (this.#maintained.has(v.id) || !this.trip(c.vehicle, false)) {
          if (!this.#maintained.has(v.id)) return;
          this.trip(c.vehicle, false);
          return;
        }
        this.#maintained.add(v.id);
        const current = world.maintenance(v.id);
        const overdue = current !== undefined && (current.days < 0 || current.mileage < 0);
        const due = current !== undefined && (current.days <= 30 || current.mileage <= 1000);
        if (overdue) world.setMaintenance(v.id, 365, 20_000);
        else world.setMaintenance(v.id, -2, -150);
        const type = overdue ? 'vehicle.maintenance.reset' : 'vehicle.maintenance.overdue';
        const onVehicle = (e: EventEnvelope, t: string): boolean =>
          e.vehicle?.vin === v.vin && e.type === t && Date.parse(e.detectedAt) >= now;
        this.record({
          kind: 'maintenance',
          vehicle: c.vehicle,
          vin: v.vin,
          changedAt: now,
          // A countdown that goes straight from fine to overdue is told as due, then overdue.
          matches: (e) => onVehicle(e, type) || (!overdue && !due && onVehicle(e, 'vehicle.maintenance.due')),
        });
        return;
      }
      case 'refuel':
      case 'fuel-theft': {
        const type = c.kind === 'refuel' ? 'refuel' : 'fuel_stolen';
        const r = world.addFuelEvent(v.id, type);
        if (!r.ok) return;
        const eventType = c.kind === 'refuel' ? 'vehicle.refuel.detected' : 'vehicle.fuel_theft.detected';
        this.record({
          kind: c.kind,
          vehicle: c.vehicle,
          vin: v.vin,
          changedAt: now,
          // The detection names a refuel or theft by the feed's record id (the simulator's `recordId`):
          // matching on VIN, type and time instead pairs a later theft with an earlier one.
          matches: (e) => e.type === eventType && dataOf(e, 'recordId') === r.value.recordId,
        });
        return;
      }
    }
  }
}
