/**
 * Parameter parsing of the version 1 development API. Every parameter is a string; each
 * parser either returns the typed value or throws a `V1Failure` naming the parameter and why.
 */
import type { BrandCode } from '../world/types';
import { invalid } from './failure';

export type Lang = 'fr' | 'en';
export interface Locale {
  /** As sent, e.g. `fr_FR`. */
  readonly tag: string;
  /** French labels for `fr_*`, English for every other language. */
  readonly lang: Lang;
}
export type Unit = 'metric' | 'imperial';

/** A half-open time range [from, to) in epoch ms. */
export interface TimeRange {
  readonly from: number;
  readonly to: number;
}

export interface BulkPair {
  readonly vin: string;
  readonly contract: string;
}

/** Largest `listvin` accepted by a bulk POST (the API states no maximum); callers split bigger batches. */
export const MAX_BATCH = 100;
/** Largest `limit` accepted (the API states no maximum for `limit`). */
export const MAX_LIMIT = 1000;
export const DEFAULT_LIMIT = 10;
/** Default locale of the referential operations, where `locale` is optional. */
export const DEFAULT_LOCALE: Locale = { tag: 'en_GB', lang: 'en' };

export function required(raw: string | undefined, field: string): string {
  if (raw === undefined || raw.trim() === '') throw invalid(field, 'is required');
  return raw;
}

/**
 * `listsecond`: comma-separated second numbers 1..60 (the seconds of the minute to return). Returned sorted and without
 * duplicates; JSON objects order integer keys ascending anyway.
 */
export function parseListSecond(raw: string, field = 'listsecond'): number[] {
  const seconds = new Set<number>();
  for (const part of raw.split(',')) {
    const text = part.trim();
    if (!/^\d{1,2}$/.test(text)) {
      throw invalid(field, `'${part}' is not a second number; expected a comma-separated list of 1..60`);
    }
    const n = Number(text);
    if (n < 1 || n > 60) throw invalid(field, `second ${n} is outside 1..60`);
    seconds.add(n);
  }
  return [...seconds].sort((a, b) => a - b);
}

/** `near` 0/1 (geolocation reads only: 1 also takes the next sample second holding data). */
export function parseNear(raw: string): boolean {
  return parseFlag(raw, 'near');
}

/** `active` 0 (ended alerts) / 1 (active alerts). */
export function parseActive(raw: string): boolean {
  return parseFlag(raw, 'active');
}

function parseFlag(raw: string, field: string): boolean {
  if (raw === '0') return false;
  if (raw === '1') return true;
  throw invalid(field, `must be 0 or 1, got '${raw}'`);
}

/** `brand`: `C` or `P`, the two brand groups of the v1 API. */
export function parseBrand(raw: string): BrandCode {
  if (raw === 'C' || raw === 'P') return raw;
  throw invalid('brand', `must be C or P, got '${raw}'`);
}

/** `unit`: `0` metric, `1` imperial. */
export function parseUnit(raw: string): Unit {
  if (raw === '0') return 'metric';
  if (raw === '1') return 'imperial';
  throw invalid('unit', `must be 0 (metric) or 1 (imperial), got '${raw}'`);
}

/** `locale`: a language_COUNTRY tag such as `fr_FR` or `en_GB`. */
export function parseLocale(raw: string): Locale {
  if (!/^[a-z]{2}_[A-Z]{2}$/.test(raw)) {
    throw invalid('locale', `must be a language_COUNTRY tag such as fr_FR or en_GB, got '${raw}'`);
  }
  return { tag: raw, lang: raw.startsWith('fr_') ? 'fr' : 'en' };
}

/** `limit`: a positive integer, 10 when absent. */
export function parseLimit(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_LIMIT;
  if (!/^\d+$/.test(raw) || Number(raw) < 1)
    throw invalid('limit', `must be a positive integer, got '${raw}'`);
  const n = Number(raw);
  if (n > MAX_LIMIT) throw invalid('limit', `must be at most ${MAX_LIMIT}, got ${n}`);
  return n;
}

/** `tripid`: the numeric v1 trip id. */
export function parseTripId(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw invalid('tripid', `must be a numeric trip id, got '${raw}'`);
  return Number(raw);
}

/** `price`: a positive decimal number, dot as separator. */
export function parsePrice(raw: string): number {
  if (!/^\d{1,6}(\.\d{1,6})?$/.test(raw)) {
    throw invalid('price', `must be a positive decimal number such as 1.789, got '${raw}'`);
  }
  const n = Number(raw);
  if (n <= 0) throw invalid('price', 'must be greater than 0');
  return n;
}

function calendar(field: string, raw: string, y: number, mo: number, d: number, h = 0, mi = 0): number {
  const ms = Date.UTC(y, mo - 1, d, h, mi);
  const back = new Date(ms);
  if (
    mo < 1 ||
    mo > 12 ||
    h > 23 ||
    mi > 59 ||
    back.getUTCFullYear() !== y ||
    back.getUTCMonth() !== mo - 1 ||
    back.getUTCDate() !== d
  ) {
    throw invalid(field, `'${raw}' is not a valid calendar date`);
  }
  return ms;
}

/** `yyyyMMddHHmm` (crash search), UTC: the start of that minute. */
export function parseMinute(raw: string, field: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(raw);
  if (!m) throw invalid(field, `must have the form yyyyMMddHHmm, got '${raw}'`);
  return calendar(field, raw, Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]));
}

/** `yyyyMMdd`, UTC: the whole day. */
export function parseDay(raw: string, field: string): TimeRange {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(raw);
  if (!m) throw invalid(field, `must have the form yyyyMMdd, got '${raw}'`);
  const from = calendar(field, raw, Number(m[1]), Number(m[2]), Number(m[3]));
  return { from, to: from + 86_400_000 };
}

/** `yyyyMM`, UTC: the whole month. */
export function parseMonth(raw: string, field: string): TimeRange {
  const m = /^(\d{4})(\d{2})$/.exec(raw);
  if (!m) throw invalid(field, `must have the form yyyyMM, got '${raw}'`);
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const from = calendar(field, raw, y, mo, 1);
  return { from, to: Date.UTC(y, mo, 1) };
}

/** The range from the start of `from` to the end of `to`; `to` before `from` is refused. */
export function spanOf(from: TimeRange, to: TimeRange, fromField: string, toField: string): TimeRange {
  if (to.from < from.from) throw invalid(toField, `must not be before '${fromField}'`);
  return { from: from.from, to: to.to };
}

/** Crash search: both minutes inclusive. */
export function minuteSpan(from: number, to: number, toField: string): TimeRange {
  if (to < from) throw invalid(toField, "must not be before 'from'");
  return { from, to: to + 60_000 };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalid('body', 'is not valid JSON');
  }
}

function stringList(value: unknown, field: string): string[] {
  if (value === undefined || value === null) throw invalid(field, 'is required (an array of strings)');
  if (!Array.isArray(value)) throw invalid(field, 'must be an array of strings');
  return value.map((item: unknown, i) => {
    if (typeof item !== 'string' || item.trim() === '') {
      throw invalid(field, `entry ${i} must be a non-empty string`);
    }
    return item;
  });
}

/**
 * Body of the bulk POST operations: `{listvin: string[], listcontract: string[]}`, pairwise
 * Duplicated VINs keep their first pair only.
 */
export function parseBulkBody(text: string): BulkPair[] {
  if (text.trim() === '') throw invalid('body', 'is required: {"listvin": [...], "listcontract": [...]}');
  const body = parseJson(text);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('body', 'must be a JSON object {"listvin": [...], "listcontract": [...]}');
  }
  const record = body as Record<string, unknown>;
  const vins = stringList(record.listvin, 'listvin');
  const contracts = stringList(record.listcontract, 'listcontract');
  if (vins.length === 0) throw invalid('listvin', 'must hold at least one VIN');
  if (vins.length > MAX_BATCH) {
    throw invalid('listvin', `holds ${vins.length} VINs; at most ${MAX_BATCH} per request, split the batch`);
  }
  if (contracts.length !== vins.length) {
    throw invalid(
      'listcontract',
      `must hold one contract per VIN (${vins.length} VINs, ${contracts.length} contracts)`,
    );
  }
  const seen = new Set<string>();
  const pairs: BulkPair[] = [];
  vins.forEach((vin, i) => {
    if (seen.has(vin)) return;
    seen.add(vin);
    pairs.push({ vin, contract: contracts[i] as string });
  });
  return pairs;
}

export interface PictureOptions {
  readonly width: number;
  readonly format: string;
  readonly background: string;
  readonly trim: string;
  readonly view: string;
  readonly ratio: string;
}

export const DEFAULT_PICTURE: PictureOptions = {
  width: 800,
  format: 'png',
  background: 'white',
  trim: 'standard',
  view: '001',
  ratio: '16:9',
};
const MAX_PICTURE_WIDTH = 4096;

/** Body of POST /vehicle/picture: every field optional, defaults from `DEFAULT_PICTURE`. */
export function parsePictureBody(text: string): PictureOptions {
  if (text.trim() === '') return DEFAULT_PICTURE;
  const body = parseJson(text);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('body', 'must be a JSON object {width, format, background, trim, view, ratio}');
  }
  const record = body as Record<string, unknown>;
  const text1 = (field: keyof PictureOptions & string, fallback: string): string => {
    const value = record[field];
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || value.trim() === '') throw invalid(field, 'must be a non-empty string');
    return value;
  };
  let width = DEFAULT_PICTURE.width;
  if (record.width !== undefined) {
    const w = record.width;
    if (typeof w !== 'number' || !Number.isInteger(w) || w < 1 || w > MAX_PICTURE_WIDTH) {
      throw invalid('width', `must be an integer number of pixels in 1..${MAX_PICTURE_WIDTH}`);
    }
    width = w;
  }
  return {
    width,
    format: text1('format', DEFAULT_PICTURE.format),
    background: text1('background', DEFAULT_PICTURE.background),
    trim: text1('trim', DEFAULT_PICTURE.trim),
    view: text1('view', DEFAULT_PICTURE.view),
    ratio: text1('ratio', DEFAULT_PICTURE.ratio),
  };
}
