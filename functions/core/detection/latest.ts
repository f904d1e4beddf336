/**
 * The latest known state of a vehicle, kept so it can be answered without a request to the API
 * (`GET /vehicles/{id}/state`): the last trip, the last collision, the last position and the last
 * fuel level told, each with the time Carhook read it. It is folded from the events a poll emits,
 * so it changes only in a write the poll makes anyway (a poll that emits nothing writes nothing);
 * the active alerts and the maintenance countdown are in the state already.
 *
 * What was history at a vehicle's first poll (baseline, no event) is not in it: it starts with the
 * first change told after enrollment.
 */
import type { CarhookEvent } from '../events/catalogue';
import type { Latest } from './latest-record';
import type { AlertEntry, VehicleState } from './state';

export { type Latest, latestSchema } from './latest-record';

type Position = { lat: number; lon: number; alt?: number; heading?: number; collectedAt?: string };

const positionOf = (e: CarhookEvent): Position | undefined => {
  switch (e.type) {
    case 'vehicle.trip.completed':
      return e.data.stopPosition;
    case 'vehicle.collision.detected':
    case 'vehicle.refuel.detected':
    case 'vehicle.fuel_theft.detected':
      return e.data.position;
    default:
      return undefined;
  }
};

/** Later is the record's own time when both have one, else the order of reading. */
const notOlder = (candidate: string | undefined, kept: string | undefined): boolean =>
  candidate === undefined || kept === undefined || candidate >= kept;

/** The snapshot after `events` (in the order emitted); the same object when none of them moves it. */
export function foldLatest(latest: Latest | undefined, events: readonly CarhookEvent[]): Latest | undefined {
  let next = latest;
  const set = <K extends keyof Latest>(key: K, value: Latest[K]): void => {
    next = { ...next, [key]: value };
  };
  for (const e of events) {
    const record = { eventId: e.id, occurredAt: e.occurredAt, readAt: e.detectedAt, data: e.data };
    if (e.type === 'vehicle.trip.completed' && notOlder(e.occurredAt, next?.trip?.occurredAt)) {
      set('trip', record);
    }
    if (e.type === 'vehicle.collision.detected' && notOlder(e.occurredAt, next?.collision?.occurredAt)) {
      set('collision', record);
    }
    const p = positionOf(e);
    const at = p?.collectedAt ?? e.occurredAt;
    if (p && notOlder(at, next?.position?.at)) {
      set('position', {
        lat: p.lat,
        lon: p.lon,
        ...(p.alt !== undefined ? { alt: p.alt } : {}),
        ...(p.heading !== undefined ? { heading: p.heading } : {}),
        at,
        readAt: e.detectedAt,
        from: e.type,
      });
    }
    if (
      (e.type === 'vehicle.refuel.detected' || e.type === 'vehicle.fuel_theft.detected') &&
      e.data.fuelLevel !== undefined &&
      notOlder(e.data.at ?? e.occurredAt, next?.fuel?.at)
    ) {
      set('fuel', {
        level: e.data.fuelLevel,
        at: e.data.at ?? e.occurredAt,
        readAt: e.detectedAt,
        from: e.type,
      });
    }
  }
  return next;
}

/** The latest known state as the HTTP API and the CLI show it. */
export interface LatestView {
  /** The last `sequence` given to this vehicle's events: every event up to it is reflected here. */
  readonly sequence: number;
  readonly activeAlerts: readonly {
    readonly key: string;
    readonly message: string;
    readonly severity?: string;
    readonly category?: string;
    readonly startedAt?: string;
    /** When Carhook last read it changed (the read that raised it, or changed it since). */
    readonly readAt: string;
  }[];
  readonly maintenance?: {
    readonly days: number;
    readonly mileageKm: number;
    readonly updatedAt?: string;
    readonly readAt: string;
  };
  readonly lastTrip?: Latest['trip'];
  readonly lastCollision?: Latest['collision'];
  readonly position?: Latest['position'];
  readonly fuel?: Latest['fuel'];
  /** Newest trip end, event or alert start seen. */
  readonly lastActivityAt?: string;
  /** The last read of any source that Carhook recorded (a steady poll records none: a lower bound). */
  readonly lastReadAt?: string;
}

const alertView = ([key, a]: [string, AlertEntry]) => ({
  key,
  message: a.message,
  ...(a.severity !== undefined ? { severity: a.severity } : {}),
  ...(a.category !== undefined ? { category: a.category } : {}),
  ...(a.startedAt !== undefined ? { startedAt: a.startedAt } : {}),
  readAt: a.seenAt,
});

/** What is known of a vehicle from its stored state alone. */
export function latestView(state: VehicleState): LatestView {
  const reads = Object.values(state.cursors.fetched).sort();
  const lastRead = reads[reads.length - 1];
  const l = state.latest;
  return {
    sequence: state.sequence,
    activeAlerts: Object.entries(state.alerts)
      .filter(([, a]) => a.active)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(alertView),
    ...(state.maintenance
      ? {
          maintenance: {
            days: state.maintenance.days,
            mileageKm: state.maintenance.mileageKm,
            ...(state.maintenance.updatedAt !== undefined ? { updatedAt: state.maintenance.updatedAt } : {}),
            readAt: state.maintenance.seenAt,
          },
        }
      : {}),
    ...(l?.trip ? { lastTrip: l.trip } : {}),
    ...(l?.collision ? { lastCollision: l.collision } : {}),
    ...(l?.position ? { position: l.position } : {}),
    ...(l?.fuel ? { fuel: l.fuel } : {}),
    ...(state.lastActivityAt !== undefined ? { lastActivityAt: state.lastActivityAt } : {}),
    ...(lastRead !== undefined ? { lastReadAt: lastRead } : {}),
  };
}
