/**
 * The management API's contract: the zod schema of every answer the routes give, each with the name
 * it has in the OpenAPI document (`components.schemas`), and the TypeScript types inferred from them.
 *
 * One source for three readers: the routes document their answers with these schemas
 * (functions/http/openapi.ts turns them into JSON Schema 2020-12), the console (console/src) and the
 * CLI (bin/cli) type what they read with the inferred types, so reading a field the API does not
 * return is a type error. This module therefore imports nothing that needs Node: the browser
 * console's typecheck reads it.
 */
import * as z from 'zod';
import { enrollmentKinds, envelopeSchema } from '../core/events/envelope';
import { enrollmentStatuses } from '../core/store/records';
import { deliveryStatuses } from '../core/subscriptions/records';
import type { SubscriptionSchemas } from '../core/subscriptions/schemas';
import { ATTEMPT_OUTCOMES, ERROR_CLASSES } from '../core/webhooks/outcome';

/** Every named schema of the document, by its name in `components.schemas`. */
export const apiSchemas = z.registry<{ id: string }>();

/** Registers `schema` under `id` (its name in the document) and returns it. */
export function named<S extends z.ZodType>(id: string, schema: S): S {
  apiSchemas.add(schema, { id });
  return schema;
}

const iso = z.string().meta({ format: 'date-time' });
const count = z.number().int().nonnegative();

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

export const enrollmentSchema = named(
  'Enrollment',
  z
    .object({
      id: z.string(),
      kind: z.enum(enrollmentKinds),
      brand: z.string(),
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

// ---- subscriptions ----------------------------------------------------------------------------

export const attemptFailureSchema = named(
  'AttemptFailure',
  z
    .object({
      at: iso,
      outcome: z.enum(ATTEMPT_OUTCOMES),
      statusCode: z.number().int().optional(),
      error: z.string().optional(),
    })
    .meta({ description: 'A failed attempt: when, how it ended, and the HTTP status or the error.' }),
);

export const subscriptionHealthSchema = named(
  'SubscriptionHealth',
  z
    .object({
      state: z.enum(['new', 'healthy', 'failing', 'disabled']).meta({
        description:
          '`new`: no attempt yet; `failing`: the last attempt failed; `disabled`: nothing is delivered.',
      }),
      consecutiveFailures: count.meta({ description: 'Failed attempts since the last success.' }),
      failingSince: iso.optional().meta({ description: 'The first failure of the current streak.' }),
      lastSuccessAt: iso.optional(),
      lastFailure: attemptFailureSchema.optional(),
      last24h: z.object({
        since: iso.meta({
          description: '24 h ago, or the oldest attempt read when there were more than 1,000.',
        }),
        attempts: count,
        succeeded: count,
        failed: count,
        successRate: z
          .number()
          .nullable()
          .meta({ description: 'succeeded / attempts, from 0 to 1; null without attempts.' }),
        complete: z.boolean(),
      }),
      retrying: z
        .object({ deliveries: count, nextAttemptAt: iso.optional() })
        .meta({ description: 'Deliveries waiting for a retry, and when the next is due.' }),
      disablesAt: iso.optional().meta({
        description: 'While failing: from this instant, the next failed attempt disables the subscription.',
      }),
    })
    .meta({ description: "The endpoint's health, read when the subscription is." }),
);

export const subscriptionSchema = named(
  'Subscription',
  z
    .object({
      id: z.string(),
      url: z.string(),
      eventTypes: z.array(z.string()).optional(),
      vehicleIds: z.array(z.string()).optional(),
      enrollmentIds: z.array(z.string()).optional(),
      description: z.string().optional(),
      status: z.enum(['active', 'disabled']),
      disabledReason: z.string().optional(),
      disabledAt: iso.optional(),
      health: subscriptionHealthSchema,
      createdAt: iso,
      updatedAt: iso,
    })
    .meta({ description: 'A webhook subscription (never its secret).' }),
);
export const subscriptionCreatedSchema = named(
  'SubscriptionCreated',
  subscriptionSchema.extend({
    secret: z.string().meta({ description: 'The signing secret (whsec_…), shown this once.' }),
  }),
);
export const subscriptionPageSchema = named(
  'SubscriptionPage',
  z.object({ items: z.array(subscriptionSchema), cursor: z.string().optional() }),
);
export const secretRotatedSchema = named(
  'SecretRotated',
  z.object({
    id: z.string(),
    secret: z.string().meta({ description: 'The new signing secret, shown this once.' }),
    previousSecretExpiresAt: iso,
  }),
);

export const errorClassValues = ERROR_CLASSES;

export const attemptSchema = named(
  'Attempt',
  z
    .object({
      subscriptionId: z.string(),
      deliveryId: z.string(),
      eventId: z.string(),
      eventType: z.string(),
      attemptNumber: z.number().int().positive().meta({
        description: '1-based; a gap means an attempt abandoned by a worker that died mid-attempt.',
      }),
      startedAt: iso,
      durationMs: z.number(),
      outcome: z.enum(ATTEMPT_OUTCOMES),
      statusCode: z.number().int().optional(),
      error: z.string().optional(),
      errorClass: z.enum(ERROR_CLASSES).optional().meta({
        description:
          'Why it failed: http (an answer, not 2xx), redirect, timeout, dns, refused, reset, tls, ssrf (an address webhooks may not reach), invalid, other.',
      }),
      requestHeaders: z
        .record(z.string(), z.string())
        .optional()
        .meta({ description: 'The headers sent: the signature is there, the secret never is.' }),
      responseHeaders: z.record(z.string(), z.string()).optional(),
      responseExcerpt: z.string().optional().meta({ description: 'The first 4 KB of the response body.' }),
      responseTruncated: z.boolean().optional(),
      retryAfterMs: z.number().optional(),
      decision: z.enum(['done', 'retry', 'dead-letter', 'disabled']),
      nextAttemptAt: iso.optional(),
    })
    .meta({ description: 'One attempt of one delivery: a line of the attempt log.' }),
);
export const attemptPageSchema = named(
  'AttemptPage',
  z.object({ items: z.array(attemptSchema), cursor: z.string().optional() }),
);

export const deliverySchema = named(
  'Delivery',
  z
    .object({
      id: z.string(),
      subscriptionId: z.string(),
      eventId: z.string(),
      eventType: z.string(),
      envelope: envelopeSchema,
      origin: z.enum(['event', 'recovery', 'replay', 'test']),
      status: z.enum(deliveryStatuses),
      attempts: count,
      nextAttemptAt: iso,
      createdAt: iso,
      updatedAt: iso,
      firstAttemptAt: iso.optional(),
      lastAttemptAt: iso.optional(),
      lastStatusCode: z.number().int().optional(),
      lastError: z.string().optional(),
    })
    .meta({ description: 'One event to one subscription, with its retry state.' }),
);
export const deliveryPageSchema = named(
  'DeliveryPage',
  z.object({ items: z.array(deliverySchema), cursor: z.string().optional() }),
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

export const recoverResultSchema = named(
  'RecoverResult',
  z
    .object({
      recoverId: z.string(),
      deliveries: count.meta({ description: 'New deliveries queued, one per dead-lettered event.' }),
      eventIds: z.array(z.string()),
    })
    .meta({ description: 'The dead letters delivered again.' }),
);

export const testDeliverySchema = named(
  'TestDelivery',
  z.object({ deliveryId: z.string(), eventId: z.string(), attempt: attemptSchema }),
);

const backlogWindowSchema = named(
  'BacklogWindow',
  z
    .object({
      disabledAt: iso,
      until: iso,
      keptSince: iso.meta({
        description: 'The event log keeps events detected from here on (now − retention).',
      }),
      retentionDays: z.number(),
      truncated: z.boolean().meta({
        description: 'Disabled before keptSince: the events detected before it cannot be recovered.',
      }),
      from: iso.meta({ description: 'Where recovery starts: the later of disabledAt and keptSince.' }),
    })
    .meta({
      description: 'The time a disabled subscription missed, as far as the event log still keeps it.',
    }),
);

export const backlogSchema = named(
  'Backlog',
  z
    .object({
      subscriptionId: z.string(),
      status: z.enum(['active', 'disabled']),
      window: backlogWindowSchema.optional(),
      events: count.meta({ description: 'Matching events in the window (at most `limit`).' }),
      more: z.boolean().meta({ description: 'There are more than `limit` matching events.' }),
      limit: count,
      parked: count.meta({ description: 'Deliveries parked when it was disabled (counted up to 1,000).' }),
    })
    .meta({ description: 'What enabling the subscription would deliver.' }),
);

export const enableResultSchema = named(
  'EnableResult',
  z
    .object({
      subscription: subscriptionSchema,
      resumed: count.meta({ description: 'Parked deliveries made pending again.' }),
      backlog: backlogWindowSchema
        .extend({
          action: z.enum(['recover', 'discard']),
          matched: count,
          recovered: count.meta({ description: 'Deliveries created and queued, in detection order.' }),
          discarded: count,
          more: z.boolean(),
          nextFrom: iso.optional().meta({ description: 'Replay from here to recover the rest.' }),
        })
        .optional()
        .meta({ description: 'The events detected while it was disabled; absent when it was active.' }),
    })
    .meta({ description: 'The enabled subscription and what became of what it missed.' }),
);

export const replayResultSchema = named(
  'ReplayResult',
  z
    .object({
      replayId: z.string(),
      events: count,
      eventIds: z.array(z.string()),
      skipped: z.array(z.object({ eventId: z.string(), reason: z.string() })),
      scanned: count.optional().meta({ description: 'Events of the range read, matching or not.' }),
    })
    .meta({ description: 'The events queued for delivery, and why any requested one was not.' }),
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
export type Subscription = z.output<typeof subscriptionSchema>;
export type SubscriptionHealthView = z.output<typeof subscriptionHealthSchema>;
export type AttemptFailure = z.output<typeof attemptFailureSchema>;
export type SubscriptionCreated = z.output<typeof subscriptionCreatedSchema>;
export type SubscriptionPage = z.output<typeof subscriptionPageSchema>;
export type SecretRotated = z.output<typeof secretRotatedSchema>;
export type Attempt = z.output<typeof attemptSchema>;
export type AttemptPage = z.output<typeof attemptPageSchema>;
export type Delivery = z.output<typeof deliverySchema>;
export type DeliveryPage = z.output<typeof deliveryPageSchema>;
export type TestDelivery = z.output<typeof testDeliverySchema>;
export type Backlog = z.output<typeof backlogSchema>;
export type EnableResult = z.output<typeof enableResultSchema>;
export type ReplayResult = z.output<typeof replayResultSchema>;
export type RecoverResult = z.output<typeof recoverResultSchema>;
export type EventWithDeliveries = z.output<typeof eventWithDeliveriesSchema>;

// ---- the bodies the console and the CLI send (their schemas are bound to the URL policy at run time) --

export type CreateSubscriptionBody = z.input<SubscriptionSchemas['create']>;
export type UpdateSubscriptionBody = z.input<SubscriptionSchemas['patch']>;
export type EnableSubscriptionBody = z.input<SubscriptionSchemas['enable']>;
export type ReplayBody = z.input<SubscriptionSchemas['replay']>;
export type RecoverBody = z.input<SubscriptionSchemas['recover']>;
export type SampleBody = z.input<SubscriptionSchemas['sample']>;
