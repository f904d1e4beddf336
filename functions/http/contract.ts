/**
 * The management API's contract: the zod schema of every answer the routes give, each with the name
 * it has in the OpenAPI document (`components.schemas`), and the TypeScript types inferred from them.
 *
 * One source for three readers: the routes document their answers with these schemas
 * (functions/http/openapi.ts turns them into JSON Schema 2020-12), the console (console/src) and the
 * CLI (bin/cli) type what they read with the inferred types, so reading a field the API does not
 * return is a type error. This module therefore imports nothing that needs Node: the browser
 * console's typecheck reads it. The subscriptions' part is in contract-subscriptions.ts (re-exported
 * here), the registry and the shared small schemas in contract-base.ts.
 */
import * as z from 'zod';
import { enrollmentKinds, envelopeSchema } from '../core/events/envelope';
import { enrollmentStatuses } from '../core/store/records';
import { apiSchemas, count, iso, named } from './contract-base';
import { deliverySchema } from './contract-subscriptions';

export * from './contract-subscriptions';
export { apiSchemas, named };

// ---- errors and the service ------------------------------------------------------------------

export const errorSchema = named(
  'Error',
  z
    .object({
      error: z.object({
        code: z.string(),
        message: z.string(),
        field: z.string().optional(),
        issues: z.array(z.object({ field: z.string(), reason: z.string() })).optional(),
        existingEnrollmentId: z
          .string()
          .optional()
          .meta({ description: 'The enrollment that holds the VIN (409).' }),
        id: z.string().optional().meta({ description: 'The id that was not found (404).' }),
      }),
    })
    .meta({ description: 'Every error: a code, a message and the offending field when there is one.' }),
);

export const serviceHealthSchema = named(
  'ServiceHealth',
  z.object({
    status: z.enum(['ok', 'degraded', 'unavailable']),
    version: z.string(),
    checks: z.record(z.string(), z.string()),
  }),
);

export const openApiDocumentSchema = named(
  'OpenApiDocument',
  z.looseObject({ openapi: z.string() }).meta({ description: 'This OpenAPI 3.1 document.' }),
);

// ---- enrollments and vehicles -----------------------------------------------------------------

const brandNameSchema = z.string().optional().meta({
  description:
    "The brand's name (cielo, pavo): the spelling `/oauth/{brand}/authorize` and the fleet contract body take. `brand` is as stored: the v1 code (C, P) for a fleet contract and its vehicles, as events carry it.",
});

export const enrollmentSchema = named(
  'Enrollment',
  z
    .object({
      id: z.string(),
      kind: z.enum(enrollmentKinds),
      brand: z.string(),
      brandName: brandNameSchema,
      status: z.enum(enrollmentStatuses),
      vin: z.string().optional(),
      contract: z.string().optional(),
      userId: z.string().optional(),
      tokenExpiresAt: iso.optional(),
      createdAt: iso,
      updatedAt: iso,
    })
    .meta({ description: 'An enrollment: an authorized user or a fleet contract (never its token).' }),
);

export const vehicleSchema = named(
  'Vehicle',
  z
    .object({
      id: z.string(),
      vin: z.string(),
      brand: z.string().optional(),
      brandName: brandNameSchema,
      apiVehicleId: z.string().optional(),
      paused: z.boolean(),
      pauseReason: z.string().optional(),
      lastChangeAt: iso.optional().meta({ description: 'When a poll last found a change.' }),
      createdAt: iso,
    })
    .meta({ description: 'A vehicle Carhook polls, reached through an enrollment.' }),
);

export const enrollmentDetailSchema = named(
  'EnrollmentDetail',
  enrollmentSchema.extend({ vehicles: z.array(vehicleSchema) }),
);
export const enrollmentPageSchema = named(
  'EnrollmentPage',
  z.object({ enrollments: z.array(enrollmentSchema), cursor: z.string().optional() }),
);
export const fleetEnrolledSchema = named(
  'FleetEnrollment',
  z.object({ enrollmentId: z.string(), vehicleId: z.string() }),
);
export const unenrolledSchema = named(
  'Unenrolled',
  z.object({
    enrollmentId: z.string(),
    status: z.literal('unenrolled'),
    transitioned: z.boolean(),
    vehiclesPaused: count,
  }),
);
export const oauthEnrolledSchema = named(
  'OAuthEnrollment',
  z.object({
    enrollmentId: z.string(),
    created: z.boolean(),
    reactivated: z.boolean(),
    vehicles: z.array(vehicleSchema),
    warning: z.string().optional(),
  }),
);

// ---- events -----------------------------------------------------------------------------------

export const eventSchema = named(
  'Event',
  envelopeSchema
    .extend({ published: z.boolean(), publishedAt: iso.optional() })
    .meta({ description: 'An event of the log: its envelope as published, and whether it reached the bus.' }),
);
export const eventPageSchema = named(
  'EventPage',
  z.object({ events: z.array(eventSchema), cursor: z.string().optional() }),
);

export const eventCatalogueSchema = named(
  'EventCatalogue',
  z
    .object({
      types: z.array(
        z.object({
          type: z.string(),
          version: z.number().int(),
          description: z.string(),
          audience: z.enum(['all', 'opt-in']).meta({
            description:
              '`opt-in`: operational, sent only to subscriptions that name it (webhook.*, carhook.* or the type).',
          }),
          trigger: z.string().meta({ description: 'What makes Carhook publish it.' }),
          reads: z.string().meta({ description: 'The API reads that reveal it.' }),
          delay: z.string().meta({ description: 'Its worst-case delay under the default quota.' }),
          schema: z.record(z.string(), z.unknown()).meta({ description: 'The JSON Schema of its envelope.' }),
          sample: envelopeSchema
            .optional()
            .meta({ description: 'A payload a webhook received in the end-to-end test.' }),
        }),
      ),
    })
    .meta({ description: 'Every event type Carhook publishes.' }),
);

export const plannedReadSchema = named(
  'PlannedRead',
  z
    .object({
      kind: z.enum(['events', 'alerts', 'maintenance', 'services', 'map']),
      lastAt: iso.optional(),
      source: z.enum(['planner', 'record', 'unknown']).meta({
        description:
          '`planner`: its memory (no write per poll); `record`: the vehicle record; `unknown`: neither knows.',
      }),
      everyMs: z
        .number()
        .meta({ description: 'The longest the policy lets pass between two reads of this kind.' }),
      nextBy: iso
        .optional()
        .meta({ description: 'The next read at the latest; the planner books earlier when it can.' }),
      note: z.string(),
    })
    .meta({
      description: 'One kind of read of a vehicle: when it was last made and when it will be at the latest.',
    }),
);

export const vehicleDetailSchema = named(
  'VehicleDetail',
  z
    .object({
      vehicle: vehicleSchema.extend({ model: z.string().optional(), subModel: z.string().optional() }),
      enrollment: enrollmentSchema,
      connection: z
        .object({
          state: z.enum(['polled', 'paused', 'reauthorization_required', 'unenrolled']),
          tokenValid: z.boolean().optional().meta({
            description: 'An OAuth user’s access token is unexpired now (it is refreshed when needed).',
          }),
          tokenExpiresAt: iso.optional(),
          reauthorizationUrl: z
            .string()
            .optional()
            .meta({ description: 'Where the user authorizes again, when reauthorization is required.' }),
        })
        .meta({ description: 'Whether Carhook can poll it, and why not.' }),
      reads: z.array(plannedReadSchema),
      changeRate: z
        .object({
          eventsPerHour: z.number(),
          observedHours: z.number(),
          activeAlerts: count,
          fixesPerHour: z.number().optional(),
        })
        .optional()
        .meta({ description: 'The change rate the planner learned from its polls (absent before any).' }),
      quota: z.object({
        perHour: z.number(),
        readsPerHourAtLeast: z.number(),
        shareAtLeast: z
          .number()
          .meta({ description: 'The share of the quota its guarantees give it, 0 to 1.' }),
        guaranteeMs: z.number(),
      }),
      recentEvents: z
        .array(eventSchema)
        .meta({ description: 'Its events of the last 7 days, newest first (50 at most).' }),
    })
    .meta({
      description: 'One vehicle in full: enrollment, connection, planned reads, learned rate, events.',
    }),
);

// ---- metrics ----------------------------------------------------------------------------------

export const recentMetricsSchema = named(
  'RecentMetrics',
  z
    .object({
      quota: z.object({ limit: count, windowSeconds: count }),
      minutes: z.array(
        z.object({
          minute: iso.meta({ description: 'The start of the minute.' }),
          apiRequests: count,
          apiRateLimited: count,
          pollsCompleted: count,
          eventsPublished: count,
          deliveriesSucceeded: count,
          deliveriesFailed: count,
          historyFound: count.meta({
            description:
              'Events telling what was already there at enrollment: history, not counted in the lag.',
          }),
          lagMs: z
            .object({
              count,
              p50: z.number().optional(),
              p95: z.number().optional(),
              max: z.number().optional(),
            })
            .meta({
              description: 'Detection lag (occurredAt → detectedAt) of the changes detected in that minute.',
            }),
        }),
      ),
    })
    .meta({ description: "The last hour's requests against the quota and detection lag, minute by minute." }),
);

export const eventWithDeliveriesSchema = named(
  'EventWithDeliveries',
  z.object({
    event: eventSchema,
    deliveries: z.array(
      z.object({
        subscriptionId: z.string(),
        url: z.string(),
        delivery: deliverySchema.omit({ envelope: true }),
      }),
    ),
  }),
);

// ---- the types the console and the CLI read -----------------------------------------------------

export type ApiError = z.output<typeof errorSchema>;
export type Enrollment = z.output<typeof enrollmentSchema>;
export type EnrollmentDetail = z.output<typeof enrollmentDetailSchema>;
export type EnrollmentPage = z.output<typeof enrollmentPageSchema>;
export type Vehicle = z.output<typeof vehicleSchema>;
export type VehicleDetail = z.output<typeof vehicleDetailSchema>;
export type FleetEnrolled = z.output<typeof fleetEnrolledSchema>;
export type Unenrolled = z.output<typeof unenrolledSchema>;
export type StoredEventView = z.output<typeof eventSchema>;
export type EventPage = z.output<typeof eventPageSchema>;
export type EventCatalogue = z.output<typeof eventCatalogueSchema>;
export type RecentMetricsView = z.output<typeof recentMetricsSchema>;
export type EventWithDeliveries = z.output<typeof eventWithDeliveriesSchema>;
