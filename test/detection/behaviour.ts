import type { DiffResult } from '../../functions/core/detection/diff';
import { eventId } from '../../functions/core/events/ids';

/**
 * Helpers for the behaviour tests: they pin what a consumer relies on — the exact event id (a
 * hash of vehicle, type, record key and transition), type, time and data — not a relation between
 * events of the same run.
 */
export const VEHICLE = 'veh-1';

/** The id a consumer dedupes on, for the record key and transition word of this vehicle. */
export const idOf = (type: string, key: string, transition: string): string =>
  eventId({ scope: VEHICLE, type, key, transition });

type Event = DiffResult['events'][number];

/** What a subscriber reads of each event, in order. */
export const told = (events: readonly Event[]) =>
  events.map((e) => ({ type: e.type, id: e.id, occurredAt: e.occurredAt, data: e.data }));

export const typesOf = (events: readonly Event[]) => events.map((e) => e.type);
