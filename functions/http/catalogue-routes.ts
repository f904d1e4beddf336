/**
 * The event catalogue as the console shows it (`GET /event-types`): for each type its trigger, the
 * API reads that reveal it and its worst-case delay (functions/core/events/notes.ts, the content of
 * docs/events.md), its JSON Schema (the envelope, as the OpenAPI document's `<Type>Event`) and the
 * sample a webhook received in the end-to-end catalogue test.
 */
import type { Hono } from 'hono';
import * as z from 'zod';
import { definitions, envelopeSchemaFor } from '../core/events/catalogue';
import { NOTES } from '../core/events/notes';
import { sampleOf } from '../runtime/event-samples';
import { type EventCatalogue, eventCatalogueSchema } from './contract';
import type { RouteBook } from './openapi';

let catalogue: EventCatalogue | undefined;

function build(): EventCatalogue {
  return {
    types: definitions.map((def) => {
      const { $schema: _dialect, ...schema } = z.toJSONSchema(envelopeSchemaFor(def.type), {
        io: 'output',
        unrepresentable: 'any',
      }) as Record<string, unknown>;
      const sample = sampleOf(def.type);
      return {
        type: def.type,
        version: def.version,
        description: def.description,
        audience: def.audience,
        ...NOTES[def.type],
        schema,
        ...(sample ? { sample } : {}),
      };
    }),
  };
}

export function addCatalogueRoutes(app: Hono, book: RouteBook): void {
  book.add(
    app,
    {
      method: 'get',
      path: '/event-types',
      operationId: 'listEventTypes',
      summary: 'The event catalogue: each type with its trigger, worst-case delay, schema and a sample',
      tag: 'events',
      access: 'management',
      responses: { 200: { description: 'Every event type.', schema: eventCatalogueSchema } },
    },
    (c) => {
      // Built once: it depends on nothing but the code.
      catalogue ??= build();
      return c.json(catalogue);
    },
  );
}
