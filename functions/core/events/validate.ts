import Ajv, { type ValidateFunction } from 'ajv-draft-04';
import { type EventType, isEventType } from './catalogue';
import { eventJsonSchema } from './json-schema';

/**
 * The check every event passes "before it leaves" (issue 4): the envelope is validated against its
 * type's published Draft 4 JSON Schema, the very document in events-schemas/ (the drift test keeps
 * the generated and committed files equal), with a JSON Schema validator rather than the zod schema
 * it came from, so a subscriber validating with the published file never rejects what we send.
 * Validators are compiled lazily, once per type per process.
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

// RFC 3339 date-time in UTC, as every Carhook timestamp is produced (Date#toISOString).
const DATE_TIME = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?Z$/;

let ajv: Ajv | undefined;
const compiled = new Map<EventType, ValidateFunction>();

const validatorFor = (type: EventType): ValidateFunction => {
  let validate = compiled.get(type);
  if (validate === undefined) {
    ajv ??= new Ajv({ allErrors: true, strict: true }).addFormat('date-time', DATE_TIME);
    validate = ajv.compile(eventJsonSchema(type));
    compiled.set(type, validate);
  }
  return validate;
};

export const validateEvent = (envelope: unknown): EventValidationResult => {
  const record =
    typeof envelope === 'object' && envelope !== null ? (envelope as Record<string, unknown>) : {};
  const type = record.type;
  if (typeof type !== 'string' || !isEventType(type)) {
    return { ok: false, error: { kind: 'UnknownEventType', type, id: record.id } };
  }
  const validate = validatorFor(type);
  if (validate(envelope)) return { ok: true };
  const issues = (validate.errors ?? []).map((e) => ({
    path: e.instancePath === '' ? '/' : e.instancePath,
    message:
      e.params && 'additionalProperty' in e.params
        ? `${e.message}: ${String(e.params.additionalProperty)}`
        : (e.message ?? 'invalid'),
  }));
  return { ok: false, error: { kind: 'InvalidEvent', type, id: record.id, issues } };
};

/** Human-readable one-liner of a validation error, for logs. */
export const describeValidationError = (error: EventValidationError): string =>
  error.kind === 'UnknownEventType'
    ? `event ${String(error.id)} has unknown type ${JSON.stringify(error.type)}`
    : `event ${String(error.id)} (${error.type}) does not match its schema: ${error.issues.map((i) => `${i.path} ${i.message}`).join('; ')}`;
