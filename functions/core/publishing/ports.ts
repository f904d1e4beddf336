import type { EventEnvelope } from '../events/envelope';

/**
 * Why one entry was not published. `retryable` entries may succeed if sent again in this run
 * (EventBridge `InternalFailure` / `ThrottlingException`, a throttled or failed call, a local
 * subscriber that threw); the others will not (too large, malformed, access denied). Either way
 * the event stays unpublished in the event log, so the next run tries it again.
 */
export interface PublishFailure {
  readonly id: string;
  readonly retryable: boolean;
  /** `EntryTooLarge`, `InternalFailure`, `ThrottlingException`, `SubscriberFailed`, `BusCallFailed`… */
  readonly code: string;
  readonly message: string;
  /**
   * The bus's client already retried the whole call (the AWS SDK does, with its own backoff and
   * retry quota): the publisher does not try again now, and the event waits in the log for the
   * sweeper's next run.
   */
  readonly clientRetried?: boolean;
}

export interface PublishResult {
  /** Ids of the events the bus accepted. */
  readonly published: string[];
  readonly failed: PublishFailure[];
}

/**
 * The event bus port: EventBridge PutEvents on AWS, the in-process bus locally. `publish` reports per-event outcomes as values; it should not throw, and the publisher
 * treats a throw as "every event of the call failed, retryable".
 */
export interface EventBus {
  publish(events: readonly EventEnvelope[]): Promise<PublishResult>;
  /**
   * Size this bus counts against `PUBLISH_LIMITS.maxEntryBytes` for one event. When absent the
   * publisher uses `eventBridgeEntrySize` with the default source, the strictest rule we know.
   */
  entrySize?(event: EventEnvelope): number;
}

/** Marks events published in the event log (the DynamoDB store implements it). */
export interface EventLogMarker {
  markPublished(events: readonly EventEnvelope[]): Promise<void>;
}

/**
 * Where the next run finds what is still unpublished (events are committed unpublished together
 * with the state). `fromStoreEventLog` in ./publisher adapts the store's
 * `EventLog` to it.
 */
export interface UnpublishedEventSource {
  /** Oldest first, at most `limit`; `cursor` continues after the previous page. */
  listUnpublished(request: {
    limit: number;
    cursor?: string;
  }): Promise<{ events: readonly EventEnvelope[]; cursor?: string }>;
}
