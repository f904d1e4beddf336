import { type Duration, Token } from 'aws-cdk-lib';

/**
 * A construct was given props it cannot build a safe deployment from. Thrown at construction
 * time (before synthesis), so `cdk synth` stops with a message that names the prop and why.
 */
export class CarhookConfigError extends Error {
  readonly kind = 'InvalidConfiguration' as const;

  constructor(
    /** The prop (or context key) at fault, e.g. `quota.requests`. */
    readonly prop: string,
    /** Why, in words a person can act on. */
    readonly reason: string,
  ) {
    super(`Invalid Carhook configuration: \`${prop}\` ${reason}`);
    this.name = 'CarhookConfigError';
  }
}

/** Values that are CDK tokens (parameters, imports) cannot be checked at synth time: they pass. */
const unresolved = (value: unknown): boolean => Token.isUnresolved(value);

export function requireHttpsUrl(prop: string, value: string): void {
  if (unresolved(value)) return;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CarhookConfigError(prop, `must be an absolute URL, got '${value}'`);
  }
  if (url.protocol !== 'https:') {
    throw new CarhookConfigError(
      prop,
      `must use https (tokens and credentials travel on it), got '${value}'`,
    );
  }
  if (url.search !== '' || url.hash !== '') {
    throw new CarhookConfigError(prop, `must not carry a query or fragment, got '${value}'`);
  }
}

export function requireIntegerInRange(prop: string, value: number, min: number, max: number): void {
  if (unresolved(value)) return;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new CarhookConfigError(prop, `must be an integer from ${min} to ${max}, got ${value}`);
  }
}

/** Duration in whole `unit`s within [min, max]; returns the number of units. */
export function requireWholeDuration(
  prop: string,
  value: Duration,
  unit: 'seconds' | 'minutes' | 'days',
  min: number,
  max: number,
): number | undefined {
  if (value.isUnresolved()) return undefined;
  // integral: false so a fractional amount reaches our message instead of CDK's generic one.
  const opts = { integral: false };
  const amount =
    unit === 'seconds'
      ? value.toSeconds(opts)
      : unit === 'minutes'
        ? value.toMinutes(opts)
        : value.toDays(opts);
  if (!Number.isInteger(amount) || amount < min || amount > max) {
    throw new CarhookConfigError(
      prop,
      `must be a whole number of ${unit} from ${min} to ${max}, got ${value.toHumanString()}`,
    );
  }
  return amount;
}

export function requirePattern(prop: string, value: string, pattern: RegExp, what: string): void {
  if (unresolved(value)) return;
  if (!pattern.test(value)) throw new CarhookConfigError(prop, `must be ${what}, got '${value}'`);
}

/** A deliberately loose check: it catches typos and swapped arguments, SNS does the rest. */
export function requireEmail(prop: string, value: string): void {
  requirePattern(prop, value, /^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'an e-mail address');
}
