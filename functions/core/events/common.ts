import * as z from 'zod';

/**
 * Building blocks shared by the event `data` schemas. Everything here ends up in the public JSON
 * Schemas (events-schemas/), so a change here is a change to every event that uses it: the
 * compatibility test catches the breaking ones.
 */

/** ISO 8601 UTC timestamp (`2026-11-22T10:00:00.000Z`), as the API client normalizes them. */
export const isoDate = z.iso.datetime({ offset: false }).describe('ISO 8601 UTC timestamp');

export const position = z
  .object({
    lon: z.number(),
    lat: z.number(),
    alt: z.number().optional(),
    heading: z.number().optional().describe('degrees, 0 = North'),
    collectedAt: isoDate.optional(),
  })
  .describe('WGS84 position of the vehicle');

/**
 * Enumerations the API documents but does not close ("allowed values: not shown", samples in
 * other casing): the client lower-cases the known ones and passes any other value through, so the
 * schema accepts any non-empty string and names the known values in its description.
 */
export const openEnum = (known: readonly string[], what: string) =>
  z
    .string()
    .min(1)
    .describe(`${what}: one of ${known.join(', ')}, or another value the API sends`);

export const severity = openEnum(['low', 'medium', 'high'], 'alert severity');
export const collisionLevel = openEnum(['none', 'fixable', 'low', 'medium', 'high'], 'collision level');

export const ecoScore = z.object({
  score: z.number(),
  evaluation: z.string().optional(),
  advice: z.string().optional(),
  category: z.string().optional(),
  label: z.string().optional(),
});

export const ecoDriving = z
  .object({
    global: z.record(z.string(), ecoScore).describe('global scores: trend, style, road'),
    detailed: z
      .record(z.string(), ecoScore)
      .describe('detailed scores: acceleration, braking, engineSpeed, stopAndStart, speed, slope, coldTrips'),
  })
  .describe('eco-driving evaluation of the trip');

/** One event type: the single place its name, version and `data` schema are defined. */
export interface EventDefinition<T extends string = string, D extends z.ZodType = z.ZodType> {
  readonly type: T;
  readonly version: number;
  readonly description: string;
  /** Who produces it: the diff engine, the enrollment flow, the webhook pipeline… (documentation). */
  readonly producer: string;
  /**
   * `opt-in` events (operational: `webhook.*`) are published on the event bus and sent only to the
   * webhook subscriptions that name them (`webhook.*` or the exact type; never through `*`).
   */
  readonly audience: 'all' | 'opt-in';
  readonly data: D;
}

/**
 * One event type, its `data` schema given as a function: zod builds a schema's internals when it is
 * constructed, so the catalogue builds each type's schema the first time `data` is read (a check of
 * that type, its JSON Schema), not when a function's bundle is imported.
 */
export const defineEvent = <const T extends string, D extends z.ZodType>(
  def: Omit<EventDefinition<T, D>, 'data'> & { readonly data: () => D },
): EventDefinition<T, D> => {
  let data: D | undefined;
  return {
    type: def.type,
    version: def.version,
    description: def.description,
    producer: def.producer,
    audience: def.audience,
    get data() {
      data ??= def.data();
      return data;
    },
  };
};
