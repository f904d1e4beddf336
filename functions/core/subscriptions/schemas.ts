import * as z from 'zod';
import type { EventEnvelope } from '../events/envelope';
import { err, ok, type Result } from '../result';
import { type UrlPolicyOptions, validateUrl } from '../webhooks/url-policy';

/**
 * Subscriptions: the management API's bodies (zod), and `matches`, which the fan-out uses to turn
 * one event into one delivery per matching active subscription.
 *
 * Event type filters: an exact known type (`vehicle.alert.fixed`), a prefix ending in `.*`
 * (`vehicle.alert.*`, `vehicle.*`) that covers at least one known type, or `*` (everything).
 * The known types are a parameter (the catalogue's EVENT_TYPES), not imported.
 */
export const MAX_FILTER_ITEMS = 100;
export const MAX_ID_FILTER_ITEMS = 1000;
export const MAX_DESCRIPTION_LENGTH = 500;

/**
 * Operational events, about webhooks (`webhook.*`) or about Carhook itself (`carhook.*`: the quota,
 * freshness): `matches` never selects them; the fan-out sends them only to subscriptions that name
 * them (functions/core/delivery/operational.ts).
 */
export const BUS_ONLY_PREFIXES = ['webhook.', 'carhook.'] as const;

/** Is this an operational type (or a filter entry naming operational types)? */
export const isBusOnly = (type: string): boolean => BUS_ONLY_PREFIXES.some((p) => type.startsWith(p));

export type SubscriptionStatus = 'active' | 'disabled';

/** What `matches` needs of a stored subscription. */
export interface SubscriptionFilter {
  readonly status: SubscriptionStatus;
  readonly eventTypes?: readonly string[];
  readonly vehicleIds?: readonly string[];
  readonly enrollmentIds?: readonly string[];
}

/** Does an event type filter entry select this type? */
export function typeMatches(filter: string, type: string): boolean {
  if (filter === '*') return true;
  if (filter.endsWith('.*')) return type.startsWith(filter.slice(0, -1));
  return filter === type;
}

/** Fan-out: an active subscription whose every filter that is set admits the event. */
export function matches(
  subscription: SubscriptionFilter,
  envelope: Pick<EventEnvelope, 'type' | 'vehicle' | 'enrollment'>,
) {
  if (subscription.status !== 'active') return false;
  if (isBusOnly(envelope.type)) return false;
  const types = subscription.eventTypes;
  if (types && !types.some((f) => typeMatches(f, envelope.type))) return false;
  const vehicles = subscription.vehicleIds;
  if (vehicles && !(envelope.vehicle && vehicles.includes(envelope.vehicle.id))) return false;
  const enrollments = subscription.enrollmentIds;
  if (enrollments && !(envelope.enrollment && enrollments.includes(envelope.enrollment.id))) return false;
  return true;
}

/** Why a filter entry is refused, or undefined when it is fine. */
export function eventTypeProblem(entry: string, knownTypes: readonly string[]): string | undefined {
  if (entry === '*') return undefined;
  if (entry.endsWith('.*')) {
    const prefix = entry.slice(0, -1);
    if (!/^[a-z0-9]+(\.[a-z0-9_-]+)*\.$/.test(prefix))
      return `"${entry}" is not a valid prefix (expected like vehicle.alert.*)`;
    return knownTypes.some((t) => t.startsWith(prefix))
      ? undefined
      : `"${entry}" matches no known event type`;
  }
  if (entry.includes('*'))
    return `"${entry}": a wildcard is only allowed as a whole last segment (vehicle.alert.*)`;
  return knownTypes.includes(entry) ? undefined : `unknown event type "${entry}"`;
}

function eventTypesSchema(knownTypes: readonly string[]) {
  return z
    .array(z.string().min(1).max(200))
    .min(1, 'must list at least one event type; omit the field to receive every event')
    .max(MAX_FILTER_ITEMS, `at most ${MAX_FILTER_ITEMS} entries`)
    .superRefine((entries, ctx) => {
      for (const [i, entry] of entries.entries()) {
        const problem = eventTypeProblem(entry, knownTypes);
        if (problem) ctx.addIssue({ code: 'custom', path: [i], message: problem, input: entry });
      }
    })
    .transform((entries) => [...new Set(entries)]);
}

const idList = (what: string) =>
  z
    .array(z.string().min(1).max(200))
    .min(1, `must list at least one ${what}; omit the field for all`)
    .max(MAX_ID_FILTER_ITEMS, `at most ${MAX_ID_FILTER_ITEMS} entries`)
    .transform((ids) => [...new Set(ids)]);

function urlSchema(policy: UrlPolicyOptions) {
  // validateUrl checks the length (MAX_URL_LENGTH) with the rest, so a long URL gets one clear issue.
  // What is stored is the WHATWG-serialised form (`new URL(x).href`), the URL the sender will
  // actually request: `http://host\@other/` is stored as `http://host/@other/`, never as typed.
  return z.string().transform((url, ctx) => {
    const checked = validateUrl(url, policy);
    if (!checked.ok) {
      ctx.addIssue({ code: 'custom', message: checked.error.message.replace(/^url: /, ''), input: url });
      return z.NEVER;
    }
    return checked.value.href;
  });
}

export interface SubscriptionSchemaContext {
  /** The catalogue's event types (EVENT_TYPES). */
  readonly knownTypes: readonly string[];
  readonly urlPolicy?: UrlPolicyOptions;
}

const isoDate = z.iso.datetime({
  offset: true,
  message: 'must be an ISO 8601 date-time (2026-11-22T10:00:00Z)',
});

/** The management API's body schemas, bound to the known event types and the URL policy. */
export function subscriptionSchemas(context: SubscriptionSchemaContext) {
  const policy = context.urlPolicy ?? {};
  const eventTypes = eventTypesSchema(context.knownTypes);
  const description = z.string().max(MAX_DESCRIPTION_LENGTH, `at most ${MAX_DESCRIPTION_LENGTH} characters`);

  const create = z.strictObject({
    url: urlSchema(policy),
    eventTypes: eventTypes.optional(),
    vehicleIds: idList('vehicle id').optional(),
    enrollmentIds: idList('enrollment id').optional(),
    description: description.optional(),
  });

  // null clears a filter (back to "everything"); absent leaves it unchanged.
  const patch = z
    .strictObject({
      url: urlSchema(policy).optional(),
      eventTypes: eventTypes.nullable().optional(),
      vehicleIds: idList('vehicle id').nullable().optional(),
      enrollmentIds: idList('enrollment id').nullable().optional(),
      description: description.nullable().optional(),
    })
    .refine((body) => Object.values(body).some((v) => v !== undefined), {
      message: 'must change at least one of url, eventTypes, vehicleIds, enrollmentIds, description',
    });

  const replay = z
    .strictObject({
      since: isoDate.optional(),
      until: isoDate.optional(),
      eventTypes: eventTypes.optional(),
      // Replay of chosen events: read from the log by id (since/until, when given, narrow them).
      eventIds: z
        .array(z.string().regex(/^evt_[A-Za-z0-9_-]{1,64}$/, 'must be an event id (evt_…)'))
        .min(1)
        .max(100)
        .optional(),
    })
    .superRefine((body, ctx) => {
      if (body.since === undefined && body.eventIds === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['since'],
          message: 'is required, unless eventIds names the events',
          input: body.since,
        });
      }
      if (
        body.since !== undefined &&
        body.until !== undefined &&
        Date.parse(body.since) > Date.parse(body.until)
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['until'],
          message: 'must not be before since',
          input: body.until,
        });
      }
    });

  // What becomes of the events detected while the subscription was disabled (default: recover).
  const enable = z
    .strictObject({
      backlog: z.enum(['recover', 'discard'], { message: 'must be recover or discard' }).optional().meta({
        description:
          'recover (default): deliver the events the subscription missed while disabled, from the event log, with their own ids; discard: deliver none of them.',
      }),
    })
    .optional();

  // Deliver again what was dead-lettered in a time range (by the deliveries' last attempt).
  const recover = z.strictObject({ since: isoDate, until: isoDate.optional() }).superRefine((body, ctx) => {
    if (body.until !== undefined && Date.parse(body.since) > Date.parse(body.until)) {
      ctx.addIssue({
        code: 'custom',
        path: ['until'],
        message: 'must not be before since',
        input: body.until,
      });
    }
  });

  // Send a sample of one event type (its catalogue sample, re-stamped and marked as a sample).
  const sample = z.strictObject({
    type: z.string().refine((t) => context.knownTypes.includes(t), {
      message: 'must be an event type of the catalogue (GET /event-types)',
    }),
  });

  return { create, patch, replay, enable, recover, sample };
}

export type SubscriptionSchemas = ReturnType<typeof subscriptionSchemas>;
export type CreateSubscriptionBody = z.output<SubscriptionSchemas['create']>;
export type PatchSubscriptionBody = z.output<SubscriptionSchemas['patch']>;
export type ReplayBody = z.output<SubscriptionSchemas['replay']>;
export type EnableBody = z.output<SubscriptionSchemas['enable']>;

export interface FieldIssue {
  /** `eventTypes[1]`, `url`, `body` for the body as a whole. */
  readonly field: string;
  readonly reason: string;
}

/** A 400: every problem, each naming its field and why. */
export interface ValidationError {
  readonly kind: 'Malformed';
  readonly message: string;
  readonly issues: readonly FieldIssue[];
}

function fieldName(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || 'body';
}

export function toValidationError(error: z.ZodError): ValidationError {
  const issues = error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      // Named by the unknown field itself (`secret`), not by the object that holds it.
      return {
        field: fieldName([...issue.path, issue.keys[0] ?? '']),
        reason: `unknown field(s): ${issue.keys.join(', ')}`,
      };
    }
    const reason = issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message;
    return { field: fieldName(issue.path), reason };
  });
  return { kind: 'Malformed', message: issues.map((i) => `${i.field}: ${i.reason}`).join('; '), issues };
}

/** Parses a body with one of the schemas; bad input becomes a ValidationError, never an exception. */
export function parseBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
): Result<z.output<S>, ValidationError> {
  const parsed = schema.safeParse(body);
  return parsed.success ? ok(parsed.data) : err(toValidationError(parsed.error));
}
