import { describe, expect, it } from 'vitest';
import { breakingChanges } from '../../functions/core/events/compatibility';
import type { JsonSchema } from '../../functions/core/events/json-schema';

const base: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', minLength: 1 },
    level: { type: 'string', enum: ['low', 'high'] },
    at: { type: 'string', format: 'date-time' },
    count: { type: 'integer', minimum: 0 },
    note: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    scores: { type: 'object', additionalProperties: { type: 'number' } },
  },
  required: ['id', 'level', 'at'],
  additionalProperties: false,
};

const withProps = (props: Record<string, unknown>, extra: JsonSchema = {}): JsonSchema => ({
  ...base,
  properties: { ...(base.properties as JsonSchema), ...props },
  ...extra,
});

const without = (name: string): JsonSchema => {
  const properties = { ...(base.properties as JsonSchema) };
  delete properties[name];
  return { ...base, properties, required: (base.required as string[]).filter((r) => r !== name) };
};

describe('breakingChanges (schema compatibility within a version)', () => {
  it.each([
    ['an identical schema', base],
    ['a new optional field', withProps({ extra: { type: 'boolean' } })],
    ['a changed description', withProps({ note: { type: 'string', description: 'free text' } })],
    ['a tighter constraint', withProps({ count: { type: 'integer', minimum: 1 } })],
    ['an enum value removed', withProps({ level: { type: 'string', enum: ['high'] } })],
  ])('accepts %s', (_name, next) => {
    expect(breakingChanges(base, next)).toEqual([]);
  });

  it.each([
    ['a removed field', without('note'), '/note', 'field removed'],
    ['a removed required field', without('id'), '/id', 'field removed'],
    ['a retyped field', withProps({ count: { type: 'string' } }), '/count', 'type changed'],
    [
      'a newly required field',
      { ...base, required: [...(base.required as string[]), 'note'] },
      '/note',
      'newly required',
    ],
    [
      'a new required field',
      withProps({ extra: { type: 'string' } }, { required: [...(base.required as string[]), 'extra'] }),
      '/extra',
      'newly required',
    ],
    ['a required field made optional', { ...base, required: ['id', 'level'] }, '/at', 'became optional'],
    [
      'an added enum value',
      withProps({ level: { type: 'string', enum: ['low', 'high', 'extreme'] } }),
      '/level',
      'enum values added',
    ],
    ['a lifted enum', withProps({ level: { type: 'string' } }), '/level', 'enum removed'],
    ['a changed format', withProps({ at: { type: 'string' } }), '/at', 'format changed'],
    ['a loosened minimum', withProps({ count: { type: 'integer' } }), '/count', 'minimum loosened'],
    ['a loosened minLength', withProps({ id: { type: 'string' } }), '/id', 'minLength loosened'],
    [
      'retyped array items',
      withProps({ tags: { type: 'array', items: { type: 'number' } } }),
      '/tags/[]',
      'type changed',
    ],
    [
      'retyped map values',
      withProps({ scores: { type: 'object', additionalProperties: { type: 'string' } } }),
      '/scores/*',
      'type changed',
    ],
    [
      'opened additionalProperties',
      { ...base, additionalProperties: true },
      '/',
      'additionalProperties opened',
    ],
  ])('flags %s', (_name, next, path, change) => {
    const found = breakingChanges(base, next);
    expect(found.map((b) => b.path)).toContain(path);
    expect(found.find((b) => b.path === path)?.change).toContain(change);
  });

  it('finds changes deep inside nested objects', () => {
    const nested = (type: string): JsonSchema => ({
      type: 'object',
      properties: {
        data: { type: 'object', properties: { position: { type: 'object', properties: { lat: { type } } } } },
      },
    });
    expect(breakingChanges(nested('number'), nested('string'))).toEqual([
      { path: '/data/position/lat', change: 'type changed from ["number"] to ["string"]' },
    ]);
  });
});
