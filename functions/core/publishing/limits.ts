import type { EventEnvelope } from '../events/envelope';

/**
 * PutEvents limits (shared/reference/aws-facts.md "EventBridge"): at most 10 entries per call and
 * 256 KB per entry. A raise to 1 MB was announced in 2026; we stay at the conservative 256 KB, and
 * also keep the sum of a call's entries within it (the documented "total entry size" of a
 * request), so one batch never trips a request-size limit either.
 */
export const PUBLISH_LIMITS = {
  maxEntriesPerCall: 10,
  maxEntryBytes: 256 * 1024,
  maxCallBytes: 256 * 1024,
} as const;

export const DEFAULT_EVENT_SOURCE = 'carhook';

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * Entry size as EventBridge counts it ("Calculating Amazon EventBridge PutEvents event entry
 * size"): `Time` counts 14 bytes when set; `Source`, `DetailType`, `Detail` and each `Resources`
 * entry count their UTF-8 bytes. Carhook sets Time (= occurredAt), Source, DetailType (= type)
 * and Detail (= the JSON envelope), no Resources.
 */
export const eventBridgeEntrySize = (entry: {
  source: string;
  detailType: string;
  detail?: string;
  time?: unknown;
  resources?: readonly string[];
}): number => {
  let size = entry.time === undefined ? 0 : 14;
  size += utf8Bytes(entry.source) + utf8Bytes(entry.detailType);
  if (entry.detail !== undefined) size += utf8Bytes(entry.detail);
  for (const resource of entry.resources ?? []) size += utf8Bytes(resource);
  return size;
};

/** The size of one Carhook event as a PutEvents entry with the given source. */
export const envelopeEntrySize = (event: EventEnvelope, source: string = DEFAULT_EVENT_SOURCE): number =>
  eventBridgeEntrySize({
    source,
    detailType: event.type,
    detail: JSON.stringify(event),
    time: event.occurredAt,
  });

export interface BatchPlan<T> {
  readonly batches: T[][];
  /** Items that exceed the per-entry limit on their own: permanent failures, never sent. */
  readonly oversized: { item: T; size: number }[];
}

/**
 * Greedy, order-preserving batching: a batch closes when it has `maxEntries` items or the next item
 * would push its total over `maxBatchBytes`. Items over `maxItemBytes` are set aside.
 */
export const planBatches = <T>(
  items: readonly T[],
  limits: { maxEntries: number; maxItemBytes: number; maxBatchBytes: number; sizeOf: (item: T) => number },
): BatchPlan<T> => {
  const batches: T[][] = [];
  const oversized: { item: T; size: number }[] = [];
  let current: T[] = [];
  let currentBytes = 0;
  for (const item of items) {
    const size = limits.sizeOf(item);
    if (size > limits.maxItemBytes) {
      oversized.push({ item, size });
      continue;
    }
    if (
      current.length > 0 &&
      (current.length >= limits.maxEntries || currentBytes + size > limits.maxBatchBytes)
    ) {
      batches.push(current);
      current = [];
      currentBytes = 0;
    }
    current.push(item);
    currentBytes += size;
  }
  if (current.length > 0) batches.push(current);
  return { batches, oversized };
};
