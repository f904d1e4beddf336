/**
 * Plain values <-> DynamoDB attribute values as they travel in the JSON protocol (binary as base64).
 * Same mapping as @aws-sdk/util-dynamodb's `marshall(v, { removeUndefinedValues: true })` / `unmarshall(v)`:
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_AttributeValue.html
 */
export type AttributeValue =
  | { S: string }
  | { N: string }
  | { B: string }
  | { BOOL: boolean }
  | { NULL: true }
  | { SS: string[] }
  | { NS: string[] }
  | { BS: string[] }
  | { L: AttributeValue[] }
  | { M: Record<string, AttributeValue> };

export interface MarshallOptions {
  /** Drop `undefined` from maps, lists and sets (default true); otherwise it is an error. */
  readonly removeUndefinedValues?: boolean;
  /** Where the value sits, for error messages (`Item`, `TransactItems[0].Put.Item`). */
  readonly path?: string;
}

/** `out[key] = value`, except that a `__proto__` key stays data instead of replacing the prototype. */
const put = <T>(out: Record<string, T>, key: string, value: T): void => {
  if (key === '__proto__')
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
};

const isBinary = (value: unknown): value is ArrayBufferView | ArrayBuffer =>
  ArrayBuffer.isView(value) || value instanceof ArrayBuffer;

const base64 = (value: ArrayBufferView | ArrayBuffer): string =>
  (ArrayBuffer.isView(value)
    ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
    : Buffer.from(value)
  ).toString('base64');

const isPlainObject = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

function numberToN(value: number | bigint, path: string): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`${path}: ${value} cannot be stored in DynamoDB`);
    // A double beyond 2^53 has already lost digits; util-dynamodb refuses it too (use a bigint).
    if (Math.abs(value) > Number.MAX_SAFE_INTEGER) {
      throw new RangeError(`${path}: ${value} is beyond Number.MAX_SAFE_INTEGER; pass a bigint`);
    }
  }
  return String(value);
}

function setToAttributeValue(set: Set<unknown>, options: MarshallOptions, path: string): AttributeValue {
  const members = [...set].filter(
    (member) => member !== undefined || options.removeUndefinedValues === false,
  );
  if (members.length === 0) throw new RangeError(`${path}: DynamoDB does not store empty sets`);
  const kind = (v: unknown): string =>
    typeof v === 'string'
      ? 'SS'
      : typeof v === 'number' || typeof v === 'bigint'
        ? 'NS'
        : isBinary(v)
          ? 'BS'
          : '';
  const type = kind(members[0]);
  members.forEach((member, i) => {
    if (!type || kind(member) !== type) {
      throw new TypeError(`${path}[${i}]: a set holds only strings, only numbers or only binaries`);
    }
  });
  if (type === 'SS') return { SS: members as string[] };
  if (type === 'NS') return { NS: members.map((m, i) => numberToN(m as number | bigint, `${path}[${i}]`)) };
  return { BS: members.map((m) => base64(m as ArrayBuffer)) };
}

/** One value as an attribute value. */
export function toAttributeValue(value: unknown, options: MarshallOptions = {}): AttributeValue {
  const path = options.path ?? 'value';
  switch (typeof value) {
    case 'string':
      return { S: value };
    case 'number':
    case 'bigint':
      return { N: numberToN(value, path) };
    case 'boolean':
      return { BOOL: value };
    case 'object':
      if (value === null) return { NULL: true };
      if (Array.isArray(value)) {
        const list: AttributeValue[] = [];
        value.forEach((member, i) => {
          // Like util-dynamodb (and JSON.stringify): functions are skipped, undefined too when asked.
          if (
            typeof member === 'function' ||
            (member === undefined && options.removeUndefinedValues !== false)
          ) {
            return;
          }
          list.push(toAttributeValue(member, { ...options, path: `${path}[${i}]` }));
        });
        return { L: list };
      }
      if (value instanceof Set) return setToAttributeValue(value, options, path);
      if (isBinary(value)) return { B: base64(value) };
      if (value instanceof Map || isPlainObject(value))
        return { M: marshall(value as Record<string, unknown>, { ...options, path }) };
      throw new TypeError(
        `${path}: ${value.constructor?.name ?? 'object'} instances cannot be stored; pass a plain object`,
      );
    default:
      throw new TypeError(`${path}: ${typeof value} cannot be stored in DynamoDB`);
  }
}

/** A plain object or Map as an attribute map (an item, a key, expression attribute values). */
export function marshall(
  value: Readonly<Record<string, unknown>> | ReadonlyMap<string, unknown>,
  options: MarshallOptions = {},
): Record<string, AttributeValue> {
  const path = options.path ?? 'item';
  const out: Record<string, AttributeValue> = {};
  const entries = value instanceof Map ? value.entries() : Object.entries(value);
  for (const [key, member] of entries) {
    if (typeof key !== 'string') throw new TypeError(`${path}: map keys must be strings, got ${typeof key}`);
    if (typeof member === 'function' || (member === undefined && options.removeUndefinedValues !== false))
      continue;
    put(out, key, toAttributeValue(member, { ...options, path: `${path}.${key}` }));
  }
  return out;
}

const bytes = (value: unknown): Uint8Array =>
  value instanceof Uint8Array ? value : new Uint8Array(Buffer.from(String(value), 'base64'));

function toNumber(n: unknown, path: string): number | bigint {
  const text = String(n);
  const num = Number(text);
  // util-dynamodb: a finite number beyond 2^53 comes back as a bigint when it is an integer, else an error.
  if (Number.isFinite(num) && Math.abs(num) > Number.MAX_SAFE_INTEGER) {
    try {
      return BigInt(text);
    } catch {
      throw new RangeError(`${path}: ${text} is beyond Number.MAX_SAFE_INTEGER and not an integer`);
    }
  }
  return num;
}

/** One attribute value as a plain value (binary as Uint8Array, big integers as bigint). */
export function fromAttributeValue(av: unknown, path = 'value'): unknown {
  if (typeof av !== 'object' || av === null) throw new TypeError(`${path}: not an attribute value`);
  for (const [type, v] of Object.entries(av)) {
    if (v === undefined) continue;
    switch (type) {
      case 'S':
        return v;
      case 'N':
        return toNumber(v, path);
      case 'B':
        return bytes(v);
      case 'BOOL':
        return Boolean(v);
      case 'NULL':
        return null;
      case 'SS':
        return new Set(v as string[]);
      case 'NS':
        return new Set((v as unknown[]).map((n, i) => toNumber(n, `${path}[${i}]`)));
      case 'BS':
        return new Set((v as unknown[]).map(bytes));
      case 'L':
        return (v as unknown[]).map((member, i) => fromAttributeValue(member, `${path}[${i}]`));
      case 'M':
        return unmarshall(v as Record<string, unknown>, path);
      default:
        throw new TypeError(`${path}: unsupported attribute type ${type}`);
    }
  }
  throw new TypeError(`${path}: attribute value without a type`);
}

/** An attribute map (an item, a key, an error's raw `Item`) as a plain object. */
export function unmarshall(map: Readonly<Record<string, unknown>>, path = 'item'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, av] of Object.entries(map)) put(out, key, fromAttributeValue(av, `${path}.${key}`));
  return out;
}
