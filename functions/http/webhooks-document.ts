/**
 * The `webhooks` section of the OpenAPI document: what a subscription receives, one entry per event
 * type of the catalogue, so a subscriber can generate its receiver's types from the same document.
 *
 * Each request's body is the Standard Webhooks payload `{type, timestamp, data}` around the event's
 * envelope (functions/core/webhooks/payload.ts): `timestamp` is the envelope's `occurredAt`, `data`
 * the whole envelope, its `data` typed by the catalogue. The headers are the Standard Webhooks ones.
 */
import * as z from 'zod';
import { definitions, envelopeSchemaFor } from '../core/events/catalogue';
import { isoDate } from '../core/events/common';

export const WEBHOOK_TAG = 'webhooks';

/** `vehicle.fuel_theft.detected` → `VehicleFuelTheftDetected`. */
export const pascalOf = (type: string): string =>
  type
    .split(/[._]/)
    .filter((part) => part !== '')
    .map((part) => `${part[0]?.toUpperCase() ?? ''}${part.slice(1)}`)
    .join('');

interface TypeSchemas {
  readonly type: string;
  readonly description: string;
  readonly audience: 'all' | 'opt-in';
  readonly event: z.ZodType;
  readonly payload: z.ZodType;
}

let built: readonly TypeSchemas[] | undefined;

function typeSchemas(): readonly TypeSchemas[] {
  built ??= definitions.map((def) => {
    const event = envelopeSchemaFor(def.type).meta({
      description: `The envelope of a ${def.type} event (version ${def.version}): ${def.description}`,
    });
    const payload = z
      .object({
        type: z.literal(def.type),
        timestamp: isoDate.meta({ description: 'The event’s occurredAt.' }),
        data: event,
      })
      .meta({
        description: `The body of a ${def.type} webhook (Standard Webhooks payload around the envelope).`,
      });
    return { type: def.type, description: def.description, audience: def.audience, event, payload };
  });
  return built;
}

/** The named schemas of the section: `<Type>Event` (the envelope) and `<Type>Webhook` (the body). */
export function webhookSchemas(): [string, z.ZodType][] {
  return typeSchemas().flatMap((t) => [
    [`${pascalOf(t.type)}Event`, t.event] as [string, z.ZodType],
    [`${pascalOf(t.type)}Webhook`, t.payload] as [string, z.ZodType],
  ]);
}

const header = (name: string, description: string, schema: Record<string, unknown>) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema,
});

const HEADERS = [
  header(
    'webhook-id',
    'The event id: the same on every retry, replay and recovery of the event. Drop a request whose id you have already handled.',
    { type: 'string', pattern: '^evt_' },
  ),
  header(
    'webhook-timestamp',
    'When the attempt was signed, in Unix seconds. Refuse one far from your clock.',
    {
      type: 'string',
      pattern: '^[0-9]+$',
    },
  ),
  header(
    'webhook-signature',
    '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the subscription secret (whsec_…); during a rotation one signature per valid secret, space-separated.',
    { type: 'string', pattern: '^v1,' },
  ),
];

/** One webhook entry per event type: the request Carhook sends and what each answer means. */
export function webhooksSection(): Record<string, unknown> {
  const section: Record<string, unknown> = {};
  for (const t of typeSchemas()) {
    section[t.type] = {
      post: {
        operationId: `receive${pascalOf(t.type)}`,
        summary: t.description,
        description:
          t.audience === 'opt-in'
            ? `Operational: sent only to subscriptions that name it (\`${t.type.split('.')[0]}.*\` or \`${t.type}\`), never through \`*\`${t.type.startsWith('webhook.') ? ', and never to the endpoint it is about' : ''}.`
            : `Sent to every active subscription whose filters (eventTypes, vehicleIds, enrollmentIds) match. Order a vehicle's events by \`(data.vehicle.vin, data.sequence)\`.`,
        tags: [WEBHOOK_TAG],
        security: [],
        parameters: HEADERS,
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { $ref: `#/components/schemas/${pascalOf(t.type)}Webhook` } },
          },
        },
        responses: {
          '200': { description: 'Any 2xx: received; the delivery succeeded.' },
          '410': {
            description: 'Gone: the subscription is disabled (nothing more is sent until it is enabled).',
          },
          default: {
            description:
              'Any other answer, or none within 15 s: the delivery is retried on the schedule (Retry-After is honoured for 429 and 5xx).',
          },
        },
      },
    };
  }
  return section;
}
