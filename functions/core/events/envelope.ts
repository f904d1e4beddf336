import * as z from 'zod';
import { isoDate } from './common';

/**
 * The one envelope every Carhook event has (DESIGN.md "Events"). EventBridge: Source = `carhook`
 * (configurable), DetailType = `type`, Detail = the envelope. Webhooks: Standard Webhooks body
 * `{type, timestamp, data}` with `data` = the envelope and header `webhook-id` = `id`.
 *
 * `data` is typed per event type in the catalogue (functions/core/events/catalogue.ts).
 */
export const enrollmentKinds = ['oauth-user', 'fleet-contract'] as const;
export const sourceApis = ['v2', 'v1', 'map', 'services', 'carhook'] as const;

export const envelopeSchema = z.object({
  /** Deterministic: same change ⇒ same id, on every retry and every re-poll. */
  id: z.string().min(1).describe('deterministic: the same change has the same id on every retry and re-poll'),
  type: z.string().min(1),
  schemaVersion: z.number().int().positive(),
  /** When it happened, from the API record (ISO 8601 UTC). */
  occurredAt: isoDate.describe('when it happened, from the API record'),
  /** When Carhook saw it (ISO 8601 UTC). */
  detectedAt: isoDate.describe('when Carhook saw it'),
  /**
   * One counter per physical vehicle (its VIN), shared by all its events (`vehicle.*` and
   * `enrollment.vehicle.*`) whatever the enrollment or API that revealed them: strictly increasing,
   * no gaps, so it orders a vehicle's events and a missing number is a missed event. Events not
   * about a vehicle carry 0.
   */
  sequence: z
    .number()
    .int()
    .nonnegative()
    .describe(
      'per-vehicle increasing number (one counter per VIN across all vehicle.* and enrollment.vehicle.* events, no gaps): orders the vehicle events and reveals a missing one; 0 for events not about a vehicle',
    ),
  vehicle: z
    .object({
      id: z.string(),
      vin: z.string().optional(),
      brand: z.string().optional(),
      model: z.string().optional().describe('model as the API names it, when it says'),
      subModel: z.string().optional().describe('sub-model (trim) as the API names it, when it says'),
    })
    .optional(),
  enrollment: z.object({ id: z.string(), kind: z.enum(enrollmentKinds) }).optional(),
  enrollments: z
    .array(z.object({ id: z.string(), kind: z.enum(enrollmentKinds) }))
    .optional()
    .describe(
      'every active enrollment of this vehicle, when it has more than one (an OAuth user and a fleet contract for the same VIN): one stream, all the enrollment ids',
    ),
  source: z.object({
    api: z.enum(sourceApis),
    operation: z.string().optional(),
    recordId: z.string().optional(),
  }),
  data: z.record(z.string(), z.unknown()),
  sample: z
    .literal(true)
    .optional()
    .describe(
      'true on a sample an operator sent on request (`POST /subscriptions/{id}/sample`): not a real change, never counted in sequence (0)',
    ),
});

export type EventEnvelope = z.infer<typeof envelopeSchema>;

/** The envelope with `type` and `data` narrowed to one definition. */
export type TypedEnvelope<T extends string, D> = Omit<EventEnvelope, 'type' | 'data'> & { type: T; data: D };
