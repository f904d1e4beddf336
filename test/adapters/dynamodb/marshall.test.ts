import { marshall as sdkMarshall, unmarshall as sdkUnmarshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fromAttributeValue,
  marshall,
  toAttributeValue,
  unmarshall,
} from '../../../functions/adapters/dynamodb/marshall';

const SDK_OPTIONS = { removeUndefinedValues: true, convertEmptyValues: false } as const;

/** util-dynamodb keeps binaries as Uint8Array; on the JSON wire they are base64. */
function toWire(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(toWire);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toWire(v)]));
  }
  return value;
}

const safeNumber = fc.oneof(
  fc.integer(),
  fc.double({
    noNaN: true,
    noDefaultInfinity: true,
    min: -Number.MAX_SAFE_INTEGER,
    max: Number.MAX_SAFE_INTEGER,
  }),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 0, 1e-7),
);
const binary = fc.uint8Array({ maxLength: 24 });
const scalar = fc.oneof(
  fc.string(),
  safeNumber,
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
  fc.boolean(),
  fc.constant(null),
  binary,
  fc.uniqueArray(fc.string(), { minLength: 1, maxLength: 5 }).map((xs) => new Set(xs)),
  fc.uniqueArray(fc.integer(), { minLength: 1, maxLength: 5 }).map((xs) => new Set(xs)),
  fc.array(binary, { minLength: 1, maxLength: 3 }).map((xs) => new Set(xs)),
);
const { doc } = fc.letrec<{ value: unknown; doc: Record<string, unknown> }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.constant(undefined),
    fc.array(tie('value'), { maxLength: 4 }),
    tie('doc'),
  ),
  doc: fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 5 }) as fc.Arbitrary<
    Record<string, unknown>
  >,
}));

describe('marshall', () => {
  it('produces what util-dynamodb marshall produces (binary as base64)', () => {
    fc.assert(
      fc.property(doc, (d) => {
        expect(marshall(d)).toEqual(toWire(sdkMarshall(d, SDK_OPTIONS)));
      }),
      { numRuns: 500 },
    );
  });

  it('round trips through unmarshall exactly as util-dynamodb does', () => {
    fc.assert(
      fc.property(doc, (d) => {
        const sdk = sdkUnmarshall(sdkMarshall(d, SDK_OPTIONS));
        expect(unmarshall(marshall(d))).toEqual(sdk);
      }),
      { numRuns: 500 },
    );
  });

  it('unmarshalls wire attribute values as util-dynamodb unmarshalls the SDK ones', () => {
    fc.assert(
      fc.property(doc, (d) => {
        const attributes = sdkMarshall(d, SDK_OPTIONS);
        expect(unmarshall(toWire(attributes) as Record<string, unknown>)).toEqual(sdkUnmarshall(attributes));
      }),
      { numRuns: 300 },
    );
  });

  it('returns binaries as Uint8Array, big integers as bigint and sets as Set', () => {
    const back = unmarshall(
      marshall({
        b: Buffer.from('hi'),
        big: 12345678901234567890n,
        ns: new Set([1, 2]),
        bs: new Set([Buffer.from('x')]),
      }),
    );
    expect(back.b).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(back.b as Uint8Array).toString()).toBe('hi');
    expect(back.big).toBe(12345678901234567890n);
    expect(back.ns).toEqual(new Set([1, 2]));
    expect([...(back.bs as Set<Uint8Array>)].map((b) => Buffer.from(b).toString())).toEqual(['x']);
  });

  it('removes undefined from maps, lists and sets by default and rejects it when asked not to', () => {
    expect(marshall({ a: undefined, l: [1, undefined], s: new Set(['x', undefined]) })).toEqual({
      l: { L: [{ N: '1' }] },
      s: { SS: ['x'] },
    });
    expect(() =>
      toAttributeValue({ l: [1, undefined] }, { removeUndefinedValues: false, path: 'Item' }),
    ).toThrow(/Item\.l\[1\]/);
  });

  it('keeps a __proto__ key as data', () => {
    const input = JSON.parse('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    const back = unmarshall(marshall(input));
    expect(Object.keys(back)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
  });
});

describe('marshall errors name the path', () => {
  it.each([
    ['NaN', Number.NaN, RangeError],
    ['Infinity', Number.POSITIVE_INFINITY, RangeError],
    ['-Infinity', Number.NEGATIVE_INFINITY, RangeError],
    ['an unsafe integer', 2 ** 60, RangeError],
    ['an empty set', new Set(), RangeError],
    ['a Date (class instance)', new Date(0), TypeError],
    ['a class instance', new (class Vehicle {})(), TypeError],
    ['a symbol', Symbol('s'), TypeError],
  ])('rejects %s', (_title, bad, type) => {
    const item = { a: { b: [0, 1, bad] } };
    expect(() => marshall(item, { path: 'Item' })).toThrow(type);
    expect(() => marshall(item, { path: 'Item' })).toThrow(/Item\.a\.b\[2\]/);
    // util-dynamodb refuses the same values.
    expect(() => sdkMarshall(item, SDK_OPTIONS)).toThrow();
  });

  it('rejects a set mixing strings and numbers (util-dynamodb would silently store it as SS)', () => {
    const item = { a: { b: [0, 1, new Set(['a', 1])] } };
    expect(sdkMarshall(item, SDK_OPTIONS)).toEqual({
      a: { M: { b: { L: [{ N: '0' }, { N: '1' }, { SS: ['a', '1'] }] } } },
    });
    expect(() => marshall(item, { path: 'Item' })).toThrow(TypeError);
    expect(() => marshall(item, { path: 'Item' })).toThrow(/Item\.a\.b\[2\]\[1\]/);
  });

  it('unmarshalls an integer beyond 2^53 as bigint and a non-integer beyond it as an error, like util-dynamodb', () => {
    expect(fromAttributeValue({ N: '123456789012345678901234567890' })).toBe(123456789012345678901234567890n);
    const bad = { a: { L: [{ N: '1' }, { N: '12345678901234567890.5' }] } };
    expect(() => sdkUnmarshall(bad as never)).toThrow();
    expect(() => unmarshall(bad, 'Item')).toThrow(RangeError);
    expect(() => unmarshall(bad, 'Item')).toThrow(/Item\.a\[1\]/);
  });

  it('rejects attribute values without a known type', () => {
    expect(() => unmarshall({ a: {} }, 'Item')).toThrow(/Item\.a: attribute value without a type/);
    expect(() => unmarshall({ a: { X: 1 } }, 'Item')).toThrow(/unsupported attribute type X/);
  });
});
