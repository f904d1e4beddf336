/** Telemetry of the vehicle data API: ids, the rendered second, and the `type` property-path filter. */
import type { SimTelemetry } from '../world/types';
import { enumValue, isoZ, type Json, link, type RenderCtx } from './render';

/** Telemetry id: vehicle id and epoch second (base 36). */
export function telemetryId(vehicleId: string, at: number): string {
  return `${vehicleId}-${Math.floor(at / 1000).toString(36)}`;
}

export function parseTelemetryId(id: string): { vehicleId: string; at: number } | undefined {
  const i = id.lastIndexOf('-');
  if (i <= 0) return undefined;
  const sec = Number.parseInt(id.slice(i + 1), 36);
  if (!Number.isFinite(sec)) return undefined;
  return { vehicleId: id.slice(0, i), at: sec * 1000 };
}

/** One second of data; groups only present when the value was collected. */
export function renderTelemetry(ctx: RenderCtx, vehicleId: string, t: SimTelemetry, brand: 'C' | 'P'): Json {
  const e = (s: string): string => enumValue(ctx, s);
  const running = t.running === true;
  const vehicle: Json = {
    ...(t.odometer !== undefined ? { odometer: t.odometer } : {}),
    ...(t.moving !== undefined ? { moving: t.moving } : {}),
    ...(t.running !== undefined ? { running: t.running } : {}),
  };
  if (t.engines) {
    vehicle.engines = t.engines.map((en) => ({
      coolant: { temp: en.coolantTemp },
      oil: { temp: en.oilTemp, level: en.oilLevel },
      speed: en.speed,
      status: e(en.status),
    }));
  }
  if (t.fuel) vehicle.fuel = { ...t.fuel };
  vehicle.brakingSystem = {
    status: e('ok'),
    ...(t.parkingBrake !== undefined ? { parking: t.parkingBrake } : {}),
  };
  if (running) {
    vehicle.transmission = {
      gearbox: {
        ...(t.gearRecommended !== undefined ? { gear: { recommended: e(`gear${t.gearRecommended}`) } } : {}),
        mode: { automatic: true, sport: false, snow: false },
      },
    };
    const on = e('active');
    const off = e('inactive');
    vehicle.adas = {
      parkAssist: { front: off, rear: off },
      acc: off,
      lvv: off,
      rvv: off,
      aebs: on,
      afil: on,
      esp: on,
      abs: on,
      fse: on,
      sli: brand === 'P' ? on : off,
      artiv: off,
      bsm: on,
      lka: { right: on, left: on },
    };
    if (t.accelerationLongitudinal !== undefined)
      vehicle.acceleration = { longitudinal: t.accelerationLongitudinal };
    vehicle.lightingSystem = {
      signal: { turn: { left: t.turnSignal === 'left', right: t.turnSignal === 'right' } },
      foglight: { front: false, rear: false },
    };
  }
  return {
    id: telemetryId(vehicleId, t.at),
    createdAt: isoZ(t.at),
    updatedAt: isoZ(t.at),
    _links: {
      self: link(`${ctx.base}/telemetry/${telemetryId(vehicleId, t.at)}`),
      vehicle: link(`${ctx.base}/vehicles/${vehicleId}`),
    },
    vehicle,
    ...(t.seatbeltUnbuckled !== undefined
      ? { passenger: { seatbelt: { unbuckled: t.seatbeltUnbuckled } } }
      : {}),
    environment: {
      ...(t.day !== undefined ? { luminosity: { day: t.day } } : {}),
      ...(t.airTemp !== undefined ? { air: { temp: t.airTemp } } : {}),
    },
  };
}

/** Every property path of the telemetry resource, in dot notation (`vehicle.engines.coolant.temp` for `engines[]`). */
export const TELEMETRY_PATHS: readonly string[] = [
  'vehicle.odometer',
  'vehicle.moving',
  'vehicle.running',
  'vehicle.engines',
  'vehicle.engines.coolant.temp',
  'vehicle.engines.oil.temp',
  'vehicle.engines.oil.level',
  'vehicle.engines.speed',
  'vehicle.engines.status',
  'vehicle.fuel.level',
  'vehicle.fuel.consumption',
  'vehicle.fuel.autonomy',
  'vehicle.brakingSystem.status',
  'vehicle.brakingSystem.parking',
  'vehicle.transmission.gearbox.gear.recommended',
  'vehicle.transmission.gearbox.mode.automatic',
  'vehicle.transmission.gearbox.mode.sport',
  'vehicle.transmission.gearbox.mode.snow',
  'vehicle.adas.parkAssist.front',
  'vehicle.adas.parkAssist.rear',
  'vehicle.adas.acc',
  'vehicle.adas.lvv',
  'vehicle.adas.rvv',
  'vehicle.adas.aebs',
  'vehicle.adas.afil',
  'vehicle.adas.esp',
  'vehicle.adas.abs',
  'vehicle.adas.fse',
  'vehicle.adas.sli',
  'vehicle.adas.artiv',
  'vehicle.adas.bsm',
  'vehicle.adas.lka.right',
  'vehicle.adas.lka.left',
  'vehicle.acceleration.longitudinal',
  'vehicle.lightingSystem.signal.turn.left',
  'vehicle.lightingSystem.signal.turn.right',
  'vehicle.lightingSystem.foglight.front',
  'vehicle.lightingSystem.foglight.rear',
  'passenger.seatbelt.unbuckled',
  'environment.luminosity.day',
  'environment.air.temp',
];

/** Known paths and all their prefixes (a group such as `vehicle.fuel` selects the whole group). */
const SELECTABLE = new Set<string>(
  TELEMETRY_PATHS.flatMap((p) => {
    const parts = p.split('.');
    return parts.map((_, i) => parts.slice(0, i + 1).join('.'));
  }),
);

/** Normalizes a `type` value: `engines[]` → `engines`; undefined when unknown. */
export function normalizeTelemetryPath(raw: string): string | undefined {
  const p = raw.trim().replace(/\[\]/g, '');
  return SELECTABLE.has(p) ? p : undefined;
}

/** Keeps only the selected paths (and the resource's own id, dates and links). */
export function pickTelemetry(item: Json, paths: readonly string[]): Json {
  const out: Json = {
    id: item.id,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
    _links: item._links,
  };
  for (const path of paths) merge(out, item, path.split('.'));
  return out;
}

function merge(target: Json, source: Json, parts: readonly string[]): void {
  const [head, ...rest] = parts;
  if (head === undefined || !(head in source)) return;
  const value = source[head];
  if (rest.length === 0) {
    target[head] = value;
    return;
  }
  if (Array.isArray(value)) {
    const existing = Array.isArray(target[head]) ? (target[head] as Json[]) : value.map(() => ({}));
    value.forEach((el, i) => {
      if (el && typeof el === 'object') merge(existing[i] as Json, el as Json, rest);
    });
    target[head] = existing;
    return;
  }
  if (value && typeof value === 'object') {
    const sub = (target[head] as Json | undefined) ?? {};
    merge(sub, value as Json, rest);
    if (Object.keys(sub).length > 0) target[head] = sub;
  }
}
