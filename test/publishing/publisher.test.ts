import { describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { PUBLISH_LIMITS } from '../../functions/core/publishing/limits';
import type {
  EventBus,
  EventLogMarker,
  PublishFailure,
  UnpublishedEventSource,
} from '../../functions/core/publishing/ports';
import { fromStoreEventLog, publishEvents, publishPending } from '../../functions/core/publishing/publisher';
import { envelope, envelopeOfEntrySize, events } from './fixtures';

/** An event log as the store keeps it: committed events, each published or not. */
class MemoryLog implements EventLogMarker, UnpublishedEventSource {
  readonly entries = new Map<string, { event: EventEnvelope; published: boolean }>();
  commit(events: readonly EventEnvelope[]) {
    for (const event of events) this.entries.set(event.id, { event, published: false });
  }
  async markPublished(events: readonly EventEnvelope[]) {
    for (const event of events) {
      const entry = this.entries.get(event.id);
      if (entry) entry.published = true;
    }
  }
  async listUnpublished({ limit, cursor }: { limit: number; cursor?: string }) {
    const all = [...this.entries.values()].filter((e) => !e.published).map((e) => e.event);
    // Like a DynamoDB cursor: continue after the last id handed out, whether it was marked since or not.
    const order = [...this.entries.keys()];
    const after = cursor === undefined ? -1 : order.indexOf(cursor);
    const rest = all.filter((e) => order.indexOf(e.id) > after);
    const events = rest.slice(0, limit);
    const last = events.at(-1);
    return { events, ...(rest.length > limit && last ? { cursor: last.id } : {}) };
  }
  unpublishedIds() {
    return [...this.entries.values()].filter((e) => !e.published).map((e) => e.event.id);
  }
}

/** A bus that records what subscribers received and fails entries as scripted per call. */
const scriptedBus = (
  script: ((events: readonly EventEnvelope[], call: number) => PublishFailure[] | 'throw')[] = [],
) => {
  const delivered: string[] = [];
  const calls: string[][] = [];
  const bus: EventBus = {
    async publish(batch) {
      calls.push(batch.map((e) => e.id));
      const step = script[calls.length - 1];
      const failures = step ? step(batch, calls.length) : [];
      if (failures === 'throw') throw new Error('process killed');
      const failed = new Set(failures.map((f) => f.id));
      const published = batch.filter((e) => !failed.has(e.id)).map((e) => e.id);
      delivered.push(...published);
      return { published, failed: failures };
    },
  };
  return { bus, delivered, calls };
};

const fail = (id: string, code: string, retryable: boolean): PublishFailure => ({
  id,
  code,
  retryable,
  message: code,
});
const noSleep = async () => {};

describe('publishEvents', () => {
  it('publishes in batches of at most 10 and marks every published event', async () => {
    const log = new MemoryLog();
    const batch = events(25);
    log.commit(batch);
    const { bus, calls } = scriptedBus();
    const outcome = await publishEvents(batch, { bus, marker: log, sleep: noSleep });
    expect(calls.map((c) => c.length)).toEqual([10, 10, 5]);
    expect(outcome.published).toHaveLength(25);
    expect(outcome.unpublished).toEqual([]);
    expect(log.unpublishedIds()).toEqual([]);
  });

  it('keeps batches within the PutEvents byte limit', async () => {
    const { bus, calls } = scriptedBus();
    const big = Array.from({ length: 5 }, (_, i) => envelopeOfEntrySize(`big-${i}`, 100_000));
    await publishEvents(big, { bus, marker: new MemoryLog(), sleep: noSleep });
    expect(calls.map((c) => c.length)).toEqual([2, 2, 1]);
  });

  it('retries only the failed retryable entries, with growing jittered backoff, and marks them once accepted', async () => {
    const log = new MemoryLog();
    const batch = events(4);
    log.commit(batch);
    const sleeps: number[] = [];
    const { bus, calls } = scriptedBus([
      () => [
        fail('evt-1', 'ThrottlingException', true),
        fail('evt-2', 'AccessDeniedException', false),
        fail('evt-3', 'InternalFailure', true),
      ],
      () => [fail('evt-3', 'InternalFailure', true)],
      () => [],
    ]);
    const outcome = await publishEvents(batch, {
      bus,
      marker: log,
      maxAttempts: 5,
      baseDelayMs: 100,
      random: () => 0.5,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    expect(calls).toEqual([['evt-0', 'evt-1', 'evt-2', 'evt-3'], ['evt-1', 'evt-3'], ['evt-3']]);
    expect(sleeps).toEqual([75, 150]);
    expect(outcome.published.sort()).toEqual(['evt-0', 'evt-1', 'evt-3']);
    expect(outcome.unpublished).toEqual([fail('evt-2', 'AccessDeniedException', false)]);
    expect(log.unpublishedIds()).toEqual(['evt-2']);
  });

  it('gives up after maxAttempts, leaving the event unpublished in the log', async () => {
    const log = new MemoryLog();
    const batch = [envelope('stuck')];
    log.commit(batch);
    const always = () => [fail('stuck', 'ThrottlingException', true)];
    const { bus, calls } = scriptedBus([always, always, always, always]);
    const outcome = await publishEvents(batch, { bus, marker: log, maxAttempts: 3, sleep: noSleep });
    expect(calls).toHaveLength(3);
    expect(outcome.unpublished.map((f) => [f.id, f.retryable])).toEqual([['stuck', true]]);
    expect(log.unpublishedIds()).toEqual(['stuck']);
  });

  it('reports an event over 256 KB as a permanent failure and still publishes the rest', async () => {
    const log = new MemoryLog();
    const huge = envelopeOfEntrySize('huge', PUBLISH_LIMITS.maxEntryBytes + 10);
    log.commit([huge, envelope('small')]);
    const { bus, calls } = scriptedBus();
    const outcome = await publishEvents([huge, envelope('small')], { bus, marker: log, sleep: noSleep });
    expect(calls).toEqual([['small']]);
    expect(outcome.unpublished).toEqual([
      expect.objectContaining({
        id: 'huge',
        code: 'EntryTooLarge',
        retryable: false,
        message: expect.stringMatching(/262154 bytes.*262144/),
      }),
    ]);
  });

  it('reports an event that cannot be serialized instead of crashing', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const { bus } = scriptedBus();
    const outcome = await publishEvents([envelope('cyclic', { data: cyclic }), envelope('fine')], {
      bus,
      marker: new MemoryLog(),
      sleep: noSleep,
    });
    expect(outcome.published).toEqual(['fine']);
    expect(outcome.unpublished[0]).toMatchObject({ id: 'cyclic', code: 'Unserializable', retryable: false });
  });

  it('never counts an event the bus did not report as published', async () => {
    const forgetful: EventBus = {
      publish: async (batch) => ({ published: [batch[0]?.id ?? ''], failed: [] }),
    };
    const outcome = await publishEvents(events(2), {
      bus: forgetful,
      marker: new MemoryLog(),
      maxAttempts: 1,
      sleep: noSleep,
    });
    expect(outcome.published).toEqual(['evt-0']);
    expect(outcome.unpublished).toEqual([
      expect.objectContaining({ id: 'evt-1', code: 'NoResult', retryable: true }),
    ]);
  });

  it('does not call again for a call its client already retried: the events wait for the sweeper', async () => {
    const log = new MemoryLog();
    log.commit(events(2));
    let calls = 0;
    const bus = {
      async publish(batch: readonly { id: string }[]) {
        calls += 1;
        return {
          published: [],
          failed: batch.map((e) => ({
            id: e.id,
            retryable: true,
            code: 'ThrottlingException',
            message: 'throttled after the client retries',
            clientRetried: true,
          })),
        };
      },
    };
    const outcome = await publishPending(log, { bus, marker: log, maxAttempts: 5, sleep: noSleep });
    expect(calls).toBe(1);
    expect(outcome.published).toEqual([]);
    expect(outcome.unpublished.map((f) => [f.id, f.code, f.retryable])).toEqual([
      ['evt-0', 'ThrottlingException', true],
      ['evt-1', 'ThrottlingException', true],
    ]);
    expect(log.unpublishedIds()).toEqual(['evt-0', 'evt-1']);
  });

  it('loses nothing when the process dies between commit and publish: the next run publishes', async () => {
    const log = new MemoryLog();
    const committed = events(3);
    log.commit(committed); // the poll's transaction committed state + events

    const dying = scriptedBus([() => 'throw']);
    const first = await publishPending(log, { bus: dying.bus, marker: log, maxAttempts: 1, sleep: noSleep });
    expect(first.published).toEqual([]);
    expect(first.unpublished.every((f) => f.code === 'BusCallFailed' && f.retryable)).toBe(true);
    expect(log.unpublishedIds()).toEqual(['evt-0', 'evt-1', 'evt-2']);

    const healthy = scriptedBus();
    const next = await publishPending(log, { bus: healthy.bus, marker: log, sleep: noSleep });
    expect(next.published).toEqual(['evt-0', 'evt-1', 'evt-2']);
    expect(healthy.delivered).toEqual(['evt-0', 'evt-1', 'evt-2']);
    expect(log.unpublishedIds()).toEqual([]);
  });

  it('when marking fails after the bus accepted, the next run sends the same events again with the same ids', async () => {
    const log = new MemoryLog();
    const committed = events(2);
    log.commit(committed);
    const { bus, delivered } = scriptedBus();
    const brokenMarker: EventLogMarker = {
      markPublished: async () => {
        throw new Error('DynamoDB unavailable');
      },
    };
    const first = await publishEvents(committed, { bus, marker: brokenMarker, sleep: noSleep });
    expect(first.unmarked).toEqual([
      { ids: ['evt-0', 'evt-1'], message: expect.stringMatching(/DynamoDB unavailable/) },
    ]);
    await publishPending(log, { bus, marker: log, sleep: noSleep });
    expect(delivered).toEqual(['evt-0', 'evt-1', 'evt-0', 'evt-1']);
    expect(log.unpublishedIds()).toEqual([]);
  });

  it('never publishes an event that does not match its published schema, and reports why', async () => {
    const { bus } = scriptedBus();
    const log = new MemoryLog();
    const bad = envelope('bad', { data: { subscriptionId: 'sub-1' } });
    const outcome = await publishEvents([bad, envelope('good')], { bus, marker: log, sleep: noSleep });
    expect(outcome.published).toEqual(['good']);
    expect(outcome.unpublished).toMatchObject([{ id: 'bad', retryable: false, code: 'InvalidEvent' }]);
    expect(outcome.unpublished[0]?.message).toContain('message');
  });

  it('publishPending walks the log page by page', async () => {
    const log = new MemoryLog();
    log.commit(events(35));
    const { bus } = scriptedBus();
    const outcome = await publishPending(log, { bus, marker: log, pageSize: 10, sleep: noSleep });
    expect(outcome.published).toHaveLength(35);
    expect(outcome.calls).toBe(4);
  });

  it('publishPending walks past an event that fails for good, so it never blocks the others', async () => {
    const log = new MemoryLog();
    log.commit([envelopeOfEntrySize('poison', PUBLISH_LIMITS.maxEntryBytes + 1), ...events(3)]);
    const { bus } = scriptedBus();
    const outcome = await publishPending(log, { bus, marker: log, pageSize: 1, sleep: noSleep });
    expect(outcome.published).toEqual(['evt-0', 'evt-1', 'evt-2']);
    expect(outcome.unpublished.map((f) => f.id)).toEqual(['poison']);
    expect(log.unpublishedIds()).toEqual(['poison']);
  });

  it('publishPending stops at the first page when the bus is down', async () => {
    const log = new MemoryLog();
    log.commit(events(30));
    const down = scriptedBus(Array.from({ length: 10 }, () => () => 'throw' as const));
    const outcome = await publishPending(log, {
      bus: down.bus,
      marker: log,
      pageSize: 10,
      maxAttempts: 2,
      sleep: noSleep,
    });
    expect(down.calls).toHaveLength(2);
    expect(outcome.unpublished).toHaveLength(10);
  });

  it('fromStoreEventLog adapts the store event log (ids + clock for marking, envelopes and cursor for listing)', async () => {
    const marked: [readonly string[], number][] = [];
    const queries: unknown[] = [];
    const adapted = fromStoreEventLog(
      {
        listUnpublished: async (query) => {
          queries.push(query);
          return { items: [{ envelope: envelope('a') }], cursor: 'next' };
        },
        markPublished: async (ids, now) => {
          marked.push([ids, now]);
        },
      },
      () => 42,
    );
    expect(await adapted.listUnpublished({ limit: 5, cursor: 'c1' })).toEqual({
      events: [envelope('a')],
      cursor: 'next',
    });
    expect(queries).toEqual([{ now: 42, limit: 5, cursor: 'c1' }]);
    await adapted.markPublished([envelope('a'), envelope('b')]);
    expect(marked).toEqual([[['a', 'b'], 42]]);
  });

  it('publishes an event listed twice only once', async () => {
    const { bus, calls } = scriptedBus();
    await publishEvents([envelope('a'), envelope('a')], { bus, marker: new MemoryLog(), sleep: noSleep });
    expect(calls).toEqual([['a']]);
  });
});
