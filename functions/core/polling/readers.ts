/**
 * The reads of one v2 vehicle poll, one per resource (./poll-vehicle.ts runs them): each gives an
 * observation of what the API answered, or the error when the call failed (no observation, so a
 * failed call can never fix or remove anything). A list read in full is `complete: true`; a 404 on
 * maintenance or map means "no such items" for the vehicle.
 */
import type { ApiError, CarClient, Result } from '../api';
import type { Alert, Collision, Maintenance, MapUpdateInfo, Trip, VehicleEvent } from '../api/model';
import type { Observation } from '../detection/observations';
import type { VehicleRecord } from '../store/records';
import type { PollingConfig, VehicleResource } from './config';

/** Reads one resource; undefined observation when the call failed (or, for a record, proved nothing). */
export type Reader = () => Promise<{ observation?: Observation; error?: ApiError }>;

export const iso = (ms: number): string => new Date(ms).toISOString();

function listObservation<S extends Observation['source'], T>(
  source: S,
  r: Result<{ items: readonly T[] }>,
  fetchedAt: string,
  window?: { since?: string },
): { observation?: Observation; error?: ApiError } {
  if (!r.ok) return { error: r.error };
  return {
    observation: {
      source,
      items: r.value.items,
      complete: true,
      fetchedAt,
      ...(window?.since !== undefined ? { window: { since: window.since } } : {}),
    } as unknown as Observation, // the source/item pairing is fixed by each caller below
  };
}

function singleObservation<T>(
  source: 'v2.maintenance' | 'map',
  r: Result<T>,
  fetchedAt: string,
): { observation?: Observation; error?: ApiError } {
  if (r.ok)
    return { observation: { source, items: [r.value], complete: true, fetchedAt } as unknown as Observation };
  // A 404 on maintenance means "no such items" for the vehicle.
  if (r.error.kind === 'NotFound') {
    return { observation: { source, items: [], complete: true, fetchedAt } as unknown as Observation };
  }
  return { error: r.error };
}

/**
 * One alert read by id (`GET /alerts/{id}`), to confirm an absence: the record as a partial alert
 * list (`complete: false`: it can end the alert, or show it still active, and fixes nothing by
 * absence). A 404 proves nothing either way (no observation, no error): a later list decides.
 */
export function alertRecordReader(client: CarClient, alertId: string, now: () => number): Reader {
  return async () => {
    const r = await client.v2.alert(alertId);
    if (r.ok) {
      const observation: Observation = {
        source: 'v2.alerts',
        items: [r.value],
        complete: false,
        fetchedAt: iso(now()),
        operation: 'v2.alerts.get',
      };
      return { observation };
    }
    return r.error.kind === 'NotFound' ? {} : { error: r.error };
  };
}

export function readers(
  client: CarClient,
  vehicle: VehicleRecord,
  apiId: string,
  eventsSince: string | undefined,
  now: () => number,
  config: PollingConfig,
): Record<Exclude<VehicleResource, never>, Reader> {
  const limit = config.pageLimit;
  return {
    async events() {
      const since = eventsSince ?? iso(now() - config.initialEventsLookbackMs);
      const r = await client.v2.events.all({ vehicleId: apiId, since: new Date(since), limit });
      return listObservation<'v2.events', VehicleEvent>('v2.events', r, iso(now()), { since });
    },
    async alerts() {
      // Unwindowed and complete: an active alert missing from it is in doubt until detection confirms it.
      const r = await client.v2.alerts.all({ vehicleId: apiId, limit });
      return listObservation<'v2.alerts', Alert>('v2.alerts', r, iso(now()));
    },
    async collisions() {
      const since = iso(now() - config.listWindowMs);
      const r = await client.v2.collisions.all({ vehicleId: apiId, since: new Date(since), limit });
      return listObservation<'v2.collisions', Collision>('v2.collisions', r, iso(now()), { since });
    },
    async trips() {
      const since = iso(now() - config.listWindowMs);
      const r = await client.v2.vehicleTrips.all({ vehicleId: apiId, since: new Date(since), limit });
      return listObservation<'v2.trips', Trip>('v2.trips', r, iso(now()), { since });
    },
    async maintenance() {
      return singleObservation<Maintenance>('v2.maintenance', await client.v2.maintenance(apiId), iso(now()));
    },
    async services() {
      const r = await client.services.vehicle(vehicle.vin);
      if (!r.ok) return { error: r.error };
      return { observation: { source: 'services', items: r.value, complete: true, fetchedAt: iso(now()) } };
    },
    async map() {
      return singleObservation<MapUpdateInfo>('map', await client.map.vin(vehicle.vin), iso(now()));
    },
  };
}
