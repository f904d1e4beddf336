/**
 * What the HTTP API shows of stored records (never a token ciphertext or a secret), the query
 * and path schemas its routes validate with, and the response shapes its OpenAPI document states.
 */
import * as z from 'zod';
import {
  type Enrollment,
  enrollmentStatuses,
  type StoredEvent,
  type VehicleRecord,
} from '../core/store/records';
import type { Enrollment as EnrollmentView, StoredEventView, Vehicle } from './contract';

export const MAX_ID_LENGTH = 256;
export const MAX_PAGE = 100;

/** What the API shows of an enrollment: never the token ciphertext. */
export function publicEnrollment(e: Enrollment): EnrollmentView {
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

export function publicVehicle(v: VehicleRecord): Vehicle {
  return {
    id: v.id,
    vin: v.vin,
    ...(v.brand !== undefined ? { brand: v.brand } : {}),
    ...(v.apiVehicleId !== undefined ? { apiVehicleId: v.apiVehicleId } : {}),
    paused: v.paused,
    ...(v.pauseReason !== undefined ? { pauseReason: v.pauseReason } : {}),
    ...(v.lastChangeAt !== undefined ? { lastChangeAt: v.lastChangeAt } : {}),
    createdAt: v.createdAt,
  };
}

export const publicEvent = (e: StoredEvent): StoredEventView => ({
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
  vin: z
    .string()
    .regex(/^[A-HJ-NPR-Z0-9]{17}$/i, 'must be a VIN: 17 letters and digits')
    .transform((v) => v.toUpperCase())
    .optional()
    .meta({
      description:
        'Only the events of this physical vehicle, whatever its enrollment: the range is read and filtered (a page holds the matches among the events read, fewer or more than `limit`; follow `cursor`).',
    }),
});

// ---- response schemas: the contract (functions/http/contract.ts) ----------------------------------

export {
  backlogSchema,
  enableResultSchema,
  enrollmentSchema,
  errorSchema,
  eventSchema,
  replayResultSchema,
  subscriptionSchema,
  vehicleSchema,
} from './contract';
