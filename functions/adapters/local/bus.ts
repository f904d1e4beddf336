import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { EventEnvelope } from '../../core/events/envelope';
import type { EventBus, PublishFailure, PublishResult } from '../../core/publishing/ports';

/** Receives each published event (the webhook fan-out subscribes here in the local runtime). */
export type BusSubscriber = (event: EventEnvelope) => Promise<void> | void;

export interface LocalBusOptions {
  /** Where the compact one-line-per-event log goes; default stdout, `null` = silent. */
  readonly out?: { write(chunk: string): unknown } | null;
  /** Appends one JSON envelope per line (directory created); omitted = no file. */
  readonly jsonlPath?: string;
  /** Events whose delivery is incomplete that the bus remembers for retries (default 10,000). */
  readonly memory?: number;
}

interface Progress {
  logged: boolean;
  delivered: Set<string>;
}

/**
 * The in-process event bus of the local runtime (DESIGN.md ports table): every event is
 * printed compactly and appended to a JSONL file, then handed to each subscriber. A subscriber
 * that throws never keeps the event from the others; the event is reported as a retryable failure,
 * and when the publisher retries it only the subscribers that have not had it yet are called again
 * (and the file gets no second line). After a restart that memory is gone: a retried event may reach
 * a subscriber twice, always with the same id, as on EventBridge.
 */
export class LocalBus implements EventBus {
  private readonly subscribers = new Map<string, BusSubscriber>();
  private readonly progress = new Map<string, Progress>();
  private readonly out: { write(chunk: string): unknown } | null;
  private readonly memory: number;
  private directoryReady: Promise<unknown> | undefined;
  private anonymous = 0;

  constructor(private readonly options: LocalBusOptions = {}) {
    this.out = options.out === undefined ? process.stdout : options.out;
    this.memory = options.memory ?? 10_000;
  }

  /** Returns the unsubscribe function. Names must be unique; they appear in failure reports. */
  subscribe(subscriber: BusSubscriber, options: { name?: string } = {}): () => void {
    const name = options.name ?? `subscriber-${++this.anonymous}`;
    if (this.subscribers.has(name)) {
      throw new RangeError(`subscribe: a subscriber named "${name}" already exists`);
    }
    this.subscribers.set(name, subscriber);
    return () => {
      this.subscribers.delete(name);
    };
  }

  async publish(events: readonly EventEnvelope[]): Promise<PublishResult> {
    const published: string[] = [];
    const failed: PublishFailure[] = [];
    const fresh = events.filter((event) => !this.progressOf(event.id).logged);
    if (fresh.length > 0) {
      try {
        await this.record(fresh);
      } catch (error) {
        const message = `appending to ${this.options.jsonlPath} failed: ${describe(error)}`;
        for (const event of fresh)
          failed.push({ id: event.id, retryable: true, code: 'JsonlAppendFailed', message });
      }
    }
    const failedIds = new Set(failed.map((f) => f.id));
    // Events in order (consumers order by sequence, but in-order is kinder); subscribers in parallel.
    for (const event of events) {
      if (failedIds.has(event.id)) continue;
      const progress = this.progressOf(event.id);
      const pending = [...this.subscribers].filter(([name]) => !progress.delivered.has(name));
      const outcomes = await Promise.all(
        pending.map(async ([name, subscriber]) => {
          try {
            await subscriber(event);
            progress.delivered.add(name);
            return undefined;
          } catch (error) {
            return `${name}: ${describe(error)}`;
          }
        }),
      );
      const errors = outcomes.filter((o): o is string => o !== undefined);
      if (errors.length === 0) {
        published.push(event.id);
        this.progress.delete(event.id);
      } else {
        failed.push({
          id: event.id,
          retryable: true,
          code: 'SubscriberFailed',
          message: `event ${event.id} (${event.type}) failed in ${errors.length} subscriber(s): ${errors.join('; ')}`,
        });
      }
    }
    return { published, failed };
  }

  private progressOf(id: string): Progress {
    let progress = this.progress.get(id);
    if (!progress) {
      progress = { logged: false, delivered: new Set() };
      this.progress.set(id, progress);
      // Oldest first out: Map keeps insertion order.
      while (this.progress.size > this.memory) {
        const oldest = this.progress.keys().next().value;
        if (oldest === undefined) break;
        this.progress.delete(oldest);
      }
    }
    return progress;
  }

  private async record(events: readonly EventEnvelope[]): Promise<void> {
    const path = this.options.jsonlPath;
    if (path) {
      // The event log holds vehicle data: private to the user (0700 directory, 0600 file).
      this.directoryReady ??= mkdir(dirname(path), { recursive: true, mode: 0o700 }).catch(
        (error: unknown) => {
          this.directoryReady = undefined; // try again on the next publish
          throw error;
        },
      );
      await this.directoryReady;
      // One append per call: lines from concurrent publishes never interleave mid-line.
      await appendFile(path, events.map((event) => `${JSON.stringify(event)}\n`).join(''), {
        encoding: 'utf8',
        mode: 0o600,
      });
    }
    for (const event of events) this.progressOf(event.id).logged = true;
    if (this.out) this.out.write(inDetectionOrder(events).map(formatEventLine).join(''));
  }
}

/**
 * `2026-11-22T03:00:05.000Z  vehicle.alert.raised  veh-1  #4  evt_…  (occurred 2026-11-22T03:00:00.000Z)`:
 * led by when Carhook detected it, the order lines are printed in (what happened at enrollment can
 * have occurred long before), then the vehicle's sequence and when it occurred.
 */
export const formatEventLine = (event: EventEnvelope): string =>
  `${event.detectedAt}  ${event.type.padEnd(32)} ${(event.vehicle?.id ?? event.enrollment?.id ?? '-').padEnd(20)} #${event.sequence}  ${event.id}  (occurred ${event.occurredAt})\n`;

/** Detection order: by `detectedAt`, then a vehicle's `sequence` (one poll's events share a time). */
export const inDetectionOrder = <E extends Pick<EventEnvelope, 'detectedAt' | 'sequence'>>(
  events: readonly E[],
): E[] =>
  [...events].sort((a, b) => Date.parse(a.detectedAt) - Date.parse(b.detectedAt) || a.sequence - b.sequence);

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));
