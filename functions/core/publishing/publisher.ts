import { backoffCeiling, equalJitter } from '../backoff';
import { systemNow } from '../clock';
import type { EventEnvelope } from '../events/envelope';
import { describeValidationError, type EventValidationResult, validateEvent } from '../events/validate';
import { envelopeEntrySize, PUBLISH_LIMITS, planBatches } from './limits';
import type { EventBus, EventLogMarker, PublishFailure, UnpublishedEventSource } from './ports';

export interface PublishOptions {
  readonly bus: EventBus;
  readonly marker: EventLogMarker;
  /** Bus calls per event in this run, the first included (default 4). */
  readonly maxAttempts?: number;
  /** Backoff before attempt n+1 is about `baseDelayMs · 2^(n-1)`, capped, with jitter. */
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** In [0, 1); injectable so tests are deterministic. */
  readonly random?: () => number;
  /**
   * Checks each event against its published JSON Schema before it leaves (default:
   * `validateEvent`). An invalid event is a permanent failure: it stays unpublished in the log,
   * reported, and the sweeper publishes it once the producer is fixed.
   */
  readonly validate?: (event: EventEnvelope) => EventValidationResult;
}

export interface PublishOutcome {
  /** Accepted by the bus (and, unless listed in `unmarked`, marked published in the log). */
  readonly published: string[];
  /**
   * Still unpublished after this run: they stay unpublished in the event log and the next run
   * retries them. `retryable: false` ones (e.g. `EntryTooLarge`) will fail again until fixed.
   */
  readonly unpublished: PublishFailure[];
  /**
   * Published but the log could not be marked: the next run publishes them again, with the same
   * id (subscribers may see an event twice, never two different ids for one change).
   */
  readonly unmarked: { ids: string[]; message: string }[];
  /** Bus calls made. */
  readonly calls: number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Publishes committed events: PutEvents-sized batches (≤ 10 entries, within
 * the byte limits of PUBLISH_LIMITS), retries only the entries the bus says are retryable, with
 * exponential backoff and jitter, a bounded number of times; marks what was accepted. Never throws
 * for a bus or marker failure: the events stay unpublished in the log for the next run.
 */
export const publishEvents = async (
  events: readonly EventEnvelope[],
  options: PublishOptions,
): Promise<PublishOutcome> => {
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? 4));
  const baseDelayMs = options.baseDelayMs ?? 200;
  const maxDelayMs = options.maxDelayMs ?? 5_000;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const { bus, marker } = options;
  const validate = options.validate ?? validateEvent;

  const published: string[] = [];
  const unpublished: PublishFailure[] = [];
  const unmarked: { ids: string[]; message: string }[] = [];
  let calls = 0;

  // The same event twice in one call (e.g. a re-read page) is published once.
  const seen = new Set<string>();
  const unique: EventEnvelope[] = [];
  const sizes = new Map<string, number>();
  for (const event of events) {
    if (seen.has(event.id)) continue;
    seen.add(event.id);
    try {
      sizes.set(event.id, bus.entrySize ? bus.entrySize(event) : envelopeEntrySize(event));
    } catch (error) {
      unpublished.push({
        id: event.id,
        retryable: false,
        code: 'Unserializable',
        message: `event ${event.id} (${event.type}) cannot be serialized to JSON: ${describe(error)}`,
      });
      continue;
    }
    const valid = validate(event);
    if (!valid.ok) {
      unpublished.push({
        id: event.id,
        retryable: false,
        code: 'InvalidEvent',
        message: `event ${event.id} (${event.type}) does not match its published schema: ${describeValidationError(valid.error)}`,
      });
      continue;
    }
    unique.push(event);
  }

  const plan = planBatches(unique, {
    maxEntries: PUBLISH_LIMITS.maxEntriesPerCall,
    maxItemBytes: PUBLISH_LIMITS.maxEntryBytes,
    maxBatchBytes: PUBLISH_LIMITS.maxCallBytes,
    sizeOf: (event) => sizes.get(event.id) ?? 0,
  });
  for (const { item, size } of plan.oversized) {
    unpublished.push({
      id: item.id,
      retryable: false,
      code: 'EntryTooLarge',
      message: `event ${item.id} (${item.type}) is ${size} bytes as a PutEvents entry; the limit is ${PUBLISH_LIMITS.maxEntryBytes} bytes (aws-facts.md "EventBridge")`,
    });
  }

  let pending = plan.batches.flat();
  for (let attempt = 1; attempt <= maxAttempts && pending.length > 0; attempt++) {
    if (attempt > 1) {
      // Equal jitter: at least half the backoff, so a throttled bus really gets a pause.
      await sleep(equalJitter(backoffCeiling(attempt - 1, baseDelayMs, maxDelayMs), random));
    }
    const isLast = attempt === maxAttempts;
    const retry: EventEnvelope[] = [];
    const batches =
      attempt === 1
        ? plan.batches
        : planBatches(pending, {
            maxEntries: PUBLISH_LIMITS.maxEntriesPerCall,
            maxItemBytes: PUBLISH_LIMITS.maxEntryBytes,
            maxBatchBytes: PUBLISH_LIMITS.maxCallBytes,
            sizeOf: (event) => sizes.get(event.id) ?? 0,
          }).batches;
    for (const batch of batches) {
      calls++;
      const byId = new Map(batch.map((event) => [event.id, event]));
      let result: { published: string[]; failed: PublishFailure[] };
      try {
        result = await bus.publish(batch);
      } catch (error) {
        result = {
          published: [],
          failed: batch.map((event) => ({
            id: event.id,
            retryable: true,
            code: 'BusCallFailed',
            message: `the bus call threw: ${describe(error)}`,
          })),
        };
      }
      const accepted = [...new Set(result.published)].filter((id) => byId.has(id));
      const acceptedSet = new Set(accepted);
      published.push(...accepted);
      const failedIds = new Set<string>();
      for (const failure of result.failed) {
        const event = byId.get(failure.id);
        if (!event || acceptedSet.has(failure.id) || failedIds.has(failure.id)) continue;
        failedIds.add(failure.id);
        if (failure.retryable && !failure.clientRetried && !isLast) retry.push(event);
        else unpublished.push(failure);
      }
      // A bus that forgets to report an event: treat it as a retryable failure, never as published.
      for (const event of batch) {
        if (acceptedSet.has(event.id) || failedIds.has(event.id)) continue;
        const failure = {
          id: event.id,
          retryable: true,
          code: 'NoResult',
          message: `the bus returned no result for event ${event.id}`,
        };
        if (isLast) unpublished.push(failure);
        else retry.push(event);
      }
      if (accepted.length > 0) {
        try {
          await marker.markPublished(accepted.map((id) => byId.get(id) as EventEnvelope));
        } catch (error) {
          unmarked.push({ ids: accepted, message: `marking published failed: ${describe(error)}` });
        }
      }
    }
    pending = retry;
  }

  return { published, unpublished, unmarked, calls };
};

/**
 * One publishing run over the event log: reads unpublished events page by page and publishes them.
 * Walks on past events that failed for good (a poison event never blocks the others), but stops
 * at a page where nothing got through and something may later (the bus is down: one page per run
 * is enough to find out), or where marking failed.
 */
export const publishPending = async (
  source: UnpublishedEventSource,
  options: PublishOptions & { pageSize?: number; maxPages?: number },
): Promise<PublishOutcome> => {
  const pageSize = options.pageSize ?? 100;
  const maxPages = options.maxPages ?? 50;
  const total = {
    published: [] as string[],
    unpublished: [] as PublishFailure[],
    unmarked: [] as PublishOutcome['unmarked'],
    calls: 0,
  };
  const given = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const listed = await source.listUnpublished({ limit: pageSize, ...(cursor ? { cursor } : {}) });
    const events = listed.events.filter((event) => !given.has(event.id));
    for (const event of events) given.add(event.id);
    const outcome = await publishEvents(events, options);
    total.published.push(...outcome.published);
    total.unpublished.push(...outcome.unpublished);
    total.unmarked.push(...outcome.unmarked);
    total.calls += outcome.calls;
    const busDown = outcome.published.length === 0 && outcome.unpublished.some((f) => f.retryable);
    if (!listed.cursor || busDown || outcome.unmarked.length > 0) break;
    cursor = listed.cursor;
  }
  return total;
};

/** The parts of the store's `EventLog` (functions/core/store/ports.ts) publishing needs. */
export interface StoreEventLogLike {
  listUnpublished(query: {
    readonly now: number;
    readonly limit?: number;
    readonly cursor?: string;
  }): Promise<{ readonly items: readonly { readonly envelope: EventEnvelope }[]; readonly cursor?: string }>;
  markPublished(eventIds: readonly string[], now: number): Promise<void>;
}

/** Adapts the store's event log to the publisher's marker and source ports. */
export const fromStoreEventLog = (
  log: StoreEventLogLike,
  now: () => number = systemNow,
): EventLogMarker & UnpublishedEventSource => ({
  markPublished: (events) =>
    log.markPublished(
      events.map((event) => event.id),
      now(),
    ),
  listUnpublished: async ({ limit, cursor }) => {
    const page = await log.listUnpublished({ now: now(), limit, ...(cursor ? { cursor } : {}) });
    return {
      events: page.items.map((item) => item.envelope),
      ...(page.cursor ? { cursor: page.cursor } : {}),
    };
  },
});

const describe = (error: unknown): string => {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
};
