/**
 * Wire primitives shared by every area: lenient dates (ISO with `+0000` or `Z`, epoch ms, the
 * compact `yyyyMMddHHmmss` of v1), numbers sent as numeric strings, booleans sent as strings, ids,
 * the GeoJSON position and the HAL list envelope.
 */
import * as z from 'zod';
import type { Position } from '../model';

/** Epoch ms of 0000-01-01 and 9999-12-31T23:59:59.999Z: the dates `IsoDate` can spell (model.ts). */
const MIN_ISO_MS = Date.parse('0000-01-01T00:00:00.000Z');
const MAX_ISO_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * An `IsoDate` for epoch ms, or undefined outside years 0000-9999: `toISOString` throws beyond
 * ±8.64e15 ms and writes `+275760-…` for far years, which no longer compares as a string.
 */
export function isoFromMs(ms: number): string | undefined {
  return Number.isFinite(ms) && ms >= MIN_ISO_MS && ms <= MAX_ISO_MS ? new Date(ms).toISOString() : undefined;
}

/** Parses both documented date forms (`+0000` and `Z`), ISO with colon offsets, and epoch ms. */
export function toIsoDate(value: unknown): string | undefined {
  if (typeof value === 'number') return isoFromMs(value);
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const text = value.trim().replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  return isoFromMs(Date.parse(text));
}

/** An optional date: a value that is not a date becomes `undefined` rather than failing the record. */
export const wDate = z
  .unknown()
  .optional()
  .transform((v) => toIsoDate(v));

/**
 * Numbers arrive as numeric strings (`duration: "1234"`). A string beyond the double
 * range (`"1e999"`) is refused like a JSON `1e999`: Infinity would become `null` once stored.
 */
export const wNumber = z.union([
  z.number(),
  z
    .string()
    .trim()
    .regex(/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/, 'expected a number or a numeric string')
    .transform(Number)
    .pipe(z.number()),
]);
export const wOptNumber = wNumber.optional().catch(undefined);

export const wBoolean = z.union([
  z.boolean(),
  z.enum(['true', 'false', 'TRUE', 'FALSE', 'True', 'False']).transform((s) => s.toLowerCase() === 'true'),
  z.union([z.literal(0), z.literal(1)]).transform((n) => n === 1),
]);

/** Ids are strings in the spec; a numeric id is accepted and stringified. */
export const wId = z.union([z.string().min(1), z.number().transform(String)]);

/** Enum values arrive upper-case in samples (`NONE`); unknown values are kept. */
export const wLowerEnum = z.string().transform((s) => s.toLowerCase());

export const wLink = z.looseObject({ href: z.string().optional() }).optional().catch(undefined);

/** The last non-empty path segment of a HAL link (`/trips/abc` → `abc`). */
export function idFromHref(link: unknown): string | undefined {
  const href = (link as { href?: unknown } | undefined)?.href;
  if (typeof href !== 'string') return undefined;
  const segments = href.split('?')[0]?.split('/').filter(Boolean) ?? [];
  return segments.at(-1);
}

/** Drops the keys whose value is `undefined`, so optional model fields are absent, not undefined. */
export function defined<T extends object>(obj: T): T {
  for (const key of Object.keys(obj) as (keyof T)[]) if (obj[key] === undefined) delete obj[key];
  return obj;
}

// ---- GeoJSON position ----

export const wPosition = z
  .looseObject({
    geometry: z.looseObject({
      coordinates: z.array(wNumber).min(2),
    }),
    properties: z
      .looseObject({ heading: wOptNumber, createdAt: z.unknown().optional() })
      .optional()
      .catch(undefined),
  })
  .transform((g): Position => {
    const [lon, lat, alt] = g.geometry.coordinates as [number, number, number | undefined];
    return defined({
      lon,
      lat,
      alt,
      heading: g.properties?.heading,
      collectedAt: toIsoDate(g.properties?.createdAt),
    });
  });

export const wOptPosition = wPosition.optional().catch(undefined);

/** v1 and sample dates `yyyyMMddHHmmss`, or any v2 date form. */
export function toIsoFromCompact(value: unknown): string | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text === 'string') {
    const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?$/.exec(text.trim());
    if (m) {
      const [, y, mo, d, h, mi, s] = m;
      const iso = `${y}-${mo}-${d}T${h}:${mi}:${s ?? '00'}.000Z`;
      // Date.UTC would roll month 13 or hour 99 over into another date: only a real date counts.
      const out = isoFromMs(Date.parse(iso));
      return out === iso ? out : undefined;
    }
  }
  return typeof value === 'number' ? undefined : toIsoDate(value);
}
export const wCompactDate = z
  .unknown()
  .optional()
  .transform((v) => toIsoFromCompact(v));

// ---- HAL list ----

export interface WireListPage<T> {
  readonly items: readonly T[];
  /** `total` from the body; missing → unknown. */
  readonly total: number | undefined;
}

/** The list schemas built so far, per item schema and embedded names (see `wHalList`). */
const halLists = new WeakMap<z.ZodType, Map<string, z.ZodType<WireListPage<unknown>>>>();

/**
 * A HAL list with `_embedded.<name>`. Several names are accepted where the API does not
 * fix one (waypoints: "not shown", 2.11). A missing `_embedded` with `total` 0 is an empty list.
 *
 * Built once per item schema and names, then shared: a zod schema is immutable once built and
 * parsing keeps no state in it, while building one costs far more than a parse (every worker job
 * creates a client, and every client describes every list operation).
 */
export function wHalList<T>(embeddedNames: string | readonly string[], item: z.ZodType<T>) {
  const names = typeof embeddedNames === 'string' ? [embeddedNames] : embeddedNames;
  const key = names.join('\n');
  let byNames = halLists.get(item);
  if (!byNames) {
    byNames = new Map();
    halLists.set(item, byNames);
  }
  const known = byNames.get(key);
  if (known) return known as z.ZodType<WireListPage<T>>;
  const built = buildHalList(names, item);
  byNames.set(key, built as z.ZodType<WireListPage<unknown>>);
  return built;
}

function buildHalList<T>(names: readonly string[], item: z.ZodType<T>) {
  const items = z.array(item);
  return z
    .looseObject({
      // A count: anything but a non-negative safe integer (`-1`, `1.5`, `1e308`) is a total not known.
      total: wNumber
        .pipe(z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER))
        .optional()
        .catch(undefined),
      _embedded: z.record(z.string(), z.unknown()).optional(),
    })
    .transform((body, ctx): WireListPage<T> => {
      const name = names.find((n) => body._embedded?.[n] !== undefined) ?? names[0] ?? '';
      const raw = body._embedded?.[name];
      if (raw === undefined) {
        if (body.total === undefined || body.total === 0) return { items: [], total: body.total ?? 0 };
        ctx.addIssue({ code: 'custom', message: `missing _embedded.${name}`, path: ['_embedded'] });
        return z.NEVER;
      }
      const parsed = items.safeParse(raw);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          ctx.addIssue({ code: 'custom', message: issue.message, path: ['_embedded', name, ...issue.path] });
        }
        return z.NEVER;
      }
      return { items: parsed.data, total: body.total };
    });
}
