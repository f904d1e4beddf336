import type { ChaosFlags } from '../http/chaos';
import { alertAdvice, alertMessage, type Locale } from '../world/catalog';
import type {
  GeoPoint,
  SimAlert,
  SimCollision,
  SimEvent,
  SimMaintenance,
  SimTrip,
  SimUser,
  SimVehicle,
  SimWaypoint,
} from '../world/types';
import type { World } from '../world/world';

/** What every v2 renderer needs: where links point, the language, and this request's chaos. */
export interface RenderCtx {
  readonly world: World;
  /** Absolute base of the v2 API, e.g. `http://127.0.0.1:4010/connectedcar/v2`. */
  readonly base: string;
  readonly locale: Locale;
  readonly flags: ChaosFlags;
}

export type Json = Record<string, unknown>;

/** The API's date form: `yyyy-MM-ddTHH:mm:ss.SSSZ`. */
export function isoZ(ms: number): string {
  return new Date(ms).toISOString();
}

/** The API's other date form, `yyyy-MM-ddTHH:mm:ss.SSS+0000`: used in GeoJSON position properties. */
export function isoOffset(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+0000');
}

/** v1 / alternative alert shape dates: `yyyyMMddHHmmss` (the v1 `lastUpdate` form). */
export function compactDate(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

export const link = (href: string): { href: string } => ({ href });

export function enumValue(ctx: RenderCtx, value: string): string {
  return ctx.flags.upperCaseEnums ? value.toUpperCase() : value;
}

/** Positions are GeoJSON Features, coordinates lon, lat, alt. */
export function position(id: string, p: GeoPoint, at: number, heading: number, extra: Json = {}): Json {
  return {
    type: 'Feature',
    geometry: { type: 'Point', coordinates: [p.lon, p.lat, p.alt] },
    properties: { id, createdAt: isoOffset(at), updatedAt: isoOffset(at), heading, ...extra },
  };
}

export function renderVehicle(ctx: RenderCtx, v: SimVehicle): Json {
  const self = `${ctx.base}/vehicles/${v.id}`;
  const lastTrip = ctx.world.trips(v.id).at(-1);
  return {
    id: v.id,
    vin: v.vin,
    brand: v.brand,
    model: v.model,
    subModel: v.subModel,
    engine: v.engine,
    gearbox: v.gearbox,
    energy: v.energy,
    createdAt: isoZ(v.createdAt),
    updatedAt: isoZ(v.updatedAt),
    _links: {
      self: link(self),
      ...(lastTrip ? { lastTrip: link(`${ctx.base}/trips/${lastTrip.id}`) } : {}),
      lastPosition: link(`${self}/lastPosition`),
      trips: link(`${self}/trips`),
      collisions: link(`${self}/collisions`),
      telemetry: link(`${self}/telemetry`),
      maintenance: link(`${self}/maintenance`),
      alerts: link(`${self}/alerts`),
      events: link(`${self}/events`),
    },
  };
}

export function renderUser(ctx: RenderCtx, u: SimUser): Json {
  const vehicles = u.vehicleIds.map((id) => ctx.world.vehicle(id)).filter((v): v is SimVehicle => !!v);
  let lastTrip: SimTrip | undefined;
  for (const v of vehicles) {
    const t = ctx.world.trips(v.id).at(-1);
    if (t && (!lastTrip || t.stoppedAt > lastTrip.stoppedAt)) lastTrip = t;
  }
  return {
    id: u.id,
    email: u.email,
    firstName: u.firstName,
    lastName: u.lastName,
    createdAt: isoZ(u.createdAt),
    updatedAt: isoZ(u.updatedAt),
    _links: {
      self: link(`${ctx.base}/user`),
      trips: link(`${ctx.base}/trips`),
      ...(lastTrip
        ? {
            lastTrip: link(`${ctx.base}/trips/${lastTrip.id}`),
            lastEcodriving: link(`${ctx.base}/trips/${lastTrip.id}/ecodriving`),
          }
        : {}),
    },
    _embedded: { vehicles: vehicles.map((v) => renderVehicle(ctx, v)) },
  };
}

export function renderLastPosition(ctx: RenderCtx, v: SimVehicle): Json {
  const sec = Math.floor(v.positionAt / 1000);
  return {
    ...position(`${v.id}-${sec.toString(36)}`, v.position, v.positionAt, v.heading),
    _links: {
      self: link(`${ctx.base}/vehicles/${v.id}/lastPosition`),
      vehicle: link(`${ctx.base}/vehicles/${v.id}`),
    },
  };
}

/** An alert with its declared fields; with the `alertItemShape` chaos mode, the sample's alternative item. */
export function renderAlert(ctx: RenderCtx, a: SimAlert): Json {
  const message = alertMessage(a.code, ctx.locale);
  if (ctx.flags.alertItemShape) {
    const v = ctx.world.vehicle(a.vehicleId);
    return {
      idAlert: a.id,
      alert: message,
      advise: alertAdvice(a.severity, ctx.locale),
      category: a.category,
      dateUpdate: compactDate(a.updatedAt),
      vin: v?.vin ?? '',
      contract: v?.contract ?? '',
      dateAlertBegin: compactDate(a.createdAt),
      dateAlertEnd: a.endedAt !== undefined ? compactDate(a.endedAt) : '',
      alertState: a.active ? 1 : 0,
    };
  }
  return {
    id: a.id,
    active: a.active,
    message,
    severity: enumValue(ctx, a.severity),
    createdAt: isoZ(a.createdAt),
    updatedAt: isoZ(a.updatedAt),
    _links: {
      self: link(`${ctx.base}/alerts/${a.id}`),
      vehicle: link(`${ctx.base}/vehicles/${a.vehicleId}`),
      ...(a.tripId ? { trip: link(`${ctx.base}/trips/${a.tripId}`) } : {}),
    },
    _embedded: { position: position(`${a.id}-pos`, a.position, a.createdAt, 0) },
  };
}

export function renderCollision(ctx: RenderCtx, c: SimCollision): Json {
  return {
    id: c.id,
    rollOver: c.rollOver,
    front: { level: enumValue(ctx, c.front) },
    rear: { level: enumValue(ctx, c.rear) },
    lateral: { level: enumValue(ctx, c.lateral) },
    pedestrian: c.pedestrian,
    createdAt: isoZ(c.createdAt),
    updatedAt: isoZ(c.updatedAt),
    _links: {
      self: link(`${ctx.base}/collisions/${c.id}`),
      vehicle: link(`${ctx.base}/vehicles/${c.vehicleId}`),
      ...(c.tripId ? { trip: link(`${ctx.base}/trips/${c.tripId}`) } : {}),
    },
    _embedded: { position: position(`${c.id}-pos`, c.position, c.createdAt, 0) },
  };
}

export function renderMaintenance(ctx: RenderCtx, v: SimVehicle, m: SimMaintenance): Json {
  return {
    vin: v.vin,
    days: m.days,
    mileage: m.mileage,
    createdAt: isoZ(m.createdAt),
    updatedAt: isoZ(m.updatedAt),
    _links: {
      self: link(`${ctx.base}/vehicles/${v.id}/maintenance`),
      vehicle: link(`${ctx.base}/vehicles/${v.id}`),
    },
    _embedded: {},
  };
}

export function renderTrip(ctx: RenderCtx, t: SimTrip): Json {
  const self = `${ctx.base}/trips/${t.id}`;
  const end = t.waypoints.at(-1);
  // Trips declare duration in integer seconds and distance in integer km; the samples show a numeric string and a decimal.
  const duration = ctx.flags.numbersAsStrings ? String(t.durationS) : t.durationS;
  const distance = ctx.flags.numbersAsStrings ? t.distanceKm : Math.round(t.distanceKm);
  return {
    id: t.id,
    reference: t.reference,
    startedAt: isoZ(t.startedAt),
    stoppedAt: isoZ(t.stoppedAt),
    duration,
    distance,
    fuelConsumption: t.fuelConsumptionL,
    refueling: t.refueling,
    avgConsumption: t.avgConsumptionL100,
    avgSpeed: t.avgSpeedKmh,
    co2EmissionEstimated: t.co2Kg,
    createdAt: isoZ(t.createdAt),
    updatedAt: isoZ(t.updatedAt),
    _links: {
      self: link(self),
      vehicle: link(`${ctx.base}/vehicles/${t.vehicleId}`),
      ecodriving: link(`${self}/ecodriving`),
      // The API's link shape for a trip's path: `/trips/{id}/waypoints/`.
      path: link(`${self}/waypoints/`),
      alerts: link(`${self}/alerts`),
      collisions: link(`${self}/collisions`),
    },
    _embedded: {
      startPosition: position(`${t.id}-start`, t.startPosition, t.startedAt, t.waypoints[0]?.heading ?? 0),
      stopPosition: position(`${t.id}-stop`, t.stopPosition, t.stoppedAt, end?.heading ?? 0),
    },
  };
}

/** Id of the eco-driving evaluation of a trip (the trip id with another prefix). */
export function ecoId(tripId: string): string {
  return `d${tripId.slice(1)}`;
}

export function renderEcoDriving(ctx: RenderCtx, t: SimTrip): Json {
  return {
    id: ecoId(t.id),
    global: t.ecodriving.global,
    detailed: t.ecodriving.detailed,
    createdAt: isoZ(t.createdAt),
    updatedAt: isoZ(t.updatedAt),
    _links: {
      self: link(`${ctx.base}/ecodrivings/${ecoId(t.id)}`),
      vehicle: link(`${ctx.base}/vehicles/${t.vehicleId}`),
      trip: link(`${ctx.base}/trips/${t.id}`),
    },
  };
}

/** Waypoint (the API does not show its fields): a GeoJSON Feature with speed and sequence number. */
export function renderWaypoint(ctx: RenderCtx, t: SimTrip, w: SimWaypoint, index: number): Json {
  return {
    ...position(`${t.id}-w${index}`, w.position, w.at, w.heading, { speed: w.speedKmh, sequence: index }),
    _links: { trip: link(`${ctx.base}/trips/${t.id}`) },
  };
}

const EVENT_KEY: Readonly<Record<SimEvent['type'], string>> = {
  TRIP: 'trip',
  ALERT: 'alert',
  COLLISION: 'collision',
  REFUEL: 'refuel',
  FUEL_STOLEN: 'fuelStolen',
};

/** An event embeds the underlying record under `_embedded.<trip|alert|collision|refuel|fuelStolen>`. */
export function renderEvent(ctx: RenderCtx, e: SimEvent): Json | undefined {
  let record: Json | undefined;
  let href: string;
  if (e.type === 'TRIP') {
    const t = ctx.world.trips(e.vehicleId).find((x) => x.id === e.recordId);
    record = t ? renderTrip(ctx, t) : undefined;
    href = `${ctx.base}/trips/${e.recordId}`;
  } else if (e.type === 'ALERT') {
    const a = ctx.world.alerts(e.vehicleId).find((x) => x.id === e.recordId);
    record = a ? renderAlert(ctx, a) : undefined;
    href = `${ctx.base}/alerts/${e.recordId}`;
  } else if (e.type === 'COLLISION') {
    const c = ctx.world.collisions(e.vehicleId).find((x) => x.id === e.recordId);
    record = c ? renderCollision(ctx, c) : undefined;
    href = `${ctx.base}/collisions/${e.recordId}`;
  } else {
    href = `${ctx.base}/vehicles/${e.vehicleId}/events/${e.id}`;
    record = {
      id: e.recordId,
      liters: e.liters ?? 0,
      createdAt: isoZ(e.createdAt),
      updatedAt: isoZ(e.updatedAt),
      ...(e.position
        ? { _embedded: { position: position(`${e.recordId}-pos`, e.position, e.createdAt, 0) } }
        : {}),
    };
  }
  if (!record) return undefined;
  return {
    id: e.id,
    type: e.type,
    eventId: e.recordId,
    createdAt: isoZ(e.createdAt),
    updatedAt: isoZ(e.updatedAt),
    _links: { self: link(href), vehicle: link(`${ctx.base}/vehicles/${e.vehicleId}`) },
    _embedded: { [EVENT_KEY[e.type]]: record },
  };
}
