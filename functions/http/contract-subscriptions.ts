/**
 * The management API's contract for subscriptions: their health, attempts, deliveries, backlog and
 * what enabling, replaying and recovering answer (functions/http/contract.ts re-exports them all).
 * Nothing here needs Node: the browser console's typecheck reads it.
 */
import * as z from 'zod';
import { envelopeSchema } from '../core/events/envelope';
import { deliveryStatuses } from '../core/subscriptions/records';
import type { SubscriptionSchemas } from '../core/subscriptions/schemas';
import { ATTEMPT_OUTCOMES, ERROR_CLASSES } from '../core/webhooks/outcome';
import { count, iso, named } from './contract-base';

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

// ---- the bodies the console and the CLI send (their schemas are bound to the URL policy at run time) --

export type CreateSubscriptionBody = z.input<SubscriptionSchemas['create']>;
export type UpdateSubscriptionBody = z.input<SubscriptionSchemas['patch']>;
export type EnableSubscriptionBody = z.input<SubscriptionSchemas['enable']>;
export type ReplayBody = z.input<SubscriptionSchemas['replay']>;
export type RecoverBody = z.input<SubscriptionSchemas['recover']>;
export type SampleBody = z.input<SubscriptionSchemas['sample']>;
