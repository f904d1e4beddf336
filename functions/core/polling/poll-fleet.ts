/**
 * Fleet contracts (v1 API): one batch of vehicles is polled through the bulk POST lists —
 * active alerts, crash, maintenance and trips — one request each for the whole batch, then split
 * into per-vehicle observations and diffed/committed per vehicle like a v2 poll (./commit.ts).
 *
 * The API states no maximum number of VINs per list body: the batch size is configurable,
 * and a batch the server refuses with 400 is split in halves until it is accepted (a single VIN
 * refused gets no observation, so nothing is fixed or removed for it). A batch answered 404 / 403
 * is split too: the VIN refused alone, or one the maintenance list leaves out (a known vehicle
 * always has its record), may be one the API no longer knows, which
 * ./fleet-removal.ts confirms with one read before anything is applied for it.
 */
import type { ApiError, CarClient, Result, V1Target } from '../api';
import type { V1Alert, V1Crash, V1Maintenance, V1Trip } from '../api/model';
import { diff } from '../detection/diff';
import type { Observation } from '../detection/observations';
import { parseState } from '../detection/state';
import { stateKeyOf } from '../store/identity';
import type {
  FleetContractEnrollment,
  VehicleRecord,
  VehicleStateRecord as VehicleState,
} from '../store/records';
import { alertCodesFor } from './alert-codes';
import { applyObservations, detectionContext } from './commit';
import { DEFAULT_POLLING_CONFIG, type PollingConfig } from './config';
import { confirmFleetVehicle, removeFleetVehicle } from './fleet-removal';
import type { PollFleetJob } from './jobs';
import { createMeteredClient } from './metered-client';
import type { PollDeps, ResourceFailure } from './poll-vehicle';

export type FleetDeps = Omit<PollDeps, 'tokens'>;

export interface FleetPollSummary {
  readonly vehicleIds: readonly string[];
  /** Vehicles diffed (not paused, enrollment active). */
  readonly polled: number;
  readonly requests: number;
  readonly denied: number;
  /** Batches sent per operation, splits included. */
  readonly batches: Readonly<Record<string, number>>;
  readonly committed: number;
  readonly conflicts: number;
  readonly eventsWritten: readonly string[];
  readonly published: readonly string[];
  readonly unpublished: readonly string[];
  readonly failures: readonly ResourceFailure[];
  /** Vehicles the API no longer knows: `enrollment.vehicle.removed` told, polling stopped. */
  readonly removed: readonly string[];
  /** Per-vehicle answers the diff found stale (they fixed nothing). */
  readonly stale: number;
}

interface Member {
  readonly vehicle: VehicleRecord;
  readonly state: VehicleState | undefined;
  readonly enrollment: FleetContractEnrollment;
}

type BulkCall<T> = (targets: readonly V1Target[]) => Promise<Result<readonly T[]>>;

/**
 * Calls `call` for `targets`; on a 400 from the server splits in halves (recursively). Returns the
 * items and the targets whose batch was answered (only those get a complete observation).
 */
export async function bulkWithSplit<K extends { readonly vin: string }, T>(
  targets: readonly K[],
  call: (batch: readonly K[]) => Promise<Result<readonly T[]>>,
  onBatch: () => void,
): Promise<{ items: T[]; answered: Set<string>; errors: ApiError[]; refused: Set<string> }> {
  const items: T[] = [];
  const answered = new Set<string>();
  const errors: ApiError[] = [];
  /** VINs refused alone with 404 / 403: possibly unknown to the API now. */
  const refused = new Set<string>();
  const go = async (batch: readonly K[]): Promise<void> => {
    if (batch.length === 0) return;
    onBatch();
    const r = await call(batch);
    if (r.ok) {
      items.push(...r.value);
      for (const t of batch) answered.add(t.vin);
      return;
    }
    const unknownVin = r.error.kind === 'NotFound' || r.error.kind === 'AccessDenied';
    if (((r.error.kind === 'InvalidRequest' && r.error.status === 400) || unknownVin) && batch.length > 1) {
      const half = Math.ceil(batch.length / 2);
      await go(batch.slice(0, half));
      await go(batch.slice(half));
      return;
    }
    if (unknownVin && batch[0] !== undefined) refused.add(batch[0].vin);
    errors.push(r.error);
  };
  await go(targets);
  return { items, answered, errors, refused };
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The v1 alerts (`idAlert` by VIN) the active list left in doubt for each member: what the diff
 * engine would ask to confirm after applying the member's part of the list to its stored state.
 */
function alertDoubts(
  members: readonly Member[],
  alerts: { items: readonly V1Alert[]; answered: ReadonlySet<string>; fetchedAt: string },
  deps: Pick<FleetDeps, 'now'>,
  config: PollingConfig,
): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const m of members) {
    const vin = m.vehicle.vin;
    if (m.state === undefined || !alerts.answered.has(vin)) continue;
    const parsed = parseState(m.state.state);
    if (!parsed.ok) continue;
    const identity = stateKeyOf(m.vehicle);
    const context = detectionContext(
      { vehicle: m.vehicle, enrollment: { id: m.enrollment.id, kind: 'fleet-contract' } },
      identity,
      deps.now(),
      config,
    );
    const observation: Observation = {
      source: 'v1.alerts',
      items: alerts.items.filter((i) => i.vin === vin),
      complete: true,
      fetchedAt: alerts.fetchedAt,
    };
    const next = diff({ ...parsed.state, vehicleId: identity }, [observation], context).next;
    const ids = next.alertsUnconfirmed.filter((k) => k.startsWith('v1:')).map((k) => k.slice('v1:'.length));
    if (ids.length > 0) out.set(vin, new Set(ids));
  }
  return out;
}

export async function pollFleet(deps: FleetDeps, job: PollFleetJob): Promise<FleetPollSummary> {
  const config: PollingConfig = { ...DEFAULT_POLLING_CONFIG, ...deps.config };
  const { stores } = deps;
  const members: Member[] = [];
  for (const id of job.vehicleIds) {
    const { vehicle, state } = await stores.states.getVehicleWithState(id);
    if (!vehicle || vehicle.paused) continue;
    const enrollment = await stores.enrollments.get(vehicle.enrollmentId);
    if (enrollment?.kind === 'fleet-contract' && enrollment.status !== 'active') {
      // Left unpaused by a worker that died mid-unenrollment: repaired on sight (see poll-vehicle.ts).
      await stores.vehicles.pause(id, enrollment.status, deps.now());
      continue;
    }
    if (enrollment?.kind !== 'fleet-contract') continue;
    members.push({ vehicle, state, enrollment });
  }
  const batches: Record<string, number> = {};
  const failures: ResourceFailure[] = [];
  const summary = {
    vehicleIds: job.vehicleIds,
    polled: members.length,
    requests: 0,
    denied: 0,
    batches,
    committed: 0,
    conflicts: 0,
    eventsWritten: [] as string[],
    published: [] as string[],
    unpublished: [] as string[],
    failures,
    removed: [] as string[],
    stale: 0,
  };
  if (members.length === 0) return summary;

  const factory = deps.clientFactory ?? createMeteredClient;
  const metered = factory(deps.access, { brand: job.brand, budget: deps.budget, now: deps.now });
  const client: CarClient = metered.client;
  const targets: V1Target[] = members.map((m) => ({ vin: m.vehicle.vin, contract: m.enrollment.contract }));
  const locale = config.fleetLocale;
  const brand = job.brand;
  const now = deps.now();

  type Read<T> = { items: T[]; answered: Set<string>; refused: Set<string>; fetchedAt: string };
  const read = async <T>(
    name: string,
    call: BulkCall<T>,
    only: readonly V1Target[] = targets,
  ): Promise<Read<T> | undefined> => {
    if (metered.exhausted()) return undefined;
    const r = await bulkWithSplit(only, call, () => {
      batches[name] = (batches[name] ?? 0) + 1;
    });
    await metered.settle();
    for (const e of r.errors)
      failures.push({
        resource: name,
        kind: metered.exhausted() ? 'BudgetDenied' : e.kind,
        message: e.message,
      });
    return { items: r.items, answered: r.answered, refused: r.refused, fetchedAt: iso(deps.now()) };
  };

  // `active` 1 lists the active alerts; an alert missing from it (complete) is fixed.
  const alerts = await read<V1Alert>('alerts', (t) =>
    client.v1.alertList({ targets: t, active: true, locale, brand }),
  );
  const crash = await read<V1Crash>('crash', (t) => client.v1.crashList({ targets: t }));
  const maintenance = await read<V1Maintenance>('maintenance', (t) =>
    client.v1.maintenanceList({ targets: t, locale, brand }),
  );
  const from = new Date(now - config.listWindowMs);
  const trips = await read<V1Trip>('trips', async (t) => {
    const r = await client.v1.tripList({ targets: t, from, to: new Date(now) });
    return r.ok ? { ...r, value: r.value.trips } : r;
  });
  const publish = deps.publish ? { publish: deps.publish } : {};
  const reads = [alerts, crash, maintenance, trips];
  /** Left out of the maintenance list, or refused alone with 404 / 403 by a list. */
  const mayBeUnknown = (vin: string): boolean =>
    reads.some((r) => r?.refused.has(vin)) ||
    (maintenance?.answered.has(vin) === true && !maintenance.items.some((i) => i.vin === vin));
  // Active alerts the active list missed are in doubt (detection README "Alerts"): the list of
  // inactive alerts, one request for every VIN with a doubt, holds the record of each that ended,
  // with its end. One missing there too waits for the next cycle's active list.
  const doubts =
    alerts === undefined ? new Map<string, Set<string>>() : alertDoubts(members, alerts, deps, config);
  const doubted = targets.filter((t) => doubts.has(t.vin) && !mayBeUnknown(t.vin));
  const ended =
    doubted.length > 0
      ? await read<V1Alert>(
          'alerts:inactive',
          (t) => client.v1.alertList({ targets: t, active: false, locale, brand }),
          doubted,
        )
      : undefined;
  // v1 alert texts are localized: their codes come from the API's alert referential (one read a
  // day, only when there are alerts to tell and budget left after the lists).
  const alertCodes =
    (alerts !== undefined && alerts.items.length > 0) || (ended !== undefined && ended.items.length > 0)
      ? await alertCodesFor(deps.access, client, { locale, brand }, deps.now(), !metered.exhausted())
      : undefined;
  await metered.settle();

  for (const m of members) {
    const vin = m.vehicle.vin;
    if (mayBeUnknown(vin)) {
      // Confirmed with one read before anything is applied: an omission alone fixes nothing.
      if (metered.exhausted()) continue;
      const presence = await confirmFleetVehicle(client, { vin, contract: m.enrollment.contract });
      await metered.settle();
      if (presence === 'unconfirmed') continue;
      if (presence === 'unknown') {
        const r = await removeFleetVehicle(
          { stores, bus: deps.bus, now: deps.now, ...publish },
          m.enrollment,
          m.vehicle,
        );
        summary.eventsWritten.push(...r.removedEvents);
        if (r.paused) summary.removed.push(m.vehicle.id);
        continue;
      }
    }
    const observations: Observation[] = [];
    const add = <T extends { vin: string }>(
      source: Observation['source'],
      r: Read<T> | undefined,
      window?: string,
    ) => {
      if (!r?.answered.has(vin)) return;
      observations.push({
        source,
        items: r.items.filter((i) => i.vin === vin),
        complete: true,
        fetchedAt: r.fetchedAt,
        ...(window ? { window: { since: window } } : {}),
      } as unknown as Observation); // source and item type are paired by the calls above
    };
    add('v1.alerts', alerts);
    const mine = doubts.get(vin);
    if (ended?.answered.has(vin) && mine !== undefined) {
      // Only the records of the alerts in doubt: the inactive list also holds alerts long ended.
      observations.push({
        source: 'v1.alerts',
        items: ended.items.filter((i) => i.vin === vin && mine.has(i.idAlert)),
        complete: false,
        fetchedAt: ended.fetchedAt,
      });
    }
    add('v1.crash', crash);
    add('v1.maintenance', maintenance);
    add('v1.trips', trips, from.toISOString());
    const applied = await applyObservations(
      { stores, bus: deps.bus, now: deps.now, config, ...(deps.publish ? { publish: deps.publish } : {}) },
      {
        vehicle: m.vehicle,
        enrollment: { id: m.enrollment.id, kind: 'fleet-contract' },
        stored: m.state,
        observations,
        rotate: job.rotate,
        // The bulk lists were read from `now` on: a first poll's history ends there.
        readsStartedAt: now,
        ...(alertCodes !== undefined ? { alertCodes } : {}),
      },
    );
    if (applied.kind === 'Applied') {
      if (applied.wrote === 'commit') summary.committed++;
      summary.conflicts += applied.conflicts;
      summary.stale += applied.stale;
      summary.eventsWritten.push(...applied.eventsWritten);
      summary.published.push(...applied.published);
      summary.unpublished.push(...applied.unpublished);
    } else {
      failures.push({
        resource: `vehicle:${m.vehicle.id}`,
        kind: 'Upstream',
        message:
          applied.kind === 'StateUnreadable'
            ? `state unreadable: ${applied.reason}`
            : 'version conflicts exhausted',
      });
    }
  }
  summary.requests = metered.requests();
  summary.denied = metered.denied();
  return summary;
}
