/**
 * `validateEvent` checks events with the catalogue's zod schemas (no JSON Schema validator in the
 * Lambda bundles); subscribers check them with the published Draft 4 files. These tests
 * hold the two together with ajv-draft-04 on the committed files: generated valid events pass both,
 * mutated ones fail both, and whatever the runtime check accepts the published schema accepts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv-draft-04';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { schemasDir } from '../../bin/generate-schemas';
import { buildEvent, definitions, type EventType } from '../../functions/core/events/catalogue';
import { type JsonSchema, schemaFileName } from '../../functions/core/events/json-schema';
import { describeValidationError, validateEvent } from '../../functions/core/events/validate';

// Timestamps as Carhook produces them (Date#toISOString: UTC, `Z`), on a real calendar day.
const UTC_DATE_TIME =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?Z$/;
const isCalendarDay = (text: string) => {
  const [y, m, d] = text.slice(0, 10).split('-').map(Number);
  const day = new Date(Date.UTC(y ?? 0, (m ?? 1) - 1, d ?? 1));
  return day.getUTCFullYear() === y && day.getUTCMonth() === (m ?? 0) - 1 && day.getUTCDate() === d;
};
// RFC 3339 as a subscriber's validator reads `format: date-time` (any offset, either case of T/Z).
const RFC3339 =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

const published = new Map<EventType, JsonSchema>(
  definitions.map((d) => [
    d.type,
    JSON.parse(readFileSync(join(schemasDir, schemaFileName(d)), 'utf8')) as JsonSchema,
  ]),
);
const compileAll = (dateTime: (text: string) => boolean) => {
  const ajv = new Ajv({ allErrors: true, strict: true }).addFormat('date-time', { validate: dateTime });
  return new Map<EventType, ValidateFunction>(
    [...published].map(([type, schema]) => [type, ajv.compile(schema)]),
  );
};
/** The published files with Carhook's own timestamps: the runtime check must agree exactly. */
const carhookAjv = compileAll((t) => UTC_DATE_TIME.test(t) && isCalendarDay(t));
/** The published files as a lenient subscriber reads them: must accept all the runtime check accepts. */
const subscriberAjv = compileAll((t) => RFC3339.test(t));

const schemaOf = (type: EventType): JsonSchema => {
  const schema = published.get(type);
  if (!schema) throw new TypeError(`no published schema for ${type}`);
  return schema;
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Values valid under one published schema (the keyword subset the generator emits; unknown ones fail loudly). */
function arbitraryOf(schema: JsonSchema): fc.Arbitrary<Json> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as Json[]));
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as JsonSchema[]).map(arbitraryOf));
  const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  switch (schema.type) {
    case 'string':
      if (schema.format === 'date-time') {
        return fc
          .date({
            min: new Date('2000-01-01T00:00:00Z'),
            max: new Date('2099-12-31T23:59:59Z'),
            noInvalidDate: true,
          })
          .map((d) => d.toISOString());
      }
      return fc.string({
        minLength: typeof schema.minLength === 'number' ? schema.minLength : 0,
        maxLength: 12,
      });
    case 'integer':
      return fc.integer({
        min: min === undefined ? -1_000_000 : schema.exclusiveMinimum === true ? min + 1 : min,
        max: 1_000_000_000,
      });
    case 'number':
      return fc.double({
        noNaN: true,
        noDefaultInfinity: true,
        min: min ?? -1e9,
        max: 1e9,
        minExcluded: schema.exclusiveMinimum === true,
      });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(arbitraryOf(schema.items as JsonSchema), {
        minLength: typeof schema.minItems === 'number' ? schema.minItems : 0,
        maxLength: 3,
      });
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const known = fc.record(
        Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, arbitraryOf(s)])),
        { requiredKeys: (schema.required ?? []) as string[] },
      ) as fc.Arbitrary<Record<string, Json>>;
      const extra = schema.additionalProperties;
      if (extra === false || extra === undefined) return known;
      const key = fc
        .string({ minLength: 1, maxLength: 8 })
        .filter((k) => !(k in properties) && k !== '__proto__');
      return fc
        .tuple(known, fc.dictionary(key, arbitraryOf(extra as JsonSchema), { maxKeys: 3 }))
        .map(([a, b]) => ({ ...b, ...a }));
    }
    case 'null':
      return fc.constant(null);
    default:
      throw new TypeError(`the generator does not know ${JSON.stringify(schema)}`);
  }
}

const validEvent = fc
  .constantFrom(...definitions.map((d) => d.type))
  .chain((type) => arbitraryOf(schemaOf(type)).map((event) => ({ type, event })));

/** Every path into a value (objects and arrays), the root excluded. */
function pathsOf(value: Json, at: readonly string[] = []): string[][] {
  if (value === null || typeof value !== 'object') return [];
  const entries: [string, Json][] = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.entries(value);
  return entries.flatMap(([k, v]) => [[...at, k], ...pathsOf(v, [...at, k])]);
}

type Mutation = { readonly kind: 'delete' | 'replace' | 'add'; readonly replacement: Json };

function mutate(value: Json, path: readonly string[], mutation: Mutation): Json {
  const copy = structuredClone(value);
  const parentPath = mutation.kind === 'add' ? path : path.slice(0, -1);
  let parent: Json = copy;
  for (const k of parentPath) parent = (parent as Record<string, Json>)[k] ?? null;
  if (parent === null || typeof parent !== 'object') return copy;
  const key = path[path.length - 1] ?? '';
  if (mutation.kind === 'add') {
    if (!Array.isArray(parent)) parent.zzUnpublished = mutation.replacement;
  } else if (mutation.kind === 'delete') {
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  } else if (Array.isArray(parent)) parent[Number(key)] = mutation.replacement;
  else parent[key] = mutation.replacement;
  return copy;
}

const replacement: fc.Arbitrary<Json> = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom('', 'yesterday', '2026-02-30T10:00:00Z', '2026-11-22T10:00Z', '2026-11-22T10:00:00.000Z'),
  fc.integer({ min: -5, max: 5 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
  fc.boolean(),
  fc.constant(null),
  fc.constant<Json>([]),
  fc.constant<Json>({}),
);

// JSON Pointer (RFC 6901), as the issues name fields.
const pointer = (path: readonly string[]) =>
  path.length === 0 ? '/' : path.map((p) => `/${p.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

describe('validateEvent agrees with the published JSON Schemas (ajv-draft-04)', () => {
  it('accepts every event the published schema accepts (generated from the schema)', () => {
    fc.assert(
      fc.property(validEvent, ({ type, event }) => {
        expect(carhookAjv.get(type)?.(event)).toBe(true);
        expect(validateEvent(event)).toEqual({ ok: true });
      }),
      { numRuns: 300 },
    );
  });

  it('refuses exactly what the published schema refuses, naming the mutated field', () => {
    const mutated = validEvent.chain(({ type, event }) =>
      fc
        .record({
          path: fc.constantFrom(...pathsOf(event).filter((p) => p[0] !== 'type')),
          kind: fc.constantFrom('delete', 'replace', 'add'),
          replacement,
        })
        .map(({ path, kind, replacement }) => ({
          type,
          path,
          event: mutate(event, path, { kind, replacement }),
        })),
    );
    fc.assert(
      fc.property(mutated, ({ type, path, event }) => {
        const published = carhookAjv.get(type)?.(event) === true;
        const r = validateEvent(event);
        expect(r.ok).toBe(published);
        expect(subscriberAjv.get(type)?.(event) || !r.ok).toBe(true);
        if (!r.ok) {
          if (r.error.kind !== 'InvalidEvent') throw new TypeError(describeValidationError(r.error));
          const at = pointer(path);
          // The issue is at the mutated field, under it (a replaced object), or at its parent
          // (a property added next to it).
          const related = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b === '/';
          expect(r.error.issues.some((i) => related(i.path, at) || related(at, i.path))).toBe(true);
          for (const issue of r.error.issues) expect(issue.message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 500 },
    );
  });

  const good = buildEvent('webhook.delivery.exhausted', {
    id: 'evt_test',
    occurredAt: '2026-11-22T10:00:00.000Z',
    detectedAt: '2026-11-22T10:00:05.000Z',
    sequence: 0,
    source: { api: 'carhook', operation: 'POST /subscriptions/{id}/test' },
    data: {
      subscriptionId: 's',
      eventId: 'evt_x',
      eventType: 'vehicle.alert.raised',
      attempts: 8,
      lastStatus: 500,
      lastAttemptAt: '2026-11-22T10:00:00.000Z',
    },
  });

  it('names a property the published schema does not have, which a zod parse alone would drop', () => {
    const event = { ...good, data: { ...good.data, color: 'red' }, vehicle: { id: 'v', paint: 'blue' } };
    expect(carhookAjv.get('webhook.delivery.exhausted')?.(event)).toBe(false);
    expect(validateEvent(event)).toEqual({
      ok: false,
      error: {
        kind: 'InvalidEvent',
        type: 'webhook.delivery.exhausted',
        id: 'evt_test',
        issues: [
          { path: '/data/color', message: 'is not a property of the published schema' },
          { path: '/vehicle/paint', message: 'is not a property of the published schema' },
        ],
      },
    });
  });

  it('ignores undefined properties (JSON has none: they never leave)', () => {
    expect(validateEvent({ ...good, data: { ...good.data, color: undefined } })).toEqual({ ok: true });
  });

  it('refuses timestamps the published format refuses: no seconds, an offset, an impossible day', () => {
    for (const occurredAt of ['2026-11-22T10:00Z', '2026-11-22T11:00:00+01:00', '2026-02-30T10:00:00Z']) {
      const r = validateEvent({ ...good, occurredAt });
      expect(r.ok).toBe(false);
      if (!r.ok && r.error.kind === 'InvalidEvent') expect(r.error.issues[0]?.path).toBe('/occurredAt');
    }
  });
});
