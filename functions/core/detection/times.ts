import type { IsoDate } from '../api/model';
import { isoFromMs } from '../api/wire/common';

/**
 * The API gives dates as RFC 3339 timestamps (forms seen: `2026-11-01T08:00:00.000Z` and
 * `2026-11-01T08:00:00.000+0000`). The engine compares record times as text, which is only right
 * for one spelling of an instant: the canonical UTC form `toISOString` writes (what the API
 * client's date parser gives). A time in another RFC 3339 spelling (an offset, a lower-case `t` or
 * `z`, a space for `T`, no fraction) is the same instant, so it is rewritten to that form before
 * anything reads it; `2026-01-01T10:00:00+01:00` and `2026-01-01T09:00:00Z` are then equal.
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$/;

/**
 * Whether `v` is already the canonical form: what `toISOString` writes for that instant (so no
 * `…:00Z` without a fraction, which sorts after `…:00.500Z`, and no impossible date).
 */
const CANONICAL = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

// Stryker disable next-line BlockStatement: without the shortcut every time takes the general reading, which gives the same answer
const isCanonical = (v: string): boolean => {
  // Stryker disable next-line ConditionalExpression: a time the shortcut refuses takes the general reading, which gives the same answer
  if (!CANONICAL.test(v)) return false;
  // Days 29 to 31 exist in some months only; days 01 to 28 in all (the calendar check costs more).
  // Stryker disable next-line ConditionalExpression,LogicalOperator: the calendar check gives the same answer for days 01 to 28
  return v.charCodeAt(8) < 0x32 || (v.charCodeAt(8) === 0x32 && v.charCodeAt(9) < 0x39) || realDay(v);
};

// Stryker disable next-line MethodExpression,ArrowFunction: a false answer only sends the time to the general reading, which gives the same
const realDay = (v: string): boolean => existingDay(v.slice(0, 4), v.slice(5, 7), v.slice(8, 10));

/**
 * Whether the calendar has that day (`setUTCFullYear`, unlike `Date.UTC`, keeps years 0-99 as
 * given): a day past the month's end rolls into the next month, so its day of the month changes.
 */
const existingDay = (year: string, month: string, day: string): boolean => {
  const date = new Date(0);
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  return date.getUTCDate() === Number(day);
};

/** The canonical UTC form of an RFC 3339 timestamp, or undefined when `v` is not one. */
export const toInstant = (v: unknown): IsoDate | undefined => {
  // Stryker disable next-line ConditionalExpression: RegExp.exec reads a non-string as its text, which no RFC 3339 pattern matches (here for the type checker)
  if (typeof v !== 'string') return undefined;
  // Stryker disable next-line ConditionalExpression: the general reading below gives a canonical time back unchanged
  if (isCanonical(v)) return v;
  const m = RFC3339.exec(v);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s, frac = '', zone] = m;
  // Date.parse rolls impossible dates over (February 30th is March 2nd): check the calendar first.
  if (!existingDay(y as string, mo as string, d as string)) return undefined;
  // Date.parse reads 24:00 as the next day's midnight (and refuses minute or second 60).
  if (Number(h) > 23) return undefined;
  // ECMAScript's date format writes an offset with a colon (V8 happens to read `+0100` too).
  // Stryker disable next-line StringLiteral,Regex: V8's fallback parser reads an offset without its colon as well; a zone is Z, z or ±hh(:)mm
  const offset = /^[Zz]$/.test(zone as string)
    ? 'Z'
    : `${(zone as string).slice(0, 3)}:${(zone as string).slice(-2)}`;
  return isoFromMs(Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${frac}${offset}`));
};

/** The time fields of the API's records (every `IsoDate` of the model that detection reads). */
const TIME_FIELDS = [
  'createdAt',
  'updatedAt',
  'startedAt',
  'endedAt',
  'stoppedAt',
  'releasedAt',
  'dateAlertBegin',
  'dateAlertEnd',
  'dateUpdate',
  'lastUpdate',
  'dateTripBegin',
] as const;

/** Records a vehicle event embeds: their times are read like the list's. */
const EMBEDDED = ['alert', 'collision', 'trip'] as const;

/** The value as the reason shows it: a string quoted (at most 40 characters), else its type. */
const shown = (v: unknown): string =>
  typeof v === 'string' ? JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v) : `a ${typeof v}`;

export type TimeProblem = (field: string, reason: string) => void;

/**
 * One item with its times in canonical form. A time that is not an RFC 3339 timestamp is dropped
 * (the item is applied as one without that time, like the API client reads such a date) and
 * reported through `problem` with the field's path, so it is never compared as text nor silently
 * lost. One exception keeps the record's meaning: a v1 alert end that does not parse still says
 * the alert ended (`alertState` 0), at a time the API did not give readably.
 * Returns the item itself when every time is canonical already (the usual case: no copy).
 */
export const withInstants = <T>(item: T, problem: TimeProblem, prefix = ''): T => {
  if (typeof item !== 'object' || item === null) return item;
  const r = item as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const k of TIME_FIELDS) {
    const v = r[k];
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator,StringLiteral: a shortcut; toInstant gives a canonical time back as it is
    if (v === undefined || (typeof v === 'string' && isCanonical(v))) continue;
    out ??= { ...r };
    const instant = toInstant(v);
    if (instant !== undefined) {
      out[k] = instant;
      continue;
    }
    delete out[k];
    if (k === 'dateAlertEnd') out.alertState = 0;
    problem(`${prefix}${k}`, `not an RFC 3339 timestamp (${shown(v)}); the record is read without it`);
  }
  for (const k of EMBEDDED) {
    const v = r[k];
    const read = withInstants(v, problem, `${prefix}${k}.`);
    // Stryker disable next-line ConditionalExpression: copying an unchanged record gives an equal one
    if (read === v) continue;
    out ??= { ...r };
    out[k] = read;
  }
  return (out ?? item) as T;
};
