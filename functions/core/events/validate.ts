import type * as z from 'zod';
import { type EventType, envelopeSchemaFor, isEventType } from './catalogue';

/**
 * The check every event passes before it leaves Carhook, against the zod schema of its type in
 * the catalogue: the very schema its published Draft 4 JSON Schema (events-schemas/) is generated
 * from. Two differences between a zod parse and a JSON Schema check are closed here so that what
 * passes this check also passes the published file (test/events/validate.test.ts checks both with
 * ajv-draft-04 on valid and invalid events):
 * - a zod object drops unknown properties where the published schema says
 *   `additionalProperties: false`: a property the parse dropped is reported as an issue;
 * - nothing transforms or defaults a value in the catalogue, so parsed output and input differ only
 *   by the dropped properties.
 * (Validating with ajv at runtime would put ~120 KB of validator in every publishing Lambda.)
 * Schemas are built lazily, once per type per process.
 */
export type EventValidationIssue = { readonly path: string; readonly message: string };

export type EventValidationError =
  | { readonly kind: 'UnknownEventType'; readonly type: unknown; readonly id: unknown }
  | {
      readonly kind: 'InvalidEvent';
      readonly type: EventType;
      readonly id: unknown;
      readonly issues: readonly EventValidationIssue[];
    };

export type EventValidationResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly error: EventValidationError };

const schemas = new Map<EventType, z.ZodType>();

const schemaFor = (type: EventType): z.ZodType => {
  let schema = schemas.get(type);
  if (schema === undefined) {
    schema = envelopeSchemaFor(type);
    schemas.set(type, schema);
  }
  return schema;
};

/** JSON Pointer of a path, as the published schema's validators report it (`/` = the envelope). */
const pointer = (path: readonly PropertyKey[]): string =>
  path.length === 0
    ? '/'
    : path.map((p) => `/${String(p).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The properties of `input` that the parse dropped (`output` is the parse result): those a JSON
 * Schema with `additionalProperties: false` refuses. Undefined values are skipped: JSON has none.
 */
function droppedProperties(input: unknown, output: unknown, path: readonly string[]): EventValidationIssue[] {
  if (Array.isArray(input) && Array.isArray(output)) {
    return input.flatMap((item, i) => droppedProperties(item, output[i], [...path, String(i)]));
  }
  if (!isPlainObject(input) || !isPlainObject(output) || input === output) return [];
  return Object.entries(input).flatMap(([key, value]) => {
    if (value === undefined) return [];
    if (!Object.hasOwn(output, key)) {
      return [{ path: pointer([...path, key]), message: 'is not a property of the published schema' }];
    }
    return droppedProperties(value, output[key], [...path, key]);
  });
}

export const validateEvent = (envelope: unknown): EventValidationResult => {
  const record =
    typeof envelope === 'object' && envelope !== null ? (envelope as Record<string, unknown>) : {};
  const type = record.type;
  if (typeof type !== 'string' || !isEventType(type)) {
    return { ok: false, error: { kind: 'UnknownEventType', type, id: record.id } };
  }
  const parsed = schemaFor(type).safeParse(envelope);
  const issues = parsed.success
    ? droppedProperties(envelope, parsed.data, [])
    : parsed.error.issues.map((issue) => ({ path: pointer(issue.path), message: issue.message }));
  if (issues.length === 0) return { ok: true };
  return { ok: false, error: { kind: 'InvalidEvent', type, id: record.id, issues } };
};

/** Human-readable one-liner of a validation error, for logs. */
export const describeValidationError = (error: EventValidationError): string =>
  error.kind === 'UnknownEventType'
    ? `event ${String(error.id)} has unknown type ${JSON.stringify(error.type)}`
    : `event ${String(error.id)} (${error.type}) does not match its schema: ${error.issues.map((i) => `${i.path} ${i.message}`).join('; ')}`;
