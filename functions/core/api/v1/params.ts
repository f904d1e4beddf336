/**
 * Parameters of the v1 development API and their validation before any request: VIN, contract,
 * brand, locale, unit, the `listsecond` series, dates in the API's compact formats, bulk bodies.
 */
import { type InvalidRequestError, invalidRequest } from '../errors';

// ---- Parameters ----

/** A VIN is 17 characters `[A-Z0-9]`. */
export const VIN_PATTERN = /^[A-Z0-9]{17}$/;

export type V1Brand = 'C' | 'P';
/** `0` metric, `1` imperial. */
export type V1Unit = 'metric' | 'imperial' | 0 | 1 | '0' | '1';

/** One vehicle of a fleet contract. */
export interface V1Target {
  readonly vin: string;
  readonly contract: string;
}

/** Common query of most v1 reads. */
export interface V1LocaleBrand {
  /** A language or language_COUNTRY tag (`en`, `fr_FR`). */
  readonly locale: string;
  readonly brand: V1Brand;
}

type Check = InvalidRequestError | undefined;

export function checkVin(op: string, vin: unknown, field = 'vin'): Check {
  if (typeof vin !== 'string' || !VIN_PATTERN.test(vin)) {
    return invalidRequest(op, field, 'must be 17 characters A-Z or 0-9');
  }
  return undefined;
}

export function checkContract(op: string, contract: unknown, field = 'contract'): Check {
  if (typeof contract !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(contract)) {
    return invalidRequest(op, field, 'must be a non-empty contract number (letters, digits, - or _)');
  }
  return undefined;
}

export function checkBrand(op: string, brand: unknown): Check {
  return brand === 'C' || brand === 'P' ? undefined : invalidRequest(op, 'brand', "must be 'C' or 'P'");
}

export function checkLocale(op: string, locale: unknown): Check {
  return typeof locale === 'string' && /^[A-Za-z]{2,3}([_-][A-Za-z]{2})?$/.test(locale)
    ? undefined
    : invalidRequest(op, 'locale', "must be a language or language_COUNTRY tag such as 'en' or 'fr_FR'");
}

export function unitCode(op: string, unit: unknown): { code: '0' | '1' } | InvalidRequestError {
  if (unit === 'metric' || unit === 0 || unit === '0') return { code: '0' };
  if (unit === 'imperial' || unit === 1 || unit === '1') return { code: '1' };
  return invalidRequest(op, 'unit', "must be 'metric', 'imperial', 0 or 1");
}

/** Series are keyed by second numbers 1 to 60. */
export function listSecond(op: string, seconds: unknown): { value: string } | InvalidRequestError {
  if (
    !Array.isArray(seconds) ||
    seconds.length === 0 ||
    !seconds.every((s) => typeof s === 'number' && Number.isInteger(s) && s >= 1 && s <= 60)
  ) {
    return invalidRequest(op, 'listsecond', 'must be a non-empty array of integer seconds from 1 to 60');
  }
  return { value: seconds.join(',') };
}

export function positiveInt(op: string, field: string, value: unknown): Check {
  return typeof value === 'number' && Number.isInteger(value) && value > 0
    ? undefined
    : invalidRequest(op, field, 'must be a positive integer');
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Formats a date in UTC in the API's formats (`yyyyMMdd`, `yyyyMMddHHmm`, `yyyyMM`). */
export function v1Date(
  op: string,
  field: string,
  date: unknown,
  form: 'yyyyMMdd' | 'yyyyMMddHHmm' | 'yyyyMM',
): { value: string } | InvalidRequestError {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    return invalidRequest(op, field, 'must be a valid Date');
  }
  const y = pad(date.getUTCFullYear(), 4);
  const m = pad(date.getUTCMonth() + 1);
  if (form === 'yyyyMM') return { value: `${y}${m}` };
  const d = pad(date.getUTCDate());
  if (form === 'yyyyMMdd') return { value: `${y}${m}${d}` };
  return { value: `${y}${m}${d}${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}` };
}

/** List operations take `{listvin, listcontract}`, built from `{vin, contract}[]`. */
export function bulkBody(
  op: string,
  targets: unknown,
): { value: { listvin: string[]; listcontract: string[] } } | InvalidRequestError {
  if (!Array.isArray(targets) || targets.length === 0) {
    return invalidRequest(op, 'targets', 'must be a non-empty array of {vin, contract}');
  }
  const listvin: string[] = [];
  const listcontract: string[] = [];
  for (const [i, t] of targets.entries()) {
    const target = t as Partial<V1Target> | null;
    const bad =
      checkVin(op, target?.vin, `targets[${i}].vin`) ??
      checkContract(op, target?.contract, `targets[${i}].contract`);
    if (bad) return bad;
    listvin.push(target?.vin as string);
    listcontract.push(target?.contract as string);
  }
  return { value: { listvin, listcontract } };
}
