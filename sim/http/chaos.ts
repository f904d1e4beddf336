import { hash32, Rng } from '../world/prng';

/** Chaos modes, each with a rate in [0, 1] (the share of API requests it hits). */
export const CHAOS_MODES = [
  'serverError',
  'rateLimited',
  'slow',
  'hung',
  'malformedJson',
  'notFoundForEmptyList',
  'upperCaseEnums',
  'numbersAsStrings',
  'alertItemShape',
  'tokenServerError',
  'stale',
  'flap',
] as const;

/**
 * Modes that change an answer the API gave (an older copy of it, one list item dropped) rather
 * than the request: drawn from their own sequence, so turning them on leaves every other mode's
 * draws where they were.
 */
const ANSWER_MODES: readonly ChaosMode[] = ['stale', 'flap'];

export type ChaosMode = (typeof CHAOS_MODES)[number];

export type ChaosRates = Readonly<Record<ChaosMode, number>>;

export interface ChaosConfig {
  readonly rates: ChaosRates;
  /** Delay of `slow` responses, ms. */
  readonly slowMs: number;
  /** Age of the answer `stale` serves: the one the same request got this many seconds ago. */
  readonly staleSeconds: number;
  /** Where the draws restart (default: from the world seed), so scripted phases need not repeat. */
  readonly seed?: number;
}

export const DEFAULT_SLOW_MS = 2000;
export const DEFAULT_STALE_SECONDS = 300;

export function noChaos(): ChaosConfig {
  return {
    rates: Object.fromEntries(CHAOS_MODES.map((m) => [m, 0])) as Record<ChaosMode, number>,
    slowMs: DEFAULT_SLOW_MS,
    staleSeconds: DEFAULT_STALE_SECONDS,
  };
}

/** What chaos decided for one request. */
export type ChaosFlags = Readonly<Record<ChaosMode, boolean>>;

export const NO_FLAGS: ChaosFlags = Object.fromEntries(CHAOS_MODES.map((m) => [m, false])) as Record<
  ChaosMode,
  boolean
>;

export type ChaosParse = { ok: true; value: ChaosConfig } | { ok: false; field: string; message: string };

/**
 * Validates a `PUT /_sim/chaos` body: `{ "<mode>": rate, …, "slowMs"?: ms, "staleSeconds"?: s,
 * "seed"?: n }`; missing modes are 0.
 */
export function parseChaosConfig(body: unknown): ChaosParse {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, field: 'body', message: 'must be a JSON object of rates, e.g. {"serverError": 0.1}' };
  }
  const rates: Record<string, number> = { ...noChaos().rates };
  let slowMs = DEFAULT_SLOW_MS;
  let staleSeconds = DEFAULT_STALE_SECONDS;
  let seed: number | undefined;
  for (const [key, value] of Object.entries(body)) {
    if (key === 'seed') {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
        return { ok: false, field: 'seed', message: 'must be a non-negative integer' };
      }
      seed = value;
      continue;
    }
    if (key === 'slowMs') {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 120_000) {
        return {
          ok: false,
          field: 'slowMs',
          message: 'must be an integer number of milliseconds in [0, 120000]',
        };
      }
      slowMs = value;
      continue;
    }
    if (key === 'staleSeconds') {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 86_400) {
        return {
          ok: false,
          field: 'staleSeconds',
          message: 'must be an integer number of seconds in [1, 86400]',
        };
      }
      staleSeconds = value;
      continue;
    }
    if (!(CHAOS_MODES as readonly string[]).includes(key)) {
      return {
        ok: false,
        field: key,
        message: `unknown chaos mode; known: ${CHAOS_MODES.join(', ')}, slowMs, staleSeconds, seed`,
      };
    }
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
      return { ok: false, field: key, message: 'must be a rate between 0 and 1' };
    }
    rates[key] = value;
  }
  return {
    ok: true,
    value: { rates: rates as Record<ChaosMode, number>, slowMs, staleSeconds, seed },
  };
}

/**
 * Chaos draws: one number per mode for every API request, in a fixed order, from a PRNG seeded by
 * the world seed and restarted on every configuration. Same seed + same request order ⇒ same faults.
 */
export class Chaos {
  private rng: Rng;
  private tokenRng: Rng;
  private answerRng: Rng;
  config: ChaosConfig = noChaos();

  constructor(private readonly seed: number) {
    this.rng = new Rng(hash32(seed, 0xc4a0));
    this.tokenRng = new Rng(hash32(seed, 0x70c));
    this.answerRng = new Rng(hash32(seed, 0xa45));
  }

  configure(config: ChaosConfig): void {
    this.config = config;
    const seed = config.seed ?? this.seed;
    this.rng = new Rng(hash32(seed, 0xc4a0));
    this.tokenRng = new Rng(hash32(seed, 0x70c));
    this.answerRng = new Rng(hash32(seed, 0xa45));
  }

  /** Whether answers must be remembered, so that `stale` has older copies to serve. */
  get keepsAnswers(): boolean {
    return this.config.rates.stale > 0;
  }

  /** Which of `n` list items `flap` drops (its own sequence too). */
  pickItem(n: number): number {
    return Math.min(n - 1, Math.floor(this.answerRng.float() * n));
  }

  get active(): boolean {
    return CHAOS_MODES.some((m) => this.config.rates[m] > 0);
  }

  /** Flags for one API request (token endpoint excluded). */
  draw(): ChaosFlags {
    if (!this.active) return NO_FLAGS;
    const flags: Record<string, boolean> = {};
    for (const mode of CHAOS_MODES) {
      if (mode === 'tokenServerError' || ANSWER_MODES.includes(mode)) {
        flags[mode] = false;
        continue;
      }
      const rate = this.config.rates[mode];
      // Always draw, so that one mode's rate does not shift the others' sequence.
      const x = this.rng.float();
      flags[mode] = rate >= 1 || x < rate;
    }
    if (ANSWER_MODES.some((m) => this.config.rates[m] > 0)) {
      for (const mode of ANSWER_MODES) {
        const rate = this.config.rates[mode];
        const x = this.answerRng.float();
        flags[mode] = rate >= 1 || x < rate;
      }
    }
    return flags as ChaosFlags;
  }

  /** Whether the token endpoint fails this time (`tokenServerError`). */
  drawToken(): boolean {
    const rate = this.config.rates.tokenServerError;
    if (rate <= 0) return false;
    return rate >= 1 || this.tokenRng.float() < rate;
  }
}
