/**
 * How the latest known state of a vehicle (./latest.ts) is stored in its state record: its own
 * module, so the state's schema (./state.ts) reads it without importing what folds it.
 */
import * as z from 'zod';

const iso = z.string();

/** One event's record as the snapshot keeps it: its data, when it happened and when it was read. */
const recordSchema = z.object({
  eventId: z.string(),
  occurredAt: iso,
  /** When Carhook read it (the event's `detectedAt`). */
  readAt: iso,
  data: z.record(z.string(), z.unknown()),
});

export const latestSchema = z.object({
  trip: recordSchema.optional(),
  collision: recordSchema.optional(),
  position: z
    .object({
      lat: z.number(),
      lon: z.number(),
      alt: z.number().optional(),
      heading: z.number().optional(),
      /** When the vehicle was there (the record's time). */
      at: iso.optional(),
      readAt: iso,
      /** The event type that told it. */
      from: z.string(),
    })
    .optional(),
  fuel: z
    .object({
      /** Tank level, percent. */
      level: z.number(),
      at: iso.optional(),
      readAt: iso,
      from: z.string(),
    })
    .optional(),
});
export type Latest = z.infer<typeof latestSchema>;
