/**
 * What the HTTP API shows of stored records (never a token ciphertext or a secret), the query
 * and path schemas its routes validate with, and the response shapes its OpenAPI document states.
 */
import * as z from 'zod';
import { envelopeSchema } from '../core/events/envelope';
import {
  type Enrollment,
  enrollmentStatuses,
  type StoredEvent,
  type VehicleRecord,
} from '../core/store/records';

export const MAX_ID_LENGTH = 256;
export const MAX_PAGE = 100;

/** What the API shows of an enrollment: never the token ciphertext. */
export function publicEnrollment(e: Enrollment): Record<string, unknown> {
  if (e.kind === 'fleet-contract') {
    const { id, kind, brand, status, vin, contract, createdAt, updatedAt } = e;
    return { id, kind, brand, status, vin, contract, createdAt, updatedAt };
  }
  const { id, kind, brand, status, userId, tokenExpiresAt, createdAt, updatedAt } = e;
  return {
    id,
    kind,
    brand,
    status,
    ...(userId !== undefined ? { userId } : {}),
    ...(tokenExpiresAt !== undefined ? { tokenExpiresAt } : {}),
    createdAt,
    updatedAt,
  };
}

export function publicVehicle(v: VehicleRecord): Record<string, unknown> {
  return {
    id: v.id,
    vin: v.vin,
    ...(v.brand !== undefined ? { brand: v.brand } : {}),
    ...(v.apiVehicleId !== undefined ? { apiVehicleId: v.apiVehicleId } : {}),
    paused: v.paused,
    ...(v.pauseReason !== undefined ? { pauseReason: v.pauseReason } : {}),
    ...(v.lastPolledAt !== undefined ? { lastPolledAt: v.lastPolledAt } : {}),
    ...(v.lastChangeAt !== undefined ? { lastChangeAt: v.lastChangeAt } : {}),
    createdAt: v.createdAt,
  };
}

export const publicEvent = (e: StoredEvent): Record<string, unknown> => ({
  ...e.envelope,
  published: e.published,
  ...(e.publishedAt ? { publishedAt: e.publishedAt } : {}),
});

// ---- request schemas -------------------------------------------------------------------------------

const hasControlCharacter = (s: string): boolean => [...s].some((ch) => (ch.codePointAt(0) ?? 0) < 0x20);

/** An id in a path or a query: 1-256 printable characters. */
export const idSchema = z
  .string()
  .refine((s) => s.length > 0 && s.length <= MAX_ID_LENGTH && !hasControlCharacter(s), {
    message: `must be 1-${MAX_ID_LENGTH} printable characters`,
  })
  .meta({ minLength: 1, maxLength: MAX_ID_LENGTH });

export const idParams = z.object({ id: idSchema });

/** `limit`: 1-100, `fallback` when absent. */
export const limitSchema = (fallback: number) =>
  z
    .string()
    .refine((s) => /^\d{1,4}$/.test(s) && Number(s) >= 1 && Number(s) <= MAX_PAGE, {
      message: `must be an integer from 1 to ${MAX_PAGE}`,
    })
    .transform(Number)
    .optional()
    .transform((n) => n ?? fallback)
    .meta({ description: `Page size, 1-${MAX_PAGE} (default ${fallback}).`, pattern: '^[0-9]{1,4}$' });

export const cursorSchema = z
  .string()
  .optional()
  .meta({ description: 'The `cursor` of the previous page, unchanged; omit it for the first page.' });

const INSTANT = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/;

/** An ISO 8601 date or date-time, normalised to UTC `...Z`. */
export const instantSchema = z
  .string()
  .refine((s) => INSTANT.test(s) && Number.isFinite(Date.parse(s)), {
    message: 'must be an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z',
  })
  .transform((s) => new Date(Date.parse(s)).toISOString());

const TYPE = /^[a-z0-9_.]{1,100}$/;

export const enrollmentListQuery = z.object({
  limit: limitSchema(50),
  cursor: cursorSchema,
  status: z
    .enum(enrollmentStatuses, { message: `must be one of ${enrollmentStatuses.join(', ')}` })
    .optional()
    .meta({ description: 'Only enrollments in this state.' }),
});

export const eventListQuery = z.object({
  limit: limitSchema(100),
  cursor: cursorSchema,
  since: instantSchema.optional().meta({ description: 'From this instant, inclusive (default: a day ago).' }),
  until: instantSchema.optional().meta({ description: 'Up to this instant, exclusive (default: now).' }),
  type: z
    .array(z.string())
    .optional()
    .transform((values) => (values ?? []).flatMap((t) => t.split(',')).filter((t) => t !== ''))
    .refine((types) => types.every((t) => TYPE.test(t)), {
      message: 'event types look like vehicle.alert.raised',
    })
    .meta({ description: 'Event types, repeated or comma-separated (`vehicle.alert.raised`).' }),
  vehicleId: idSchema.optional().meta({ description: "Only this vehicle's events." }),
});

// ---- response schemas (documentation of what the handlers return) ---------------------------------

const iso = z.string().meta({ format: 'date-time' });

export const enrollmentSchema = z
  .object({
    id: z.string(),
    kind: z.enum(['oauth-user', 'fleet-contract']),
    brand: z.string(),
    status: z.enum(enrollmentStatuses),
    vin: z.string().optional(),
    contract: z.string().optional(),
    userId: z.string().optional(),
    tokenExpiresAt: iso.optional(),
    createdAt: iso,
    updatedAt: iso,
  })
  .meta({ description: 'An enrollment (never its token).' });

export const vehicleSchema = z
  .object({
    id: z.string(),
    vin: z.string(),
    brand: z.string().optional(),
    apiVehicleId: z.string().optional(),
    paused: z.boolean(),
    pauseReason: z.string().optional(),
    lastPolledAt: iso.optional(),
    lastChangeAt: iso.optional(),
    createdAt: iso,
  })
  .meta({ description: 'A vehicle Carhook polls.' });

export const eventSchema = envelopeSchema
  .extend({ published: z.boolean(), publishedAt: iso.optional() })
  .loose()
  .meta({ description: 'The event envelope as published, and whether it reached the bus.' });

export const subscriptionSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    eventTypes: z.array(z.string()).optional(),
    vehicleIds: z.array(z.string()).optional(),
    enrollmentIds: z.array(z.string()).optional(),
    description: z.string().optional(),
    status: z.string(),
    disabledReason: z.string().optional(),
    disabledAt: iso.optional(),
    health: z.looseObject({}),
    createdAt: iso,
    updatedAt: iso,
  })
  .meta({ description: 'A webhook subscription (never its secret).' });

export const page = <T extends z.ZodType>(key: string, item: T) =>
  z.object({ [key]: z.array(item), cursor: z.string().optional() });

const readRecord = z.object({
  eventId: z.string(),
  occurredAt: iso,
  readAt: iso,
  data: z.looseObject({}).meta({ description: 'the `data` of the event that told it' }),
});

/** `GET /vehicles/{id}/state`: what Carhook stores of a vehicle, without a request to the API. */
export const vehicleStateSchema = z
  .object({
    vehicle: vehicleSchema,
    polled: z.boolean().meta({ description: 'false until the first poll: nothing known yet' }),
    sequence: z.number().int().nonnegative().meta({
      description: "the last sequence of this vehicle's events: every event up to it is reflected here",
    }),
    activeAlerts: z.array(
      z.object({
        key: z.string(),
        message: z.string(),
        severity: z.string().optional(),
        category: z.string().optional(),
        startedAt: iso.optional(),
        readAt: iso,
      }),
    ),
    maintenance: z
      .object({ days: z.number(), mileageKm: z.number(), updatedAt: iso.optional(), readAt: iso })
      .optional(),
    lastTrip: readRecord.optional(),
    lastCollision: readRecord.optional(),
    position: z
      .object({
        lat: z.number(),
        lon: z.number(),
        alt: z.number().optional(),
        heading: z.number().optional(),
        at: iso.optional(),
        readAt: iso,
        from: z.string(),
      })
      .optional(),
    fuel: z.object({ level: z.number(), at: iso.optional(), readAt: iso, from: z.string() }).optional(),
    lastActivityAt: iso.optional(),
    lastReadAt: iso.optional(),
  })
  .meta({ description: 'The latest known state of a vehicle, each part with the time it was read.' });
