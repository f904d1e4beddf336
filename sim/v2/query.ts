import type { Locale } from '../world/catalog';

/** Maximum `limit` (the API states none). Larger values get a 400 naming `limit`. */
export const MAX_LIMIT = 100;
/** Telemetry lists are per second, so they may be longer. */
export const MAX_TELEMETRY_LIMIT = 1000;

export type QueryResult<T> = { ok: true; value: T } | { ok: false; field: string; message: string };

const bad = <T>(field: string, message: string): QueryResult<T> => ({ ok: false, field, message });

/** RFC 3339 with either `Z`, `+hh:mm` or the `+0000` offset form the API's dates also use. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})$/i;

export function parseDate(value: string): number | undefined {
  const m = RFC3339.exec(value);
  if (!m) return undefined;
  const [y, mo, d, h, mi, se] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as number[];
  const day = new Date(Date.UTC(y ?? 0, (mo ?? 1) - 1, d ?? 1));
  if (day.getUTCMonth() !== (mo ?? 1) - 1 || day.getUTCDate() !== d) return undefined;
  if ((h ?? 0) > 23 || (mi ?? 0) > 59 || (se ?? 0) > 59) return undefined;
  let zone = (m[8] ?? 'Z').toUpperCase();
  if (/^[+-]\d{4}$/.test(zone)) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const frac = m[7] ? m[7].slice(0, 4).padEnd(4, '0') : '.000';
  const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${frac}${zone}`);
  return Number.isNaN(ms) ? undefined : ms;
}

function intParam(
  raw: string | undefined,
  field: string,
  fallback: number,
  min: number,
  max: number,
): QueryResult<number> {
  if (raw === undefined) return { ok: true, value: fallback };
  if (!/^-?\d+$/.test(raw)) return bad(field, `must be an integer, got '${raw}'`);
  const n = Number(raw);
  if (n < min || n > max) return bad(field, `must be between ${min} and ${max}, got ${n}`);
  return { ok: true, value: n };
}

export interface Page {
  readonly limit: number;
  readonly offset: number;
}

export function parsePage(q: URLSearchParams, defaultLimit: number, maxLimit = MAX_LIMIT): QueryResult<Page> {
  const limit = intParam(q.get('limit') ?? undefined, 'limit', defaultLimit, 1, maxLimit);
  if (!limit.ok) return limit;
  const offset = intParam(q.get('offset') ?? undefined, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
  if (!offset.ok) return offset;
  return { ok: true, value: { limit: limit.value, offset: offset.value } };
}

export interface Range {
  readonly since?: number;
  readonly until?: number;
}

/** `since` (inclusive) and `until` (exclusive), RFC 3339: lists filter on `createdAt`. */
export function parseRange(q: URLSearchParams): QueryResult<Range> {
  const out: { since?: number; until?: number } = {};
  for (const field of ['since', 'until'] as const) {
    const raw = q.get(field);
    if (raw === null) continue;
    const ms = parseDate(raw);
    if (ms === undefined)
      return bad(field, `must be an RFC 3339 date such as 2026-01-15T09:00:00.000Z, got '${raw}'`);
    out[field] = ms;
  }
  if (out.since !== undefined && out.until !== undefined && out.since > out.until) {
    return bad('since', 'must not be after until');
  }
  return { ok: true, value: out };
}

export function parseLocale(q: URLSearchParams): QueryResult<Locale> {
  const raw = q.get('locale');
  if (raw === null) return { ok: true, value: 'en' };
  if (raw === 'en' || raw === 'fr') return { ok: true, value: raw };
  return bad('locale', `must be 'fr' or 'en', got '${raw}'`);
}

export function inRange(at: number, r: Range): boolean {
  return (r.since === undefined || at >= r.since) && (r.until === undefined || at < r.until);
}
