import type {
  Alert,
  Collision,
  EcoDriving,
  IsoDate,
  Maintenance,
  MapUpdateInfo,
  ServiceEligibility,
  Trip,
  V1Alert,
  V1Crash,
  V1Maintenance,
  V1Trip,
  Vehicle,
  VehicleEvent,
} from '../api/model';
import { toInstant } from './times';

/**
 * An observation is what one poll of one source returned for one vehicle (STYLE.md vocabulary),
 * tagged with its source. The poller builds them from the API client's normalized results.
 *
 * - `complete: true` means the whole list was read (every page). A 404 "no such items"
 *   arrives as `items: [], complete: true`. `complete: false` = some pages or the call failed:
 *   such an observation may reveal (raise) things, never fix or remove anything.
 * - `window` is the filter the list was read with (`since`/`until`): absence from a windowed list
 *   only says something about records inside the window.
 * - `fetchedAt` is when the response arrived: it orders observations that carry no record time.
 * - Lists of v1 operations that cover many VINs are split per vehicle by the poller.
 */
export interface ObservationBase {
  readonly fetchedAt: IsoDate;
  readonly complete: boolean;
  readonly window?: { readonly since?: IsoDate; readonly until?: IsoDate };
  /** Operation id from spec/operations.json, when not the default of the source. */
  readonly operation?: string;
}

interface ItemsBySource {
  'v2.events': VehicleEvent;
  'v2.alerts': Alert;
  'v2.collisions': Collision;
  'v2.maintenance': Maintenance;
  'v2.trips': Trip;
  'v2.ecodriving': EcoDriving;
  /** The user's vehicle list: enrollment-level, see `diffEnrollmentVehicles`. */
  'v2.vehicles': Vehicle;
  services: ServiceEligibility;
  map: MapUpdateInfo;
  'v1.alerts': V1Alert;
  'v1.crash': V1Crash;
  'v1.maintenance': V1Maintenance;
  'v1.trips': V1Trip;
}

export type ObservationSource = keyof ItemsBySource;

export type ObservationOf<S extends ObservationSource> = ObservationBase & {
  readonly source: S;
  readonly items: readonly ItemsBySource[S][];
};

export type Observation = { [S in ObservationSource]: ObservationOf<S> }[ObservationSource];

export const OBSERVATION_SOURCES: readonly ObservationSource[] = [
  'v2.events',
  'v2.alerts',
  'v2.collisions',
  'v2.maintenance',
  'v2.trips',
  'v2.ecodriving',
  'v2.vehicles',
  'services',
  'map',
  'v1.alerts',
  'v1.crash',
  'v1.maintenance',
  'v1.trips',
];

/** The operation (spec/operations.json id) each source is read with by default. */
export const DEFAULT_OPERATION: Readonly<Record<ObservationSource, string>> = {
  'v2.events': 'v2.vehicles.events',
  'v2.alerts': 'v2.vehicles.alerts',
  'v2.collisions': 'v2.vehicles.collisions',
  'v2.maintenance': 'v2.vehicles.maintenance',
  'v2.trips': 'v2.vehicles.trips',
  'v2.ecodriving': 'v2.trips.ecodriving',
  'v2.vehicles': 'v2.vehicles.list',
  services: 'v2.vehicles.eligibilities',
  map: 'map.vin',
  'v1.alerts': 'v1.maintenance.alert.list',
  'v1.crash': 'v1.crash.list',
  'v1.maintenance': 'v1.maintenance.list',
  'v1.trips': 'v1.trips.list',
};

export const SOURCE_API: Readonly<Record<ObservationSource, 'v2' | 'v1' | 'map' | 'services'>> = {
  'v2.events': 'v2',
  'v2.alerts': 'v2',
  'v2.collisions': 'v2',
  'v2.maintenance': 'v2',
  'v2.trips': 'v2',
  'v2.ecodriving': 'v2',
  'v2.vehicles': 'v2',
  services: 'services',
  map: 'map',
  'v1.alerts': 'v1',
  'v1.crash': 'v1',
  'v1.maintenance': 'v1',
  'v1.trips': 'v1',
};

/**
 * An observation, or one item of it, the engine refused; the rest of the poll still counts. A
 * record time that does not parse is reported the same way (its field named), though the item is
 * applied, without that time (./times.ts).
 */
export interface RejectedInput {
  readonly kind: 'Malformed';
  /** Index of the observation in the input array. */
  readonly observation: number;
  readonly source: string;
  /** Path of the offending field, e.g. `items[3].id`. */
  readonly field: string;
  readonly reason: string;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

export const isIsoDate = (v: unknown): v is IsoDate => typeof v === 'string' && ISO.test(v);

/** A UTC timestamp of a real date and time (not February 30th, not 24:00): see ./times.ts. */
const isUtcInstant = (v: unknown): v is IsoDate => isIsoDate(v) && toInstant(v) !== undefined;

/**
 * Checks the envelope of an observation (the items are typed by the client; the engine checks the
 * fields it keys on as it reads them). Returns undefined when usable.
 */
export const checkObservation = (o: unknown, index: number): RejectedInput | undefined => {
  const reject = (source: string, field: string, reason: string): RejectedInput => ({
    kind: 'Malformed',
    observation: index,
    source,
    field,
    reason,
  });
  if (typeof o !== 'object' || o === null) return reject('?', '', 'observation is not an object');
  const r = o as Record<string, unknown>;
  const source = typeof r.source === 'string' ? r.source : '?';
  if (!(OBSERVATION_SOURCES as readonly string[]).includes(source)) {
    return reject(source, 'source', `unknown source; expected one of ${OBSERVATION_SOURCES.join(', ')}`);
  }
  if (!isUtcInstant(r.fetchedAt)) return reject(source, 'fetchedAt', 'must be an ISO 8601 UTC timestamp');
  if (typeof r.complete !== 'boolean') return reject(source, 'complete', 'must be a boolean');
  if (!Array.isArray(r.items)) return reject(source, 'items', 'must be an array');
  const w = r.window as Record<string, unknown> | undefined;
  if (w !== undefined) {
    if (typeof w !== 'object' || w === null) return reject(source, 'window', 'must be an object');
    if (w.since !== undefined && !isUtcInstant(w.since))
      return reject(source, 'window.since', 'must be an ISO 8601 UTC timestamp');
    if (w.until !== undefined && !isUtcInstant(w.until))
      return reject(source, 'window.until', 'must be an ISO 8601 UTC timestamp');
  }
  return undefined;
};
