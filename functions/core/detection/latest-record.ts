/**
 * How the latest known state of a vehicle (./latest.ts) is stored in its state record: its own
 * module, so the state's schema (./state.ts) reads it without importing what folds it.
 */
import * as z from 'zod';

/**
 * The parts of the latest state over a date schema: any string as stored, a `date-time` in the
 * HTTP contract of `GET /vehicles/{id}/state`, which shows them as they are stored.
 */
export const latestParts = <D extends z.ZodType<string>>(date: D) => ({
  /** One event's record as the snapshot keeps it: its data, when it happened and when it was read. */
  record: z.object({
    eventId: z.string(),
    occurredAt: date,
    /** When Carhook read it (the event's `detectedAt`). */
    readAt: date,
    data: z.record(z.string(), z.unknown()).meta({ description: 'the `data` of the event that told it' }),
  }),
  position: z.object({
    lat: z.number(),
    lon: z.number(),
    alt: z.number().optional(),
    heading: z.number().optional(),
    /** When the vehicle was there (the record's time). */
    at: date.optional(),
    readAt: date,
    /** The event type that told it. */
    from: z.string(),
  }),
  fuel: z.object({
    /** Tank level, percent. */
    level: z.number(),
    at: date.optional(),
    readAt: date,
    from: z.string(),
  }),
});

const stored = latestParts(z.string());

export const latestSchema = z.object({
  trip: stored.record.optional(),
  collision: stored.record.optional(),
  position: stored.position.optional(),
  fuel: stored.fuel.optional(),
});
export type Latest = z.infer<typeof latestSchema>;
