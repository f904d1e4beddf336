import * as z from 'zod';
import type { EventDefinition } from './common';
import type { TypedEnvelope } from './envelope';
import { type EventEnvelope, envelopeSchema } from './envelope';
import { carhookFreshnessAtRisk } from './types/carhook.freshness.at_risk';
import { carhookFreshnessRestored } from './types/carhook.freshness.restored';
import { carhookQuotaChanged } from './types/carhook.quota.changed';
import { enrollmentReauthorizationRequired } from './types/enrollment.reauthorization_required';
import { enrollmentVehicleAdded } from './types/enrollment.vehicle.added';
import { enrollmentVehicleRemoved } from './types/enrollment.vehicle.removed';
import { vehicleAlertFixed } from './types/vehicle.alert.fixed';
import { vehicleAlertRaised } from './types/vehicle.alert.raised';
import { vehicleCollisionDetected } from './types/vehicle.collision.detected';
import { vehicleFuelTheftDetected } from './types/vehicle.fuel_theft.detected';
import { vehicleMaintenanceDue } from './types/vehicle.maintenance.due';
import { vehicleMaintenanceOverdue } from './types/vehicle.maintenance.overdue';
import { vehicleMaintenanceReset } from './types/vehicle.maintenance.reset';
import { vehicleMapUpdateAvailable } from './types/vehicle.map_update.available';
import { vehicleRefuelDetected } from './types/vehicle.refuel.detected';
import { vehicleReportingResumed } from './types/vehicle.reporting.resumed';
import { vehicleReportingStopped } from './types/vehicle.reporting.stopped';
import { vehicleServicesChanged } from './types/vehicle.services.changed';
import { vehicleTripCompleted } from './types/vehicle.trip.completed';
import { webhookDeliveryExhausted } from './types/webhook.delivery.exhausted';
import { webhookEndpointDisabled } from './types/webhook.endpoint.disabled';
import { webhookTest } from './types/webhook-test';

/** Every event type Carhook publishes, each defined once in `types/<type>.ts`. */
export const definitions = [
  vehicleAlertRaised,
  vehicleAlertFixed,
  vehicleCollisionDetected,
  vehicleMaintenanceDue,
  vehicleMaintenanceOverdue,
  vehicleMaintenanceReset,
  vehicleTripCompleted,
  vehicleRefuelDetected,
  vehicleFuelTheftDetected,
  vehicleMapUpdateAvailable,
  vehicleServicesChanged,
  vehicleReportingStopped,
  vehicleReportingResumed,
  enrollmentVehicleAdded,
  enrollmentVehicleRemoved,
  enrollmentReauthorizationRequired,
  webhookEndpointDisabled,
  webhookDeliveryExhausted,
  webhookTest,
  carhookQuotaChanged,
  carhookFreshnessAtRisk,
  carhookFreshnessRestored,
] as const;

type Definitions = (typeof definitions)[number];
export type EventType = Definitions['type'];
type DefinitionOf<T extends EventType> = Extract<Definitions, { type: T }>;
/** The `data` of one event type, inferred from its zod schema. */
export type EventData<T extends EventType> = z.infer<DefinitionOf<T>['data']>;
/** A full envelope of one event type. */
export type EventOf<T extends EventType> = TypedEnvelope<T, EventData<T>>;
/** Any catalogued event, discriminated by `type`. */
export type CarhookEvent = { [T in EventType]: EventOf<T> }[EventType];

export const EVENT_TYPES: readonly EventType[] = definitions.map((d) => d.type);

const byType = new Map<string, Definitions>(definitions.map((d) => [d.type, d]));

export const isEventType = (type: string): type is EventType => byType.has(type);

export function eventDefinition<T extends EventType>(type: T): DefinitionOf<T>;
export function eventDefinition(type: string): EventDefinition | undefined;
export function eventDefinition(type: string): EventDefinition | undefined {
  return byType.get(type);
}

/** The full envelope schema of one type: the common envelope, `type` fixed, `data` typed. */
export const envelopeSchemaFor = <T extends EventType>(type: T) => {
  const def = eventDefinition(type);
  return envelopeSchema.extend({
    type: z.literal(def.type),
    schemaVersion: z.literal(def.version),
    data: def.data,
  });
};

/** What a producer supplies; `type`, `schemaVersion` come from the catalogue. */
export type EventInput<T extends EventType> = Omit<EventEnvelope, 'type' | 'schemaVersion' | 'data'> & {
  data: EventData<T>;
};

/**
 * Builds an envelope of a catalogued type, with `schemaVersion` from the catalogue. It does not
 * validate (the hot path builds many; `validateEvent` checks before an event leaves).
 */
export const buildEvent = <T extends EventType>(type: T, input: EventInput<T>): EventOf<T> => {
  const def = eventDefinition(type);
  const { data, ...rest } = input;
  return { ...rest, type, schemaVersion: def.version, data } as EventOf<T>;
};

/** Alias of `buildEvent`. */
export const makeEvent = buildEvent;
