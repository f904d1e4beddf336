/**
 * Map update information (area C) for a batch of vehicles in one `POST /mapway/bulk`,
 * daily. Each vehicle gets a `map` observation with its own entry (none: nothing available for
 * it), diffed and committed like any poll (./commit.ts). The API states no bulk limit: a
 * batch refused with 400 is split in halves.
 */

import type { MapUpdateInfo } from '../api/model';
import type { Observation } from '../detection/observations';
import { stateKeyOf } from '../store/identity';
import type { Enrollment, VehicleRecord, VehicleStateRecord } from '../store/records';
import { applyObservations } from './commit';
import { DEFAULT_POLLING_CONFIG, type PollingConfig } from './config';
import type { PollMapJob } from './jobs';
import { createMeteredClient } from './metered-client';
import { bulkWithSplit, type FleetDeps } from './poll-fleet';
import type { ResourceFailure } from './poll-vehicle';

export interface MapPollSummary {
  readonly vehicleIds: readonly string[];
  readonly polled: number;
  readonly requests: number;
  readonly denied: number;
  readonly committed: number;
  readonly eventsWritten: readonly string[];
  readonly published: readonly string[];
  readonly unpublished: readonly string[];
  readonly failures: readonly ResourceFailure[];
}

export async function pollMap(deps: FleetDeps, job: PollMapJob): Promise<MapPollSummary> {
  const config: PollingConfig = { ...DEFAULT_POLLING_CONFIG, ...deps.config };
  const { stores } = deps;
  const members: { vehicle: VehicleRecord; state: VehicleStateRecord | undefined; enrollment: Enrollment }[] =
    [];
  const identities = new Set<string>();
  for (const id of job.vehicleIds) {
    const { vehicle, state } = await stores.states.getVehicleWithState(id);
    if (!vehicle || vehicle.paused) continue;
    // One VIN enrolled twice shares one state: its map update is read and applied once.
    if (identities.has(stateKeyOf(vehicle))) continue;
    identities.add(stateKeyOf(vehicle));
    const enrollment = await stores.enrollments.get(vehicle.enrollmentId);
    if (enrollment?.status !== 'active') continue;
    members.push({ vehicle, state, enrollment });
  }
  const summary = {
    vehicleIds: job.vehicleIds,
    polled: members.length,
    requests: 0,
    denied: 0,
    committed: 0,
    eventsWritten: [] as string[],
    published: [] as string[],
    unpublished: [] as string[],
    failures: [] as ResourceFailure[],
  };
  if (members.length === 0) return summary;

  // Area C authenticates with HTTP basic + client_id: no user token.
  const metered = (deps.clientFactory ?? createMeteredClient)(deps.access, {
    brand: 'map',
    budget: deps.budget,
    now: deps.now,
  });
  const read = await bulkWithSplit<{ vin: string }, MapUpdateInfo>(
    members.map((m) => ({ vin: m.vehicle.vin })),
    (batch) => metered.client.map.bulk(batch.map((t) => t.vin)),
    () => {},
  );
  await metered.settle();
  summary.requests = metered.requests();
  summary.denied = metered.denied();
  for (const e of read.errors) {
    summary.failures.push({
      resource: 'map',
      kind: metered.exhausted() ? 'BudgetDenied' : e.kind,
      message: e.message,
    });
  }
  const fetchedAt = new Date(deps.now()).toISOString();
  for (const m of members) {
    if (!read.answered.has(m.vehicle.vin)) continue;
    const observation: Observation = {
      source: 'map',
      items: read.items.filter((i) => i.vin === m.vehicle.vin),
      complete: true,
      fetchedAt,
      operation: 'map.bulk',
    };
    const applied = await applyObservations(
      { stores, bus: deps.bus, now: deps.now, config, ...(deps.publish ? { publish: deps.publish } : {}) },
      {
        vehicle: m.vehicle,
        enrollment: { id: m.enrollment.id, kind: m.enrollment.kind },
        stored: m.state,
        observations: [observation],
        rotate: false,
      },
    );
    if (applied.kind !== 'Applied') {
      summary.failures.push({ resource: `vehicle:${m.vehicle.id}`, kind: 'Upstream', message: applied.kind });
      continue;
    }
    if (applied.wrote === 'commit') summary.committed++;
    summary.eventsWritten.push(...applied.eventsWritten);
    summary.published.push(...applied.published);
    summary.unpublished.push(...applied.unpublished);
  }
  return summary;
}
