/**
 * Small deterministic pseudo-random tools. Everything random in the simulator (world generation,
 * background activity, chaos draws) comes from here, so one seed gives one world.
 */

/** mulberry32: a tiny 32-bit PRNG, good enough for test data and fully reproducible. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit integer hash of several integers (murmur3 finalizer), to derive independent streams. */
export function hash32(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const p of parts) {
    h ^= p >>> 0;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** FNV-1a, 32 bits, of a text: a stable pseudo-random value derived from ids (the v1 renderers' details). */
export function hashText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A deterministic integer in [min, max] for `key`. */
export function hashedInt(key: string, min: number, max: number): number {
  return min + (hashText(key) % (max - min + 1));
}

export class Rng {
  private readonly next: () => number;

  constructor(seed: number) {
    this.next = mulberry32(seed);
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.next();
  }

  /** Uniform in [min, max). */
  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Integer in [min, max] (both inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new RangeError('pick() from an empty list');
    return item;
  }
}

const ID_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** An opaque, stable id: a prefix plus 16 base-36 characters hashed from the given parts. */
export function opaqueId(prefix: string, ...parts: number[]): string {
  let out = '';
  let h1 = hash32(...parts, 1);
  let h2 = hash32(...parts, 2);
  for (let i = 0; i < 8; i++) {
    out += ID_ALPHABET[h1 % 36];
    out += ID_ALPHABET[h2 % 36];
    h1 = Math.floor(h1 / 36) || hash32(h1, i);
    h2 = Math.floor(h2 / 36) || hash32(h2, i);
  }
  return `${prefix}${out}`;
}
