import type { JsonSchema } from './json-schema';

/**
 * Compatibility of a new version of an event's JSON Schema with the published one, seen from a
 * subscriber that wrote code against the old one. A schema may evolve within a version only by
 * changes such a subscriber cannot notice: new optional fields, tighter constraints, descriptions.
 * Anything else needs a new `version` (and a new file), and `npm run schemas` refuses to overwrite
 * a published file with a breaking change.
 *
 * Breaking: a field removed; a required field made optional; a field newly required; a type,
 * format or pattern changed; an enum value added (a consumer's exhaustive switch breaks) or the
 * enum lifted; a constraint loosened (minimum, maximum, minLength, maxLength, minItems);
 * additionalProperties opened or retyped; array items or union branches changed.
 */
export type BreakingChange = { readonly path: string; readonly change: string };

const asSchema = (v: unknown): JsonSchema | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonSchema) : undefined;

const typeSet = (s: JsonSchema): string[] | undefined => {
  const t = s.type;
  if (t === undefined) return undefined;
  return (Array.isArray(t) ? t.map(String) : [String(t)]).sort();
};

const stringList = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => JSON.stringify(x)) : []);

export const breakingChanges = (
  oldSchema: JsonSchema,
  newSchema: JsonSchema,
  path = '',
): BreakingChange[] => {
  const out: BreakingChange[] = [];
  const at = path === '' ? '/' : path;
  const push = (change: string) => out.push({ path: at, change });

  const oldType = typeSet(oldSchema);
  const newType = typeSet(newSchema);
  if (JSON.stringify(oldType) !== JSON.stringify(newType)) {
    push(`type changed from ${JSON.stringify(oldType ?? 'any')} to ${JSON.stringify(newType ?? 'any')}`);
  }
  for (const key of ['format', 'pattern'] as const) {
    if (oldSchema[key] !== newSchema[key]) {
      push(`${key} changed from ${JSON.stringify(oldSchema[key])} to ${JSON.stringify(newSchema[key])}`);
    }
  }

  if (oldSchema.enum !== undefined) {
    if (newSchema.enum === undefined) push('enum removed: any value is now allowed');
    else {
      const before = new Set(stringList(oldSchema.enum));
      const added = stringList(newSchema.enum).filter((v) => !before.has(v));
      if (added.length > 0) push(`enum values added: ${added.join(', ')}`);
    }
  }

  // A lower bound may only rise, an upper bound only fall (the producer may only promise more).
  const lower = ['minimum', 'minLength', 'minItems'] as const;
  const upper = ['maximum', 'maxLength', 'maxItems'] as const;
  for (const key of lower) {
    const o = oldSchema[key];
    const n = newSchema[key];
    if (typeof o === 'number' && (typeof n !== 'number' || n < o))
      push(`${key} loosened from ${o} to ${String(n)}`);
  }
  for (const key of upper) {
    const o = oldSchema[key];
    const n = newSchema[key];
    if (typeof o === 'number' && (typeof n !== 'number' || n > o))
      push(`${key} loosened from ${o} to ${String(n)}`);
  }
  if (oldSchema.exclusiveMinimum === true && newSchema.exclusiveMinimum !== true)
    push('exclusiveMinimum removed');
  if (oldSchema.exclusiveMaximum === true && newSchema.exclusiveMaximum !== true)
    push('exclusiveMaximum removed');

  const oldProps = asSchema(oldSchema.properties) ?? {};
  const newProps = asSchema(newSchema.properties) ?? {};
  const oldRequired = new Set(stringList(oldSchema.required).map((s) => JSON.parse(s) as string));
  const newRequired = new Set(stringList(newSchema.required).map((s) => JSON.parse(s) as string));
  for (const name of Object.keys(oldProps)) {
    const o = asSchema(oldProps[name]);
    const n = asSchema(newProps[name]);
    if (n === undefined) {
      out.push({ path: `${path}/${name}`, change: 'field removed' });
      continue;
    }
    if (oldRequired.has(name) && !newRequired.has(name)) {
      out.push({ path: `${path}/${name}`, change: 'required field became optional' });
    }
    if (o !== undefined) out.push(...breakingChanges(o, n, `${path}/${name}`));
  }
  for (const name of newRequired) {
    if (!oldRequired.has(name)) out.push({ path: `${path}/${name}`, change: 'field newly required' });
  }

  const oldAdditional = oldSchema.additionalProperties;
  const newAdditional = newSchema.additionalProperties;
  if (oldAdditional === false && newAdditional !== false) push('additionalProperties opened');
  const oldAdditionalSchema = asSchema(oldAdditional);
  const newAdditionalSchema = asSchema(newAdditional);
  if (oldAdditionalSchema !== undefined) {
    if (newAdditionalSchema === undefined) {
      if (newAdditional !== false) push('additionalProperties schema removed');
    } else out.push(...breakingChanges(oldAdditionalSchema, newAdditionalSchema, `${path}/*`));
  }

  const oldItems = asSchema(oldSchema.items);
  const newItems = asSchema(newSchema.items);
  if (oldItems !== undefined) {
    if (newItems === undefined) push('array items schema removed');
    else out.push(...breakingChanges(oldItems, newItems, `${path}/[]`));
  }

  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (JSON.stringify(oldSchema[key]) !== JSON.stringify(newSchema[key])) push(`${key} changed`);
  }
  return out;
};
