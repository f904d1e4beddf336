/**
 * Durations on the command line: `500ms`, `2s`, `1.5m`, `1h` (a bare number is seconds). Bad input
 * is a message naming the flag and an example, never an exception.
 */
const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

export function parseDuration(
  flag: string,
  raw: string,
  limits: { minMs: number; maxMs: number },
): Parsed<number> {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(raw.trim());
  if (!match) return { ok: false, message: `${flag}: "${raw}" is not a duration (examples: 500ms, 2s, 1m)` };
  const ms = Math.round(Number(match[1]) * (UNITS[match[2] ?? 's'] ?? 1000));
  if (ms < limits.minMs)
    return { ok: false, message: `${flag}: must be at least ${formatDuration(limits.minMs)}` };
  if (ms > limits.maxMs)
    return { ok: false, message: `${flag}: must be at most ${formatDuration(limits.maxMs)}` };
  return { ok: true, value: ms };
}

export function parseInteger(
  flag: string,
  raw: string,
  limits: { min: number; max: number },
): Parsed<number> {
  if (!/^\d+$/.test(raw.trim())) {
    return {
      ok: false,
      message: `${flag}: "${raw}" must be a whole number from ${limits.min} to ${limits.max}`,
    };
  }
  const n = Number(raw.trim());
  if (n < limits.min || n > limits.max) {
    return { ok: false, message: `${flag}: ${n} must be from ${limits.min} to ${limits.max}` };
  }
  return { ok: true, value: n };
}

export const formatDuration = (ms: number): string =>
  ms % 3_600_000 === 0
    ? `${ms / 3_600_000}h`
    : ms % 60_000 === 0
      ? `${ms / 60_000}m`
      : ms % 1000 === 0
        ? `${ms / 1000}s`
        : `${ms}ms`;
