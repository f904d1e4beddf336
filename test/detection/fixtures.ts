import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv-draft-04';
import { expect } from 'vitest';
import type { Alert, Collision, Trip, VehicleEvent } from '../../functions/core/api/model';
import type { DiffConfig } from '../../functions/core/detection/config';
import { type DiffContext, type DiffResult, diff } from '../../functions/core/detection/diff';
import type {
  Observation,
  ObservationOf,
  ObservationSource,
} from '../../functions/core/detection/observations';
import type { VehicleState } from '../../functions/core/detection/state';

export const T0 = Date.parse('2026-11-01T08:00:00.000Z');
/** ISO time `minutes` after T0. */
export const at = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();

export const context = (minutes: number, config?: Partial<DiffConfig>): DiffContext => ({
  vehicle: { id: 'veh-1', vin: 'VF3ABCDEFGH123456', brand: 'P' },
  enrollment: { id: 'enr-1', kind: 'oauth-user' },
  now: new Date(T0 + minutes * 60_000),
  ...(config === undefined ? {} : { config }),
});

export const obs = <S extends ObservationSource>(
  source: S,
  items: ObservationOf<S>['items'],
  fetchedMinute: number,
  extra: Partial<Pick<Observation, 'complete' | 'window' | 'operation'>> = {},
): ObservationOf<S> =>
  ({ source, items, fetchedAt: at(fetchedMinute), complete: true, ...extra }) as ObservationOf<S>;

export const alert = (id: string, active: boolean, extra: Partial<Alert> = {}): Alert => ({
  id,
  active,
  message: 'alertOilPressure',
  severity: 'high',
  startedAt: at(-10),
  ...extra,
});

export const collision = (id: string, extra: Partial<Collision> = {}): Collision => ({
  id,
  rollOver: false,
  pedestrian: false,
  front: 'low',
  rear: 'none',
  lateral: 'none',
  createdAt: at(1),
  ...extra,
});

export const trip = (id: string, stoppedMinute: number, extra: Partial<Trip> = {}): Trip => ({
  id,
  startedAt: at(stoppedMinute - 20),
  stoppedAt: at(stoppedMinute),
  durationS: 1200,
  distanceKm: 14.2,
  fuelConsumptionL: 1.1,
  avgConsumptionL100: 7.7,
  avgSpeedKmh: 42.6,
  co2Estimated: 2.5,
  ...extra,
});

export const vehicleEvent = (
  id: string,
  type: string,
  createdMinute: number,
  extra: Partial<VehicleEvent> = {},
): VehicleEvent => ({
  id,
  type,
  eventId: `rec-${id}`,
  createdAt: at(createdMinute),
  ...extra,
});

/** A state that went through a first (empty) poll at minute 0: later records are news. */
export const baselined = (config?: Partial<DiffConfig>): VehicleState =>
  diff(undefined, [], context(0, config)).state;

/** Runs polls in order, returns every event and the last result. */
export const runPolls = (
  start: VehicleState | undefined,
  polls: readonly { minute: number; observations: readonly Observation[] }[],
  config?: Partial<DiffConfig>,
): { last: DiffResult; events: DiffResult['events'][number][] } => {
  let state = start;
  const events: DiffResult['events'][number][] = [];
  let last: DiffResult | undefined;
  for (const p of polls) {
    last = diff(state, p.observations, context(p.minute, config));
    state = last.state;
    events.push(...last.events);
  }
  if (last === undefined) throw new TypeError('runPolls needs at least one poll');
  return { last, events };
};

// ---- validation against the COMMITTED JSON Schemas, with ajv-draft-04 (not the zod schemas) ----

const schemasDir = join(import.meta.dirname, '..', '..', 'events-schemas');
const ajv = new Ajv({ allErrors: true, strict: true }).addFormat(
  'date-time',
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/,
);
const validators = new Map<string, ValidateFunction>();

export const committedValidator = (type: string, version: number): ValidateFunction => {
  const file = `${type}.v${version}.json`;
  let v = validators.get(file);
  if (v === undefined) {
    v = ajv.compile(JSON.parse(readFileSync(join(schemasDir, file), 'utf8')));
    validators.set(file, v);
  }
  return v;
};

/** Every event must validate against its own committed schema file. */
export const expectValidEvents = (events: readonly { type: string; schemaVersion: number }[]): void => {
  for (const e of events) {
    const validate = committedValidator(e.type, e.schemaVersion);
    // Round-trip through JSON: what leaves is the serialized event.
    const ok = validate(JSON.parse(JSON.stringify(e)));
    expect(ok ? [] : validate.errors, `${e.type} ${JSON.stringify(e)}`).toEqual([]);
  }
};
