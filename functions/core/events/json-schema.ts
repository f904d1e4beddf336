import * as z from 'zod';
import { definitions, type EventType, envelopeSchemaFor } from './catalogue';
import type { EventDefinition } from './common';

/**
 * The public contract: one Draft 4 JSON Schema per event type (the format the EventBridge Schema
 * Registry accepts), generated from the zod definitions. `npm run schemas` writes them to
 * events-schemas/; a test fails when the committed files drift or break compatibility.
 */
export const DRAFT_04 = 'http://json-schema.org/draft-04/schema#';

export type JsonSchema = { [key: string]: unknown };

export const schemaFileName = (def: Pick<EventDefinition, 'type' | 'version'>): string =>
  `${def.type}.v${def.version}.json`;

export const eventJsonSchema = (type: EventType): JsonSchema => {
  const def = definitions.find((d) => d.type === type);
  if (def === undefined) throw new TypeError(`unknown event type ${type}`);
  const generated = z.toJSONSchema(envelopeSchemaFor(type), {
    target: 'draft-04',
    io: 'output',
    unrepresentable: 'throw',
    // Inline every reuse: a registry imports one self-contained document per type.
    reused: 'inline',
    override: ({ jsonSchema }) => {
      const js = jsonSchema as JsonSchema;
      // zod adds its datetime regex next to the format; the format says it, and the regex is
      // unreadable to subscribers generating code bindings.
      if (js.format === 'date-time') delete js.pattern;
      // z.number().int() adds ±MAX_SAFE_INTEGER bounds that carry no meaning for an event.
      if (js.minimum === Number.MIN_SAFE_INTEGER) delete js.minimum;
      if (js.maximum === Number.MAX_SAFE_INTEGER) delete js.maximum;
    },
  }) as JsonSchema;
  const { $schema: _ignored, ...rest } = generated;
  return {
    $schema: DRAFT_04,
    title: `${def.type} v${def.version}`,
    description: def.description,
    ...rest,
  };
};

/** Deterministic text of a schema file: two-space indent, trailing newline. */
export const schemaFileText = (schema: JsonSchema): string => `${JSON.stringify(schema, null, 2)}\n`;

/** Every schema file Carhook publishes, by file name. */
export const allSchemaFiles = (): Map<string, string> =>
  new Map(definitions.map((d) => [schemaFileName(d), schemaFileText(eventJsonSchema(d.type))]));
