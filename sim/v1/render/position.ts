import { hashedInt } from '../../world/prng';
import type { GeoPoint, SimTrip, SimVehicle, WorldView } from '../../world/types';
import { formatStamp } from '../format';
import { POSITION_SECONDS, positionAt, secondAt, tripPositionAt } from '../window';

type StringSeries = Record<string, string>;

export interface PositionRecord {
  latitude: StringSeries;
  longitude: StringSeries;
  altitude: StringSeries;
  nbsat: StringSeries;
  source: StringSeries;
  vin: string;
  lastUpdate: string;
  contract: string;
}

/** Satellite fixes carry source `GPS`; the spec does not show the allowed values. */
export const POSITION_SOURCE = 'GPS';

interface Sample {
  readonly at: number;
  readonly position: GeoPoint;
}

/**
 * Which sampled second answers a requested one: itself when it is a sample second (6, 12, …, 60);
 * with `near`, the next sample second holding data; otherwise none.
 */
function answeringSample(
  requested: number,
  near: boolean,
  sample: (second: number) => Sample | undefined,
): Sample | undefined {
  if (requested % 6 === 0) {
    const own = sample(requested);
    if (own || !near) return own;
  } else if (!near) {
    return undefined;
  }
  for (const s of POSITION_SECONDS) {
    if (s <= requested) continue;
    const next = sample(s);
    if (next) return next;
  }
  return undefined;
}

function render(
  vehicle: SimVehicle,
  requested: readonly number[],
  near: boolean,
  sample: (second: number) => Sample | undefined,
  lastUpdate: number,
): PositionRecord {
  const out: PositionRecord = {
    latitude: {},
    longitude: {},
    altitude: {},
    nbsat: {},
    source: {},
    vin: vehicle.vin,
    lastUpdate: formatStamp(lastUpdate),
    contract: vehicle.contract,
  };
  for (const k of requested) {
    const s = answeringSample(k, near, sample);
    if (!s) continue;
    const key = String(k);
    out.latitude[key] = s.position.lat.toFixed(6);
    out.longitude[key] = s.position.lon.toFixed(6);
    out.altitude[key] = String(Math.round(s.position.alt));
    out.nbsat[key] = String(hashedInt(`${vehicle.id}:sat:${Math.floor(s.at / 1000)}`, 5, 12));
    out.source[key] = POSITION_SOURCE;
  }
  return out;
}

/** The last minute of positions, ending at `end` (see window.lastDataAt). */
export function renderLastPosition(
  world: WorldView,
  vehicle: SimVehicle,
  end: number,
  requested: readonly number[],
  near: boolean,
): PositionRecord {
  const sample = (s: number): Sample => {
    const at = secondAt(end, s);
    return { at, position: positionAt(world, vehicle, at) };
  };
  return render(vehicle, requested, near, sample, end);
}

/**
 * A trip as one position record per started minute: minute i covers (start + 60·i, start + 60·(i+1)],
 * second s is start + 60·i + s. Seconds after the stop hold no data.
 */
export function renderTripPositions(
  vehicle: SimVehicle,
  trip: SimTrip,
  requested: readonly number[],
  near: boolean,
): PositionRecord[] {
  const records: PositionRecord[] = [];
  for (let base = trip.startedAt; base < trip.stoppedAt; base += 60_000) {
    const sample = (s: number): Sample | undefined => {
      const at = base + s * 1000;
      return at > trip.stoppedAt ? undefined : { at, position: tripPositionAt(trip, at) };
    };
    records.push(render(vehicle, requested, near, sample, Math.min(base + 60_000, trip.stoppedAt)));
  }
  return records;
}
