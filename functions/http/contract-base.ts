/**
 * The registry every named schema of the management API's contract is added to (its name in the
 * document's `components.schemas`), and the small schemas the contract's modules share. Nothing here
 * needs Node: the browser console's typecheck reads it.
 */
import * as z from 'zod';

/** Every named schema of the document, by its name in `components.schemas`. */
export const apiSchemas = z.registry<{ id: string }>();

/** Registers `schema` under `id` (its name in the document) and returns it. */
export function named<S extends z.ZodType>(id: string, schema: S): S {
  apiSchemas.add(schema, { id });
  return schema;
}

export const iso = z.string().meta({ format: 'date-time' });
export const count = z.number().int().nonnegative();
