/**
 * What the in-memory stores hold, and the two operations every one of them needs: a copy on the way
 * in and out (callers never share the stored objects, as with a database), and DynamoDB-like pages.
 */
import { decodeCursor, encodeCursor, requireId, requirePageLimit } from '../../core/store/logic';
import type {
  Enrollment,
  Page,
  PageRequest,
  StoredEvent,
  VehicleRecord,
  VehicleStateRecord,
} from '../../core/store/records';

export interface MemoryData {
  readonly enrollments: Map<string, Enrollment>;
  readonly fleetVins: Map<string, string>;
  readonly vehicles: Map<string, VehicleRecord>;
  readonly states: Map<string, VehicleStateRecord>;
  readonly events: Map<string, StoredEvent>;
  readonly leases: Map<string, { owner: string; until: number }>;
}

export const emptyMemoryData = (): MemoryData => ({
  enrollments: new Map(),
  fleetVins: new Map(),
  vehicles: new Map(),
  states: new Map(),
  events: new Map(),
  leases: new Map(),
});

export const clone = <T>(value: T): T => structuredClone(value);

/** A copy of the record stored under `id` (checked as the input `field`); undefined when absent. */
export function copyOf<T>(records: ReadonlyMap<string, T>, field: string, id: string): T | undefined {
  requireId(field, id);
  const found = records.get(id);
  return found && clone(found);
}

/** Sorts by key (ascending unless `desc`), skips up to the cursor, cuts a page. */
export function paginate<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  request: PageRequest,
  order: 'asc' | 'desc' = 'asc',
): Page<T> {
  const limit = requirePageLimit(request.limit);
  const after = decodeCursor(request.cursor);
  const sign = order === 'asc' ? 1 : -1;
  const sorted = [...items].sort((a, b) => sign * (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  const rest =
    after === undefined
      ? sorted
      : sorted.filter((item) => (order === 'asc' ? keyOf(item) > after : keyOf(item) < after));
  const page = rest.slice(0, limit);
  const last = page.at(-1);
  return rest.length > limit && last !== undefined
    ? { items: page.map(clone), cursor: encodeCursor(keyOf(last)) }
    : { items: page.map(clone) };
}
